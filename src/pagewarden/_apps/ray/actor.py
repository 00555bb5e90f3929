"""The reader actor of a Ray read: one AsyncReader (one pooled browser) per actor.

Ray Data calls :class:`ReaderActor` with one batch at a time (a ``pyarrow``
table). The actor keeps a private asyncio loop in a worker thread (an anyio
blocking portal, as :class:`pagewarden.Reader` does) for its whole life, so
the reader, its browser and its robots.txt cache persist across batches; each
batch's URLs are read concurrently on that loop, at most ``concurrency`` at a
time, and every read first takes a lease from the shared per-host limiter
(:mod:`pagewarden._apps.ray.limiter`).

Closing: Ray Data calls the UDF's ``__del__`` when the pool ends gracefully,
which closes the reader (and so Chromium); :meth:`ReaderActor.close` is the
explicit path. An actor process can also leave through ``SystemExit`` with
its actor still alive (its runtime ended, or the actor sits in a reference
cycle not yet collected): an ``atexit`` hook then closes the reader while the
loop's thread still runs. Without it, the actor was closed while the
interpreter finalized, when that daemon thread can no longer run, and closing
(even just collecting the portal's context manager) waited on it for ever: the
``ray::MapWorker`` process outlived its runtime (issue 14). If the actor
process is killed outright, Playwright's driver loses its pipe and kills its
browser, and the pool's exit finalizer covers an interpreter that exits
without closing.
"""

from __future__ import annotations

import atexit
import importlib
import json
import signal
import threading
import weakref
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

import anyio
from anyio.from_thread import BlockingPortal, start_blocking_portal

from ..._errors import InvalidInput
from ..._ingest.hosts import host_key
from ..._ingest.records import read_record
from ..._reader import AsyncReader
from .options import RESULT_COLUMNS, reader_config, record_columns

__all__ = ["ActorSpec", "ReaderActor"]

# How long closing the reader (and its browser) may take before the actor's loop is stopped anyway.
_CLOSE_SECONDS = 30.0
# How long a Ray worker process may take to exit once its interpreter starts shutting down.
_EXIT_SECONDS = int(_CLOSE_SECONDS) + 15
_exit_bound_lock = threading.Lock()
_exit_bound = False


def bound_process_exit(seconds: int) -> None:
    """Have the kernel end this process ``seconds`` from now (SIGALRM, default action), whatever it waits on.

    Armed at interpreter exit in a Ray worker only: after Python has shut down, Ray's own native
    clean-up was seen to wait for ever on a worker whose actor had ended normally (issue 14), where no
    Python code can run any more.
    """
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.alarm(seconds)


def _in_ray_worker() -> bool:
    try:
        worker = importlib.import_module("ray._private.worker")
        ray = importlib.import_module("ray")
    except ImportError:
        return False
    return bool(getattr(worker.global_worker, "mode", None) == ray.WORKER_MODE)


def _bound_worker_exit() -> None:
    # Once per process, and only in a Ray worker (the actor is also built in-process by unit tests).
    global _exit_bound
    with _exit_bound_lock:
        if _exit_bound or not _in_ray_worker():
            return
        _exit_bound = True
    atexit.register(bound_process_exit, _EXIT_SECONDS)


@dataclass(frozen=True, slots=True)
class ActorSpec:
    """Everything an actor needs, in picklable form (see :mod:`.options`).

    ``limiter`` is the Ray actor handle of the shared :class:`HostLeases`
    (``None``: no cross-actor limit, used only by unit tests).
    ``extra_json_column`` names a column holding each row's pass-through
    fields as a JSON object (how ``ingest_with_ray`` keeps arbitrary JSONL
    fields out of the Arrow schema); otherwise every column but the URL
    passes through.
    """

    reader_options: Mapping[str, Any]
    url_column: str = "url"
    render: str = "auto"
    requested_use: str = "answer_with_citation"
    concurrency: int = 4
    robots: bool = True
    limiter: Any = None
    extra_json_column: str | None = None


