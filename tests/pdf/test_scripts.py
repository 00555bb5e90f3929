"""The scan for action JavaScript that PDFium does not expose: strings, hex, streams and object streams."""

from __future__ import annotations

import zlib

from pagewarden._pdf.scripts import MAX_INFLATED_BYTES, action_scripts


def _stream(dictionary: bytes, body: bytes) -> bytes:
    return dictionary + b"\nstream\n" + body + b"\nendstream"


def test_literal_strings_with_escapes_and_nesting() -> None:
    """Escapes, octal codes and nested parentheses are decoded as PDF writes them."""
    data = b"1 0 obj << /S /JavaScript /JS (say\\(\"hi\"\\) \\101 (nested) \\\\ done) >> endobj"
    assert action_scripts(data) == ['say("hi") A (nested) \\ done']


def test_hex_and_utf16_strings() -> None:
    """Hex strings and UTF-16 text strings (with their byte-order mark) are read."""
    utf16 = ("\ufeff" + "caf\u00e9").encode("utf-16-be").hex().upper().encode()
    data = b"<< /JS <616C6572742831 29> >> << /JS <" + utf16 + b"> >>"
    assert action_scripts(data) == ["alert(1)", "caf\u00e9"]


def test_script_streams_and_object_streams_are_inflated() -> None:
    """A script held in a (compressed) stream, and an action packed in an object stream, are both found."""
    script = zlib.compress(b"this.exportDataObject();")
    packed = zlib.compress(b"9 0 << /S /JavaScript /JS (packed away) >>")
    data = (b"%PDF-1.7\n1 0 obj << /A << /S /JavaScript /JS 7 0 R >> >> endobj\n"
            + b"7 0 obj " + _stream(b"<< /Length %d /Filter /FlateDecode >>" % len(script), script) + b" endobj\n"
            + b"8 0 obj " + _stream(b"<< /Type /ObjStm /N 1 /First 5 /Filter /FlateDecode >>", packed) + b" endobj\n")
    assert action_scripts(data) == ["this.exportDataObject();", "packed away"]


def test_a_bomb_in_an_object_stream_stops_at_the_budget() -> None:
    """An object stream inflating past the scan's budget is read only up to it."""
    bomb = zlib.compress(b" " * (MAX_INFLATED_BYTES + (1 << 20)), 9)
    data = b"1 0 obj " + _stream(b"<< /Type /ObjStm /Filter /FlateDecode >>", bomb) + b" endobj /JS (after)"
    assert action_scripts(data) == ["after"]


def test_nothing_to_find() -> None:
    """A file without /JS entries (names that merely start with JS included) yields nothing."""
    assert action_scripts(b"<< /JSX (not a script) /Type /Catalog >>") == []


def test_references_to_strings_and_to_missing_objects() -> None:
    """A reference to a string object is followed; thousands of references to absent objects are looked up boundedly."""
    missing = b" ".join(b"<< /JS %d 0 R >>" % number for number in range(1_000, 4_000))
    data = b"5 0 obj (referenced script) endobj\n<< /JS 5 0 R >>\n" + missing
    assert action_scripts(data) == ["referenced script"]
