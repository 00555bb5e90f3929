"""Configuration of ``pagewarden mcp``: flags, ``PAGEWARDEN_*`` environment variables, and the reader they build.

A flag wins over its environment variable, which wins over the default. The
Brave API key is read from ``PAGEWARDEN_BRAVE_API_KEY`` only (a flag would
put it in process listings and client config files). The one escape hatch,
``--unsafe-allow-destination``, is a flag only: an environment variable
could switch it on unnoticed.

=============================  ==========================  =====================
flag                           environment variable        default
=============================  ==========================  =====================
``--render``                   ``PAGEWARDEN_RENDER``       ``auto``
``--profile``                  ``PAGEWARDEN_PROFILE``      ``balanced``
``--search``                   ``PAGEWARDEN_SEARCH``       ``ddgs``
(none)                         ``PAGEWARDEN_BRAVE_API_KEY``
``--timeout``                  ``PAGEWARDEN_TIMEOUT``      ``15``
``--max-fetches``              ``PAGEWARDEN_MAX_FETCHES``  ``50``
``--max-searches``             ``PAGEWARDEN_MAX_SEARCHES`` ``20``
``--max-continuations``        ``PAGEWARDEN_MAX_CONTINUATIONS``  ``200``
``--audit-log``                ``PAGEWARDEN_AUDIT_LOG``    none
``--external-sandbox``         ``PAGEWARDEN_EXTERNAL_SANDBOX``  off
``--browser-policy``           ``PAGEWARDEN_BROWSER_POLICY``    ``default``
``--chromium``                 ``PAGEWARDEN_CHROMIUM``     discovered
=============================  ==========================  =====================
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._browser.config import BrowserConfig
from .._config import GUARD_PROFILES, RENDER_MODES, ReaderConfig
from .._errors import ConfigMissing, InvalidInput
from .._reader import AsyncReader
from .._search.types import SearchProvider
from .._tools import ToolBudget

__all__ = ["SEARCH_CHOICES", "McpOptions", "SearchFactory", "build_reader", "default_search_factory", "parse_options"]

SEARCH_CHOICES = ("ddgs", "brave", "searxng", "fused", "none")
# What "fused" asks besides Brave (with a key) and SearXNG (with a URL): two keyless engines on different indexes.
FUSED_DDGS_BACKENDS = ("duckduckgo", "mojeek")
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off", ""})


@dataclass(frozen=True, slots=True)
class McpOptions:
    """Everything ``pagewarden mcp`` was configured with, validated."""

    render: str = "auto"
    profile: str = "balanced"
    search: str = "ddgs"
    brave_api_key: str | None = field(default=None, repr=False)
    searxng_url: str | None = None
    timeout: float = 15.0
    budget: ToolBudget = field(default_factory=ToolBudget)
    audit_log: str | None = None
    external_sandbox: bool = False
    browser_policy: str = "default"
    chromium: str | None = None
    unsafe_allow_destinations: tuple[str, ...] = ()
    proxy: str | None = field(default=None, repr=False)
    unsafe_proxy_remote_dns: bool = False


SearchFactory = Callable[[McpOptions], SearchProvider | None]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pagewarden mcp",
        description="Serve pagewarden's web_search, fetch_content and fetch_more tools over MCP (stdio).",
        epilog="Every option also reads a PAGEWARDEN_* environment variable; see docs/tools.md.",
    )
    parser.add_argument("--render", choices=RENDER_MODES, help="default render mode of fetch_content")
    parser.add_argument("--profile", choices=GUARD_PROFILES, help="guard profile")
    parser.add_argument("--search", choices=SEARCH_CHOICES,
                        help="search provider (brave reads PAGEWARDEN_BRAVE_API_KEY; searxng needs --searxng-url; "
                             "fused asks ddgs duckduckgo and mojeek, plus brave and searxng when configured, and "
                             "merges them); none disables web_search")
    parser.add_argument("--searxng-url", metavar="URL",
                        help="a self-hosted SearXNG with the JSON API on (a local one also needs "
                             "--unsafe-allow-destination)")
    parser.add_argument("--timeout", type=float, metavar="SECONDS", help="deadline of one read")
    for name in ("fetches", "searches", "continuations"):
        parser.add_argument(f"--max-{name}", metavar="N", help=f"session budget of {name} ('none': no cap)")
    parser.add_argument("--audit-log", metavar="PATH", help="append one JSON line per tool call to PATH")
    parser.add_argument("--external-sandbox", action="store_true", default=None,
                        help="run Chromium without its own sandbox because a container already isolates it")
    parser.add_argument("--browser-policy", metavar="POLICY", help="browser request policy: default, strict or a file")
    parser.add_argument("--chromium", metavar="PATH", help="the Chromium to use")
    parser.add_argument("--unsafe-allow-destination", action="append", default=[], metavar="D",
                        help="allow a private destination (ip:port, host:port or CIDR); for tests only")
    parser.add_argument("--proxy", metavar="URL",
                        help="upstream proxy for every connection (http://, https://, socks5://); prefer "
                             "PAGEWARDEN_PROXY when it carries credentials")
    parser.add_argument("--unsafe-proxy-remote-dns", action="store_true", default=None,
                        help="let the proxy resolve names (socks5h://, .onion over Tor)")
    return parser


def _budget_value(name: str, text: str | None, default: int | None) -> int | None:
    if text is None:
        return default
    value = text.strip().lower()
    if value in ("none", "unlimited"):
        return None
    if not value.isdigit():
        raise InvalidInput(f"{name} must be a non-negative integer or 'none'", reason=f"invalid_{name}")
    return int(value)


def _flag(text: str | None, name: str) -> bool:
    value = (text or "").strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise InvalidInput(f"{name} must be true or false", reason=f"invalid_{name}")


def _choice(value: str | None, env: str | None, choices: Sequence[str], default: str, name: str) -> str:
    chosen = value if value is not None else (env.strip().lower() if env else default)
    if chosen not in choices:
        raise InvalidInput(f"{name} must be one of: " + ", ".join(choices), reason=f"invalid_{name}")
    return chosen


def parse_options(argv: Sequence[str] | None, environ: Mapping[str, str]) -> McpOptions:
    """Build :class:`McpOptions` from command-line arguments and the environment.

    Raises:
        SystemExit: for ``--help`` and argument syntax errors (argparse).
        InvalidInput: an environment value is invalid.
    """
    args = _parser().parse_args(argv)
    env = environ.get
    defaults = ToolBudget()
    try:
        timeout = args.timeout if args.timeout is not None else float(env("PAGEWARDEN_TIMEOUT") or 15.0)
    except ValueError:
        raise InvalidInput("PAGEWARDEN_TIMEOUT must be a number of seconds", reason="invalid_timeout") from None
    budget = ToolBudget(
        max_fetches=_budget_value("max_fetches", args.max_fetches or env("PAGEWARDEN_MAX_FETCHES"),
                                  defaults.max_fetches),
        max_searches=_budget_value("max_searches", args.max_searches or env("PAGEWARDEN_MAX_SEARCHES"),
                                   defaults.max_searches),
        max_continuations=_budget_value(
            "max_continuations", args.max_continuations or env("PAGEWARDEN_MAX_CONTINUATIONS"),
            defaults.max_continuations,
        ),
    )
    sandbox = args.external_sandbox if args.external_sandbox is not None else _flag(
        env("PAGEWARDEN_EXTERNAL_SANDBOX"), "PAGEWARDEN_EXTERNAL_SANDBOX"
    )
    return McpOptions(
        render=_choice(args.render, env("PAGEWARDEN_RENDER"), RENDER_MODES, "auto", "render"),
        profile=_choice(args.profile, env("PAGEWARDEN_PROFILE"), GUARD_PROFILES, "balanced", "profile"),
        search=_choice(args.search, env("PAGEWARDEN_SEARCH"), SEARCH_CHOICES, "ddgs", "search"),
        brave_api_key=env("PAGEWARDEN_BRAVE_API_KEY") or None,
        searxng_url=args.searxng_url or env("PAGEWARDEN_SEARXNG_URL") or None,
        timeout=timeout,
        budget=budget,
        audit_log=args.audit_log or env("PAGEWARDEN_AUDIT_LOG") or None,
        external_sandbox=sandbox,
        browser_policy=args.browser_policy or env("PAGEWARDEN_BROWSER_POLICY") or "default",
        chromium=args.chromium or env("PAGEWARDEN_CHROMIUM") or None,
        unsafe_allow_destinations=tuple(args.unsafe_allow_destination),
        proxy=args.proxy or env("PAGEWARDEN_PROXY") or None,
        unsafe_proxy_remote_dns=args.unsafe_proxy_remote_dns if args.unsafe_proxy_remote_dns is not None else _flag(
            env("PAGEWARDEN_UNSAFE_PROXY_REMOTE_DNS"), "PAGEWARDEN_UNSAFE_PROXY_REMOTE_DNS"
        ),
    )


def _providers() -> Any:
    # The built-in provider constructors (ddgs(), brave(key)) live in the search package.
    from .. import _search

    return _search


def default_search_factory(options: McpOptions) -> SearchProvider | None:
    """The built-in provider named by ``options.search`` (``None`` for ``none``).

    Raises:
        ConfigMissing: ``brave`` without ``PAGEWARDEN_BRAVE_API_KEY``, or the
            provider is not available in this installation.
    """
    if options.search == "none":
        return None
    if options.search in ("searxng", "fused"):
        return _searxng_or_fused(options)
    make: Any = getattr(_providers(), options.search, None)
    if not callable(make):
        raise ConfigMissing(f"the {options.search} search provider is not available", reason="search_unavailable")
    if options.search == "brave":
        if not options.brave_api_key:
            raise ConfigMissing("the brave provider needs PAGEWARDEN_BRAVE_API_KEY", reason="brave_api_key_missing")
        config = ReaderConfig(proxy=options.proxy, unsafe_proxy_remote_dns=options.unsafe_proxy_remote_dns)
        provider: SearchProvider = make(options.brave_api_key, config=config)
        return provider
    provider = make(proxy=options.proxy)
    return provider


def _provider_config(options: McpOptions) -> ReaderConfig:
    return ReaderConfig(
        proxy=options.proxy,
        unsafe_proxy_remote_dns=options.unsafe_proxy_remote_dns,
        unsafe_allow_destinations=options.unsafe_allow_destinations,
    )


def _searxng_or_fused(options: McpOptions) -> SearchProvider:
    providers = _providers()
    searx: SearchProvider | None = None
    if options.searxng_url:
        searx = providers.searxng(options.searxng_url, config=_provider_config(options))
    if options.search == "searxng":
        if searx is None:
            raise ConfigMissing("the searxng provider needs --searxng-url", reason="searxng_url_missing")
        return searx
    members: list[SearchProvider] = [providers.ddgs(backend, proxy=options.proxy) for backend in FUSED_DDGS_BACKENDS]
    if options.brave_api_key:
        members.append(providers.brave(options.brave_api_key, config=_provider_config(options)))
    if searx is not None:
        members.append(searx)
    fused: SearchProvider = providers.fused(members)
    return fused


def build_reader(options: McpOptions, search_factory: SearchFactory = default_search_factory) -> AsyncReader:
    """The :class:`AsyncReader` the server's tools use (nothing is launched yet)."""
    browser = BrowserConfig(
        executable=options.chromium, policy=options.browser_policy, external_sandbox=options.external_sandbox
    )
    return AsyncReader(
        default_render=options.render,
        guard_profile=options.profile,
        timeout=options.timeout,
        browser=browser,
        unsafe_allow_destinations=options.unsafe_allow_destinations,
        proxy=options.proxy,
        unsafe_proxy_remote_dns=options.unsafe_proxy_remote_dns,
        search=search_factory(options),
        # Tools refuse withheld content in any case; "raise" also keeps the
        # reader from doing redaction work nobody will see.
        on_guard="raise",
    )
