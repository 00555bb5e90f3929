"""Inside the worker: JavaScript actions wherever the file holds them, by scanning its objects.

PDFium's public interface reads document-level JavaScript (the ``/Names``
tree) and a form field's keystroke, format, validate and calculate scripts,
but not the script of a link's action (``/A << /S /JavaScript /JS ... >>``),
of an annotation's other additional actions (``/AA``: mouse enter and exit,
focus, page open...), of ``/OpenAction`` or of a page's ``/AA``. They are
never run, but a model reading the document's parts would read them, so they
go to the guard like document JavaScript.

The scan reads every ``/JS`` entry of the file's objects: the top-level
objects as written, and those packed into object streams (``/Type /ObjStm``,
Flate-compressed) after inflating them within a byte budget. A script is a
literal string, a hex string, or a reference to either or to a stream
(inflated too). Budgets bound the work a crafted file can ask for: bytes
inflated, bytes of escaped strings read one by one, objects looked up.
Encrypted files are not scanned (their strings are ciphertext); that is named
in the document's limitations.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterator

__all__ = ["MAX_INFLATED_BYTES", "MAX_SCRIPTS", "action_scripts"]

MAX_SCRIPTS = 1_000
MAX_SCRIPT_CHARS = 1 << 20
# Everything inflated for the scan, object streams and script streams together.
MAX_INFLATED_BYTES = 32 << 20
# Literal strings read character by character (those with escapes or nested parentheses), all together.
MAX_PARSED_BYTES = 8 << 20
# Referenced objects looked up (each a search of the file).
MAX_REFERENCES = 256
_JS = re.compile(rb"/JS(?![A-Za-z0-9#])\s*")
_REFERENCE = re.compile(rb"(\d{1,10})\s+(\d{1,5})\s+R")
_OBJECT_STREAM = re.compile(rb"/Type\s*/ObjStm")
_STREAM = re.compile(rb"stream\r?\n")
_HEX = re.compile(rb"<([0-9A-Fa-f\s]*)>")
_SPACE = re.compile(rb"\s*")
_ESCAPES = {ord("n"): b"\n", ord("r"): b"\r", ord("t"): b"\t", ord("b"): b"\b", ord("f"): b"\f"}


class _Inflater:
    def __init__(self) -> None:
        self.left = MAX_INFLATED_BYTES

    def inflate(self, data: bytes) -> bytes:
        if self.left <= 0:
            return b""
        decompressor = zlib.decompressobj()
        try:
            out = decompressor.decompress(data, self.left)
        except zlib.error:
            return b""
        self.left -= len(out)
        return out


def _stream_after(data: bytes, position: int, limit: int) -> tuple[bytes, bytes] | None:
    """The dictionary and raw body of the stream whose dictionary holds ``position``."""
    opened = _STREAM.search(data, position, min(len(data), position + limit))
    if opened is None:
        return None
    end = data.find(b"endstream", opened.end())
    if end < 0:
        return None
    start = data.rfind(b"obj", 0, position)
    return data[max(start, 0) : opened.start()], data[opened.end() : end]


def _decoded_stream(dictionary: bytes, body: bytes, inflater: _Inflater) -> bytes:
    if b"/Filter" not in dictionary:
        return body
    if re.search(rb"/Filter\s*(\[\s*)?/FlateDecode\s*\]?", dictionary) and b"/DecodeParms" not in dictionary:
        return inflater.inflate(body)
    return b""  # other filters (and predictors) are not decoded for the scan


def _bodies(data: bytes, inflater: _Inflater) -> Iterator[bytes]:
    """The file as written, then every object stream's inflated content."""
    yield data
    for match in _OBJECT_STREAM.finditer(data):
        stream = _stream_after(data, match.start(), 4_096)
        if stream is not None:
            yield _decoded_stream(*stream, inflater)


