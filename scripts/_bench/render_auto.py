"""``render="auto"`` over the static article corpus: how many reads launched a browser (target: none).

Each corpus page is served from loopback and read with one ``AsyncReader``
whose browser pool is configured (so escalation *could* happen). A read that
escalated says so on its Document (``fetch.method == "browser"``); the pool's
own launch counter confirms it independently.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pagewarden
from _bench.corpus import load_corpus
from _bench.server import serve
from pagewarden._browser.config import BrowserConfig

__all__ = ["auto_over_corpus"]


async def auto_over_corpus(folder: Path, executable: str) -> dict[str, Any]:
    """Read every corpus page with ``render="auto"``; count browser reads, launches and refusals."""
    pages = load_corpus(folder)
    bodies = {f"/{page.id}.html": page.html for page in pages}
    methods: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    escalations: Counter[str] = Counter()
    started = time.perf_counter()
    with serve(bodies) as port:
        config = pagewarden.ReaderConfig(
            unsafe_allow_destinations=(f"127.0.0.1:{port}",),
            browser=BrowserConfig(executable=executable, external_sandbox=os.geteuid() == 0),
        )
        async with pagewarden.AsyncReader(config) as reader:
            for path in bodies:
                try:
                    document = await reader.read(f"http://127.0.0.1:{port}{path}", render="auto")
                except pagewarden.PagewardenError as exc:
                    refused[f"{exc.code}:{exc.reason}"] += 1
                    continue
                methods[str(document.fetch.method)] += 1
                if document.fetch.escalation_reason:
                    escalations[str(document.fetch.escalation_reason)] += 1
            pool = getattr(reader, "_pool", None)
            launches = pool.stats()["launches"] if pool is not None else 0
    return {
        "pages": len(pages),
        "methods": dict(methods),
        "browser_reads": methods.get("browser", 0),
        "pool_launches": launches,
        "escalation_reasons": dict(escalations),
        "refused": dict(refused),
        "seconds": round(time.perf_counter() - started, 1),
    }
