"""The parent side of PDF parsing: a small pool of worker processes owned by one reader.

Why processes: PDFium is C++ reading hostile input. In a worker, a
decompression bomb, a pathological font or a parser bug ends that process
(its address space and CPU time are capped by :mod:`.worker`), never the
reader; the parent maps how the worker ended to a typed error.

Workers are started on first use with an empty environment, kept while they
answer cleanly (so a read pays no interpreter start-up), and killed after any
failure, on cancellation (the read's deadline) and on :meth:`PdfWorkers.aclose`.
At most ``max_workers`` parse at once; further reads wait for one.

A job and its answer go through two plain pipes with blocking reads and
writes, in a thread, not through the event loop's subprocess streams (every
chunk of an answer a loop callback, a buffer copy and a wake-up): the reader
already takes the checked facts to a thread for the guard and the layout, so
:meth:`PdfWorkers.run` exchanges with the worker in that same trip, and the
exchange costs the parent about 0.03 ms for a one-page document instead of
0.15 ms. A cancelled read kills the worker, which ends the thread's blocking read.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import struct
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import anyio
import anyio.to_thread
from anyio.abc import Process

from .._errors import ConfigMissing, DocumentUnreadable, PagewardenError, ResponseTooLarge

__all__ = ["PdfJob", "PdfWorkers"]

T = TypeVar("T")

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


class _Worker:
    """One worker process and the parent's ends of its pipes (job in, answer out).

    The pipes are used from a thread (:meth:`exchange`) while the event loop may
    kill the process and discard the worker (a cancelled read): a descriptor is
    closed only once no thread uses it, so a number the system hands out again
    is never read by a thread that was abandoned.
    """

    def __init__(self, process: Process, send: int, receive: int) -> None:
        self.process = process
        self._send = io.FileIO(send, "wb")
        self._receive = io.FileIO(receive, "rb")
        self._lock = threading.Lock()
        self._in_use = False
        self._discarded = False

    @property
    def pid(self) -> int:
        """The process id."""
        return self.process.pid

    @property
    def returncode(self) -> int | None:
        """The exit status once the process ended (negative: the signal that ended it)."""
        return self.process.returncode

    def kill(self) -> None:
        """Kill the process."""
        self.process.kill()

    async def wait(self) -> int:
        """Wait for the process to end; its exit status."""
        return await self.process.wait()

    def exchange(self, job: bytes, limit: int) -> bytes:
        """Send one job and read its answer, blocking (in a thread).

        Raises:
            _Dead: the worker ended, broke the protocol or was discarded.
        """
        with self._lock:
            if self._discarded:
                raise _Dead
            self._in_use = True
        try:
            view = memoryview(job)
            while view:
                written = self._send.write(view)
                if not written:
                    raise _Dead
                view = view[written:]
            (size,) = _LENGTH.unpack(self._read(_LENGTH.size))
            if size > limit:
                raise _Dead
            return self._read(size)
        except OSError:  # the worker ended: a broken pipe
            raise _Dead from None
        finally:
            with self._lock:
                self._in_use = False
                if self._discarded:
                    self._close()

    def _read(self, size: int) -> bytes:
        buffer = bytearray(size)
        view = memoryview(buffer)
        done = 0
        while done < size:
            got = self._receive.readinto(view[done:])
            if not got:
                raise _Dead  # end of file: the worker ended
            done += got
        return bytes(buffer)

    def discard(self) -> None:
        """Close the pipes now, or when the thread using them returns. Idempotent."""
        with self._lock:
            self._discarded = True
            if not self._in_use:
                self._close()

    def _close(self) -> None:
        self._send.close()
        self._receive.close()


class PdfWorkers:
    """Worker processes that parse PDFs; see the module docstring."""

    def __init__(self, *, max_workers: int, memory_bytes: int) -> None:
        self._limiter = anyio.CapacityLimiter(max_workers)
        self._memory = memory_bytes
        self._idle: list[_Worker] = []
        self._busy: set[_Worker] = set()
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
        return await self.run(data, job, _facts, url=url)

    async def run(self, data: bytes, job: PdfJob, then: Callable[[dict[str, Any]], T], *,
                  url: str | None = None) -> T:
        """Parse ``data`` in a worker, then call ``then`` on its facts, in one trip to a thread.

        ``then`` runs after the worker answered: whatever it raises leaves the worker clean and kept.

        Raises:
            DocumentUnreadable: encrypted, malformed, or a worker limit was crossed.
            ResponseTooLarge: pages, characters or objects over ``job``'s limits.
            ConfigMissing: the pool is closed.
        """
        async with self._limiter:
            if self._closed:
                raise ConfigMissing("the PDF workers are closed", reason="reader_closed")
            worker = await self._take()
            self._busy.add(worker)
            answered = [False]  # set by the thread once the worker has answered in full
            try:
                return await anyio.to_thread.run_sync(_serve, worker, _message(data, job), _reply_limit(job), then,
                                                      url, answered, abandon_on_cancel=True)
            except _Dead:
                raise await self._death(worker.process, url) from None
            finally:
                self._busy.discard(worker)
                if answered[0] and not self._closed:
                    self._idle.append(worker)
                else:
                    await _kill(worker)

    async def aclose(self) -> None:
        """Kill every worker. Idempotent."""
        self._closed = True
        processes = [*self._idle, *self._busy]
        self._idle.clear()
        for process in processes:
            await _kill(process)

    async def _take(self) -> _Worker:
        # An idle worker that ended meanwhile (killed from outside) is replaced, not blamed on this PDF.
        while self._idle:
            worker = self._idle.pop()
            if worker.returncode is None:
                return worker
            await _kill(worker)
        return await self._spawn()

    async def _spawn(self) -> _Worker:
        # Pipes of our own rather than the event loop's: see the module docstring. The child's ends are
        # closed here once it holds them, so that its death is an end of file for the parent.
        job_read, job_write = os.pipe()
        answer_read, answer_write = os.pipe()
        try:
            process = await anyio.open_process(
                [sys.executable, "-I", "-c", _BOOT, _HERE, str(self._memory)],
                stdin=job_read,
                stdout=answer_write,
                stderr=subprocess.DEVNULL,
                env={},
            )
        except BaseException:
            for fd in (job_write, answer_read):
                os.close(fd)
            raise
        finally:
            os.close(job_read)
            os.close(answer_write)
        return _Worker(process, job_write, answer_read)

    async def _death(self, process: Process, url: str | None) -> PagewardenError:
        with anyio.move_on_after(1.0, shield=True):
            await process.wait()
        code = process.returncode
        if code is not None and code < 0 and -code in (signal.SIGXCPU, signal.SIGKILL):
            return DocumentUnreadable("parsing the PDF crossed the worker's CPU-time limit", reason="pdf_cpu_limit",
                                      url=url, stage="pdf")
        return DocumentUnreadable("the PDF worker ended while parsing (memory limit or parser crash)",
                                  reason="pdf_worker_crashed", url=url, stage="pdf")


def _facts(facts: dict[str, Any]) -> dict[str, Any]:
    return facts


def _serve(worker: _Worker, message: bytes, limit: int, then: Callable[[dict[str, Any]], T], url: str | None,
           answered: list[bool]) -> T:
    """In a thread: one exchange with the worker, its answer checked, then ``then`` on the facts."""
    body = worker.exchange(message, limit)
    answered[0] = True
    return then(_unpack(body, url))


def _message(data: bytes, job: PdfJob) -> bytes:
    """A job's two frames: the JSON header with the limits, then the PDF."""
    header = json.dumps(
        {"max_pages": job.max_pages, "max_characters": job.max_characters, "cpu_seconds": job.cpu_seconds,
         "max_reply_bytes": _reply_limit(job)}
    ).encode("ascii")
    return _LENGTH.pack(len(header)) + header + _LENGTH.pack(len(data)) + data


async def _kill(worker: _Worker) -> None:
    process = worker.process
    with anyio.CancelScope(shield=True):
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        with anyio.move_on_after(2.0):
            await process.aclose()
        worker.discard()


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


