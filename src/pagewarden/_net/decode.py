"""Body decoding: bounded content decoding while streaming, then strict charset decoding.

Content encodings: identity, ``gzip`` (``x-gzip``), ``deflate`` (zlib-wrapped
or raw, sniffed from the first two bytes) and ``br`` (the ``brotli`` package,
whose ``process(..., output_buffer_limit=...)`` bounds each step). Stacked
encodings (``gzip, br``) are refused: they have no legitimate use on pages and
multiply a bomb's ratio. Only the first gzip member is decoded. Wire bytes are counted against
``max_compressed_bytes`` and decoded bytes against ``max_decoded_bytes`` on
every chunk; no decompression step produces more than :data:`STEP` bytes, so a
bomb is stopped after at most the cap plus one step.

Charsets: BOM first, then the HTTP header's ``charset``, then (HTML only) a
``<meta charset>`` / ``http-equiv`` declaration in the first 1,024 bytes,
else UTF-8. Labels are normalized WHATWG-style (trimmed, lowercased) and
looked up with :func:`codecs.lookup`; the result must be in
:data:`ALLOWED_CODECS`, the Python codecs behind the WHATWG encodings. That
allow-list refuses UTF-7 (a classic filter bypass), UTF-32, the
``unicode_escape`` family and the bytes-to-bytes codecs (``base64``, ``rot13``
...). As in browsers, ``iso-8859-1``/``ascii`` labels mean windows-1252
(falling back to real Latin-1 for the five bytes windows-1252 leaves
undefined), and a few labels map to their WHATWG superset (``gb2312`` ->
GBK, ``shift_jis`` -> cp932, ``euc-kr`` -> cp949, ``big5`` -> big5hkscs).
Bytes invalid in the chosen charset are refused: there is no silent fallback.
"""

from __future__ import annotations

import codecs
import re
import zlib
from typing import Any, Final

import brotli

from .._errors import ResponseTooLarge, UnsupportedContentEncoding

__all__ = [
    "ALLOWED_CODECS",
    "BINARY_MEDIA_TYPES",
    "PDF_MEDIA_TYPES",
    "STEP",
    "BodyDecoder",
    "decode_text",
    "normalize_charset",
    "parse_content_type",
]

STEP: Final = 64 * 1024
# Media types handed over as bytes (Latin-1 text); only fetched when a caller
# adds them to ``allowed_content_types`` (the crawler's gzip sitemaps).
# PDFs (read by pagewarden._pdf) travel the same way, under their own size limits.
PDF_MEDIA_TYPES: Final = frozenset({"application/pdf", "application/x-pdf"})
BINARY_MEDIA_TYPES: Final = frozenset({"application/gzip", "application/x-gzip"}) | PDF_MEDIA_TYPES
META_SCAN_BYTES: Final = 1024

ALLOWED_CODECS: Final = frozenset(
    {
        "utf-8",
        "utf-16-le",
        "utf-16-be",
        "cp1252",
        "iso8859-1",
        "iso8859-2",
        "iso8859-3",
        "iso8859-4",
        "iso8859-5",
        "iso8859-6",
        "iso8859-7",
        "iso8859-8",
        "iso8859-10",
        "iso8859-13",
        "iso8859-14",
        "iso8859-15",
        "iso8859-16",
        "cp1250",
        "cp1251",
        "cp1253",
        "cp1254",
        "cp1255",
        "cp1256",
        "cp1257",
        "cp1258",
        "cp866",
        "cp874",
        "koi8-r",
        "koi8-u",
        "mac-roman",
        "mac-cyrillic",
        "gbk",
        "gb18030",
        "big5hkscs",
        "euc_jp",
        "iso2022_jp",
        "cp932",
        "cp949",
    }
)
# WHATWG labels Python's codec registry does not know.
_WHATWG_LABELS: Final = {
    "unicode-1-1-utf-8": "utf-8",
    "unicode11utf8": "utf-8",
    "unicode20utf8": "utf-8",
    "x-unicode20utf8": "utf-8",
    "windows-874": "cp874",
    "dos-874": "cp874",
    "x-mac-cyrillic": "mac-cyrillic",
    "x-mac-ukrainian": "mac-cyrillic",
    "iso-8859-8-i": "iso8859-8",
    "csiso88598i": "iso8859-8",
    "logical": "iso8859-8",
    "x-sjis": "cp932",
    "windows-31j": "cp932",
    "x-gbk": "gbk",
    "x-euc-jp": "euc_jp",
    "windows-949": "cp949",
    "ks_c_5601-1987": "cp949",
    **{f"x-cp125{digit}": f"cp125{digit}" for digit in "012345678"},
}
# Python codec name -> the codec WHATWG actually uses for that label.
_WHATWG_SUPERSET: Final = {
    "iso8859-1": "cp1252",
    "ascii": "cp1252",
    "iso8859-9": "cp1254",
    "iso8859-11": "cp874",
    "tis-620": "cp874",
    "gb2312": "gbk",
    "shift_jis": "cp932",
    "euc_kr": "cp949",
    "big5": "big5hkscs",
    "utf-16": "utf-16-le",
}
_BOMS: Final = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
)
_META_CHARSET = re.compile(rb"""<meta[^>]{0,512}?charset\s*=\s*["']?\s*([A-Za-z0-9_:.+-]{1,40})""", re.I)
_LABEL = re.compile(r"^[a-z0-9_:.+-]{1,40}$")


