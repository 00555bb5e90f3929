"""Compression bombs built once per test session (a quarter GiB of zeros each)."""

from __future__ import annotations

import functools
import zlib

import brotli

BOMB_DECODED_BYTES = 256 * 1024 * 1024
_CHUNK = bytes(1024 * 1024)


@functools.cache
def gzip_bomb() -> bytes:
    """256 MiB of zeros, gzip-compressed (about 260 KB)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    parts = [compressor.compress(_CHUNK) for _ in range(BOMB_DECODED_BYTES // len(_CHUNK))]
    return b"".join([*parts, compressor.flush()])


@functools.cache
def brotli_bomb() -> bytes:
    """256 MiB of zeros, brotli-compressed (under 1 KB)."""
    compressor = brotli.Compressor(quality=5, lgwin=24)
    parts = [compressor.process(_CHUNK) for _ in range(BOMB_DECODED_BYTES // len(_CHUNK))]
    return b"".join([*parts, compressor.finish()])
