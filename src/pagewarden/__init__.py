"""pagewarden: read the web for LLM applications without being hijacked by it.

``read(url)`` fetches a public page over an SSRF-safe transport, runs the
context guard over everything the page holds (hidden parts included) and
returns clean, citable Markdown as a :class:`Document`. Every name users need
is importable from this namespace; the ``_``-prefixed modules are private.
"""

from ._browser_config import BrowserConfig
from ._config import CacheConfig, Limits, ReaderConfig
from ._crawl.api import CrawlPage, CrawlRun
from ._document import Document, FetchInfo, Metadata, PageLinks, SecurityReport, Timings
from ._errors import (
    BotChallenge,
    ConfigMissing,
    ContentInsufficient,
    DocumentUnreadable,
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
from ._guard import guard_html, guard_text
from ._guard.extra import (
    REFERENCE_CLASSIFIER_PROMPT,
    aguard_html,
    aguard_text,
    llm_classifier_guard,
    parse_classifier_verdict,
)
from ._protocols import ContentGuard, GuardRequest, GuardSegment, Resolver
from ._reader import AsyncReader
from ._report import Decision, Finding, GuardReport, Location, Severity
from ._safe import fence
from ._search import (
    ProviderFailure,
    RawHit,
    SearchHit,
    SearchProvider,
    SearchQuery,
    SearchResults,
    brave,
    custom,
    ddgs,
    fallback,
    fused,
    searxng,
)
from ._search.search_and_read import ReadFailure, SearchAndReadResult
from ._store import ReadStoreConfig
from ._store.store import ReadStore, StoredHit
from ._sync import Reader, read
from ._tools import SyncToolset, ToolBudget, Toolset
from ._tools.canary import CanaryCheck
from ._version import __version__

__all__ = [
    "REFERENCE_CLASSIFIER_PROMPT",
    "AsyncReader",
    "BotChallenge",
    "BrowserConfig",
    "CacheConfig",
    "CanaryCheck",
    "ConfigMissing",
    "ContentGuard",
    "ContentInsufficient",
    "CrawlPage",
    "CrawlRun",
    "Decision",
    "Document",
    "DocumentUnreadable",
    "ErrorCode",
    "FetchInfo",
    "Finding",
    "GuardDenied",
    "GuardFailed",
    "GuardReport",
    "GuardRequest",
    "GuardSegment",
    "InvalidInput",
    "Limits",
    "Location",
    "Metadata",
    "NetworkError",
    "PageLinks",
    "PagewardenError",
    "ParseChanged",
    "ProviderFailure",
    "RateLimited",
    "RawHit",
    "ReadFailure",
    "ReadStore",
    "ReadStoreConfig",
    "Reader",
    "ReaderConfig",
    "Resolver",
    "ResponseTooLarge",
    "SearchAndReadResult",
    "SearchHit",
    "SearchProvider",
    "SearchQuery",
    "SearchResults",
    "SecurityReport",
    "Severity",
    "StoredHit",
    "SyncToolset",
    "Timeout",
    "Timings",
    "ToolBudget",
    "Toolset",
    "UnknownError",
    "UnsafeURL",
    "UnsupportedContentEncoding",
    "UnsupportedContentType",
    "UpstreamHTTP",
    "__version__",
    "aguard_html",
    "aguard_text",
    "brave",
    "custom",
    "ddgs",
    "fallback",
    "fence",
    "fused",
    "guard_html",
    "guard_text",
    "llm_classifier_guard",
    "parse_classifier_verdict",
    "read",
    "searxng",
]
