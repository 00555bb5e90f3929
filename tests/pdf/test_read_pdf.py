"""read() of PDFs end to end: structure, page anchors, metadata, links, and every way a PDF can fail."""

from __future__ import annotations

import time

import pytest

import pagewarden
from pagewarden._tools import ToolBudget, toolset_for
from tests.pdf.documents import (
    BODY,
    bomb_pdf,
    busy_pdf,
    encrypted_pdf,
    hand_written_pdf,
    long_pdf,
    malformed_pdf,
    nested_forms_pdf,
    paper_pdf,
    scanned_pdf,
)
from tests.support.server import FixtureServer

PDF = {"Content-Type": "application/pdf"}
pytestmark = pytest.mark.anyio


def _reader(server: FixtureServer, **options: object) -> pagewarden.AsyncReader:
    return pagewarden.AsyncReader(
        unsafe_allow_destinations=(server.host_port,), cache=pagewarden.CacheConfig(max_entries=0), **options
    )


@pytest.fixture(scope="module")
def bomb() -> bytes:
    """A content stream inflating to 400 MB (built once: compressing takes a moment)."""
    return bomb_pdf(400)


@pytest.fixture(scope="module")
def busy() -> bytes:
    """200 MB of ``q Q`` operators: several seconds of parser CPU time in under a megabyte."""
    return busy_pdf(200)


async def test_paper_becomes_a_structured_document(fixture_server: FixtureServer) -> None:
    """A two-column paper yields headings, columns in reading order, a list, references and page anchors."""
    fixture_server.add("/paper.pdf", headers=PDF, body=paper_pdf())
    url = fixture_server.url("/paper.pdf")
    async with _reader(fixture_server) as reader:
        document = await reader.read(url, render="never")
    markdown = document.markdown
    assert document.fetch.content_type == "application/pdf"
    assert document.fetch.method == "http"
    assert "# On River Deltas" in markdown
    assert "## 1 Introduction" in markdown
    assert "## References" in markdown
    assert markdown.index("Deltas form where rivers slow down") < markdown.index("We surveyed eleven deltas")
    assert "slow down and drop the sediment" in document.text
    assert "- Sediment budgets\n- Channel avulsion" in markdown
    assert f"`{url}#page=1`" in markdown
    assert f"`{url}#page=2`" in markdown
    assert markdown.index(f"{url}#page=2") < markdown.index("## References")
    references = [line for line in document.text.split("\n\n") if line.startswith("[")]
    assert len(references) == 2
    assert document.security.decision is pagewarden.Decision.ALLOW
    assert document.fetch.timings.extract > 0
    assert document.fetch.timings.guard > 0


async def test_metadata_and_links(fixture_server: FixtureServer) -> None:
    """Title, author, date and subject become metadata; link URIs pass the URL policy (private ones dropped)."""
    fixture_server.add("/paper.pdf", headers=PDF, body=paper_pdf())
    async with _reader(fixture_server) as reader:
        document = await reader.read(fixture_server.url("/paper.pdf"), render="never")
    assert document.title == "On River Deltas"
    assert document.metadata.author == "Ada Example"
    assert document.metadata.description == "How deltas form and move"
    assert document.metadata.date is not None and len(document.metadata.date) == 10
    assert document.links == ("https://example.org/ref",)


async def test_scanned_page_has_no_text_layer(fixture_server: FixtureServer) -> None:
    """An image-only page is CONTENT_INSUFFICIENT with a reason saying there is no text layer."""
    fixture_server.add("/scan.pdf", headers=PDF, body=scanned_pdf())
    async with _reader(fixture_server) as reader:
        with pytest.raises(pagewarden.ContentInsufficient) as caught:
            await reader.read(fixture_server.url("/scan.pdf"), render="auto")
    assert caught.value.reason == "pdf_no_text_layer"
    assert "text layer" in str(caught.value)


async def test_encrypted_with_a_password_is_a_typed_error(fixture_server: FixtureServer) -> None:
    """A PDF that needs a user password is DOCUMENT_UNREADABLE (pdf_encrypted)."""
    fixture_server.add("/locked.pdf", headers=PDF, body=encrypted_pdf("user-secret"))
    async with _reader(fixture_server) as reader:
        with pytest.raises(pagewarden.DocumentUnreadable) as caught:
            await reader.read(fixture_server.url("/locked.pdf"), render="never")
    assert caught.value.code == "DOCUMENT_UNREADABLE"
    assert caught.value.reason == "pdf_encrypted"
    assert "user-secret" not in str(caught.value)


