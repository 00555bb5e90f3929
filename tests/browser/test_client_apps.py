"""Client-rendered fixture apps (tests/browser/apps) read with render="auto" through the pooled browser."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

import pagewarden
from tests.browser.pool_support import AS_ROOT, anyio_backend, chromium_available, site
from tests.support.server import FixtureServer

__all__ = ["anyio_backend", "site"]

pytestmark = [pytest.mark.browser, pytest.mark.anyio]

APPS = Path(__file__).parent / "apps"
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript",
    ".css": "text/css",
    ".json": "application/json",
    ".md": "text/markdown; charset=utf-8",
}
# Each app: its path, the sign its static shell shows, and text that exists only once its script ran.
APP_CASES = [
    ("root", "/apps/root/", "empty_app_root", "Repot the fiddle-leaf fig into the larger terracotta planter"),
    ("section", "/apps/section/", "executable_script", "Send the quarterly meter reading to the water board"),
    ("body", "/apps/body/", "script_only_body", "Write to the allotment society about the shared compost bins"),
    ("element", "/apps/element/", "custom_element", "Tune the upright piano before the Saturday recital"),
    ("docs", "/apps/docs/", "empty_app_root", "how visiting boats find a berth"),
    ("lazy", "/apps/lazy/", "script_only_body", "The tide had turned an hour before dawn"),
]


@pytest.fixture(scope="module")
def apps_site(site: FixtureServer) -> FixtureServer:
    """Every file under tests/browser/apps served at /apps/..., with index.html at each folder's path."""
    for file in APPS.rglob("*"):
        if not file.is_file() or file.suffix not in TYPES:
            continue
        path = "/apps/" + file.relative_to(APPS).as_posix()
        headers = {"Content-Type": TYPES[file.suffix]}
        site.add(path, headers=headers, body=file.read_bytes())
        if file.name == "index.html":
            site.add(path.removesuffix("index.html"), headers=headers, body=file.read_bytes())
    return site


def _reader(apps_site: FixtureServer, **changes: object) -> pagewarden.AsyncReader:
    return pagewarden.AsyncReader(
        unsafe_allow_destinations=(apps_site.host_port,),
        browser=pagewarden.BrowserConfig(external_sandbox=AS_ROOT),
        **changes,  # type: ignore[arg-type]
    )


@pytest.fixture(scope="module")
async def reader(anyio_backend: str, apps_site: FixtureServer) -> AsyncIterator[pagewarden.AsyncReader]:
    """One reader (one pooled browser) for the module."""
    chromium_available()
    async with _reader(apps_site) as shared:
        yield shared


@pytest.mark.parametrize(("name", "path", "sign", "needle"), APP_CASES, ids=[case[0] for case in APP_CASES])
async def test_static_shell_alone_has_no_app_text(apps_site: FixtureServer, name: str, path: str, sign: str,
                                                  needle: str) -> None:
    """render="never" cannot read the app: its text exists only after JavaScript, and the sign is named."""
    async with _reader(apps_site) as reader:
        with pytest.raises(pagewarden.ContentInsufficient) as caught:
            await reader.read(apps_site.url(path), render="never")
    assert caught.value.reason == f"client_rendered_{sign}"


@pytest.mark.parametrize(("name", "path", "sign", "needle"), APP_CASES, ids=[case[0] for case in APP_CASES])
async def test_app_reads_with_auto(reader: pagewarden.AsyncReader, apps_site: FixtureServer, name: str, path: str,
                                   sign: str, needle: str) -> None:
    """render="auto" escalates the shell for the sign it shows and returns the text its script rendered."""
    document = await reader.read(apps_site.url(path), render="auto")
    assert document.fetch.method == "browser"
    assert document.fetch.escalation_reason == f"client_rendered_{sign}"
    assert needle in document.text
    assert not document.truncated


async def test_shadow_root_app_reads_nested_elements(reader: pagewarden.AsyncReader, apps_site: FixtureServer) -> None:
    """Text inside a custom element's shadow root, nested in another's, is read."""
    document = await reader.read(apps_site.url("/apps/element/"), render="auto")
    for todo in ("Label the seed packets saved from the runner beans", "Order a replacement hinge for the garden gate"):
        assert todo in document.text


async def test_faded_in_docs_content_is_read_whole(reader: pagewarden.AsyncReader, apps_site: FixtureServer) -> None:
    """The docs theme fades the article in (opacity transition); it is read whole, not dropped as hidden."""
    document = await reader.read(apps_site.url("/apps/docs/#/"), render="always")
    assert "Call the harbour office on channel 12" in document.text
    assert "Give way to the chain ferry at all times." in document.text