def parse_content_type(value: str | None) -> tuple[str | None, str | None]:
    """Split a Content-Type header into ``(media type lowercased, charset label or None)``."""
    if not value:
        return None, None
    head, *params = value.split(";")
    media = head.strip().lower() or None
    charset: str | None = None
    for param in params:
        name, _, raw = param.partition("=")
        if name.strip().lower() == "charset":
            charset = raw.strip().strip("\"'").strip() or None
    return media, charset


def normalize_charset(label: str) -> str:
    """The Python codec to decode ``label`` with; ``UnsupportedContentEncoding`` if unknown or refused."""
    cleaned = label.strip().strip("\"'").strip().lower()
    cleaned = _WHATWG_LABELS.get(cleaned, cleaned)
    if not _LABEL.match(cleaned):
        raise UnsupportedContentEncoding("the declared charset is not a valid label", reason="unknown_charset")
    if cleaned in {"x-user-defined", "replacement"}:
        raise UnsupportedContentEncoding("the declared charset is not supported", reason="charset_not_allowed")
    try:
        name = codecs.lookup(cleaned).name
    except LookupError:
        raise UnsupportedContentEncoding("the declared charset is unknown", reason="unknown_charset") from None
    name = _WHATWG_SUPERSET.get(name, name)
    if name not in ALLOWED_CODECS:
        raise UnsupportedContentEncoding("the declared charset is not allowed", reason="charset_not_allowed")
    return name


def _meta_charset(body: bytes) -> str | None:
    match = _META_CHARSET.search(body[:META_SCAN_BYTES])
    return match.group(1).decode("ascii") if match else None


def decode_text(body: bytes, header_charset: str | None, media_type: str | None) -> tuple[str, str]:
    """Decode ``body`` strictly; returns ``(text, codec name)``.

    Raises ``UnsupportedContentEncoding`` (``unknown_charset``,
    ``charset_not_allowed``, ``invalid_bytes_for_charset``).
    """
    if media_type in BINARY_MEDIA_TYPES:
        # Bytes, not text (a gzip sitemap): Latin-1 maps each byte to one
        # character, so ``text.encode("latin-1")`` gives the body back.
        return body.decode("iso8859-1"), "iso8859-1"
    for bom, name in _BOMS:
        if body.startswith(bom):
            body, codec = body[len(bom) :], name
            break
    else:
        label = header_charset
        if label is None and media_type in {"text/html", "application/xhtml+xml"}:
            label = _meta_charset(body)
            # A meta tag can only be read if the page is ASCII-compatible, so
            # it cannot truthfully declare UTF-16 (the WHATWG rule).
            if label is not None and label.strip().lower().startswith("utf-16"):
                label = "utf-8"
        codec = normalize_charset(label) if label is not None else "utf-8"
    try:
        return body.decode(codec), codec
    except UnicodeDecodeError:
        if codec == "cp1252":
            # Only reached for bytes 0x81/0x8D/0x8F/0x90/0x9D, which a
            # Latin-1 label makes valid; both readings honour the label.
            return body.decode("iso8859-1"), "iso8859-1"
        raise UnsupportedContentEncoding(
            "the body is not valid in its declared charset", reason="invalid_bytes_for_charset"
        ) from None


def _too_large(which: str, limit: int) -> ResponseTooLarge:
    return ResponseTooLarge(
        f"the {which} body is larger than {limit} bytes", reason=f"{which}_body_too_large", stage="http"
    )


