"""The Ray engine behind :mod:`pagewarden.integrations.ray` and ``pagewarden ingest --ray``.

:func:`read_dataset` maps a Dataset's batches over a pool of reader actors
(:class:`.actor.ReaderActor`), with per-host politeness held by one
shared limiter actor (:class:`.limiter.HostLeases`); :func:`ingest_with_ray`
reads an iterable of URLs with it and streams the records out. The public
face, with the table of result columns, is :mod:`pagewarden.integrations.ray`.
A runtime that :func:`ingest_with_ray` starts ends with it (:mod:`.runtime`).
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import IO, TYPE_CHECKING, Any, Literal, cast

import ray
import ray.data

from ..._config import RENDER_MODES, REQUESTED_USES, check_choice
from ..._config.limits import check_int
from ..._errors import InvalidInput
from .actor import ActorSpec, ReaderActor
from .limiter import HostLeases
from .options import RESULT_COLUMNS, reader_config
from .runtime import ray_runtime

if TYPE_CHECKING:
    from ray.data import Dataset

__all__ = ["RESULT_COLUMNS", "ingest_with_ray", "read_dataset"]

_EXTRA_COLUMN = "_pagewarden_extra"
# The limiter answers many small calls concurrently and needs no CPU of its own.
_LIMITER_MAX_CONCURRENCY = 10_000


def read_dataset(
    ds: Dataset,
    *,
    url_column: str = "url",
    reader_options: Mapping[str, Any] | None = None,
    actors: int = 2,
    concurrency_per_actor: int = 4,
    per_host: int = 2,
    min_delay: float = 0.0,
    render: str = "auto",
    requested_use: str = "answer_with_citation",
    robots: Literal["respect", "ignore"] = "respect",
    batch_size: int = 16,
    num_cpus_per_actor: float = 1.0,
    memory_per_actor: int | None = None,
    _extra_json_column: str | None = None,
) -> Dataset:
    """Read every URL of ``ds`` on ``actors`` reader actors; lazily, like every Ray Data transform.

    Args:
        ds: a Dataset with a string column ``url_column``; the other columns
            pass through to the output rows and into each ``record``. They
            must not be named like a result column (see the module docstring).
        reader_options: :class:`pagewarden.ReaderConfig` fields as a plain
            mapping, ``limits`` / ``browser`` / ``cache`` as nested mappings
            (for example ``{"unsafe_allow_destinations": ["10.0.0.0/8"],
            "browser": {"concurrency": 4, "external_sandbox": True}}``).
            Every value is pickled to the actors: a ``resolver`` or ``guards``
            must be instances of classes importable on every node.
        actors: size of the actor pool (one reader and one browser each).
        concurrency_per_actor: reads in flight per actor (1..64); only
            ``browser.concurrency`` of them render at once.
        per_host: reads in flight per host across the whole pool (1..64).
        min_delay: seconds between two request starts on one host, pool-wide.
        render: ``auto``, ``never`` or ``always`` (see :meth:`AsyncReader.read`).
        requested_use: what the pages will be used for (see :meth:`AsyncReader.read`).
            ``max_characters`` and ``timeout`` are reader options.
        robots: ``respect`` (default) checks robots.txt per origin in each
            actor (an unreadable or 5xx robots.txt disallows the host);
            ``ignore`` skips it.
        batch_size: rows per batch handed to an actor.
        num_cpus_per_actor: the CPUs Ray reserves per actor.
        memory_per_actor: the bytes of memory Ray reserves per actor (for
            scheduling only; see docs/ray.md for measured sizes), or ``None``.

    Raises:
        InvalidInput: an invalid argument or reader option (checked here,
            before any actor starts).
    """
    check_int("actors", actors, 1, 1_024)
    check_int("concurrency_per_actor", concurrency_per_actor, 1, 64)
    check_int("batch_size", batch_size, 1, 10_000)
    if memory_per_actor is not None:
        check_int("memory_per_actor", memory_per_actor, 1, 2**50)
    mode = check_choice("render", render, RENDER_MODES)
    use = check_choice("requested_use", requested_use, REQUESTED_USES)
    if robots not in ("respect", "ignore"):
        raise InvalidInput("robots must be respect or ignore", reason="invalid_robots")
    if not isinstance(url_column, str) or not url_column:
        raise InvalidInput("url_column must be a column name", reason="invalid_url_column")
    if url_column in RESULT_COLUMNS:
        raise InvalidInput("url_column clashes with a result column", reason="column_conflict")
    options = dict(reader_options or {})
    config = reader_config(options)
    # Built here so an invalid per_host or min_delay fails before Ray does anything.
    HostLeases(per_host, min_delay)
    # A lease outlives any read (robots.txt fetch included), so it only
    # expires when its actor died holding it.
    lease_seconds = min(3_600.0, 2 * config.timeout + 60.0)
    limiter_class = ray.remote(HostLeases)
    limiter = limiter_class.options(num_cpus=0, max_concurrency=_LIMITER_MAX_CONCURRENCY).remote(
        per_host, min_delay, lease_seconds
    )
    spec = ActorSpec(
        reader_options=options,
        url_column=url_column,
        render=mode,
        requested_use=use,
        concurrency=concurrency_per_actor,
        robots=robots == "respect",
        limiter=limiter,
        extra_json_column=_extra_json_column,
    )
    return ds.map_batches(
        ReaderActor,
        fn_constructor_kwargs={"spec": spec},
        compute=ray.data.ActorPoolStrategy(size=actors),
        batch_size=batch_size,
        batch_format="pyarrow",
        num_cpus=num_cpus_per_actor,
        memory=memory_per_actor,
        udf_modifying_row_count=False,
    )


def ingest_with_ray(
    items: Iterable[tuple[str, Mapping[str, Any]]],
    out: str | os.PathLike[str] | IO[str] | Callable[[dict[str, Any]], None],
    *,
    address: str | None,
    reader_options: Mapping[str, Any] | None = None,
    actors: int = 2,
    concurrency_per_actor: int = 4,
    per_host: int = 2,
    min_delay: float = 0.0,
    render: str = "auto",
    requested_use: str = "answer_with_citation",
    robots: Literal["respect", "ignore"] = "respect",
    batch_size: int = 16,
) -> dict[str, Any]:
    """Read ``(url, pass_through_fields)`` pairs on a Ray cluster; one output record per pair.

    ``out`` is a path (appended to; ``"-"`` is stdout), a text stream, or a
    callable taking each record dict (for example the CLI's
    ``JsonlSink.write``).

    This is ``pagewarden ingest --ray ADDRESS``: the caller parses the input
    (``parse_input_line``) and drops what ``--resume`` / ``--max-pages``
    exclude; this function reads on the runtime already initialised, or else
    on one it starts at ``address`` (``"auto"``, ``"local"`` for a fresh local
    runtime, ``ray://host:10001``, ``None`` for Ray's default) and ends before
    it returns or raises (:func:`~.runtime.ray_runtime`), and writes each
    record as it comes back, flushed per batch. The URL list is held by the
    driver (a few hundred bytes per URL); pages are streamed.

    Returns:
        a summary: ``pages``, ``ok``, ``failed`` and ``failures`` (count per code).
    """
    reader_config(dict(reader_options or {}))  # an invalid option fails before Ray starts
    rows = [
        {"url": url, _EXTRA_COLUMN: json.dumps(dict(extra), ensure_ascii=False, default=str)}
        for url, extra in items
    ]
    summary: dict[str, Any] = {"pages": 0, "ok": 0, "failed": 0, "failures": {}}
    if not rows:
        return summary
    with ray_runtime(address):
        # The dataset lives only in this call: released before the runtime ends, its actors end the ordinary way.
        _write_records(read_dataset(
            ray.data.from_items(rows),
            reader_options=reader_options,
            actors=actors,
            concurrency_per_actor=concurrency_per_actor,
            per_host=per_host,
            min_delay=min_delay,
            render=render,
            requested_use=requested_use,
            robots=robots,
            batch_size=batch_size,
            _extra_json_column=_EXTRA_COLUMN,
        ), out, summary, batch_size)
    return summary


def _write_records(
    result: Dataset, out: str | os.PathLike[str] | IO[str] | Callable[[dict[str, Any]], None],
    summary: dict[str, Any], batch_size: int,
) -> None:
    failures: Counter[str] = Counter()
    sink: Callable[[dict[str, Any]], None] | None = out if callable(out) else None
    with nullcontext(None) if sink is not None else _open_out(cast("str | os.PathLike[str] | IO[str]", out)) as stream:
        for batch in result.iter_batches(batch_format="numpy", batch_size=batch_size):
            columns = {name: batch[name].tolist() for name in ("record", "ok", "code")}
            for record, ok, code in zip(columns["record"], columns["ok"], columns["code"], strict=True):
                if sink is not None:
                    sink(json.loads(record))
                elif stream is not None:
                    stream.write(record + "\n")
                summary["pages"] += 1
                if ok:
                    summary["ok"] += 1
                else:
                    summary["failed"] += 1
                    failures[str(code)] += 1
            if stream is not None:
                stream.flush()
            summary["failures"] = dict(failures)  # kept current: a failing run still reports what it read


def _open_out(out: str | os.PathLike[str] | IO[str]) -> AbstractContextManager[IO[str] | None]:
    if isinstance(out, str) and out == "-":
        return nullcontext(sys.stdout)
    if isinstance(out, str | os.PathLike):
        return open(out, "a", encoding="utf-8")
    return nullcontext(out)
