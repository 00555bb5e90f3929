"""Records: input-line parsing, the shape of document and failure records, read_record never raising."""

from __future__ import annotations

from typing import Any

import pytest

from pagewarden import NetworkError, UnsafeURL
from pagewarden._ingest.records import (
    INPUT_ERROR_FIELD,
    document_record,
    failure_record,
    parse_input_line,
    read_record,
)
from tests.ingest.fakes import FakeDocument, FakeReader

LINES: list[tuple[str, tuple[str, dict[str, Any]] | None]] = [
    ("", None),
    ("   \n", None),
    ("# a comment\n", None),
    ("https://example.com/a\n", ("https://example.com/a", {})),
    ("  https://example.com/b  ", ("https://example.com/b", {})),
    ('{"url": "https://example.com/c"}', ("https://example.com/c", {})),
    ('{"url": " https://example.com/d ", "id": 7, "tags": ["x"]}', ("https://example.com/d", {"id": 7, "tags": ["x"]})),
    ('{"url": "https://e', ('{"url": "https://e', {INPUT_ERROR_FIELD: "invalid_json_line"})),
    ('{"id": 1}', ('{"id": 1}', {INPUT_ERROR_FIELD: "missing_url_field"})),
    ('{"url": 5}', ('{"url": 5}', {INPUT_ERROR_FIELD: "missing_url_field"})),
    ('{"url": ""}', ('{"url": ""}', {INPUT_ERROR_FIELD: "missing_url_field"})),
]


@pytest.mark.parametrize(("line", "expected"), LINES)
def test_parse_input_line(line: str, expected: tuple[str, dict[str, Any]] | None) -> None:
    """Text URLs, JSONL objects, blanks, comments and malformed lines parse as tabled."""
    assert parse_input_line(line) == expected


def test_malformed_line_is_bounded() -> None:
    """The raw text of a malformed line, used as its record's url, is capped."""
    url, _ = parse_input_line("{" + "x" * 10_000) or ("", {})
    assert len(url) == 2_048


def test_pass_through_never_overrides_document_fields() -> None:
    """Pass-through fields are added, but cannot replace the document's fields or ok."""
    record = document_record(FakeDocument("https://a.example/"), {"markdown": "forged", "ok": False, "id": 3})  # type: ignore[arg-type]
    assert record["markdown"] == "tiny page"
    assert record["ok"] is True
    assert record["id"] == 3


def test_failure_record_shape() -> None:
    """A failure record carries url, code, reason, retryable, message and ok=False; extras cannot override."""
    error = NetworkError("could not connect", reason="connect_failed")
    record = failure_record("https://a.example/", error, {"code": "forged", "source": "s1"})
    assert record == {
        "url": "https://a.example/", "code": "NETWORK_ERROR", "reason": "connect_failed", "retryable": True,
        "message": "could not connect", "ok": False, "source": "s1",
    }


class _Robots:
    def __init__(self) -> None:
        self.checked: list[str] = []

    async def check(self, url: str) -> None:
        self.checked.append(url)
        if "/private" in url:
            raise UnsafeURL("robots.txt of this site disallows this URL", reason="robots_disallowed")


READS = [
    pytest.param("https://a.example/ok", None, (True, None, None), id="success"),
    pytest.param("https://a.example/net", NetworkError("x", reason="dns_failed"),
                 (False, "NETWORK_ERROR", "dns_failed"), id="pagewarden-error"),
    pytest.param("https://a.example/bug", RuntimeError("boom"), (False, "UNKNOWN", "unexpected_error"),
                 id="unexpected-exception"),
    pytest.param("https://a.example/private/1", None, (False, "UNSAFE_URL", "robots_disallowed"), id="robots"),
]


@pytest.mark.anyio
@pytest.mark.parametrize(("url", "error", "expected"), READS)
async def test_read_record_never_raises(url: str, error: BaseException | None, expected: tuple[object, ...]) -> None:
    """read_record turns every failure, robots refusals included, into a record."""
    reader = FakeReader(errors={url: error} if error else {})
    robots = _Robots()
    record = await read_record(reader, url, {"id": 1}, render="never", robots=robots)  # type: ignore[arg-type]
    assert (record["ok"], record.get("code"), record.get("reason")) == expected
    assert record["url"] == url
    assert record["id"] == 1
    assert robots.checked == [url]
    # A robots refusal means the page itself is never requested.
    assert reader.calls == ([] if "private" in url else [url])


@pytest.mark.anyio
async def test_malformed_input_becomes_invalid_input_without_reading() -> None:
    """A line marked malformed gives an INVALID_INPUT record and no read; the marker is not copied out."""
    reader = FakeReader()
    url, extra = parse_input_line("{broken") or ("", {})
    record = await read_record(reader, url, extra, render="never")  # type: ignore[arg-type]
    assert (record["code"], record["reason"], record["url"]) == ("INVALID_INPUT", "invalid_json_line", "{broken")
    assert INPUT_ERROR_FIELD not in record
    assert reader.calls == []
