"""The reader's configuration (:class:`ReaderConfig`), its vocabularies and the per-call checks.

Every value is checked once, when the object is built; afterwards the reader
trusts it. There is no process-wide mutable policy: two readers with different
configs never influence each other.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, get_args

from .._browser_config import BrowserConfig
from .._errors import InvalidInput
from .._protocols import ContentGuard, Resolver
from .._store.config import ReadStoreConfig
from .._upstream_proxy import UpstreamProxy, check_search_egress, parse_proxy
from .destinations import AllowedDestination, parse_allowed_destination
from .limits import CacheConfig, Limits, check_int, check_seconds

if TYPE_CHECKING:
    from .._search_types import SearchProvider

__all__ = [
    "DEFAULT_CONTENT_TYPES",
    "DEFAULT_GUARD_TIMEOUT",
    "GUARD_PROFILES",
    "RENDER_MODES",
    "REQUESTED_USES",
    "GuardProfile",
    "OnGuard",
    "ReaderConfig",
    "RenderMode",
    "RequestedUse",
    "check_choice",
    "check_guard_timeout",
    "check_guards",
    "check_max_characters",
    "check_search_provider",
    "check_timeout",
]

RenderMode = Literal["auto", "never", "always"]
RequestedUse = Literal[
    "summarize", "answer_with_citation", "extract_facts", "search_more", "call_readonly_tool"
]
GuardProfile = Literal["balanced", "strict"]
OnGuard = Literal["raise", "redact", "return"]

RENDER_MODES: tuple[str, ...] = get_args(RenderMode)
REQUESTED_USES: tuple[str, ...] = get_args(RequestedUse)
GUARD_PROFILES: tuple[str, ...] = get_args(GuardProfile)
ON_GUARD_MODES: tuple[str, ...] = get_args(OnGuard)
DEFAULT_GUARD_TIMEOUT = 5.0
MAX_GUARD_TIMEOUT = 120.0
MAX_GUARDS = 16
_GUARD_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")

DEFAULT_CONTENT_TYPES: frozenset[str] = frozenset(
    {"text/html", "application/xhtml+xml", "text/plain", "text/markdown", "application/pdf"}
)
# Types the extractor knows how to read; configuring anything else would only
# move the failure from intake to extraction.
READABLE_CONTENT_TYPES = DEFAULT_CONTENT_TYPES

DEFAULT_SEARCH_TIMEOUT = 10.0
_MAX_PROVIDER_NAME_CHARS = 100
_MEDIA_TYPE = re.compile(r"^[a-z0-9!#$&^_.+-]{1,64}/[a-z0-9!#$&^_.+-]{1,64}$")


def check_guards(guards: object) -> tuple[ContentGuard, ...]:
    """Validate a collection of extra guards: each has a valid, unique ``name`` and a callable ``inspect``."""
    if isinstance(guards, str | bytes) or not isinstance(guards, Iterable):
        raise InvalidInput("guards must be a sequence of content guards", reason="invalid_guards")
    checked = tuple(guards)
    if len(checked) > MAX_GUARDS:
        raise InvalidInput(f"at most {MAX_GUARDS} extra guards", reason="invalid_guards")
    names: set[str] = set()
    for guard in checked:
        name = getattr(guard, "name", None)
        if not isinstance(name, str) or not _GUARD_NAME.match(name):
            raise InvalidInput(
                "every guard needs a name of 1..64 characters from A-Z a-z 0-9 _ . -", reason="invalid_guard_name"
            )
        if name in names:
            raise InvalidInput("guard names must be unique: " + name, reason="duplicate_guard_name")
        names.add(name)
        if not callable(getattr(guard, "inspect", None)):
            raise InvalidInput(f"guard {name} has no async inspect(request) method", reason="invalid_guard")
    return checked


def check_search_provider(provider: object) -> SearchProvider | None:
    """Validate a search provider: ``None``, or an object with a short ``name`` and an async ``search``."""
    if provider is None:
        return None
    name = getattr(provider, "name", None)
    # The same rule as the search package applies when it calls the provider.
    if not isinstance(name, str) or not 0 < len(name) <= _MAX_PROVIDER_NAME_CHARS or not name.isprintable():
        raise InvalidInput(
            f"a search provider needs a printable name of 1..{_MAX_PROVIDER_NAME_CHARS} characters",
            reason="invalid_search_provider",
        )
    if not callable(getattr(provider, "search", None)):
        raise InvalidInput(f"search provider {name} has no async search(query, deadline=...) method",
                           reason="invalid_search_provider")
    return provider  # type: ignore[return-value]  # checked structurally above


def check_guard_timeout(value: object) -> float:
    """Validate an extra guard's deadline in seconds."""
    return check_seconds("guard_timeout", value, MAX_GUARD_TIMEOUT)


