"""The parent side of PDF parsing: a small pool of worker processes owned by one reader.

Why processes: PDFium is C++ reading hostile input. In a worker, a
decompression bomb, a pathological font or a parser bug ends that process
(its address space and CPU time are capped by :mod:`.worker`), never the
reader; the parent maps how the worker ended to a typed error.

Workers are started on first use with an empty environment, kept while they
answer cleanly (so a read pays no interpreter start-up), and killed after any
failure, on cancellation (the read's deadline) and on :meth:`PdfWorkers.aclose`.
At most ``max_workers`` parse at once; further reads wait for one.
"""

from __future__ import annotations

import contextlib
import json
import signal
import struct
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import Process

from .._errors import ConfigMissing, DocumentUnreadable, PagewardenError, ResponseTooLarge

__all__ = ["PdfJob", "PdfWorkers"]

_LENGTH = struct.Struct(">I")
_PACKAGE = "_pagewarden_pdf_worker"
# Loads only the worker's modules (worker, extract, page, textmap, layers, parts, scripts, native, hidden) as a
# synthetic package, not pagewarden.
_BOOT = (
    "import sys, types\n"
    f"package = types.ModuleType({_PACKAGE!r})\n"
    "package.__path__ = [sys.argv[1]]\n"
    f"sys.modules[{_PACKAGE!r}] = package\n"
    f"from {_PACKAGE}.worker import main\n"
    "main()\n"
)
_HERE = str(Path(__file__).resolve().parent)
_REPLY_OVERHEAD = 1_000_000
_OPEN_ERRORS = {
    "encrypted": ("the PDF is encrypted and needs a password", "pdf_encrypted"),
    "malformed": ("the PDF is malformed and could not be parsed", "pdf_malformed"),
    "recursion": ("the PDF's structure nests too deeply", "pdf_recursion_limit"),
    "memory": ("parsing the PDF crossed the worker's memory limit", "pdf_memory_limit"),
}
_LIMIT_ERRORS = {
    "limit_pages": ("the PDF has too many pages", "pdf_too_many_pages"),
    "limit_characters": ("the PDF holds too many characters", "pdf_too_many_characters"),
    "limit_objects": ("a PDF page holds too many objects", "pdf_too_many_objects"),
    "limit_depth": ("a PDF page nests its drawings too deeply", "pdf_nesting_too_deep"),
}


@dataclass(frozen=True, slots=True)
class PdfJob:
    """The limits of one parse.

    Attributes:
        max_pages: pages a document may have.
        max_characters: characters (visible, hidden, metadata...) it may yield.
        cpu_seconds: CPU time the worker may spend on it.
    """

    max_pages: int
    max_characters: int
    cpu_seconds: int


def _reply_limit(job: PdfJob) -> int:
    # Every character may come with some layout facts; beyond this the answer is refused unread.
    return job.max_characters * 8 + _REPLY_OVERHEAD


class _Dead(Exception):
    """The worker ended or broke the protocol."""


