"""pagewarden: read the web for LLM applications without being hijacked by it.

``read(url)`` fetches a public page over an SSRF-safe transport, runs the
context guard over everything the page holds (hidden parts included) and
returns clean, citable Markdown as a :class:`Document`. Every name users need
is importable from this namespace; the ``_``-prefixed modules are private.
"""

__version__ = "0.1.0"

from ._config import Limits, ReaderConfig
from ._document import Document, FetchInfo, Metadata, SecurityReport, Timings
from ._errors import (
    BotChallenge,
    ConfigMissing,
    ContentInsufficient,
    ErrorCode,
    GuardDenied,
    GuardFailed,
    InvalidInput,
    NetworkError,
    PagewardenError,
    ParseChanged,
    RateLimited,
    ResponseTooLarge,
    Timeout,
    UnknownError,
    UnsafeURL,
    UnsupportedContentEncoding,
    UnsupportedContentType,
    UpstreamHTTP,
)
from ._guard.report import Decision, Finding, GuardReport, Location, Severity
from ._protocols import Resolver
from ._reader import AsyncReader
from ._sync import Reader, read

__all__ = [
    "AsyncReader",
    "BotChallenge",
    "ConfigMissing",
    "ContentInsufficient",
    "Decision",
    "Document",
    "ErrorCode",
    "FetchInfo",
    "Finding",
    "GuardDenied",
    "GuardFailed",
    "GuardReport",
    "InvalidInput",
    "Limits",
    "Location",
    "Metadata",
    "NetworkError",
    "PagewardenError",
    "ParseChanged",
    "RateLimited",
    "Reader",
    "ReaderConfig",
    "Resolver",
    "ResponseTooLarge",
    "SecurityReport",
    "Severity",
    "Timeout",
    "Timings",
    "UnknownError",
    "UnsafeURL",
    "UnsupportedContentEncoding",
    "UnsupportedContentType",
    "UpstreamHTTP",
    "__version__",
    "read",
]
