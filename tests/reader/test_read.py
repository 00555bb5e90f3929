"""read(render="never") end to end over a loopback fixture site."""

from __future__ import annotations

import hashlib

import anyio
import pytest

import pagewarden
from tests.reader import pages
from tests.support.server import FixtureServer

HTML = {"Content-Type": "text/html; charset=utf-8"}


def _reader(server: FixtureServer, **options: object) -> pagewarden.AsyncReader:
    return pagewarden.AsyncReader(unsafe_allow_destinations=(server.host_port,), **options)


@pytest.mark.anyio
async def test_article_becomes_a_guarded_document(fixture_server: FixtureServer) -> None:
    """A static article yields Markdown, text, title, metadata, links and a security report."""
    fixture_server.add("/article", headers=HTML, body=pages.ARTICLE.encode())
    async with _reader(fixture_server) as reader:
        document = await reader.read(fixture_server.url("/article"), render="never")
    assert document.final_url == fixture_server.url("/article")
    assert document.title == "How river deltas form"
    assert "sediment settles" in document.markdown
    assert "sediment settles" in document.text
    assert document.metadata.author == "Ada Example"
    assert document.security.trust == "untrusted"
    assert document.security.tainted is True
    assert document.security.decision in (pagewarden.Decision.ALLOW, pagewarden.Decision.ALLOW_WITH_WARNING)
    assert document.security.limitations
    assert document.fetch.method == "http"
    assert document.fetch.status == 200
    assert document.fetch.content_type == "text/html"
    assert document.fetch.timings.total > 0
    assert document.retrieved_at.tzinfo is not None
    assert document.content_sha256 == hashlib.sha256(document.unsafe_raw_markdown.encode()).hexdigest()
    assert not document.truncated


@pytest.mark.anyio
async def test_links_are_absolute_and_policy_filtered(fixture_server: FixtureServer) -> None:
    """Links are resolved against the final URL; script and private destinations are dropped."""
    fixture_server.add("/article", headers=HTML, body=pages.ARTICLE.encode())
    async with _reader(fixture_server) as reader:
        document = await reader.read(fixture_server.url("/article"), render="never")
    assert "https://example.org/ref" in document.links
    assert all(link.startswith(("http://", "https://")) for link in document.links)
    assert not any("10.0.0.1" in link or link.startswith("javascript:") for link in document.links)


@pytest.mark.anyio
async def test_auto_reads_statically_until_the_browser_lands(fixture_server: FixtureServer) -> None:
    """render="auto" behaves as "never" in this version."""
    fixture_server.add("/article", headers=HTML, body=pages.ARTICLE.encode())
    async with _reader(fixture_server) as reader:
        document = await reader.read(fixture_server.url("/article"), render="auto")
    assert document.fetch.method == "http"


@pytest.mark.anyio
async def test_hidden_injection_is_withheld(fixture_server: FixtureServer) -> None:
    """A display:none instruction override makes read() raise GUARD_DENIED with the decision."""
    fixture_server.add("/hidden", headers=HTML, body=pages.HIDDEN_INJECTION.encode())
    async with _reader(fixture_server) as reader:
        with pytest.raises(pagewarden.GuardDenied) as caught:
            await reader.read(fixture_server.url("/hidden"), render="never")
    assert caught.value.guard_decision in ("require_approval", "deny")
    assert caught.value.warning_categories
    assert "Ignore all previous" not in str(caught.value.to_dict())


@pytest.mark.anyio
async def test_guard_is_decided_before_insufficiency(fixture_server: FixtureServer) -> None:
    """A short page that carries an injection is denied, never reported as merely insufficient."""
    fixture_server.add("/short-injection", headers=HTML, body=pages.SHORT_INJECTION.encode())
    async with _reader(fixture_server) as reader:
        with pytest.raises(pagewarden.GuardDenied):
            await reader.read(fixture_server.url("/short-injection"), render="never")


