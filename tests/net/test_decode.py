"""Content decoding under caps, and strict charset decoding."""

from __future__ import annotations

import codecs
import time
import tracemalloc
import zlib

import brotli
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pagewarden._errors import PagewardenError, ResponseTooLarge, UnsupportedContentEncoding
from pagewarden._net.decode import (
    ALLOWED_CODECS,
    STEP,
    BodyDecoder,
    decode_text,
    normalize_charset,
    parse_content_type,
)
from tests.net.bombs import BOMB_DECODED_BYTES, brotli_bomb, gzip_bomb

TEXT = ("Grüße, 世界! " * 500).encode("utf-8")
MB = 1_000_000


def _raw_deflate(data: bytes) -> bytes:
    compressor = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush()


def _gzip(data: bytes) -> bytes:
    compressor = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush()


ENCODINGS = [
    (None, TEXT),
    ("identity", TEXT),
    ("gzip", _gzip(TEXT)),
    ("x-gzip", _gzip(TEXT)),
    ("GZIP", _gzip(TEXT)),
    ("deflate", zlib.compress(TEXT)),
    ("deflate", _raw_deflate(TEXT)),
    ("br", brotli.compress(TEXT)),
    ("identity, br", brotli.compress(TEXT)),
]


def _decode_in_chunks(encoding: str | None, wire: bytes, size: int = 7, **caps: int) -> bytes:
    decoder = BodyDecoder(
        encoding, max_compressed=caps.get("max_compressed", 2 * MB), max_decoded=caps.get("max_decoded", 5 * MB)
    )
    for start in range(0, len(wire), size):
        decoder.feed(wire[start : start + size])
    return decoder.finish()


@pytest.mark.parametrize(("encoding", "wire"), ENCODINGS)
def test_supported_encodings_roundtrip(encoding: str | None, wire: bytes) -> None:
    """identity, gzip, deflate (zlib and raw) and br decode exactly, even fed a few bytes at a time."""
    assert _decode_in_chunks(encoding, wire) == TEXT


@pytest.mark.parametrize(
    ("encoding", "reason"),
    [
        ("compress", "unsupported_content_encoding"),
        ("zstd", "unsupported_content_encoding"),
        ("gzip, br", "stacked_content_encoding"),
        ("br, br", "stacked_content_encoding"),
    ],
)
def test_unsupported_or_stacked_encodings_are_refused(encoding: str, reason: str) -> None:
    """Unknown or stacked Content-Encodings are UNSUPPORTED_CONTENT_ENCODING with a named reason."""
    with pytest.raises(UnsupportedContentEncoding) as info:
        BodyDecoder(encoding, max_compressed=MB, max_decoded=MB)
    assert info.value.reason == reason


@pytest.mark.parametrize(
    ("encoding", "wire"),
    [
        ("gzip", b"not gzip at all"),
        ("gzip", _gzip(TEXT)[:-20]),
        ("br", b"\xff\xff\xff\xff"),
        ("br", brotli.compress(TEXT)[:-5]),
        ("deflate", zlib.compress(TEXT)[:30]),
    ],
)
def test_corrupt_or_truncated_bodies_are_refused(encoding: str, wire: bytes) -> None:
    """Corrupt or truncated compressed bodies are refused, never returned half-decoded."""
    with pytest.raises(UnsupportedContentEncoding) as info:
        _decode_in_chunks(encoding, wire, size=4096)
    assert info.value.reason == "invalid_compressed_body"


def test_compressed_cap_counts_wire_bytes() -> None:
    """More wire bytes than max_compressed_bytes is RESPONSE_TOO_LARGE while streaming."""
    decoder = BodyDecoder(None, max_compressed=10_000, max_decoded=20_000)
    decoder.feed(b"a" * 10_000)
    with pytest.raises(ResponseTooLarge) as info:
        decoder.feed(b"a")
    assert info.value.reason == "compressed_body_too_large"


def _feed_all(decoder: BodyDecoder, wire: bytes) -> bytes:
    for start in range(0, len(wire), 65_536):
        decoder.feed(wire[start : start + 65_536])
    return decoder.finish()