def _default_user_agent() -> str:
    from .._version import __version__

    return f"pagewarden/{__version__}"


@dataclass(frozen=True, slots=True)
class ReaderConfig:
    """Everything a reader needs, validated once.

    Attributes:
        timeout: default deadline of one read in seconds (DNS, connect,
            redirects, body and extraction together).
        limits: size and count limits, see :class:`Limits`.
        allowed_content_types: media types accepted from servers.
        resolver: DNS resolver; ``None`` uses the operating system's.
        unsafe_allow_destinations: ``ip:port``, ``host:port`` or CIDR entries
            that may be reached although private or on a non-standard port.
            The only way to reach a loopback test server. Never derive these
            from untrusted input.
        unsafe_allow_sensitive_query: send URLs whose query looks like it
            carries a secret or personal data (refused by default).
        user_agent: the User-Agent header.
        guard_profile: ``balanced`` or ``strict``.
        default_render: the render mode used when a call does not give one.
        max_characters: default cap on returned Markdown characters.
        guards: extra :class:`ContentGuard` objects run after the built-in
            guard on the same segments; they can only make the decision stricter.
        guard_timeout: deadline of each extra guard in seconds (the read's
            own deadline applies too); overrunning it is ``GUARD_FAILED``.
        on_guard: what a read does with a withholding decision
            (``require_approval`` or ``deny``), for trusted application code:
            ``"raise"`` (default) raises ``GUARD_DENIED`` and returns nothing;
            ``"redact"`` returns the document with every Markdown block (and
            text line) in which the built-in rules match replaced by a
            ``[withheld by pagewarden: <category>]`` marker, and still raises
            when the decision came from something it cannot locate (an extra
            guard, a truncated inspection); ``"return"`` returns the content
            unmodified. In every mode the decision and findings stay on
            ``Document.security``. Model-facing tools always use ``"raise"``.
        browser: how the browser pool runs Chromium for ``render="auto"``
            and ``"always"`` (:class:`BrowserConfig`); nothing is launched
            until a read needs it.
        search: the web search provider used by ``search()`` and
            ``search_and_read()`` (for example ``ddgs()``); ``None`` makes
            them raise ``CONFIG_MISSING``.
        search_timeout: default deadline of one search in seconds, for the
            whole provider chain.
        cache: the in-memory result cache, see :class:`CacheConfig`.
        proxy: an upstream proxy every connection goes through, static reads,
            search APIs and the browser alike (``http://``, ``https://`` or
            ``socks5://``, credentials as ``user:password@``); names are still
            resolved and checked here and the proxy is asked for the validated
            address. Never taken from the environment. A built-in search
            provider must use the same proxy (``search_bypasses_proxy``
            otherwise). See docs/egress.md.
        unsafe_proxy_remote_dns: let the proxy resolve names (``socks5h://``,
            ``.onion`` over Tor): the address policy then sees only names and
            IP literals, and every Document records that limitation.
        read_store: the store of pages read, searchable offline
            (``reader.store``), see :class:`ReadStoreConfig`.
    """

    timeout: float = 15.0
    limits: Limits = field(default_factory=Limits)
    allowed_content_types: frozenset[str] = DEFAULT_CONTENT_TYPES
    resolver: Resolver | None = None
    unsafe_allow_destinations: tuple[str, ...] = ()
    unsafe_allow_sensitive_query: bool = False
    user_agent: str = field(default_factory=_default_user_agent)
    guard_profile: GuardProfile = "balanced"
    default_render: RenderMode = "auto"
    max_characters: int = 20_000
    guards: tuple[ContentGuard, ...] = ()
    guard_timeout: float = DEFAULT_GUARD_TIMEOUT
    on_guard: OnGuard = "raise"
    browser: BrowserConfig = field(default_factory=BrowserConfig)
    search: SearchProvider | None = None
    search_timeout: float = DEFAULT_SEARCH_TIMEOUT
    cache: CacheConfig = field(default_factory=CacheConfig)
    proxy: str | None = field(default=None, repr=False)
    unsafe_proxy_remote_dns: bool = False
    read_store: ReadStoreConfig = field(default_factory=ReadStoreConfig)
    allowed_destinations: tuple[AllowedDestination, ...] = field(init=False, repr=False, compare=False)
    upstream_proxy: UpstreamProxy | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "timeout", check_seconds("timeout", self.timeout))
        if not isinstance(self.limits, Limits):
            raise InvalidInput("limits must be a pagewarden.Limits", reason="invalid_limits")
        types = self.allowed_content_types
        if isinstance(types, str) or not isinstance(types, Iterable):
            raise InvalidInput("allowed_content_types must be a set of media types", reason="invalid_content_types")
        normalized = frozenset(str(t).strip().lower() for t in types)
        if not normalized or not all(_MEDIA_TYPE.match(t) for t in normalized):
            raise InvalidInput("allowed_content_types must be non-empty media types", reason="invalid_content_types")
        if not normalized <= READABLE_CONTENT_TYPES:
            raise InvalidInput(
                "allowed_content_types may only contain " + ", ".join(sorted(READABLE_CONTENT_TYPES)),
                reason="invalid_content_types",
            )
        object.__setattr__(self, "allowed_content_types", normalized)
        if self.resolver is not None and not callable(getattr(self.resolver, "resolve", None)):
            raise InvalidInput("resolver must have an async resolve(host) method", reason="invalid_resolver")
        entries = self.unsafe_allow_destinations
        if isinstance(entries, str) or not isinstance(entries, Iterable):
            raise InvalidInput("unsafe_allow_destinations must be a list of strings", reason="invalid_destination")
        entries = tuple(entries)
        if len(entries) > 256:
            raise InvalidInput("at most 256 allowed destinations", reason="invalid_destination")
        object.__setattr__(self, "unsafe_allow_destinations", entries)
        object.__setattr__(self, "allowed_destinations", tuple(parse_allowed_destination(e) for e in entries))
        if not isinstance(self.unsafe_allow_sensitive_query, bool):
            raise InvalidInput("unsafe_allow_sensitive_query must be a bool", reason="invalid_option")
        ua = self.user_agent
        if not isinstance(ua, str) or not 0 < len(ua) <= 512 or not ua.isprintable():
            raise InvalidInput("user_agent must be 1..512 printable characters", reason="invalid_user_agent")
        if self.guard_profile not in GUARD_PROFILES:
            raise InvalidInput("guard_profile must be balanced or strict", reason="invalid_profile")
        if self.default_render not in RENDER_MODES:
            raise InvalidInput("default_render must be auto, never or always", reason="invalid_render")
        check_int("max_characters", self.max_characters, 200, 100_000)
        object.__setattr__(self, "guards", check_guards(self.guards))
        object.__setattr__(self, "guard_timeout", check_guard_timeout(self.guard_timeout))
        if self.on_guard not in ON_GUARD_MODES:
            raise InvalidInput("on_guard must be raise, redact or return", reason="invalid_on_guard")
        if not isinstance(self.browser, BrowserConfig):
            raise InvalidInput("browser must be a pagewarden.BrowserConfig", reason="invalid_browser_config")
        object.__setattr__(self, "search", check_search_provider(self.search))
        object.__setattr__(self, "search_timeout", check_seconds("search_timeout", self.search_timeout))
        if not isinstance(self.cache, CacheConfig):
            raise InvalidInput("cache must be a pagewarden.CacheConfig", reason="invalid_cache_config")
        self._check_proxy_and_store()

    def _check_proxy_and_store(self) -> None:
        if not isinstance(self.unsafe_proxy_remote_dns, bool):
            raise InvalidInput("unsafe_proxy_remote_dns must be a bool", reason="invalid_option")
        upstream = None
        if self.proxy is not None:
            upstream = parse_proxy(self.proxy, unsafe_remote_dns=self.unsafe_proxy_remote_dns)
        elif self.unsafe_proxy_remote_dns:
            raise InvalidInput("unsafe_proxy_remote_dns needs a proxy", reason="invalid_option")
        object.__setattr__(self, "upstream_proxy", upstream)
        check_search_egress(self.search, upstream)
        if not isinstance(self.read_store, ReadStoreConfig):
            raise InvalidInput("read_store must be a pagewarden.ReadStoreConfig", reason="invalid_store_config")

    def replace(self, **changes: Any) -> ReaderConfig:
        """A copy with ``changes`` applied and validated; unknown names are ``INVALID_INPUT``."""
        names = {f.name for f in dataclasses.fields(self) if f.init}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise InvalidInput("unknown reader option: " + ", ".join(unknown)[:200], reason="unknown_option")
        return dataclasses.replace(self, **changes)


def check_timeout(value: object) -> float:
    """Validate a per-call timeout in seconds."""
    return check_seconds("timeout", value)


def check_max_characters(value: object) -> int:
    """Validate a per-call ``max_characters``."""
    return check_int("max_characters", value, 200, 100_000)


def check_choice(name: str, value: object, choices: tuple[str, ...]) -> str:
    """Validate an enumerated string argument."""
    if not isinstance(value, str) or value not in choices:
        raise InvalidInput(f"{name} must be one of: " + ", ".join(choices), reason=f"invalid_{name}")
    return value
