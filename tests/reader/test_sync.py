"""The sync facade: works from plain code, refuses inside an event loop."""

from __future__ import annotations

import pytest

import pagewarden
from tests.reader import pages
from tests.support.server import FixtureServer

HTML = {"Content-Type": "text/html; charset=utf-8"}


def test_sync_reader_reads(fixture_server: FixtureServer) -> None:
    """Reader.read returns the same Document shape as the async reader."""
    fixture_server.add("/article", headers=HTML, body=pages.ARTICLE.encode())
    with pagewarden.Reader(unsafe_allow_destinations=(fixture_server.host_port,)) as reader:
        document = reader.read(fixture_server.url("/article"), render="never")
        again = reader.read(fixture_server.url("/article"), render="never")
    assert document.title == again.title == "How river deltas form"


def test_module_level_read(fixture_server: FixtureServer) -> None:
    """pagewarden.read splits read arguments from reader options."""
    fixture_server.add("/article", headers=HTML, body=pages.ARTICLE.encode())
    document = pagewarden.read(
        fixture_server.url("/article"), render="never", max_characters=300,
        unsafe_allow_destinations=(fixture_server.host_port,),
    )
    assert document.truncated


def test_closed_sync_reader_refuses() -> None:
    """A closed Reader raises CONFIG_MISSING; close() is idempotent."""
    reader = pagewarden.Reader()
    reader.close()
    reader.close()
    with pytest.raises(pagewarden.ConfigMissing):
        reader.read("https://example.com/")


@pytest.mark.anyio
async def test_sync_reader_refuses_inside_event_loop() -> None:
    """Calling the sync API from a running loop raises INVALID_INPUT pointing to AsyncReader."""
    with pytest.raises(pagewarden.InvalidInput) as caught:
        pagewarden.read("https://example.com/")
    assert caught.value.reason == "sync_api_in_event_loop"
    assert "AsyncReader" in caught.value.message
