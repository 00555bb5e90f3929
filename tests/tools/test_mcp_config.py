"""``pagewarden mcp`` options: flags over PAGEWARDEN_* variables over defaults; the Brave key from the environment."""

from __future__ import annotations

import io
import sys
from typing import Any

import pytest

from pagewarden import ConfigMissing, InvalidInput
from pagewarden._mcp import mcp_main
from pagewarden._mcp import options as mcp_config
from pagewarden._mcp.options import McpOptions, build_reader, default_search_factory, parse_options
from pagewarden._mcp.server import main
from pagewarden._tools import ToolBudget

# (argv, environment, expected option values)
OPTION_CASES: list[tuple[list[str], dict[str, str], dict[str, Any]]] = [
    ([], {}, {"render": "auto", "profile": "balanced", "search": "ddgs", "timeout": 15.0, "budget": ToolBudget(),
              "audit_log": None, "external_sandbox": False, "unsafe_allow_destinations": ()}),
    ([], {"PAGEWARDEN_RENDER": "never", "PAGEWARDEN_PROFILE": "strict", "PAGEWARDEN_SEARCH": "none",
          "PAGEWARDEN_TIMEOUT": "30", "PAGEWARDEN_AUDIT_LOG": "/tmp/a.jsonl", "PAGEWARDEN_EXTERNAL_SANDBOX": "yes"},
     {"render": "never", "profile": "strict", "search": "none", "timeout": 30.0, "audit_log": "/tmp/a.jsonl",
      "external_sandbox": True}),
    (["--render", "always", "--search", "brave", "--external-sandbox"],
     {"PAGEWARDEN_RENDER": "never", "PAGEWARDEN_SEARCH": "none", "PAGEWARDEN_EXTERNAL_SANDBOX": "0"},
     {"render": "always", "search": "brave", "external_sandbox": True}),
    (["--max-fetches", "3", "--max-searches", "none"], {"PAGEWARDEN_MAX_CONTINUATIONS": "7"},
     {"budget": ToolBudget(max_fetches=3, max_searches=None, max_continuations=7)}),
    (["--unsafe-allow-destination", "127.0.0.1:8080", "--unsafe-allow-destination", "10.0.0.0/8"], {},
     {"unsafe_allow_destinations": ("127.0.0.1:8080", "10.0.0.0/8")}),
    ([], {"PAGEWARDEN_BRAVE_API_KEY": "k-123"}, {"brave_api_key": "k-123"}),
    (["--search", "fused", "--searxng-url", "https://searx.example.org"], {},
     {"search": "fused", "searxng_url": "https://searx.example.org"}),
    ([], {"PAGEWARDEN_SEARXNG_URL": "https://s.example.org", "PAGEWARDEN_PROXY": "socks5://127.0.0.1:1080"},
     {"searxng_url": "https://s.example.org", "proxy": "socks5://127.0.0.1:1080", "unsafe_proxy_remote_dns": False}),
    (["--proxy", "http://127.0.0.1:3128", "--unsafe-proxy-remote-dns"], {},
     {"proxy": "http://127.0.0.1:3128", "unsafe_proxy_remote_dns": True}),
]

BAD_ENVIRONMENTS = [
    {"PAGEWARDEN_RENDER": "sometimes"},
    {"PAGEWARDEN_SEARCH": "google"},
    {"PAGEWARDEN_TIMEOUT": "soon"},
    {"PAGEWARDEN_MAX_FETCHES": "-2"},
    {"PAGEWARDEN_EXTERNAL_SANDBOX": "maybe"},
]


@pytest.mark.parametrize(("argv", "environ", "expected"), OPTION_CASES)
def test_parse_options(argv: list[str], environ: dict[str, str], expected: dict[str, Any]) -> None:
    """Each option comes from its flag, else its variable, else the default."""
    options = parse_options(argv, environ)
    for name, value in expected.items():
        assert getattr(options, name) == value, name


@pytest.mark.parametrize("environ", BAD_ENVIRONMENTS)
def test_bad_environment_is_invalid_input(environ: dict[str, str]) -> None:
    """An invalid PAGEWARDEN_* value is INVALID_INPUT."""
    with pytest.raises(InvalidInput):
        parse_options([], environ)


