"""The Ray integration on a local Ray runtime (2 CPUs) over loopback pages.

Ray workers are separate processes: they reach the loopback servers started
here over 127.0.0.x, allowed by ``unsafe_allow_destinations=["127.0.0.0/8"]``
in the reader options. The socket tripwire of tests/conftest.py patches only
this (the driver) process; Ray's own driver connections (GCS, raylet, object
store) are made by its C++ core, below the patched Python ``socket`` module,
and ``ray.init`` runs in a module fixture set up before the per-test tripwire
is installed, so no allowance is needed.

"Hosts" are distinct loopback IP literals (127.0.0.2, .3, .4), one listener
each: the politeness key is the host name, so three literals are three hosts
without any resolver (resolvers would have to pickle to the workers).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("ray")

import ray
import ray.data

from pagewarden import ConfigMissing
from pagewarden._browser.discovery import find_chromium
from pagewarden.integrations.ray import RESULT_COLUMNS, ingest_with_ray, read_dataset
from tests.reader import pages
from tests.support.ray_runtime import local_ray

# Ray warns about its own deprecated settings while it builds its DataContext.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:ray.*")

HOSTS = ("127.0.0.2", "127.0.0.3", "127.0.0.4")
ROBOTS = b"User-agent: *\nDisallow: /private\n"
PAGE_DELAY = 0.15  # long enough for concurrent reads of one host to overlap
READER_OPTIONS: dict[str, Any] = {
    "unsafe_allow_destinations": ["127.0.0.0/8"],
    "timeout": 20.0,
}

# (host index, path, expected ok, expected code) - the page table every correctness test reads.
CASES: list[tuple[int, str, bool, str | None]] = [
    *[(i % 3, f"/article/{i}", True, None) for i in range(24)],
    (0, "/missing", False, "UPSTREAM_HTTP"),
    (1, "/missing", False, "UPSTREAM_HTTP"),
    (0, "/private/secret", False, "UNSAFE_URL"),
    (2, "/short", False, "CONTENT_INSUFFICIENT"),
]


@dataclass
class _Listener:
    host: str
    sock: socket.socket
    active: int = 0
    peak: int = 0
    paths: list[str] = field(default_factory=list)


class HostsServer:
    """Loopback HTTP on several 127.0.0.x addresses, recording paths and peak concurrency per address."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.listeners: dict[str, _Listener] = {}
        self._threads: list[threading.Thread] = []

    def start(self) -> HostsServer:
        """Listen on every address of :data:`HOSTS`."""
        for host in HOSTS:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind((host, 0))
            sock.listen(128)
            sock.settimeout(0.05)
            listener = _Listener(host, sock)
            self.listeners[host] = listener
            thread = threading.Thread(target=self._accept, args=(listener,), daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self) -> None:
        """Stop accepting and close the listeners."""
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=2)
        for listener in self.listeners.values():
            listener.sock.close()

    def url(self, index: int, path: str) -> str:
        """The URL of ``path`` on host number ``index``."""
        listener = self.listeners[HOSTS[index]]
        return f"http://{listener.host}:{listener.sock.getsockname()[1]}{path}"

    def peaks(self) -> dict[str, int]:
        """Peak concurrent connections per host since start."""
        with self._lock:
            return {host: listener.peak for host, listener in self.listeners.items()}

    def paths(self, index: int) -> list[str]:
        """The request paths host number ``index`` received."""
        with self._lock:
            return list(self.listeners[HOSTS[index]].paths)

    def _accept(self, listener: _Listener) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = listener.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._handle, args=(listener, conn), daemon=True).start()

    def _handle(self, listener: _Listener, conn: socket.socket) -> None:
        with contextlib.suppress(OSError), conn:
            conn.settimeout(5)
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                head += chunk
            path = head.split(b" ", 2)[1].decode("latin-1")
            # A request is "in flight" from its arrival until just before its
            # response is sent: the client cannot start its next request on
            # this host earlier, so an overlap here is a real overlap.
            with self._lock:
                listener.paths.append(path)
                listener.active += 1
                listener.peak = max(listener.peak, listener.active)
            status, kind, body = self._route(listener.host, path)
            if path.startswith("/article/"):
                time.sleep(PAGE_DELAY)
            with self._lock:
                listener.active -= 1
            conn.sendall(
                f"HTTP/1.1 {status} X\r\nContent-Type: {kind}\r\nContent-Length: {len(body)}\r\n"
                "Connection: close\r\n\r\n".encode() + body
            )
            conn.shutdown(socket.SHUT_WR)
            time.sleep(0.01)

    @staticmethod
    def _route(host: str, path: str) -> tuple[int, str, bytes]:
        html = "text/html; charset=utf-8"
        if path == "/robots.txt":
            return (200, "text/plain", ROBOTS) if host == HOSTS[0] else (404, "text/plain", b"none")
        if path.startswith("/article/"):
            return 200, html, pages.ARTICLE.replace("<title>", f"<title>{path} ").encode()
        static = {
            "/short": (html, pages.SHORT),
            "/app": (html, pages.APP_SHELL),
            "/app.js": ("text/javascript", pages.APP_SCRIPT),
            "/api/article.json": ("application/json", pages.APP_JSON),
        }
        if path in static:
            kind, text = static[path]
            return 200, kind, text.encode()
        return 404, html, b"<p>not found</p>"