@pytest.mark.parametrize("bomb", [gzip_bomb, brotli_bomb], ids=["gzip", "br"])
def test_bombs_stop_at_the_decoded_cap(bomb: object) -> None:
    """A 256 MiB bomb stops at the decoded cap: little memory, little time, never fully decompressed."""
    wire = bomb()  # type: ignore[operator]
    encoding = "gzip" if wire[:2] == b"\x1f\x8b" else "br"
    decoder = BodyDecoder(encoding, max_compressed=2 * MB, max_decoded=5 * MB)
    tracemalloc.start()
    started = time.perf_counter()
    try:
        with pytest.raises(ResponseTooLarge) as info:
            _feed_all(decoder, wire)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert info.value.reason == "decoded_body_too_large"
    assert len(wire) * 200 < BOMB_DECODED_BYTES  # the ratio is huge
    assert decoder.decoded_bytes <= 5 * MB + 2 * STEP  # stopped right after the cap
    assert peak < 40 * MB
    assert time.perf_counter() - started < 5.0


# -- charsets -----------------------------------------------------------------------------------
CHARSETS = [
    # (body, header charset, media type, expected text, expected codec)
    (b"\xef\xbb\xbfcaf\xc3\xa9", "iso-8859-1", "text/html", "café", "utf-8"),  # BOM beats header
    ("café".encode("utf-16-le"), None, "text/html", "\ufeffcafé"[1:], None),  # no BOM: not UTF-16
    (codecs.BOM_UTF16_LE + "café".encode("utf-16-le"), None, "text/plain", "café", "utf-16-le"),
    (codecs.BOM_UTF16_BE + "café".encode("utf-16-be"), "utf-8", "text/plain", "café", "utf-16-be"),
    (b"caf\xe9", "ISO-8859-1", "text/html", "café", "cp1252"),
    (b"\x93quoted\x94", "latin1", "text/plain", "\u201cquoted\u201d", "cp1252"),  # WHATWG: latin1 = cp1252
    (b"a\x81b", "iso-8859-1", "text/plain", "a\x81b", "iso8859-1"),
    (b"caf\xc3\xa9", None, "text/plain", "café", "utf-8"),
    (b"caf\xc3\xa9", '"UTF-8"', "text/plain", "café", "utf-8"),
    (
        b'<meta charset="windows-1251"><p>\xcf\xf0\xe8\xe2\xe5\xf2',
        None,
        "text/html",
        '<meta charset="windows-1251"><p>Привет',
        "cp1251",
    ),
    (
        b'<meta http-equiv="Content-Type" content="text/html; charset=koi8-r">\xf0\xd2\xc9',
        None,
        "text/html",
        '<meta http-equiv="Content-Type" content="text/html; charset=koi8-r">При',
        "koi8-r",
    ),
    (b'<meta charset="utf-16"><p>caf\xc3\xa9', None, "text/html", '<meta charset="utf-16"><p>café', "utf-8"),
    (b'<meta charset="koi8-r">caf\xc3\xa9', "utf-8", "text/html", '<meta charset="koi8-r">café', "utf-8"),
    (b'<meta charset="koi8-r">caf\xc3\xa9', None, "text/plain", '<meta charset="koi8-r">café', "utf-8"),
    ("日本語".encode("cp932"), "shift_jis", "text/html", "日本語", "cp932"),
    ("中文".encode("gbk"), "gb2312", "text/html", "中文", "gbk"),
]


@pytest.mark.parametrize(("body", "label", "media", "text", "codec"), CHARSETS)
def test_charset_precedence(body: bytes, label: str | None, media: str, text: str, codec: str | None) -> None:
    """BOM, then the header charset, then <meta> (HTML only), else UTF-8; WHATWG label mapping."""
    if codec is None:
        with pytest.raises(UnsupportedContentEncoding):
            decode_text(body, label, media)
        return
    assert decode_text(body, label, media) == (text, codec)