@pytest.mark.anyio
async def test_short_page_is_content_insufficient(fixture_server: FixtureServer) -> None:
    """A page with too little readable text fails with CONTENT_INSUFFICIENT."""
    fixture_server.add("/short", headers=HTML, body=pages.SHORT.encode())
    async with _reader(fixture_server) as reader:
        with pytest.raises(pagewarden.ContentInsufficient):
            await reader.read(fixture_server.url("/short"), render="never")


@pytest.mark.anyio
async def test_max_characters_truncates_and_says_so(fixture_server: FixtureServer) -> None:
    """max_characters bounds markdown and text, sets truncated, and hashes the full content."""
    fixture_server.add("/article", headers=HTML, body=pages.ARTICLE.encode())
    async with _reader(fixture_server) as reader:
        full = await reader.read(fixture_server.url("/article"), render="never")
        short = await reader.read(fixture_server.url("/article"), render="never", max_characters=200)
    assert short.truncated
    assert len(short.markdown) <= 200
    assert len(short.text) <= 200
    assert short.content_sha256 == full.content_sha256


@pytest.mark.anyio
async def test_markdown_is_used_as_is(fixture_server: FixtureServer) -> None:
    """A text/markdown answer becomes the Document's Markdown without HTML extraction."""
    fixture_server.add("/notes.md", headers={"Content-Type": "text/markdown"}, body=pages.MARKDOWN.encode())
    async with _reader(fixture_server) as reader:
        document = await reader.read(fixture_server.url("/notes.md"), render="never")
    assert document.markdown.startswith("# Notes")
    assert document.fetch.content_type == "text/markdown"


@pytest.mark.anyio
async def test_fragment_is_kept_but_never_sent(fixture_server: FixtureServer) -> None:
    """The Document keeps the requested fragment; the server never sees it."""
    fixture_server.add("/article", headers=HTML, body=pages.ARTICLE.encode())
    async with _reader(fixture_server) as reader:
        document = await reader.read(fixture_server.url("/article") + "#section-2", render="never")
    assert document.url.endswith("#section-2")
    assert "#" not in document.final_url
    assert all("#" not in path for path in fixture_server.paths)


@pytest.mark.anyio
async def test_loopback_needs_an_explicit_allowance(fixture_server: FixtureServer) -> None:
    """Without unsafe_allow_destinations the fixture server is refused as UNSAFE_URL."""
    fixture_server.add("/article", headers=HTML, body=pages.ARTICLE.encode())
    async with pagewarden.AsyncReader() as reader:
        with pytest.raises(pagewarden.UnsafeURL):
            await reader.read(fixture_server.url("/article"), render="never")
    assert fixture_server.paths == []


@pytest.mark.anyio
async def test_deadline_covers_the_whole_read(fixture_server: FixtureServer) -> None:
    """A server that trickles its body cannot hold a read past its deadline."""
    fixture_server.add(
        "/slow", headers=HTML, chunks=[b"<p>" + b"a" * 10] * 200, delay_per_chunk=0.05
    )
    async with _reader(fixture_server) as reader:
        with anyio.fail_after(5):
            with pytest.raises(pagewarden.Timeout) as caught:
                await reader.read(fixture_server.url("/slow"), render="never", timeout=0.5)
    assert caught.value.retryable


@pytest.mark.anyio
async def test_closed_reader_refuses(fixture_server: FixtureServer) -> None:
    """After aclose() every read raises CONFIG_MISSING."""
    reader = _reader(fixture_server)
    await reader.aclose()
    await reader.aclose()
    with pytest.raises(pagewarden.ConfigMissing):
        await reader.read(fixture_server.url("/article"))


INVALID_CALLS = [
    {"render": "sometimes"},
    {"max_characters": 10},
    {"requested_use": "do_anything"},
    {"timeout": 0},
]


@pytest.mark.anyio
@pytest.mark.parametrize("kwargs", INVALID_CALLS)
async def test_invalid_arguments_are_invalid_input(kwargs: dict[str, object]) -> None:
    """Out-of-range call arguments raise INVALID_INPUT before any I/O."""
    async with pagewarden.AsyncReader() as reader:
        with pytest.raises(pagewarden.InvalidInput):
            await reader.read("https://example.com/", **kwargs)  # type: ignore[arg-type]