async def test_encrypted_with_an_empty_password_is_read(fixture_server: FixtureServer) -> None:
    """A PDF encrypted with an empty user password (owner restrictions only) is read."""
    fixture_server.add("/restricted.pdf", headers=PDF, body=encrypted_pdf(""))
    async with _reader(fixture_server) as reader:
        document = await reader.read(fixture_server.url("/restricted.pdf"), render="never")
    assert BODY[0] in document.text


MALFORMED = [
    pytest.param(malformed_pdf(), id="broken_catalog"),
    pytest.param(b"%PDF-1.4\n" + b"\x00" * 2000, id="zeros"),
    pytest.param(b"<html>not a pdf</html>", id="html_served_as_pdf"),
    pytest.param(hand_written_pdf(b"BT /F1 12 Tf (unterminated", filters=b" /Filter /FlateDecode"),
                 id="bad_flate_stream"),
]


@pytest.mark.parametrize("body", MALFORMED)
async def test_malformed_files_are_typed_errors(fixture_server: FixtureServer, body: bytes) -> None:
    """Malformed files end in DOCUMENT_UNREADABLE or CONTENT_INSUFFICIENT, never a crash or a raw exception."""
    fixture_server.add("/bad.pdf", headers=PDF, body=body)
    async with _reader(fixture_server) as reader:
        with pytest.raises((pagewarden.DocumentUnreadable, pagewarden.ContentInsufficient)) as caught:
            await reader.read(fixture_server.url("/bad.pdf"), render="never")
    assert caught.value.reason in ("pdf_malformed", "pdf_no_text_layer")


async def test_decompression_bomb_ends_at_the_memory_limit(fixture_server: FixtureServer, bomb: bytes) -> None:
    """A bomb ends the worker at its address-space cap (typed error); the next PDF is read by a fresh worker."""
    fixture_server.add("/bomb.pdf", headers=PDF, body=bomb)
    fixture_server.add("/paper.pdf", headers=PDF, body=paper_pdf())
    limits = pagewarden.Limits(pdf_memory_bytes=268_435_456, pdf_cpu_seconds=60)
    async with _reader(fixture_server, limits=limits) as reader:
        with pytest.raises(pagewarden.DocumentUnreadable) as caught:
            await reader.read(fixture_server.url("/bomb.pdf"), render="never", timeout=60)
        assert caught.value.reason in ("pdf_worker_crashed", "pdf_memory_limit")
        document = await reader.read(fixture_server.url("/paper.pdf"), render="never")
    assert "On River Deltas" in document.markdown


async def test_cpu_limit_ends_a_pathological_file(fixture_server: FixtureServer, busy: bytes) -> None:
    """A file that keeps the parser busy ends at the CPU-time limit with pdf_cpu_limit."""
    fixture_server.add("/busy.pdf", headers=PDF, body=busy)
    limits = pagewarden.Limits(pdf_cpu_seconds=1)
    async with _reader(fixture_server, limits=limits) as reader:
        with pytest.raises(pagewarden.DocumentUnreadable) as caught:
            await reader.read(fixture_server.url("/busy.pdf"), render="never", timeout=60)
    assert caught.value.reason == "pdf_cpu_limit"


async def test_deadline_holds_and_the_worker_is_killed(fixture_server: FixtureServer, busy: bytes) -> None:
    """The read's deadline interrupts a parse: TIMEOUT soon after it, and the busy worker is killed."""
    fixture_server.add("/busy.pdf", headers=PDF, body=busy)
    limits = pagewarden.Limits(pdf_cpu_seconds=60)
    async with _reader(fixture_server, limits=limits) as reader:
        started = time.monotonic()
        with pytest.raises(pagewarden.Timeout):
            await reader.read(fixture_server.url("/busy.pdf"), render="never", timeout=1.0)
        assert time.monotonic() - started < 4.0
        workers = reader._reads.pdf
        assert workers is not None
        assert workers.idle == 0
        assert not workers._busy


async def test_workers_are_kept_and_closed_with_the_reader(fixture_server: FixtureServer) -> None:
    """A worker that answered is reused by the next read, and aclose() ends it."""
    fixture_server.add("/paper.pdf", headers=PDF, body=paper_pdf())
    reader = _reader(fixture_server)
    await reader.read(fixture_server.url("/paper.pdf"), render="never")
    await reader.read(fixture_server.url("/paper.pdf"), render="never")
    workers = reader._reads.pdf
    assert workers is not None and workers.idle == 1
    process = workers._idle[0]
    await reader.aclose()
    assert process.returncode is not None


