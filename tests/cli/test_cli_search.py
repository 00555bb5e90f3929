"""`pagewarden search`: hits, --read, --json, errors and exit codes, with an injected fake provider."""

from __future__ import annotations

import io
import json

import pytest

import pagewarden
from pagewarden.cli import main
from tests.reader import pages
from tests.reader.search_support import FakeProvider
from tests.support.server import FixtureServer

HTML = {"Content-Type": "text/html; charset=utf-8"}
HITS = [
    ("https://example.org/deltas", "How river deltas form", "Sediment settles where rivers slow."),
    ("https://example.net/tides", "Tide tables", "When the sea comes in."),
]


def _run(*argv: str, provider: FakeProvider) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err, search_provider=provider)
    return code, out.getvalue(), err.getvalue()


def test_search_prints_ranked_hits() -> None:
    """Text output lists rank, title, URL and snippet of every hit, under a trust notice."""
    code, out, err = _run("search", "river deltas", provider=FakeProvider(HITS))
    assert code == 0
    assert err == ""
    assert "Search: river deltas" in out
    assert "Trust: untrusted web content" in out
    assert "1. How river deltas form\n   https://example.org/deltas\n   Sediment settles where rivers slow.\n" in out
    assert "2. Tide tables\n   https://example.net/tides\n" in out


def test_search_json_is_the_search_results() -> None:
    """--json prints SearchResults.to_dict() as one JSON object."""
    code, out, _ = _run("search", "river deltas", "--json", provider=FakeProvider(HITS))
    data = json.loads(out)
    assert code == 0
    assert data["provider"] == "fake"
    assert [hit["url"] for hit in data["hits"]] == ["https://example.org/deltas", "https://example.net/tides"]
    assert data["hits"][0]["trust"] == "untrusted"


def test_search_options_reach_the_provider() -> None:
    """--limit, --language, --region and --time-range become the validated query."""
    provider = FakeProvider(HITS)
    code, _, _ = _run("search", "river deltas", "--limit", "3", "--language", "DE", "--region", "ch",
                      "--time-range", "week", provider=provider)
    query = provider.calls[0]
    assert code == 0
    assert (query.limit, query.language, query.region, query.time_range) == (3, "de", "CH", "week")


def test_empty_result_says_so() -> None:
    """A search without hits prints a clear 'No hits.' and exits 0."""
    code, out, _ = _run("search", "river deltas", provider=FakeProvider([]))
    assert code == 0
    assert "No hits." in out


ERROR_CASES: list[tuple[list[str], FakeProvider, int, str]] = [
    (["--limit", "0"], FakeProvider(HITS), 2, "INVALID_INPUT"),
    ([], FakeProvider(HITS, error=pagewarden.RateLimited("slow down", reason="test_rate")), 6, "RATE_LIMITED"),
    ([], FakeProvider(HITS, error=pagewarden.BotChallenge("challenge", reason="test_challenge")), 6,
     "BOT_CHALLENGE"),
    ([], FakeProvider(HITS, error=pagewarden.ParseChanged("layout", reason="test_layout")), 6, "PARSE_CHANGED"),
    ([], FakeProvider(HITS, error=pagewarden.NetworkError("down", reason="test_down")), 1, "NETWORK_ERROR"),
]


@pytest.mark.parametrize(("extra", "provider", "exit_code", "error_code"), ERROR_CASES)
def test_search_errors_have_codes_and_exit_codes(
    extra: list[str], provider: FakeProvider, exit_code: int, error_code: str
) -> None:
    """Search failures print the code as JSON with --json and exit with the documented code."""
    code, out, _ = _run("search", "river deltas", "--json", *extra, provider=provider)
    assert code == exit_code
    assert json.loads(out)["error"]["code"] == error_code


def test_search_text_error_goes_to_stderr() -> None:
    """Without --json the error's code and reason go to stderr, nothing to stdout."""
    provider = FakeProvider(HITS, error=pagewarden.RateLimited("slow down", reason="test_rate"))
    code, out, err = _run("search", "river deltas", provider=provider)
    assert code == 6
    assert out == ""
    assert err.startswith("pagewarden: RATE_LIMITED [test_rate]")


def test_brave_without_the_environment_key_is_config_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    """--provider brave takes its key only from PAGEWARDEN_BRAVE_API_KEY; without it, CONFIG_MISSING (exit 2)."""
    monkeypatch.delenv("PAGEWARDEN_BRAVE_API_KEY", raising=False)
    out, err = io.StringIO(), io.StringIO()
    code = main(["search", "river deltas", "--provider", "brave", "--json"], out=out, err=err)
    assert code == 2
    assert json.loads(out.getvalue())["error"]["code"] == "CONFIG_MISSING"


def test_there_is_no_key_flag() -> None:
    """No command line flag accepts an API key."""
    with pytest.raises(SystemExit):
        main(["search", "river deltas", "--api-key", "secret"], out=io.StringIO(), err=io.StringIO())


@pytest.fixture
def site(fixture_server: FixtureServer) -> FixtureServer:
    """The fixture server with one readable article and one 404."""
    fixture_server.add("/article", headers=HTML, body=pages.ARTICLE.encode())
    return fixture_server


def _site_hits(site: FixtureServer) -> list[tuple[str, str, str]]:
    return [(site.url("/article"), "How river deltas form", "Deltas."), (site.url("/gone"), "Gone", "")]


def test_search_read_prints_documents_and_failures(site: FixtureServer) -> None:
    """--read prints the hits, each readable document with its header, and the pages not read with their code."""
    code, out, _ = _run("search", "river deltas", "--read", "--render", "never",
                        "--unsafe-allow-destination", site.host_port, provider=FakeProvider(_site_hits(site)))
    assert code == 0
    assert "1. How river deltas form" in out
    assert "# How river deltas form\nSource: " in out
    assert "sediment settles" in out
    assert f"Not read: 2. {site.url('/gone')}: page_failure UPSTREAM_HTTP" in out


def test_search_read_json_is_the_combined_result(site: FixtureServer) -> None:
    """--read --json prints SearchAndReadResult.to_dict()."""
    code, out, _ = _run("search", "river deltas", "--read", "--json", "--render", "never",
                        "--unsafe-allow-destination", site.host_port, provider=FakeProvider(_site_hits(site)))
    data = json.loads(out)
    assert code == 0
    assert [(doc["rank"], doc["final_url"]) for doc in data["documents"]] == [(1, site.url("/article"))]
    assert [(f["rank"], f["kind"], f["code"]) for f in data["failures"]] == [(2, "page_failure", "UPSTREAM_HTTP")]
    assert data["timed_out"] is False


def test_search_read_default_limit_is_five() -> None:
    """--read asks for 5 hits unless --limit says otherwise; plain search asks for 10."""
    provider = FakeProvider([])
    _run("search", "river deltas", "--read", provider=provider)
    _run("search", "river deltas", provider=provider)
    assert [query.limit for query in provider.calls] == [5, 10]
