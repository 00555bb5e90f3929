"""The one exceptions module of pagewarden.

Every failure a caller can see is a :class:`PagewardenError` carrying a stable
``code``, a ``retryable`` flag and, for policy decisions, a named ``reason``.
Third-party exceptions (httpx, httpcore, trafilatura, ...) are translated into
this tree at a single boundary per subsystem and never escape raw.

The tree::

    PagewardenError                      code            retryable
    ├── InvalidInput                     INVALID_INPUT   no
    ├── ConfigMissing                    CONFIG_MISSING  no
    ├── UnsafeURL                        UNSAFE_URL      no   (policy rejections only)
    ├── NetworkError                     NETWORK_ERROR   yes  (DNS or connection failure)
    ├── Timeout                          TIMEOUT         yes
    ├── UpstreamHTTP                     UPSTREAM_HTTP   429 and 5xx only
    ├── ResponseTooLarge                 RESPONSE_TOO_LARGE
    ├── UnsupportedContentType           UNSUPPORTED_CONTENT_TYPE
    ├── UnsupportedContentEncoding       UNSUPPORTED_CONTENT_ENCODING
    ├── ContentInsufficient              CONTENT_INSUFFICIENT
    ├── DocumentUnreadable               DOCUMENT_UNREADABLE  (a PDF that cannot be read safely)
    ├── GuardFailed                      GUARD_FAILED
    ├── GuardDenied                      GUARD_DENIED    (guard_decision, warning_categories)
    ├── RateLimited                      RATE_LIMITED    yes  (retry_after)
    ├── BotChallenge                     BOT_CHALLENGE   yes  (retry_after)
    ├── ParseChanged                     PARSE_CHANGED
    └── UnknownError                     UNKNOWN

Messages are written by pagewarden itself and bounded in length. They never
contain a page body, a cookie, a header value or a key; URLs in messages and
in :meth:`PagewardenError.to_dict` are reduced by :func:`redact_url` (no
credentials, no query values, no fragment).
"""

from __future__ import annotations

import enum
import urllib.parse
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

__all__ = [
    "BotChallenge",
    "ConfigMissing",
    "ContentInsufficient",
    "DocumentUnreadable",
    "ErrorCode",
    "GuardDenied",
    "GuardFailed",
    "InvalidInput",
    "NetworkError",
    "PagewardenError",
    "ParseChanged",
    "RateLimited",
    "ResponseTooLarge",
    "Timeout",
    "UnknownError",
    "UnsafeURL",
    "UnsupportedContentEncoding",
    "UnsupportedContentType",
    "UpstreamHTTP",
    "error_for_code",
    "redact_url",
]

MAX_MESSAGE_CHARS = 400
MAX_REASON_CHARS = 80
MAX_URL_CHARS = 200
MAX_CATEGORIES = 16


class ErrorCode(enum.StrEnum):
    """Stable error codes. Their spelling is part of the public contract."""

    INVALID_INPUT = "INVALID_INPUT"
    CONFIG_MISSING = "CONFIG_MISSING"
    UNSAFE_URL = "UNSAFE_URL"
    NETWORK_ERROR = "NETWORK_ERROR"
    TIMEOUT = "TIMEOUT"
    UPSTREAM_HTTP = "UPSTREAM_HTTP"
    RESPONSE_TOO_LARGE = "RESPONSE_TOO_LARGE"
    UNSUPPORTED_CONTENT_TYPE = "UNSUPPORTED_CONTENT_TYPE"
    UNSUPPORTED_CONTENT_ENCODING = "UNSUPPORTED_CONTENT_ENCODING"
    CONTENT_INSUFFICIENT = "CONTENT_INSUFFICIENT"
    DOCUMENT_UNREADABLE = "DOCUMENT_UNREADABLE"
    GUARD_FAILED = "GUARD_FAILED"
    GUARD_DENIED = "GUARD_DENIED"
    RATE_LIMITED = "RATE_LIMITED"
    BOT_CHALLENGE = "BOT_CHALLENGE"
    PARSE_CHANGED = "PARSE_CHANGED"
    UNKNOWN = "UNKNOWN"


def _bounded(text: str, limit: int) -> str:
    # Control characters would let a crafted value forge extra log lines.
    cleaned = "".join(ch if ch.isprintable() else " " for ch in text)
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 1] + "…"


def redact_url(url: str | None) -> str | None:
    """Return ``url`` reduced to what is safe to print.

    Credentials and the fragment are dropped, query values are replaced by
    ``…`` (keys stay, they help debugging), and the result is bounded.
    """
    if url is None:
        return None
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return "<unparsable url>"
    host = parts.hostname or ""
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = f"[{host}]" if ":" in host else host
    if port is not None:
        netloc += f":{port}"
    query = ""
    if parts.query:
        keys = [pair.split("=", 1)[0] for pair in parts.query.split("&") if pair]
        query = "?" + "&".join(f"{key[:40]}=…" for key in keys[:10])
    redacted = urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, "", "")) + query
    return _bounded(redacted, MAX_URL_CHARS)


