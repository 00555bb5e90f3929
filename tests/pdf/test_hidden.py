"""Hidden-text carriers: each injection reaches the guard in its location and never the Markdown."""

from __future__ import annotations

import pytest

import pagewarden
from pagewarden._pdf.page import MAX_COVER_CANDIDATES
from tests.pdf.documents import BENIGN, BODY, CARRIERS, INJECTION, Carrier, carrier_pdf, layer_pdf, table_pdf
from tests.support.server import FixtureServer

PDF = {"Content-Type": "application/pdf"}


def _reader(server: FixtureServer, **options: object) -> pagewarden.AsyncReader:
    return pagewarden.AsyncReader(unsafe_allow_destinations=(server.host_port,), cache=pagewarden.CacheConfig(
        max_entries=0), **options)


@pytest.fixture(scope="module")
def carrier_files() -> dict[tuple[str, str], bytes]:
    """Every carrier with the injection and with its benign twin, built once."""
    return {
        (carrier.name, kind): carrier_pdf(carrier, payload)
        for carrier in CARRIERS
        for kind, payload in (("injection", INJECTION), ("benign", BENIGN))
    }


@pytest.mark.anyio
@pytest.mark.parametrize("carrier", CARRIERS, ids=repr)
async def test_injection_is_withheld_and_located(
    carrier: Carrier, carrier_files: dict[tuple[str, str], bytes], fixture_server: FixtureServer
) -> None:
    """An injection in each carrier is withheld (GUARD_DENIED); reported, its finding names the carrier's location."""
    fixture_server.add("/doc.pdf", headers=PDF, body=carrier_files[(carrier.name, "injection")])
    async with _reader(fixture_server) as reader:
        with pytest.raises(pagewarden.GuardDenied):
            await reader.read(fixture_server.url("/doc.pdf"), render="never")
    async with _reader(fixture_server, on_guard="return") as reader:
        document = await reader.read(fixture_server.url("/doc.pdf"), render="never")
    locations = {str(finding.location) for finding in document.security.findings
                 if finding.category != "benign_mention"}
    assert carrier.location in locations
    assert document.security.decision.withholds
    assert "previous instructions" not in document.markdown
    assert "previous instructions" not in document.text
    assert BODY[0] in document.text


@pytest.mark.anyio
@pytest.mark.parametrize("carrier", CARRIERS, ids=repr)
async def test_benign_twin_is_allowed_and_hidden_text_stays_out(
    carrier: Carrier, carrier_files: dict[tuple[str, str], bytes], fixture_server: FixtureServer
) -> None:
    """The benign twin of each carrier is returned; what it hid is still not in the Markdown."""
    fixture_server.add("/doc.pdf", headers=PDF, body=carrier_files[(carrier.name, "benign")])
    async with _reader(fixture_server) as reader:
        document = await reader.read(fixture_server.url("/doc.pdf"), render="never")
    assert not document.security.decision.withholds
    assert BODY[1] in document.text
    assert "Tide tables" not in document.markdown
    assert "Tide tables" not in document.text


def test_sync_reader_reads_a_pdf(fixture_server: FixtureServer, carrier_files: dict[tuple[str, str], bytes]) -> None:
    """The sync facade reads a PDF too (its worker pool lives on the facade's loop)."""
    fixture_server.add("/doc.pdf", headers=PDF, body=carrier_files[("render_mode_3", "benign")])
    with pagewarden.Reader(unsafe_allow_destinations=(fixture_server.host_port,)) as reader:
        document = reader.read(fixture_server.url("/doc.pdf"), render="never")
    assert document.fetch.content_type == "application/pdf"
    assert BODY[2] in document.text


@pytest.mark.anyio
async def test_shaded_table_cells_stay_visible(fixture_server: FixtureServer) -> None:
    """Text on shaded cell backgrounds (drawn before it) is visible, not "covered" or "colour matched"."""
    fixture_server.add("/table.pdf", headers=PDF, body=table_pdf(40, 10))
    async with _reader(fixture_server) as reader:
        document = await reader.read(fixture_server.url("/table.pdf"), render="never")
    assert "r0c0" in document.text
    assert "r39c9" in document.text
    assert not document.security.decision.withholds


@pytest.mark.anyio
async def test_covering_box_is_found_among_many_shapes(fixture_server: FixtureServer) -> None:
    """An injection under a box drawn last is hidden even on a page with hundreds of other shapes."""
    fixture_server.add("/table.pdf", headers=PDF, body=table_pdf(40, 10, decoys=300, payload=INJECTION))
    async with _reader(fixture_server, on_guard="return") as reader:
        document = await reader.read(fixture_server.url("/table.pdf"), render="never")
    assert "previous instructions" not in document.markdown
    assert "hidden" in {str(finding.location) for finding in document.security.findings}


@pytest.mark.anyio
async def test_too_many_shapes_is_a_stated_limitation(fixture_server: FixtureServer) -> None:
    """Past the covering-shape budget the page is named in the limitations; the text still reaches the guard."""
    decoys = MAX_COVER_CANDIDATES + 100
    fixture_server.add("/crowded.pdf", headers=PDF, body=table_pdf(2, 2, decoys=decoys, payload=INJECTION))
    async with _reader(fixture_server, on_guard="return") as reader:
        document = await reader.read(fixture_server.url("/crowded.pdf"), render="never")
    assert any("opaque shapes" in text for text in document.security.limitations)
    assert document.security.decision.withholds


@pytest.mark.anyio
async def test_layer_switched_on_stays_visible(fixture_server: FixtureServer) -> None:
    """Text in an optional-content group the default view shows is read as visible text."""
    fixture_server.add("/layer.pdf", headers=PDF, body=layer_pdf(BENIGN, state=b"/ON"))
    async with _reader(fixture_server) as reader:
        document = await reader.read(fixture_server.url("/layer.pdf"), render="never")
    assert "Tide tables" in document.text
    assert not document.security.decision.withholds
