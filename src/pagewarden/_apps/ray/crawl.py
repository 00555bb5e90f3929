"""Crawl reads on a Ray actor pool (``pagewarden crawl --ray ADDRESS``); the frontier stays in the driver.

The driver keeps the frontier, robots.txt and the per-host limiter (so
politeness, ``Crawl-delay`` included, holds across the whole pool by
construction: every read is dispatched from here). Each page is sent to the
least busy of ``actors`` reader actors (:class:`~pagewarden._apps.ray.actor.ReaderActor`,
one ``AsyncReader`` and one browser each) as a one-row table; the actor
returns the record ``ingest`` would write, whose ``page_links`` feed the
frontier. A redirect out of scope cannot be stopped inside an actor: the
engine discards such a page afterwards (``redirect_out_of_scope``).
"""

from __future__ import annotations

import contextlib
import importlib
import json
from collections.abc import Callable, Mapping
from typing import Any

import anyio
import ray

from ..._crawl.crawler import Outcome, ReadFunction
from ..._crawl.frontier import QueuedPage
from ..._crawl.scope import Scope
from ..._document import PageLinks
from ..._errors import ContentInsufficient, PagewardenError, UnknownError
from .actor import ActorSpec, ReaderActor
from .options import reader_config
from .runtime import ray_runtime

__all__ = ["CrawlReaderActor", "outcome_from_record", "ray_read"]


class CrawlReaderActor(ReaderActor):
    """A :class:`ReaderActor` callable as a plain Ray actor: one small table per call."""

    def read_table(self, batch: Any) -> Any:
        """Read the rows of ``batch`` (see :meth:`ReaderActor.__call__`)."""
        return self(batch)


def outcome_from_record(record: Mapping[str, Any]) -> Outcome:
    """The engine's view of a record an actor returned."""
    if not record.get("ok"):
        message, reason = str(record.get("message") or "the read failed"), record.get("reason")
        if record.get("code") == "CONTENT_INSUFFICIENT":
            insufficient = ContentInsufficient(message, reason=reason)
            links = record.get("page_links")
            if isinstance(links, Mapping):
                insufficient.page_links = PageLinks(tuple(str(url) for url in links.get("links") or ()),
                                                    links.get("canonical"), int(links.get("refused") or 0))
            return Outcome.failure(insufficient, dict(record))
        return Outcome(False, error=PagewardenError(message, reason=reason), record=dict(record))
    links = record.get("page_links") or {}
    return Outcome(
        True, str(record.get("final_url") or ""), tuple(str(url) for url in links.get("links") or ()),
        links.get("canonical"), int(links.get("refused") or 0), record=dict(record),
    )


def ray_read(
    address: str,
    reader_options: Mapping[str, Any],
    *,
    actors: int,
    concurrency_per_actor: int,
    render: str,
    requested_use: str,
) -> tuple[ReadFunction, Callable[[], None]]:
    """Start the actors; return the read function and a function that stops them (and the runtime, if started here).

    ``address`` is as for :func:`~.runtime.ray_runtime`; a runtime this call
    starts ends in the stop function, which the caller runs on success,
    failure and Ctrl-C alike.
    """
    reader_config(reader_options)  # validated here, before any actor starts
    runtime = contextlib.ExitStack()
    runtime.enter_context(ray_runtime(address))
    spec = ActorSpec(reader_options, render=render, requested_use=requested_use, concurrency=1, robots=False)
    remote: Any = ray.remote(CrawlReaderActor)
    try:
        pool = [remote.options(num_cpus=1, max_concurrency=concurrency_per_actor).remote(spec) for _ in range(actors)]
    except BaseException:
        runtime.close()
        raise
    busy = [0] * actors
    pa: Any = importlib.import_module("pyarrow")

    async def read(page: QueuedPage, scope: Scope) -> Outcome:
        index = min(range(actors), key=busy.__getitem__)
        busy[index] += 1
        try:
            table = await pool[index].read_table.remote(pa.table({"url": [page.url]}))
            record = json.loads(table.column("record")[0].as_py())
        except (ray.exceptions.RayError, ValueError, KeyError) as error:
            failure = UnknownError(f"the reader actor failed ({type(error).__name__})", reason="actor_failed",
                                   url=page.url)
            return Outcome(False, error=failure)
        finally:
            busy[index] -= 1
        await anyio.lowlevel.checkpoint()
        return outcome_from_record(record)

    def close() -> None:
        with runtime:
            for actor in pool:
                with contextlib.suppress(ray.exceptions.RayError):
                    ray.get(actor.close.remote(), timeout=60)
                ray.kill(actor)

    return read, close