class PagewardenError(Exception):
    """Base of every pagewarden failure.

    Attributes:
        code: the stable :class:`ErrorCode`.
        retryable: whether repeating the same call later can succeed.
        reason: a short snake_case verdict naming the rule that decided
            (for example ``private_address_10_8``), or ``None``.
        url: the redacted URL the failure concerns, if any.
        stage: where it happened (``intake``, ``dns``, ``connect``, ``http``,
            ``decode``, ``guard``, ``extract``, ...), if known.
        status: the upstream HTTP status, if any.
        retry_after: seconds to wait before retrying, if known.
        guard_decision: for guard outcomes, ``require_approval`` or ``deny``.
        warning_categories: for guard outcomes, the non-benign finding categories.
    """

    code: ClassVar[ErrorCode] = ErrorCode.UNKNOWN
    default_retryable: ClassVar[bool] = False

    def __init__(
        self,
        message: str,
        *,
        reason: str | None = None,
        retryable: bool | None = None,
        url: str | None = None,
        stage: str | None = None,
        status: int | None = None,
        retry_after: float | None = None,
        guard_decision: str | None = None,
        warning_categories: Iterable[str] = (),
    ) -> None:
        self.message = _bounded(message, MAX_MESSAGE_CHARS)
        self.reason = _bounded(reason, MAX_REASON_CHARS) if reason else None
        self.retryable = self.default_retryable if retryable is None else retryable
        self.url = redact_url(url)
        self.stage = stage
        self.status = status
        self.retry_after = retry_after
        self.guard_decision = guard_decision
        self.warning_categories: tuple[str, ...] = tuple(
            dict.fromkeys(_bounded(c, MAX_REASON_CHARS) for c in warning_categories)
        )[:MAX_CATEGORIES]
        super().__init__(self.message)

    def __str__(self) -> str:
        suffix = f" [{self.reason}]" if self.reason else ""
        return f"{self.code}: {self.message}{suffix}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!s}, reason={self.reason!r}, message={self.message!r})"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view holding only bounded, non-secret fields."""
        data: dict[str, Any] = {
            "code": str(self.code),
            "message": self.message,
            "retryable": self.retryable,
        }
        optional: Mapping[str, Any] = {
            "reason": self.reason,
            "url": self.url,
            "stage": self.stage,
            "status": self.status,
            "retry_after": self.retry_after,
            "guard_decision": self.guard_decision,
        }
        data.update({key: value for key, value in optional.items() if value is not None})
        if self.warning_categories:
            data["warning_categories"] = list(self.warning_categories)
        return data


class InvalidInput(PagewardenError):
    """Bad call arguments or configuration values."""

    code = ErrorCode.INVALID_INPUT


class ConfigMissing(PagewardenError):
    """Something the call needs is not configured or not available (closed reader, no browser...)."""

    code = ErrorCode.CONFIG_MISSING


class UnsafeURL(PagewardenError):
    """The destination was refused by policy. ``reason`` names the rule; never bypass it."""

    code = ErrorCode.UNSAFE_URL


class NetworkError(PagewardenError):
    """DNS resolution or the connection failed."""

    code = ErrorCode.NETWORK_ERROR
    default_retryable = True


class Timeout(PagewardenError):
    """The operation's deadline elapsed."""

    code = ErrorCode.TIMEOUT
    default_retryable = True


class UpstreamHTTP(PagewardenError):
    """The server answered with an unusable status or broke the protocol."""

    code = ErrorCode.UPSTREAM_HTTP


class ResponseTooLarge(PagewardenError):
    """A size limit (body, decoded body, headers, structure) was exceeded."""

    code = ErrorCode.RESPONSE_TOO_LARGE


class UnsupportedContentType(PagewardenError):
    """The media type is missing or not in the allowed set."""

    code = ErrorCode.UNSUPPORTED_CONTENT_TYPE


class UnsupportedContentEncoding(PagewardenError):
    """Unknown Content-Encoding or charset, or bytes invalid in the charset."""

    code = ErrorCode.UNSUPPORTED_CONTENT_ENCODING


class ContentInsufficient(PagewardenError):
    """Too little readable content; the trigger for browser escalation.

    ``page_links``: when the guard had passed the page before its content was
    found too short, the links of the whole page (a ``PageLinks``), so that a
    crawl can still follow a page of links; ``None`` otherwise. Never part of
    :meth:`to_dict` or the message.
    """

    code = ErrorCode.CONTENT_INSUFFICIENT
    page_links: Any = None


class DocumentUnreadable(PagewardenError):
    """A document (a PDF) cannot be read safely: encrypted with a password,
    malformed, or its parser crossed a memory or CPU limit (``reason`` says which)."""

    code = ErrorCode.DOCUMENT_UNREADABLE


class GuardFailed(PagewardenError):
    """A guard could not reach a verdict (raised, timed out, returned garbage)."""

    code = ErrorCode.GUARD_FAILED


class GuardDenied(PagewardenError):
    """The guard withheld the content (``require_approval`` or ``deny``)."""

    code = ErrorCode.GUARD_DENIED


class RateLimited(PagewardenError):
    """A provider or local queue refused for now; see ``retry_after``."""

    code = ErrorCode.RATE_LIMITED
    default_retryable = True


class BotChallenge(PagewardenError):
    """A provider answered with a challenge page instead of results."""

    code = ErrorCode.BOT_CHALLENGE
    default_retryable = True


class ParseChanged(PagewardenError):
    """A provider's answer no longer has the expected shape."""

    code = ErrorCode.PARSE_CHANGED


class UnknownError(PagewardenError):
    """Anything not otherwise classified."""

    code = ErrorCode.UNKNOWN


_BY_CODE: dict[ErrorCode, type[PagewardenError]] = {
    cls.code: cls
    for cls in (
        InvalidInput, ConfigMissing, UnsafeURL, NetworkError, Timeout, UpstreamHTTP,
        ResponseTooLarge, UnsupportedContentType, UnsupportedContentEncoding,
        ContentInsufficient, DocumentUnreadable, GuardFailed, GuardDenied, RateLimited, BotChallenge,
        ParseChanged, UnknownError,
    )
}


def error_for_code(code: ErrorCode | str) -> type[PagewardenError]:
    """The exception class raised for ``code``."""
    return _BY_CODE[ErrorCode(code)]