LIMIT_CASES = [
    (pagewarden.Limits(max_pdf_pages=2), long_pdf(3), "pdf_too_many_pages"),
    (pagewarden.Limits(max_pdf_characters=1_000), long_pdf(2), "pdf_too_many_characters"),
    (pagewarden.Limits(max_pdf_compressed_bytes=1_024, max_pdf_decoded_bytes=1_024), long_pdf(2),
     "content_length_too_large"),
]


@pytest.mark.parametrize(("limits", "body", "reason"), LIMIT_CASES)
async def test_pdf_limits(fixture_server: FixtureServer, limits: pagewarden.Limits, body: bytes, reason: str) -> None:
    """Pages, characters and file size each have a limit of their own: RESPONSE_TOO_LARGE naming it."""
    fixture_server.add("/long.pdf", headers=PDF, body=body)
    async with _reader(fixture_server, limits=limits) as reader:
        with pytest.raises(pagewarden.ResponseTooLarge) as caught:
            await reader.read(fixture_server.url("/long.pdf"), render="never")
    assert caught.value.reason == reason


async def test_pdf_can_be_turned_off(fixture_server: FixtureServer) -> None:
    """Without application/pdf in allowed_content_types a PDF is refused as before."""
    fixture_server.add("/paper.pdf", headers=PDF, body=paper_pdf())
    types = ("text/html", "text/plain")
    async with _reader(fixture_server, allowed_content_types=types) as reader:
        with pytest.raises(pagewarden.UnsupportedContentType):
            await reader.read(fixture_server.url("/paper.pdf"), render="never")


async def test_tools_page_through_a_long_pdf(fixture_server: FixtureServer) -> None:
    """fetch_content and fetch_more page through a long PDF's Markdown, page anchors included."""
    fixture_server.add("/long.pdf", headers=PDF, body=long_pdf(6))
    url = fixture_server.url("/long.pdf")
    async with _reader(fixture_server, default_render="never") as reader:
        full = await reader.read(url, max_characters=100_000)
        toolset = toolset_for(reader, budget=ToolBudget(max_continuations=None))
        result = await toolset.execute("fetch_content", {"url": url, "max_characters": 2_000})
        pieces = []
        while True:
            span = result["characters"]
            pieces.append(full.markdown[span["start"]:span["end"]])
            if result["cursor"] is None:
                break
            result = await toolset.execute("fetch_more", {"cursor": result["cursor"]})
    assert len(pieces) > 3
    assert "".join(pieces) == full.markdown
    assert f"{url}#page=6" in full.markdown


async def test_a_worker_killed_while_idle_is_replaced(fixture_server: FixtureServer) -> None:
    """An idle worker that died meanwhile is replaced by a fresh one; the next read does not fail for it."""
    fixture_server.add("/paper.pdf", headers=PDF, body=paper_pdf())
    async with _reader(fixture_server) as reader:
        await reader.read(fixture_server.url("/paper.pdf"), render="never")
        workers = reader._reads.pdf
        assert workers is not None
        idle = workers._idle[0]
        idle.kill()
        await idle.wait()
        document = await reader.read(fixture_server.url("/paper.pdf"), render="never")
        assert workers._idle and workers._idle[0] is not idle
    assert "On River Deltas" in document.markdown


@pytest.mark.parametrize("depth", [3, 16])
async def test_form_nesting_within_the_limit_is_read(fixture_server: FixtureServer, depth: int) -> None:
    """Forms nested up to 16 levels deep are read: their text counts as the page's text."""
    fixture_server.add("/nested.pdf", headers=PDF, body=nested_forms_pdf(depth))
    async with _reader(fixture_server) as reader:
        document = await reader.read(fixture_server.url("/nested.pdf"), render="never")
    assert BODY[0] in document.text
    assert "level" in document.text


@pytest.mark.parametrize(("depth", "cycle"), [(40, False), (17, False), (3, True)])
async def test_deep_or_cyclic_form_nesting_ends_typed(fixture_server: FixtureServer, depth: int,
                                                      cycle: bool) -> None:
    """Forms nested past 16 levels, or drawing themselves, are RESPONSE_TOO_LARGE (pdf_nesting_too_deep)."""
    fixture_server.add("/nested.pdf", headers=PDF, body=nested_forms_pdf(depth, cycle=cycle))
    async with _reader(fixture_server) as reader:
        with pytest.raises(pagewarden.ResponseTooLarge) as caught:
            await reader.read(fixture_server.url("/nested.pdf"), render="never", timeout=20)
    assert caught.value.reason == "pdf_nesting_too_deep"
