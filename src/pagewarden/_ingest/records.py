"""One output record per input line: documents, failures, and input-line parsing.

These functions are the unit of work shared by ``pagewarden ingest`` (one
machine) and the Ray integration (many actors): :func:`read_record` reads one
URL and always returns a JSON-ready dict, never raising a
:class:`~pagewarden.PagewardenError`.

Record shapes (one JSON object per output line):

* success: the Document's public fields (:meth:`Document.to_dict`), then the
  input's pass-through fields that do not collide with them, then
  ``"ok": true``.
* failure: ``url``, ``code``, ``reason``, ``retryable``, ``message``, the
  pass-through fields that do not collide, and ``"ok": false``; a
  ``CONTENT_INSUFFICIENT`` failure of a page the guard passed also carries
  ``page_links`` (a crawl follows them).

A URL that robots.txt forbids is a failure with code ``UNSAFE_URL`` and reason
``robots_disallowed`` (or ``robots_unavailable`` when robots.txt could not be
read, see :mod:`pagewarden._ingest.robots_cache`): the error codes are a fixed
public set, and "this site's policy forbids fetching it" is a policy refusal.

An input line that cannot be understood (invalid JSON, no ``url`` string)
still yields exactly one output line: :func:`parse_input_line` returns it with
the :data:`INPUT_ERROR_FIELD` marker and :func:`read_record` turns that into an
``INVALID_INPUT`` failure whose ``url`` is the (bounded) raw line, so that
``--resume`` recognises it too.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._document import Document
from .._errors import InvalidInput, PagewardenError, UnknownError

if TYPE_CHECKING:
    from .protocol import PageReader
    from .robots_cache import RobotsCache

__all__ = [
    "INPUT_ERROR_FIELD",
    "MAX_RAW_LINE_CHARS",
    "document_record",
    "failure_record",
    "parse_input_line",
    "read_record",
]

INPUT_ERROR_FIELD = "_pagewarden_input_error"
MAX_RAW_LINE_CHARS = 2_048


def _merge(ours: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    # Pass-through fields come after ours and never replace them: a caller's
    # "markdown" or "ok" column must not be able to forge the reader's output.
    for key, value in extra.items():
        if key not in ours and key != INPUT_ERROR_FIELD:
            ours[key] = value
    return ours


def document_record(document: Document, extra: Mapping[str, Any]) -> dict[str, Any]:
    """The output record of a document: its public fields, pass-through fields, ``"ok": True``."""
    record = document.to_dict()
    record["ok"] = True
    return _merge(record, extra)


def failure_record(url: str, error: PagewardenError, extra: Mapping[str, Any]) -> dict[str, Any]:
    """The output record of a failed read: ``url``, ``code``, ``reason``, ``retryable``, ``message``."""
    record: dict[str, Any] = {
        "url": url,
        "code": str(error.code),
        "reason": error.reason,
        "retryable": error.retryable,
        "message": error.message,
        "ok": False,
    }
    links = getattr(error, "page_links", None)
    if links is not None and callable(getattr(links, "to_dict", None)):
        # A page found too short after the guard passed it: its links, for a crawl.
        record["page_links"] = links.to_dict()
    return _merge(record, extra)


async def read_record(
    reader: PageReader,
    url: str,
    extra: Mapping[str, Any],
    *,
    render: str,
    robots: RobotsCache | None = None,
    max_characters: int | None = None,
    timeout: float | None = None,
    requested_use: str = "answer_with_citation",
) -> dict[str, Any]:
    """Read ``url`` into a record; never raises :class:`PagewardenError` (cancellation passes through).

    ``render``, ``max_characters``, ``timeout`` and ``requested_use`` go to
    :meth:`AsyncReader.read`. With ``robots`` the URL is checked against the host's robots.txt first.
    An input line marked by :func:`parse_input_line` as malformed becomes an
    ``INVALID_INPUT`` failure without any network access.
    """
    marker = extra.get(INPUT_ERROR_FIELD)
    if marker is not None:
        return failure_record(url, InvalidInput("the input line is not usable", reason=str(marker)), extra)
    try:
        if robots is not None:
            await robots.check(url)
        document = await reader.read(
            url, render=render, max_characters=max_characters, timeout=timeout, requested_use=requested_use
        )
    except PagewardenError as error:
        return failure_record(url, error, extra)
    except Exception:
        # One page's bug must not end a batch of thousands; Exception, not
        # BaseException, so cancellation (Ctrl-C, a deadline) still stops the run.
        unexpected = UnknownError("unexpected error while reading the page", reason="unexpected_error", url=url)
        return failure_record(url, unexpected, extra)
    return document_record(document, extra)


def parse_input_line(line: str) -> tuple[str, dict[str, Any]] | None:
    """Parse one input line into ``(url, pass_through_fields)``.

    A line starting with ``{`` is JSONL: an object with a ``url`` string; its
    other fields pass through to the output record. Any other line is a URL.
    Blank lines and ``#`` comments give ``None``. A malformed line gives
    ``(raw_line, {INPUT_ERROR_FIELD: reason})`` (see the module docstring).
    """
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    if not text.startswith("{"):
        return text, {}
    raw = text[:MAX_RAW_LINE_CHARS]
    try:
        value = json.loads(text)
    except ValueError:
        return raw, {INPUT_ERROR_FIELD: "invalid_json_line"}
    if not isinstance(value, dict):
        return raw, {INPUT_ERROR_FIELD: "invalid_json_line"}
    url = value.get("url")
    if not isinstance(url, str) or not url.strip():
        return raw, {INPUT_ERROR_FIELD: "missing_url_field"}
    extra = {key: item for key, item in value.items() if key != "url"}
    return url.strip(), extra