def _chromium_descendants() -> list[int]:
    """Chromium processes below this test process (Ray's raylet and workers are its descendants)."""
    parents: dict[int, int] = {}
    names: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            stat = (entry / "stat").read_text()
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
            names[int(entry.name)] = (entry / "cmdline").read_bytes().split(b"\0", 1)[0].decode(errors="replace")
    below = {os.getpid()}
    changed = True
    while changed:
        changed = False
        for pid, parent in parents.items():
            if parent in below and pid not in below:
                below.add(pid)
                changed = True
    return [pid for pid in below if "chrom" in names.get(pid, "").lower()]


@pytest.fixture(scope="module")
def ray_runtime() -> Iterator[None]:
    """A local Ray runtime with 2 CPUs for the module; a process outliving ray.shutdown() is killed and reported."""
    with local_ray(strict=False):
        yield


@pytest.fixture(scope="module")
def hosts() -> Iterator[HostsServer]:
    """The three-host loopback site for the module."""
    server = HostsServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def results(ray_runtime: None, hosts: HostsServer) -> list[dict[str, Any]]:
    """The output rows of one read of :data:`CASES` on 2 actors (per_host=1), read once for the module."""
    items = [{"url": hosts.url(index, path), "tag": f"row-{n}"} for n, (index, path, _, _) in enumerate(CASES)]
    ds = read_dataset(
        ray.data.from_items(items),
        reader_options=READER_OPTIONS,
        actors=2,
        concurrency_per_actor=4,
        per_host=1,
        render="never",
        batch_size=8,
    )
    return list(ds.iter_rows())


def test_every_input_yields_one_row(results: list[dict[str, Any]], hosts: HostsServer) -> None:
    """Each input row gives exactly one output row, with its pass-through column and the result columns."""
    tags = sorted(row["tag"] for row in results)
    assert tags == sorted(f"row-{n}" for n in range(len(CASES)))
    for row in results:
        assert set(RESULT_COLUMNS) <= set(row)
        assert json.loads(row["record"])["tag"] == row["tag"]


@pytest.mark.parametrize(("index", "path", "ok", "code"), CASES[-4:] + CASES[:1])
def test_outcome_per_page(
    results: list[dict[str, Any]], hosts: HostsServer, index: int, path: str, ok: bool, code: str | None
) -> None:
    """A page is a document or a failure with its stable code, as the record says too."""
    (row,) = [row for row in results if row["url"] == hosts.url(index, path)]
    assert row["ok"] is ok
    assert row["code"] == code
    record = json.loads(row["record"])
    assert record["ok"] is ok
    if ok:
        assert row["markdown"] and row["method"] == "http" and row["status"] == 200
    else:
        assert record["code"] == code and row["reason"] and isinstance(row["retryable"], bool)


def test_robots_disallowed_path_never_fetched(results: list[dict[str, Any]], hosts: HostsServer) -> None:
    """robots.txt of host 0 forbids /private: the row says robots_disallowed and the server never saw it."""
    (row,) = [row for row in results if row["url"] == hosts.url(0, "/private/secret")]
    assert row["reason"] == "robots_disallowed"
    assert "/robots.txt" in hosts.paths(0)
    assert not any(path.startswith("/private") for path in hosts.paths(0))


def test_per_host_limit_holds_across_actors(results: list[dict[str, Any]], hosts: HostsServer) -> None:
    """With per_host=1 no host ever saw two connections at once, although 2 actors read 8 pages each concurrently."""
    assert len(results) == len(CASES)
    assert hosts.peaks() == dict.fromkeys(HOSTS, 1)


