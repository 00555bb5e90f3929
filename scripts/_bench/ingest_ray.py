"""The Ray line of ``scripts/bench ingest``: the same URLs read by ``read_dataset`` on a local Ray runtime.

:func:`bench_ray` starts a local Ray runtime with one CPU per actor (unless
one is already initialised), reads the URLs on ``actors`` reader actors and
samples the memory of the whole process tree (driver, GCS, raylet, workers,
Playwright drivers, Chromium: all descendants of this process when Ray runs
locally) every 0.25 s. The time includes starting the actors and their
browsers, as ``pagewarden ingest``'s time includes starting its browser.

Politeness is not what this measures: the bench site is one host, so
``per_host`` defaults to every slot of the pool (``actors *
concurrency_per_actor``), as the one-machine runs use ``--per-host`` equal to
their concurrency.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Mapping
from typing import Any

from .render_memory import tree_memory

__all__ = ["bench_ray"]

_SAMPLE_SECONDS = 0.25


class _PeakMemory:
    """Samples :func:`tree_memory` in a thread and keeps the peaks."""

    def __init__(self) -> None:
        self.peak_rss = 0.0
        self.peak_pss = 0.0
        self.peak_processes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="bench-ray-memory", daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(_SAMPLE_SECONDS):
            self.sample()

    def sample(self) -> None:
        """Take one sample now."""
        memory = tree_memory()
        self.peak_rss = max(self.peak_rss, memory["rss_mib"])
        self.peak_pss = max(self.peak_pss, memory["pss_mib"])
        self.peak_processes = max(self.peak_processes, int(memory["processes"]))

    def __enter__(self) -> _PeakMemory:
        self.sample()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.sample()


def bench_ray(
    urls: list[str],
    *,
    reader_options: Mapping[str, Any],
    actors: int = 2,
    concurrency_per_actor: int = 4,
    per_host: int | None = None,
    render: str = "auto",
    robots: str = "respect",
    batch_size: int = 16,
) -> dict[str, Any]:
    """Read ``urls`` on ``actors`` Ray actors; pages/s and peak memory of the process tree.

    Returns a dict: ``actors``, ``pages``, ``ok``, ``failures`` (per code),
    ``methods`` (per fetch method), ``seconds`` (wall time including actor
    and browser start-up), ``first_row_seconds``, ``pages_per_s``,
    ``peak_rss_mib`` / ``peak_pss_mib`` (see :mod:`.render_memory` for the
    difference) and ``peak_processes``.
    """
    import ray
    import ray.data

    from pagewarden.integrations.ray import read_dataset

    started_ray = not ray.is_initialized()
    if started_ray:
        ray.init(num_cpus=actors, include_dashboard=False, log_to_driver=False, configure_logging=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    failures: Counter[str] = Counter()
    methods: Counter[str] = Counter()
    pages = ok = 0
    first_row: float | None = None
    try:
        with _PeakMemory() as memory:
            began = time.perf_counter()
            dataset = read_dataset(
                ray.data.from_items([{"url": url} for url in urls]),
                reader_options=reader_options,
                actors=actors,
                concurrency_per_actor=concurrency_per_actor,
                per_host=per_host if per_host is not None else actors * concurrency_per_actor,
                render=render,
                robots="ignore" if robots == "ignore" else "respect",
                batch_size=batch_size,
            )
            for batch in dataset.iter_batches(batch_format="numpy", batch_size=batch_size):
                if first_row is None:
                    first_row = time.perf_counter() - began
                for row_ok, code, method in zip(
                    batch["ok"].tolist(), batch["code"].tolist(), batch["method"].tolist(), strict=True
                ):
                    pages += 1
                    if row_ok:
                        ok += 1
                        methods[str(method)] += 1
                    else:
                        failures[str(code)] += 1
            seconds = time.perf_counter() - began
    finally:
        if started_ray:
            ray.shutdown()
    return {
        "actors": actors,
        "pages": pages,
        "ok": ok,
        "failures": dict(failures),
        "methods": dict(methods),
        "seconds": round(seconds, 2),
        "first_row_seconds": round(first_row or 0.0, 2),
        "pages_per_s": round(pages / seconds, 2) if seconds > 0 else 0.0,
        "peak_rss_mib": memory.peak_rss,
        "peak_pss_mib": memory.peak_pss,
        "peak_processes": memory.peak_processes,
    }
