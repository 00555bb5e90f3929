"""The crawl frontier: the queue of pages to read, the seen set, trap counts, and the journal for resume.

A URL enters the frontier once (:meth:`Frontier.admit`): it passes the scope,
the trap limits and the seen set (by canonical key), and is appended to the
queue and, when a journal is kept, to the journal file as one JSON line
(``{"url", "key", "depth", "found_on"}``), written with a single ``write`` and
flushed at once.

Resume (``pagewarden crawl --resume``): the journal is replayed (every URL
ever admitted, with its depth and origin; the trap counts rebuilt the same
way) and the URLs whose record is already in the output are marked done; the
queue is what was admitted and not done, in admission order. A page's links
are journaled *before* its record is written, so a crash between the two
re-reads that page (its record was never written) and never loses its
links: a resumed crawl reads nothing twice and misses nothing.

Memory: the seen set holds one key per admitted URL (bounded by
``max_frontier``, refusals counted as ``frontier_full``); the queue holds the
admitted URLs not read yet.
"""

from __future__ import annotations

import json
from collections import Counter, deque
from dataclasses import dataclass
from typing import IO

from .canon import canonicalize
from .scope import Scope, TrapLimits, trap_reason

__all__ = ["MAX_JOURNAL_LINE", "Frontier", "QueuedPage", "journal_path"]

MAX_JOURNAL_LINE = 16_384
MAX_TRAP_SAMPLES = 5


def journal_path(out_path: str) -> str:
    """Where the journal of a crawl writing ``out_path`` lives (next to it)."""
    return out_path + ".frontier"


@dataclass(frozen=True, slots=True)
class QueuedPage:
    """A page waiting to be read: its fetch URL, dedup key, link depth and the page it was found on."""

    url: str
    key: str
    depth: int
    found_on: str | None


class Frontier:
    """Admission, dedup, traps and the (optionally journaled) queue of one crawl."""

    def __init__(self, scope: Scope, *, max_depth: int, traps: TrapLimits, max_frontier: int,
                 journal: str | None = None) -> None:
        self.scope = scope
        self.max_depth = max_depth
        self.traps = traps
        self.max_frontier = max_frontier
        self.queue: deque[QueuedPage] = deque()
        self.seen: set[str] = set()
        self.shapes: Counter[str] = Counter()
        self.refusals: Counter[str] = Counter()
        self.trap_samples: dict[str, list[str]] = {}
        self.admitted = 0  # pages queued so far (restored ones included); seen also holds marks
        # Set to a list to keep every admitted URL in order (``map``).
        self.admitted_urls: list[str] | None = None
        self._journal: IO[str] | None = open(journal, "a", encoding="utf-8") if journal else None  # noqa: SIM115

    def close(self) -> None:
        """Close the journal file."""
        handle, self._journal = self._journal, None
        if handle is not None:
            handle.close()

    def _refuse(self, reason: str, url: str, *, trap: bool = False) -> None:
        self.refusals[reason] += 1
        if trap:
            samples = self.trap_samples.setdefault(reason, [])
            if len(samples) < MAX_TRAP_SAMPLES:
                samples.append(url[:200])

    def mark_seen(self, url: str) -> None:
        """Treat ``url`` as read (a redirect target, an honoured ``rel=canonical``); journaled too."""
        key = canonicalize(url).key
        if key in self.seen:
            return
        self.seen.add(key)
        self._write({"seen": key})

    def _write(self, entry: dict[str, object]) -> None:
        if self._journal is None:
            return
        line = json.dumps(entry)
        if len(line) < MAX_JOURNAL_LINE:
            self._journal.write(line + "\n")
            self._journal.flush()

    def admit(self, url: str, depth: int, found_on: str | None, *, exempt: bool = False) -> QueuedPage | None:
        """Queue ``url`` (already accepted by the URL policy) unless a rule refuses it; the reason is counted.

        ``exempt`` (the start URL) skips the include/exclude globs and the trap limits.
        """
        canonical = canonicalize(url)
        if canonical.session_id:
            self._refuse("session_id_removed", url, trap=True)
        if depth > self.max_depth:
            self._refuse("max_depth", canonical.url)
            return None
        reason = self.scope.reason(canonical.url)
        if reason is not None and not (exempt and reason in ("not_included", "excluded")):
            self._refuse(reason, canonical.url)
            return None
        if canonical.key in self.seen:
            self.refusals["duplicate"] += 1
            return None
        if not exempt:
            trap = trap_reason(canonical.url, self.traps, self.shapes)
            if trap is not None:
                self._refuse(trap, canonical.url, trap=True)
                return None
        if len(self.seen) >= self.max_frontier:
            self._refuse("frontier_full", canonical.url)
            return None
        page = QueuedPage(canonical.url, canonical.key, depth, found_on)
        self.seen.add(canonical.key)
        self.admitted += 1
        self.queue.append(page)
        if self.admitted_urls is not None:
            self.admitted_urls.append(page.url)
        self._write({"url": page.url, "key": page.key, "depth": depth, "found_on": found_on})
        return page

    def restore(self, journal: str, done: set[str]) -> int:
        """Replay ``journal`` (see the module docstring); pages whose URL is in ``done`` are not queued.

        Returns how many journaled pages were already done. A last line cut
        short is ignored (and cut from the file, so appending stays clean).
        """
        already = 0
        try:
            handle = open(journal, "rb+")  # noqa: SIM115 - closed below
        except FileNotFoundError:
            return 0
        with handle:
            data = handle.read()
            end = data.rfind(b"\n") + 1
            if end != len(data):
                handle.truncate(end)
        for raw in data[:end].splitlines():
            try:
                entry = json.loads(raw)
                if isinstance(entry, dict) and isinstance(entry.get("seen"), str):
                    self.seen.add(entry["seen"])
                    continue
                page = QueuedPage(str(entry["url"]), str(entry["key"]), int(entry["depth"]),
                                  entry.get("found_on"))
            except (ValueError, KeyError, TypeError):
                continue
            if page.key in self.seen:
                continue
            self.seen.add(page.key)
            self.admitted += 1
            if page.found_on is not None:
                # Rebuild the shape counts the way admission built them.
                trap_reason(page.url, TrapLimits(max_pages_per_shape=1 << 62), self.shapes)
            if page.url in done:
                already += 1
            else:
                self.queue.append(page)
        return already