def _literal(data: bytes, start: int, budget: list[int]) -> bytes:
    """A literal string whose "(" is at ``start`` (nested parentheses and escapes honoured); ``budget[0]``
    bounds the bytes read one by one over the whole scan."""
    close = data.find(b")", start)
    if close > 0 and data.find(b"(", start + 1, close) < 0 and data.find(b"\\", start, close) < 0:
        return data[start + 1 : min(close, start + 1 + MAX_SCRIPT_CHARS)]  # no escapes, no nesting
    out = bytearray()
    depth, index = 0, start
    while index < len(data) and len(out) < MAX_SCRIPT_CHARS and budget[0] > 0:
        budget[0] -= 1
        byte = data[index]
        if byte == 0x5C and index + 1 < len(data):  # backslash
            following = data[index + 1]
            if following in _ESCAPES:
                out += _ESCAPES[following]
                index += 2
            elif 0x30 <= following <= 0x37:
                end = index + 2
                while end < index + 4 and end < len(data) and 0x30 <= data[end] <= 0x37:
                    end += 1
                out.append(int(data[index + 1 : end], 8) & 0xFF)
                index = end
            elif following in (0x0D, 0x0A):
                index += 3 if data[index + 1 : index + 3] == b"\r\n" else 2
            else:
                out.append(following)
                index += 2
            continue
        if byte == 0x28:
            depth += 1
            if depth == 1:
                index += 1
                continue
        elif byte == 0x29:
            depth -= 1
            if depth == 0:
                break
        out.append(byte)
        index += 1
    return bytes(out)


def _text(raw: bytes) -> str:
    if raw.startswith(b"\xfe\xff"):
        return raw[2:].decode("utf-16-be", "replace")
    if raw.startswith(b"\xef\xbb\xbf"):
        return raw[3:].decode("utf-8", "replace")
    return raw.decode("latin-1")


class _Scan:
    """One file's scan: its bytes, the inflate and parse budgets, and the objects looked up so far."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.inflater = _Inflater()
        self.parse_budget = [MAX_PARSED_BYTES]
        self.objects: dict[bytes, int] = {}

    def object(self, reference: re.Match[bytes]) -> int:
        """Where the body of the referenced object starts, -1 when absent (or past the lookup budget)."""
        key = reference.group(1) + b" " + reference.group(2)
        if key not in self.objects:
            if len(self.objects) >= MAX_REFERENCES:
                return -1
            found = re.search(rb"(?<![0-9])" + reference.group(1) + rb"\s+" + reference.group(2) + rb"\s+obj\b",
                              self.data)
            self.objects[key] = -1 if found is None else found.end()
        return self.objects[key]

    def script(self, body: bytes, position: int, depth: int = 0) -> str | None:
        """The script whose value starts at ``position`` of ``body``: a string, or a reference to one or to a stream."""
        head = body[position : position + 1]
        if head == b"(":
            return _text(_literal(body, position, self.parse_budget))
        if head == b"<" and body[position : position + 2] != b"<<":
            hexed = _HEX.match(body, position)
            if hexed is None:
                return None
            digits = re.sub(rb"\s", b"", hexed.group(1))[: 2 * MAX_SCRIPT_CHARS]
            return _text(bytes.fromhex((digits + b"0" * (len(digits) % 2)).decode("ascii")))
        reference = _REFERENCE.match(body, position)
        if reference is None or depth > 0:
            return None
        start = self.object(reference)
        if start < 0:
            return None
        at = _SPACE.match(self.data, start)
        value = at.end() if at else start
        if self.data[value : value + 1] in (b"(", b"<") and self.data[value : value + 2] != b"<<":
            return self.script(self.data, value, depth + 1)
        stream = _stream_after(self.data, value, 4_096)
        if stream is None:
            return None
        return _text(_decoded_stream(*stream, self.inflater)[:MAX_SCRIPT_CHARS])


def action_scripts(data: bytes) -> list[str]:
    """Every distinct JavaScript source the file's objects hold, in file order, at most :data:`MAX_SCRIPTS`."""
    scan = _Scan(data)
    seen: dict[str, None] = {}
    for body in _bodies(data, scan.inflater):
        for match in _JS.finditer(body):
            script = scan.script(body, match.end())
            if script and script.strip() and script not in seen:
                seen[script] = None
                if len(seen) >= MAX_SCRIPTS:
                    return list(seen)
    return list(seen)