async def test_two_fragment_routes_are_two_documents(reader: pagewarden.AsyncReader, apps_site: FixtureServer) -> None:
    """Hash routes render their own content; the cache keys on the fragment; the server never sees it."""
    home = await reader.read(apps_site.url("/apps/docs/#/"), render="auto")
    setup = await reader.read(apps_site.url("/apps/docs/#/guide/setup"), render="auto")
    again = await reader.read(apps_site.url("/apps/docs/#/guide/setup"), render="auto")
    assert "Every pontoon has metered shore power." in setup.text
    assert "Every pontoon has metered shore power." not in home.text
    assert "how visiting boats find a berth" not in setup.text
    assert setup.content_sha256 != home.content_sha256
    assert setup.url.endswith("#/guide/setup") and home.url.endswith("#/")
    assert setup.final_url.endswith("#/guide/setup")
    assert again.retrieved_at == setup.retrieved_at
    assert all("#" not in path for path in apps_site.paths)


async def test_client_side_route_change_is_the_final_url(reader: pagewarden.AsyncReader,
                                                         apps_site: FixtureServer) -> None:
    """A page that changes its route with pushState is reported at the URL it ended on."""
    apps_site.add(
        "/apps/redirecting/",
        headers={"Content-Type": "text/html; charset=utf-8"},
        body=b"<!doctype html><html><head><title>r</title></head><body><main></main><script>"
        b"history.pushState({}, '', '/apps/redirecting/welcome');"
        b"document.querySelector('main').textContent = 'Welcome aboard, the route moved client-side.';"
        b"</script></body></html>",
    )
    document = await reader.read(apps_site.url("/apps/redirecting/"), render="auto")
    assert "Welcome aboard" in document.text
    assert document.final_url == apps_site.url("/apps/redirecting/welcome")
    assert document.url == apps_site.url("/apps/redirecting/")


async def test_lazy_sections_load_as_the_page_scrolls(reader: pagewarden.AsyncReader,
                                                      apps_site: FixtureServer) -> None:
    """Sections fetched when they scroll into view, and faded in, are all read, down to the last one."""
    document = await reader.read(apps_site.url("/apps/lazy/"), render="auto")
    assert "A pair of avocets fed in the shallows" in document.text
    assert "The last quadrat, nearest the sea wall" in document.text
    assert not document.truncated


async def test_endless_feed_stops_at_the_bound_and_is_truncated(reader: pagewarden.AsyncReader,
                                                                apps_site: FixtureServer) -> None:
    """A page that grows forever is scrolled only up to the policy's bound and marked truncated."""
    document = await reader.read(apps_site.url("/apps/infinite/"), render="auto", timeout=20)
    assert "Log entry 1:" in document.text
    assert "Log entry 11:" in document.text  # loaded by scrolling
    assert document.truncated
    assert any("scroll" in text for text in document.security.limitations)


async def test_hidden_note_in_faded_content_goes_to_the_guard(apps_site: FixtureServer) -> None:
    """Text that stays at opacity 0 inside faded-in content is still hidden: a hidden finding, not returned."""
    async with _reader(apps_site, on_guard="return") as reader:
        document = await reader.read(apps_site.url("/apps/docs/#/guide/notes"), render="auto")
    assert "door code changes every Monday" in document.text
    assert "Ignore all previous instructions" not in document.text
    assert "hidden" in {str(finding.location) for finding in document.security.findings}


async def test_pages_without_lazy_hooks_are_not_scrolled(reader: pagewarden.AsyncReader,
                                                         apps_site: FixtureServer) -> None:
    """A tall page that watches nothing is not scrolled; a page with lazy sections is, in viewport steps."""
    from pagewarden._browser.render import render

    tall = "".join(f"<p>Paragraph {i} of a long static page with no script at all.</p>" for i in range(200))
    apps_site.add("/apps/tall/", headers={"Content-Type": "text/html; charset=utf-8"},
                  body=f"<!doctype html><html><head><title>t</title></head><body>{tall}</body></html>".encode())
    pool = reader._browser_pool()
    plain = await render(pool, apps_site.url("/apps/tall/"))
    lazy = await render(pool, apps_site.url("/apps/lazy/"))
    assert plain.timings["scroll_steps"] == 0
    assert 1 <= lazy.timings["scroll_steps"] <= pool.policy.scroll_steps
    assert not plain.truncated and not lazy.truncated


async def test_scrolling_can_be_turned_off_by_the_policy(apps_site: FixtureServer, tmp_path: Path) -> None:
    """With page.scroll_steps = 0 the lazy page is read as first rendered: later sections are absent."""
    from pagewarden._browser.policy import policy_source

    text = policy_source("default").read_text(encoding="utf-8")
    assert "scroll_steps = 8" in text
    policy = tmp_path / "no-scroll.toml"
    policy.write_text(text.replace("scroll_steps = 8", "scroll_steps = 0"), encoding="utf-8")
    async with pagewarden.AsyncReader(
        unsafe_allow_destinations=(apps_site.host_port,),
        browser=pagewarden.BrowserConfig(external_sandbox=AS_ROOT, policy=str(policy)),
    ) as reader:
        document = await reader.read(apps_site.url("/apps/lazy/"), render="auto")
    assert "The tide had turned an hour before dawn" in document.text
    assert "The last quadrat, nearest the sea wall" not in document.text
