"""What the JSON search providers (Brave, SearXNG) share: one bounded GET and its error vocabulary.

:func:`get_json` spends the provider's own timeout or what is left of the
search deadline, whichever is shorter, and turns every non-200 answer into a
typed error (:func:`status_error`); :func:`json_payload` checks the media type
and decodes the body, and :func:`changed` is the error for an answer of an
unexpected shape. Messages name the provider (bounded), never the key or the body.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import anyio

from .._config import ReaderConfig
from .._errors import PagewardenError, ParseChanged, RateLimited, Timeout, UpstreamHTTP
from .cooldown import parse_retry_after
from .http import ApiResponse, api_get

__all__ = ["changed", "get_json", "json_payload", "status_error"]

_MAX_NAME_CHARS = 60


def changed(name: str, what: str) -> ParseChanged:
    """The provider answered something of an unexpected shape (retryable: the next answer may be fine)."""
    return ParseChanged(f"search provider {name[:_MAX_NAME_CHARS]} answered {what}", reason="unexpected_response",
                        retryable=True, stage="search")


def status_error(name: str, response: ApiResponse, refusals: Mapping[int, tuple[str, str]]) -> PagewardenError:
    """The typed error for a non-200 answer.

    ``refusals`` maps a status the provider gives a meaning (a rejected key, a
    disabled format) to ``(what it means, reason)``: not retryable.
    """
    status = response.status
    label = name[:_MAX_NAME_CHARS]
    if status == 429:
        return RateLimited(f"search provider {label} is rate limiting", reason="http_429", status=status,
                           retry_after=parse_retry_after(response.header("retry-after")), stage="search")
    if status in refusals:
        meaning, reason = refusals[status]
        return UpstreamHTTP(f"search provider {label} {meaning}", reason=reason, status=status, retryable=False,
                            stage="search")
    if 300 <= status < 400:
        return UpstreamHTTP(f"search provider {label} answered with a redirect", reason="unexpected_redirect",
                            status=status, retryable=False, stage="search")
    return UpstreamHTTP(f"search provider {label} answered HTTP {status}", reason=f"http_{status}", status=status,
                        retryable=status >= 500, stage="search")


def json_payload(name: str, response: ApiResponse) -> Any:
    """The decoded JSON body (any JSON media type), or :func:`changed`."""
    media = (response.header("content-type") or "").split(";")[0].strip().lower()
    if media != "application/json" and not media.endswith("+json"):
        raise changed(name, "something that is not JSON")
    try:
        return json.loads(response.body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise changed(name, "malformed JSON") from None


async def get_json(
    name: str,
    url: str,
    *,
    headers: Sequence[tuple[str, str]],
    config: ReaderConfig,
    timeout: float,
    max_bytes: int,
    deadline: float,
    refusals: Mapping[int, tuple[str, str]],
) -> ApiResponse:
    """GET ``url`` within ``timeout`` and the search ``deadline``; a 200 answer, or its typed error."""
    left = min(timeout, deadline - anyio.current_time())
    if left <= 0:
        raise Timeout("no time left for the search", reason="provider_timeout", stage="search")
    try:
        with anyio.fail_after(left):
            response = await api_get(url, headers=headers, config=config, max_bytes=max_bytes)
    except TimeoutError:
        raise Timeout(f"search provider {name[:_MAX_NAME_CHARS]} timed out", reason="provider_timeout",
                      stage="search") from None
    if response.status != 200:
        raise status_error(name, response, refusals)
    return response
