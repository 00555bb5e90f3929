"""The console script: output forms and distinct exit codes."""

from __future__ import annotations

import io
import json

import pytest

from pagewarden.cli import main
from tests.reader import pages
from tests.support.server import FixtureServer
from tests.support.tripwire import SocketTripwire
from tests.support.upstream_proxy import UpstreamProxyServer

HTML = {"Content-Type": "text/html; charset=utf-8"}


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def site(fixture_server: FixtureServer) -> FixtureServer:
    """The fixture server with the pages every CLI test uses."""
    fixture_server.add("/article", headers=HTML, body=pages.ARTICLE.encode())
    fixture_server.add("/hidden", headers=HTML, body=pages.HIDDEN_INJECTION.encode())
    fixture_server.add("/short", headers=HTML, body=pages.SHORT.encode())
    return fixture_server


def test_read_prints_markdown_with_header(site: FixtureServer) -> None:
    """`pagewarden read` prints a header naming source and decision, then the Markdown."""
    code, out, _ = _run("read", site.url("/article"), "--render", "never",
                        "--unsafe-allow-destination", site.host_port)
    assert code == 0
    assert out.startswith("# How river deltas form")
    assert f"Source: {site.url('/article')}" in out
    assert "decision: allow" in out
    assert "sediment settles" in out


def test_read_json_is_the_document(site: FixtureServer) -> None:
    """--json prints the Document's public fields as one JSON object."""
    code, out, _ = _run("read", site.url("/article"), "--json", "--render", "never",
                        "--unsafe-allow-destination", site.host_port)
    data = json.loads(out)
    assert code == 0
    assert data["final_url"] == site.url("/article")
    assert data["security"]["trust"] == "untrusted"


EXIT_CASES = [
    ("/article", [], 3, "UNSAFE_URL"),
    ("/hidden", ["--unsafe-allow-destination"], 4, "GUARD_DENIED"),
    ("/short", ["--unsafe-allow-destination"], 5, "CONTENT_INSUFFICIENT"),
]


@pytest.mark.parametrize(("path", "extra", "exit_code", "error_code"), EXIT_CASES)
def test_failures_have_distinct_exit_codes(
    site: FixtureServer, path: str, extra: list[str], exit_code: int, error_code: str
) -> None:
    """Refused, guard-denied and insufficient reads exit 3, 4 and 5, with the code in JSON."""
    argv = ["read", site.url(path), "--json", "--render", "never"]
    if extra:
        argv += [*extra, site.host_port]
    code, out, _ = _run(*argv)
    assert code == exit_code
    assert json.loads(out)["error"]["code"] == error_code


def test_text_errors_go_to_stderr(site: FixtureServer) -> None:
    """Without --json an error prints its code and reason on stderr, nothing on stdout."""
    code, out, err = _run("read", site.url("/article"), "--render", "never")
    assert code == 3
    assert out == ""
    assert err.startswith("pagewarden: UNSAFE_URL")


def test_invalid_input_exits_2() -> None:
    """An out-of-range option is a usage error (exit 2)."""
    code, _, err = _run("read", "https://example.com/", "--max-characters", "5")
    assert code == 2
    assert "INVALID_INPUT" in err


def test_doctor_reports_a_missing_browser() -> None:
    """`pagewarden doctor` with an unusable Chromium exits 1 and says why, in JSON."""
    code, out, _ = _run("doctor", "--json", "--chromium", "/nonexistent/chromium", "--external-sandbox")
    report = json.loads(out)
    assert code == 1
    assert report["ok"] is False
    assert report["browser"]["found"] is False


def test_render_always_without_browser_exits_2(site: FixtureServer) -> None:
    """--render always with no usable browser is CONFIG_MISSING (exit 2), naming what is missing."""
    code, out, _ = _run("read", site.url("/article"), "--json", "--render", "always", "--chromium",
                        "/nonexistent/chromium", "--external-sandbox", "--unsafe-allow-destination", site.host_port)
    assert code == 2
    assert json.loads(out)["error"]["reason"] == "chromium_path_invalid"


@pytest.mark.browser
def test_doctor_self_test_passes() -> None:
    """With the installed Chromium the doctor's self-test renders through the proxy and exits 0."""
    import os

    argv = ["doctor", "--json"] + (["--external-sandbox"] if os.geteuid() == 0 else [])
    code, out, _ = _run(*argv)
    report = json.loads(out)
    assert code == 0
    assert report["self_test"]["script_ran"] is True
    assert report["self_test"]["hidden_text_marked"] is True


def test_mcp_subcommand_reaches_the_mcp_server(capsys: pytest.CaptureFixture[str]) -> None:
    """`pagewarden mcp --help` is handled by the MCP server's own option parser."""
    with pytest.raises(SystemExit) as caught:
        main(["mcp", "--help"])
    assert caught.value.code == 0
    assert "usage: pagewarden mcp" in capsys.readouterr().out


@pytest.mark.anyio
async def test_reader_toolset_is_wired(fixture_server: FixtureServer) -> None:
    """AsyncReader.toolset() returns the tools; without a provider web_search is omitted."""
    import pagewarden

    async with pagewarden.AsyncReader(unsafe_allow_destinations=(fixture_server.host_port,)) as reader:
        names = [tool["name"] for tool in reader.toolset().anthropic_definitions()]
    assert names == ["fetch_content", "fetch_more", "search_read_pages"]


@pytest.mark.parametrize("command", ["read", "search", "crawl", "map", "ingest", "mcp"])
def test_every_network_command_takes_proxy_options(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """--proxy and --unsafe-proxy-remote-dns are offered by every command that connects anywhere."""
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(SystemExit):
        main([command, "--help"], out=out, err=err)
    shown = capsys.readouterr().out + out.getvalue()
    assert "--proxy URL" in shown and "--unsafe-proxy-remote-dns" in shown


def test_read_through_a_socks5_proxy(site: FixtureServer, socket_tripwire: SocketTripwire) -> None:
    """`pagewarden read --proxy socks5://...` reads through the proxy, which is asked for the validated address."""
    with UpstreamProxyServer() as proxy, socket_tripwire.allow("127.0.0.1", site.port):
        code, out, _ = _run("read", site.url("/article"), "--render", "never", "--proxy", proxy.url("socks5"),
                            "--unsafe-allow-destination", site.host_port)
    assert code == 0 and "sediment settles" in out
    assert [(r.kind, r.host, r.port) for r in proxy.requests] == [("socks5", "127.0.0.1", site.port)]


def test_bad_proxy_is_invalid_usage_without_quoting_it(site: FixtureServer) -> None:
    """A malformed --proxy exits 2 and the message never repeats the URL (it may carry credentials)."""
    code, _, err = _run("read", site.url("/article"), "--proxy", "socks4://u:hunter2@127.0.0.1:1")
    assert code == 2 and "hunter2" not in err