def _corrupt() -> UnsupportedContentEncoding:
    return UnsupportedContentEncoding(
        "the body is not valid for its Content-Encoding", reason="invalid_compressed_body", stage="http"
    )


def _encoding_of(header: str | None) -> str:
    tokens = [t.strip().lower() for t in (header or "").split(",")]
    tokens = [t for t in tokens if t and t != "identity"]
    if len(tokens) > 1:
        raise UnsupportedContentEncoding(
            "stacked content encodings are not supported", reason="stacked_content_encoding", stage="http"
        )
    token = tokens[0] if tokens else "identity"
    token = {"x-gzip": "gzip"}.get(token, token)
    if token not in {"identity", "gzip", "deflate", "br"}:
        raise UnsupportedContentEncoding(
            "the Content-Encoding is not supported", reason="unsupported_content_encoding", stage="http"
        )
    return token


class BodyDecoder:
    """Feed wire chunks, get the decoded body; every cap is enforced per chunk.

    >>> decoder = BodyDecoder("gzip", max_compressed=2_000_000, max_decoded=5_000_000)
    >>> # for chunk in stream: decoder.feed(chunk)
    >>> # body = decoder.finish()
    """

    def __init__(self, content_encoding: str | None, *, max_compressed: int, max_decoded: int) -> None:
        self.encoding = _encoding_of(content_encoding)
        self.max_compressed = max_compressed
        self.max_decoded = max_decoded
        self.compressed_bytes = 0
        self._out = bytearray()
        self._pending = b""  # deflate: bytes held until the zlib/raw sniff is possible
        self._zlib: Any = None
        self._brotli: Any = None
        if self.encoding == "gzip":
            self._zlib = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif self.encoding == "br":
            self._brotli = brotli.Decompressor()

    @property
    def decoded_bytes(self) -> int:
        """Bytes decoded so far."""
        return len(self._out)

    def _room(self) -> int:
        # One byte more than the cap allows, so crossing the cap is visible.
        return max(1, min(STEP, self.max_decoded - len(self._out) + 1))

    def _append(self, data: bytes) -> None:
        self._out += data
        if len(self._out) > self.max_decoded:
            raise _too_large("decoded", self.max_decoded)

    def _feed_zlib(self, data: bytes) -> None:
        try:
            while data and not self._zlib.eof:
                self._append(self._zlib.decompress(data, self._room()))
                data = self._zlib.unconsumed_tail
            while not self._zlib.eof:
                # Drain output zlib holds back after max_length stopped it.
                chunk = self._zlib.decompress(b"", self._room())
                if not chunk:
                    break
                self._append(chunk)
        except zlib.error:
            raise _corrupt() from None
        # Bytes after the end of the (first) stream are ignored, as
        # Python's gzip module and most HTTP clients ignore them too.

    def _feed_brotli(self, data: bytes) -> None:
        try:
            if self._brotli.is_finished():
                return
            self._append(self._brotli.process(data, output_buffer_limit=self._room()))
            while not self._brotli.can_accept_more_data():
                self._append(self._brotli.process(b"", output_buffer_limit=self._room()))
        except brotli.error:
            raise _corrupt() from None

    def feed(self, chunk: bytes) -> None:
        """Account for and decode one chunk as it arrives from the wire."""
        self.compressed_bytes += len(chunk)
        if self.compressed_bytes > self.max_compressed:
            raise _too_large("compressed", self.max_compressed)
        if self.encoding == "identity":
            self._append(chunk)
        elif self.encoding == "br":
            self._feed_brotli(chunk)
        else:
            if self._zlib is None:
                self._pending += chunk
                if len(self._pending) < 2:
                    return
                first, second = self._pending[0], self._pending[1]
                wrapped = first & 0x0F == 8 and (first << 8 | second) % 31 == 0
                self._zlib = zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)
                chunk, self._pending = self._pending, b""
            self._feed_zlib(chunk)

    def finish(self) -> bytes:
        """The whole decoded body; refuses a compressed stream that did not end."""
        if self.compressed_bytes == 0:
            return b""
        if self.encoding == "br":
            if not self._brotli.is_finished():
                raise _corrupt()
        elif self.encoding in {"gzip", "deflate"} and (self._zlib is None or not self._zlib.eof):
            raise _corrupt()
        return bytes(self._out)