def test_no_api_key_flag_and_key_never_in_repr(capsys: pytest.CaptureFixture[str]) -> None:
    """There is no flag for the Brave key, and the options' repr never shows it."""
    with pytest.raises(SystemExit):
        parse_options(["--brave-api-key", "k-123"], {})
    capsys.readouterr()
    assert "k-123" not in repr(parse_options([], {"PAGEWARDEN_BRAVE_API_KEY": "k-123"}))


class _Providers:
    """Stands in for the search package's provider constructors."""

    @staticmethod
    def brave(key: str, config: object = None) -> str:
        return "brave:" + key

    @staticmethod
    def ddgs(proxy: str | None = None) -> str:
        return "ddgs" if proxy is None else "ddgs via " + proxy


FACTORY_CASES: list[tuple[McpOptions, object, str | None]] = [
    (McpOptions(search="none"), None, None),
    (McpOptions(search="ddgs"), "ddgs", None),
    (McpOptions(search="brave", brave_api_key="k-1"), "brave:k-1", None),
    (McpOptions(search="brave"), None, "brave_api_key_missing"),
]


@pytest.mark.parametrize(("options", "provider", "reason"), FACTORY_CASES)
def test_default_search_factory(monkeypatch: pytest.MonkeyPatch, options: McpOptions, provider: object,
                                reason: str | None) -> None:
    """none gives no provider, ddgs and brave their constructors' result, brave without a key CONFIG_MISSING."""
    monkeypatch.setattr(mcp_config, "_providers", _Providers)
    if reason is None:
        assert default_search_factory(options) == provider
        return
    with pytest.raises(ConfigMissing) as caught:
        default_search_factory(options)
    assert caught.value.reason == reason


def test_missing_provider_is_config_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    """A provider this installation lacks refuses to start with CONFIG_MISSING."""
    monkeypatch.setattr(mcp_config, "_providers", lambda: object())
    with pytest.raises(ConfigMissing) as caught:
        default_search_factory(McpOptions(search="ddgs"))
    assert caught.value.reason == "search_unavailable"


def test_search_none_builds_reader_without_provider() -> None:
    """--search none gives a reader without a provider; the other options reach the reader's config."""
    reader = build_reader(McpOptions(search="none", render="never", profile="strict", timeout=30.0,
                                     external_sandbox=True))
    config = reader.config
    assert config.search is None
    assert (config.default_render, config.guard_profile, config.timeout, config.on_guard) == (
        "never", "strict", 30.0, "raise")
    assert config.browser.external_sandbox is True


@pytest.mark.parametrize("argv", [["--unsafe-allow-destination", "not a destination"], ["--search", "brave"]])
def test_main_refuses_bad_configuration(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A bad configuration exits 2 with a message on stderr, before serving anything."""
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    assert main(argv, environ={}) == 2
    assert err.getvalue().startswith("pagewarden mcp: ")


def test_missing_sdk_exits_2(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Without the mcp package, ``pagewarden mcp`` says how to install it and exits 2."""
    monkeypatch.delitem(sys.modules, "pagewarden._mcp.server", raising=False)
    for name in ("mcp", "mcp_types"):
        monkeypatch.setitem(sys.modules, name, None)
    assert mcp_main([]) == 2
    assert "pip install mcp" in capsys.readouterr().err


def test_searxng_and_fused_factories() -> None:
    """searxng needs a URL; fused asks two ddgs engines plus Brave and SearXNG when configured, all via the proxy."""
    proxy = "socks5://127.0.0.1:1080"
    searx = default_search_factory(McpOptions(search="searxng", searxng_url="https://searx.example.org"))
    assert searx is not None and searx.name == "searxng"
    with pytest.raises(ConfigMissing) as caught:
        default_search_factory(McpOptions(search="searxng"))
    assert caught.value.reason == "searxng_url_missing"
    options = McpOptions(
        search="fused", brave_api_key="k" * 20, searxng_url="https://searx.example.org", proxy=proxy
    )
    fused = default_search_factory(options)
    assert fused is not None
    assert fused.name == "fused(ddgs:duckduckgo,ddgs:mojeek,brave,searxng)"
    reader = build_reader(options, lambda _: fused)
    assert reader.config.search is fused  # the reader accepted it: every member leaves through the same proxy
    assert [m.name for m in default_search_factory(McpOptions(search="fused")).providers] == [  # type: ignore[union-attr]
        "ddgs:duckduckgo", "ddgs:mojeek"]
