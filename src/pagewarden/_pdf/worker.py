"""The PDF worker process: parse untrusted PDFs under hard limits, answer in JSON.

Started by :class:`~pagewarden._pdf.pool.PdfWorkers` with an empty
environment and only this package's worker modules loaded (never the rest of
pagewarden). At start it caps its own address space (``RLIMIT_AS``, so a
decompression bomb ends the process instead of the machine), forbids file
writes and core dumps; before each job it sets a CPU-time limit
(``RLIMIT_CPU``: ``SIGXCPU`` ends a pathological font or content stream).

Protocol on stdin/stdout, every frame a 4-byte big-endian length and a body:
the job (a JSON header with the limits, then the PDF bytes) in, one JSON
reply out: ``{"ok": facts}`` or ``{"error": name}``. Replies are JSON, never
pickle: a compromised worker can send the parent bad data but no code.
"""

from __future__ import annotations

import json
import resource
import struct
import sys
from typing import Any, BinaryIO

from .extract import ExtractLimits, LimitExceeded, PdfOpenError, extract_pdf

__all__ = ["main", "read_frame", "write_frame"]

_LENGTH = struct.Struct(">I")
MAX_JOB_BYTES = 200_000_000


def read_frame(stream: BinaryIO, limit: int = MAX_JOB_BYTES) -> bytes | None:
    """One frame from ``stream``; ``None`` at a clean end of input."""
    head = stream.read(_LENGTH.size)
    if not head:
        return None
    if len(head) != _LENGTH.size:
        raise EOFError("truncated frame header")
    (size,) = _LENGTH.unpack(head)
    if size > limit:
        raise EOFError("frame too large")
    body = stream.read(size)
    if len(body) != size:
        raise EOFError("truncated frame")
    return body


def write_frame(stream: BinaryIO, body: bytes) -> None:
    """Write one frame and flush."""
    stream.write(_LENGTH.pack(len(body)) + body)
    stream.flush()


def _limit_process(memory_bytes: int) -> None:
    if memory_bytes > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _limit_cpu(seconds: int) -> None:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    used = int(usage.ru_utime + usage.ru_stime) + 1
    _soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = used + seconds
    if hard != resource.RLIM_INFINITY and soft > hard:
        soft = hard
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def run_job(header: dict[str, Any], data: bytes) -> dict[str, Any]:
    """Extract one PDF; every failure becomes ``{"error": name}``."""
    limits = ExtractLimits(max_pages=int(header["max_pages"]), max_characters=int(header["max_characters"]))
    try:
        return {"ok": extract_pdf(data, limits)}
    except PdfOpenError as exc:
        return {"error": str(exc.args[0])}
    except LimitExceeded as exc:
        return {"error": "limit_" + str(exc.args[0])}
    except MemoryError:
        return {"error": "memory"}
    except RecursionError:
        return {"error": "recursion"}
    except Exception:  # anything else a hostile file triggers is "malformed"
        return {"error": "malformed"}


def main() -> None:
    """Serve jobs until stdin closes."""
    memory = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    _limit_process(memory)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        head = read_frame(stdin)
        if head is None:
            return
        data = read_frame(stdin)
        if data is None:
            return
        header = json.loads(head)
        _limit_cpu(int(header["cpu_seconds"]))
        reply = run_job(header, data)
        try:
            body = json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
        except MemoryError:
            body = b'{"error":"memory"}'
        if len(body) > int(header["max_reply_bytes"]):
            # Many tiny text objects: the facts outgrow what the parent accepts.
            body = b'{"error":"limit_objects"}'
        write_frame(stdout, body)