def test_parallel_without_limit_overlaps(ray_runtime: None, hosts: HostsServer) -> None:
    """With per_host=4 one host does see overlapping reads (so the per_host=1 check above can fail)."""
    before = hosts.peaks()[HOSTS[1]]
    urls = [{"url": hosts.url(1, f"/article/{100 + n}")} for n in range(8)]
    ds = read_dataset(ray.data.from_items(urls), reader_options=READER_OPTIONS, actors=1,
                      concurrency_per_actor=4, per_host=4, render="never", robots="ignore", batch_size=4)
    rows = list(ds.iter_rows())
    assert len(rows) == 8 and all(row["ok"] for row in rows)
    assert before == 1 and hosts.peaks()[HOSTS[1]] > 1


def test_ingest_with_ray_writes_one_line_per_input(ray_runtime: None, hosts: HostsServer, tmp_path: Path) -> None:
    """ingest_with_ray appends one JSON line per input with its pass-through fields, and counts failures by code."""
    items = [(hosts.url(2, f"/article/{n}"), {"n": n}) for n in range(5)] + [(hosts.url(2, "/missing"), {"n": 5})]
    out = tmp_path / "out.jsonl"
    summary = ingest_with_ray(items, out, address=None, reader_options=READER_OPTIONS, actors=2,
                              render="never", per_host=2)
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted(line["n"] for line in lines) == list(range(6))
    assert summary == {"pages": 6, "ok": 5, "failed": 1, "failures": {"UPSTREAM_HTTP": 1}}


def test_ingest_with_ray_feeds_a_record_sink(ray_runtime: None, hosts: HostsServer) -> None:
    """Given a callable, ingest_with_ray hands it each record dict (how the CLI's JsonlSink plugs in)."""
    records: list[dict[str, Any]] = []
    items = [(hosts.url(1, "/article/300"), {}), (hosts.url(1, "/short"), {"k": "v"})]
    summary = ingest_with_ray(items, records.append, address=None, reader_options=READER_OPTIONS, actors=1,
                              render="never")
    assert sorted((record["ok"], record.get("k")) for record in records) == [(False, "v"), (True, None)]
    assert summary["failures"] == {"CONTENT_INSUFFICIENT": 1}


def test_invalid_reader_option_fails_before_ray_runs(ray_runtime: None) -> None:
    """An unknown reader option is INVALID_INPUT at read_dataset, not a failed actor later."""
    from pagewarden import InvalidInput

    with pytest.raises(InvalidInput) as caught:
        read_dataset(ray.data.from_items([{"url": "http://127.0.0.2/"}]), reader_options={"no_such": 1})
    assert caught.value.reason == "unknown_option"


@pytest.mark.browser
def test_client_rendered_page_escalates_and_browsers_close(ray_runtime: None, hosts: HostsServer) -> None:
    """A client-rendered page is rendered in an actor's pooled browser; Chromium is gone once the pool ends."""
    try:
        find_chromium()
    except ConfigMissing as exc:
        pytest.fail(f"{exc} (deselect with -m 'not browser')")
    options = {**READER_OPTIONS, "browser": {"external_sandbox": os.geteuid() == 0}}
    items = [{"url": hosts.url(2, "/app")}, {"url": hosts.url(2, f"/article/{200}")}]
    ds = read_dataset(ray.data.from_items(items), reader_options=options, actors=1, render="auto", batch_size=1)
    rows = {row["url"]: row for row in ds.iter_rows()}
    rendered = rows[hosts.url(2, "/app")]
    assert rendered["ok"] and rendered["method"] == "browser"
    assert "high and low water" in rendered["markdown"]
    assert rows[hosts.url(2, "/article/200")]["method"] == "http"
    deadline = time.monotonic() + 20
    while _chromium_descendants() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _chromium_descendants() == []


def test_cli_ingest_on_ray(ray_runtime: None, hosts: HostsServer, tmp_path: Path) -> None:
    """`pagewarden ingest --ray local` reads through the actor pool and writes one line per input, resumable."""
    import io

    from pagewarden.cli import main

    source = tmp_path / "urls.txt"
    source.write_text("\n".join(hosts.url(2, f"/article/{n}") for n in range(4)) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    allowances = [arg for host_port in READER_OPTIONS["unsafe_allow_destinations"]
                  for arg in ("--unsafe-allow-destination", host_port)]
    argv = ["ingest", str(source), "--out", str(out), "--ray", "local", "--render", "never", *allowances]
    assert main(argv, out=io.StringIO(), err=io.StringIO()) == 0
    assert main([*argv, "--resume"], out=io.StringIO(), err=io.StringIO()) == 0
    urls = [json.loads(line)["url"] for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted(urls) == sorted(hosts.url(2, f"/article/{n}") for n in range(4))