class PdfWorkers:
    """Worker processes that parse PDFs; see the module docstring."""

    def __init__(self, *, max_workers: int, memory_bytes: int) -> None:
        self._limiter = anyio.CapacityLimiter(max_workers)
        self._memory = memory_bytes
        self._idle: list[Process] = []
        self._busy: set[Process] = set()
        self._closed = False

    @property
    def idle(self) -> int:
        """Workers waiting for a job."""
        return len(self._idle)

    async def extract(self, data: bytes, job: PdfJob, *, url: str | None = None) -> dict[str, Any]:
        """Parse ``data`` in a worker and return its facts (see :func:`.extract.extract_pdf`).

        Raises:
            DocumentUnreadable: encrypted, malformed, or a worker limit was crossed.
            ResponseTooLarge: pages, characters or objects over ``job``'s limits.
            ConfigMissing: the pool is closed.
        """
        async with self._limiter:
            if self._closed:
                raise ConfigMissing("the PDF workers are closed", reason="reader_closed")
            process = await self._take()
            self._busy.add(process)
            clean = False
            try:
                reply = await self._exchange(process, data, job)
                clean = True
            except _Dead:
                raise await self._death(process, url) from None
            finally:
                self._busy.discard(process)
                if clean and not self._closed:
                    self._idle.append(process)
                else:
                    await _kill(process)
        return _unpack(reply, url)

    async def aclose(self) -> None:
        """Kill every worker. Idempotent."""
        self._closed = True
        processes = [*self._idle, *self._busy]
        self._idle.clear()
        for process in processes:
            await _kill(process)

    async def _take(self) -> Process:
        # An idle worker that ended meanwhile (killed from outside) is replaced, not blamed on this PDF.
        while self._idle:
            process = self._idle.pop()
            if process.returncode is None:
                return process
            await _kill(process)
        return await self._spawn()

    async def _spawn(self) -> Process:
        return await anyio.open_process(
            [sys.executable, "-I", "-c", _BOOT, _HERE, str(self._memory)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={},
        )

    async def _exchange(self, process: Process, data: bytes, job: PdfJob) -> bytes:
        header = json.dumps(
            {"max_pages": job.max_pages, "max_characters": job.max_characters, "cpu_seconds": job.cpu_seconds,
             "max_reply_bytes": _reply_limit(job)}
        ).encode("ascii")
        if process.stdin is None or process.stdout is None:
            raise _Dead
        try:
            await process.stdin.send(_LENGTH.pack(len(header)) + header + _LENGTH.pack(len(data)) + data)
            reader = _Reader(process)
            (size,) = _LENGTH.unpack(await reader.read_exactly(_LENGTH.size))
            if size > _reply_limit(job):
                raise _Dead
            return await reader.read_exactly(size)
        except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            raise _Dead from None

    async def _death(self, process: Process, url: str | None) -> PagewardenError:
        with anyio.move_on_after(1.0, shield=True):
            await process.wait()
        code = process.returncode
        if code is not None and code < 0 and -code in (signal.SIGXCPU, signal.SIGKILL):
            return DocumentUnreadable("parsing the PDF crossed the worker's CPU-time limit", reason="pdf_cpu_limit",
                                      url=url, stage="pdf")
        return DocumentUnreadable("the PDF worker ended while parsing (memory limit or parser crash)",
                                  reason="pdf_worker_crashed", url=url, stage="pdf")


class _Reader:
    def __init__(self, process: Process) -> None:
        self._stream = process.stdout
        self._buffer = bytearray()

    async def read_exactly(self, size: int) -> bytes:
        if self._stream is None:
            raise _Dead
        while len(self._buffer) < size:
            self._buffer.extend(await self._stream.receive(max(65_536, size - len(self._buffer))))
        out = bytes(self._buffer[:size])
        del self._buffer[:size]
        return out


async def _kill(process: Process) -> None:
    with anyio.CancelScope(shield=True):
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        with anyio.move_on_after(2.0):
            await process.aclose()


def _unpack(body: bytes, url: str | None) -> dict[str, Any]:
    try:
        reply = json.loads(body)
    except ValueError:
        reply = None
    if not isinstance(reply, dict):
        raise DocumentUnreadable("the PDF worker answered invalidly", reason="pdf_worker_invalid", url=url,
                                 stage="pdf")
    facts = reply.get("ok")
    if isinstance(facts, dict):
        return facts
    error = reply.get("error")
    if error in _LIMIT_ERRORS:
        message, reason = _LIMIT_ERRORS[error]
        raise ResponseTooLarge(message, reason=reason, url=url, stage="pdf")
    message, reason = _OPEN_ERRORS.get(error if isinstance(error, str) else "", _OPEN_ERRORS["malformed"])
    raise DocumentUnreadable(message, reason=reason, url=url, stage="pdf")