@pytest.mark.parametrize(
    ("body", "label", "reason"),
    [
        (b"hi", "utf-7", "charset_not_allowed"),
        (b"hi", "UTF-32", "charset_not_allowed"),
        (b"hi", "base64", "charset_not_allowed"),
        (b"hi", "rot13", "charset_not_allowed"),
        (b"hi", "unicode_escape", "charset_not_allowed"),
        (b"hi", "x-user-defined", "charset_not_allowed"),
        (b"hi", "klingon", "unknown_charset"),
        (b"hi", "utf 8; drop table", "unknown_charset"),
        (b"caf\xe9", None, "invalid_bytes_for_charset"),
        (b"caf\xe9", "utf-8", "invalid_bytes_for_charset"),
        (b"\xff\xfe\x00\xd8", None, "invalid_bytes_for_charset"),  # UTF-16LE BOM then a lone surrogate
        (b"\x82\xa0\x82", "shift_jis", "invalid_bytes_for_charset"),
    ],
)
def test_bad_charsets_are_refused(body: bytes, label: str | None, reason: str) -> None:
    """Unknown, dangerous, or violated charsets are UNSUPPORTED_CONTENT_ENCODING, never a silent fallback."""
    with pytest.raises(UnsupportedContentEncoding) as info:
        decode_text(body, label, "text/html")
    assert info.value.reason == reason


@pytest.mark.parametrize(
    "label",
    [
        "utf-8",
        "utf8",
        "unicode-1-1-utf-8",
        "latin1",
        "ascii",
        "us-ascii",
        "windows-1252",
        "iso-8859-2",
        "iso-8859-15",
        "windows-1251",
        "koi8-r",
        "koi8-u",
        "macintosh",
        "ibm866",
        "gbk",
        "gb18030",
        "big5",
        "euc-jp",
        "iso-2022-jp",
        "shift_jis",
        "euc-kr",
        "utf-16le",
        "utf-16be",
        "tis-620",
        "windows-874",
        "x-mac-cyrillic",
        "iso-8859-8-i",
        "x-sjis",
        "ks_c_5601-1987",
        "x-cp1250",
        '"utf-8"',
    ],
)
def test_common_whatwg_labels_are_accepted(label: str) -> None:
    """The common WHATWG labels map to an allowed codec."""
    try:
        assert normalize_charset(label) in ALLOWED_CODECS
    except UnsupportedContentEncoding as error:  # pragma: no cover - the message says which
        pytest.fail(f"{label} refused: {error.reason}")


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("text/html; charset=UTF-8", ("text/html", "UTF-8")),
        ("Text/HTML", ("text/html", None)),
        ('text/plain; format=flowed; charset="koi8-r"', ("text/plain", "koi8-r")),
        ("", (None, None)),
        (None, (None, None)),
        ("; charset=utf-8", (None, "utf-8")),
    ],
)
def test_parse_content_type(header: str | None, expected: tuple[str | None, str | None]) -> None:
    """Content-Type splits into a lowercase media type and the raw charset label."""
    assert parse_content_type(header) == expected


@settings(max_examples=300, database=None, deadline=None)
@given(
    st.binary(max_size=400),
    st.one_of(st.none(), st.text(max_size=30), st.sampled_from(["utf-8", "utf-16", "utf-7", "cp1252", "big5"])),
    st.sampled_from(["text/html", "text/plain", "application/xhtml+xml", "text/markdown"]),
)
def test_any_bytes_and_label_decode_or_refuse(body: bytes, label: str | None, media: str) -> None:
    """Arbitrary bytes with an arbitrary charset label decode to text or raise a PagewardenError."""
    try:
        text, codec = decode_text(body, label, media)
    except PagewardenError:
        return
    assert isinstance(text, str) and codec in ALLOWED_CODECS


@settings(max_examples=300, database=None, deadline=None)
@given(
    st.sampled_from(["gzip", "deflate", "br", "identity"]),
    st.one_of(
        st.binary(max_size=600),
        st.binary(max_size=300).map(_gzip),
        st.binary(max_size=300).map(brotli.compress),
        st.binary(max_size=300).map(zlib.compress),
    ),
    st.integers(min_value=1, max_value=64),
)
def test_any_bytes_under_any_encoding_decode_or_refuse(encoding: str, wire: bytes, size: int) -> None:
    """Arbitrary wire bytes under any supported encoding decode or raise a PagewardenError, never another exception."""
    try:
        body = _decode_in_chunks(encoding, wire, size=size, max_compressed=4096, max_decoded=4096)
    except PagewardenError:
        return
    assert len(body) <= 4096