class ReaderActor:
    """A Ray Data callable class: ``table -> table`` with the result columns appended."""

    def __init__(self, spec: ActorSpec) -> None:
        self._spec = spec
        self._pa: Any = importlib.import_module("pyarrow")
        config = reader_config(spec.reader_options)
        self._portal_cm: AbstractContextManager[BlockingPortal] | None = start_blocking_portal("asyncio")
        self._portal: BlockingPortal | None = self._portal_cm.__enter__()
        self._reader = AsyncReader(config)
        self._at_exit = _close_later(weakref.ref(self))
        atexit.register(self._at_exit)
        _bound_worker_exit()
        self._robots: Any = None
        if spec.robots:
            self._robots = self._portal.call(self._make_robots)

    async def _make_robots(self) -> Any:
        # Built on the actor's loop: the cache's locks belong to that loop.
        from ..._ingest.robots_cache import RobotsCache

        return RobotsCache(self._reader.config)

    def __call__(self, batch: Any) -> Any:
        """Read the URLs of ``batch`` and return it with :data:`RESULT_COLUMNS` appended (same row order)."""
        portal = self._portal
        if portal is None:
            raise InvalidInput("the reader actor is closed", reason="actor_closed")
        spec = self._spec
        clash = sorted(set(batch.column_names) & set(RESULT_COLUMNS))
        if clash:
            raise InvalidInput("input columns clash with result columns: " + ", ".join(clash)[:200],
                               reason="column_conflict")
        rows = batch.to_pylist()
        work = [(_row_url(row, spec.url_column), _row_extra(row, spec)) for row in rows]
        records = portal.call(self._read_all, work)
        columns = [record_columns(record) for record in records]
        table = batch
        if spec.extra_json_column is not None:
            table = table.drop_columns([spec.extra_json_column])
        pa = self._pa
        for name, type_name in RESULT_COLUMNS.items():
            values = [column[name] for column in columns]
            table = table.append_column(name, pa.array(values, type=pa.type_for_alias(type_name)))
        return table

    async def _read_all(self, work: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
        results: list[dict[str, Any]] = [{} for _ in work]
        slots = anyio.CapacityLimiter(self._spec.concurrency)

        async def one(index: int, url: str, extra: dict[str, Any]) -> None:
            # The actor's slot first, then the host's lease: a read waiting
            # for its host must not hold that host's lease hostage meanwhile.
            async with slots:
                results[index] = await self._read_leased(url, extra)

        async with anyio.create_task_group() as group:
            for index, (url, extra) in enumerate(work):
                group.start_soon(one, index, url, extra)
        return results

    async def _read_leased(self, url: str, extra: dict[str, Any]) -> dict[str, Any]:
        limiter = self._spec.limiter
        if limiter is None:
            return await self._read(url, extra)
        token = await limiter.acquire.remote(host_key(url))
        try:
            return await self._read(url, extra)
        finally:
            with anyio.CancelScope(shield=True):
                await limiter.release.remote(token)

    async def _read(self, url: str, extra: dict[str, Any]) -> dict[str, Any]:
        spec = self._spec
        return await read_record(
            self._reader, url, extra, render=spec.render, robots=self._robots, requested_use=spec.requested_use
        )

    def close(self) -> None:
        """Close the reader (and its browser) and stop the actor's loop, within ``_CLOSE_SECONDS``. Idempotent."""
        # getattr: __del__ also runs after a constructor that failed half-way.
        portal, portal_cm = getattr(self, "_portal", None), getattr(self, "_portal_cm", None)
        self._portal = self._portal_cm = None
        hook = getattr(self, "_at_exit", None)
        if hook is not None:
            atexit.unregister(hook)
        if portal is None or portal_cm is None:
            return
        closing = portal.start_task_soon(self._reader.aclose)
        try:
            closing.result(timeout=_CLOSE_SECONDS)
        except TimeoutError:
            portal.call(portal.stop, True)  # cancel the close; the pool's exit finalizer ends the browser
        finally:
            portal_cm.__exit__(None, None, None)

    def __del__(self) -> None:
        # Ray Data deletes the UDF when the actor pool shuts down gracefully.
        self.close()


def _close_later(actor: weakref.ref[ReaderActor]) -> Callable[[], None]:
    # Runs before the interpreter finalizes, while the actor's loop thread still runs; it holds the actor
    # weakly, so a closed or collected actor is not kept alive by it.
    def close() -> None:
        alive = actor()
        if alive is not None:
            alive.close()

    return close


def _row_url(row: Mapping[str, Any], column: str) -> str:
    value = row.get(column)
    return value.strip() if isinstance(value, str) else ""


def _row_extra(row: Mapping[str, Any], spec: ActorSpec) -> dict[str, Any]:
    if spec.extra_json_column is not None:
        text = row.get(spec.extra_json_column)
        loaded = json.loads(text) if isinstance(text, str) and text else {}
        return loaded if isinstance(loaded, dict) else {}
    return {key: value for key, value in row.items() if key != spec.url_column}
