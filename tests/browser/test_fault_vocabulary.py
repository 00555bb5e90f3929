"""One fault vocabulary: the same fault gets the same code, reason and retryable on the static and browser paths.

Each row serves one fault from loopback (or names a host that does not
resolve, or a port where nothing listens) and reads it twice through one
reader: ``render="never"`` (the static path) and ``render="always"`` (the
browser, behind the egress proxy). Both must end with the row's error,
field for field; ``retry_after`` too where the server sent one.
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass

import pytest
import trustme

import pagewarden
from tests.browser.pool_support import AS_ROOT, anyio_backend, chromium_available
from tests.support.hostile import HostileServer, huge_header, reset_mid_body, sized_body
from tests.support.resolvers import StaticResolver

__all__ = ["anyio_backend"]

pytestmark = [pytest.mark.browser, pytest.mark.anyio]

HTML = {"Content-Type": "text/html; charset=utf-8"}
PAGE = b"<!doctype html><html><body><p>a page</p></body></html>"


@dataclass(frozen=True)
class Fault:
    """One row: how to serve the fault, and the error both paths must raise."""

    name: str
    install: Callable[[HostileServer], str]  # returns the URL to read
    code: str
    reason: str
    retryable: bool
    status: int | None = None
    retry_after: float | None = None


def _path(path: str, setup: Callable[[HostileServer, str], None]) -> Callable[[HostileServer], str]:
    def install(server: HostileServer) -> str:
        setup(server, path)
        return server.url(path)

    return install


def _loop(server: HostileServer, path: str) -> None:
    server.redirect(path, path + "-b")
    server.redirect(path + "-b", path)


def _chain(server: HostileServer, path: str) -> None:
    for hop in range(40):
        server.redirect(f"{path}{hop}" if hop else path, f"{path}{hop + 1}")


def _status(status: int, retry_after: str | None = None) -> Callable[[HostileServer, str], None]:
    def setup(server: HostileServer, path: str) -> None:
        headers = dict(HTML, **({"Retry-After": retry_after} if retry_after else {}))
        server.add(path, status=status, headers=headers, body=PAGE)

    return setup


def _behave(factory: Callable[[], object]) -> Callable[[HostileServer, str], None]:
    def setup(server: HostileServer, path: str) -> None:
        server.behave(path, factory())  # type: ignore[arg-type]

    return setup


def _unresolvable(_server: HostileServer) -> str:
    return "http://nowhere.test/page"


def _refused_port(_server: HostileServer) -> str:
    return f"http://127.0.0.1:{_closed_port()}/page"


def _tls(_server: HostileServer) -> str:
    return f"https://127.0.0.1:{_TLS_PORT[0]}/page"


FAULTS: list[Fault] = [
    Fault("reset_mid_body", _path("/reset", _behave(lambda: reset_mid_body(declared=200_000, sent=4_096))),
          "NETWORK_ERROR", "connection_lost", True),
    Fault("declared_too_large", _path("/big", _behave(lambda: sized_body(20_000_000))),
          "RESPONSE_TOO_LARGE", "content_length_too_large", False),
    Fault("header_too_large", _path("/header", _behave(lambda: huge_header(1_000_000))),
          "RESPONSE_TOO_LARGE", "header_too_large", False),
    Fault("redirect_loop", _path("/loop", _loop), "UPSTREAM_HTTP", "redirect_loop", False),
    Fault("too_many_redirects", _path("/chain", _chain), "UPSTREAM_HTTP", "too_many_redirects", False),
    Fault("unavailable_retry_after", _path("/busy", _status(503, "7")), "UPSTREAM_HTTP", "http_503", True,
          status=503, retry_after=7.0),
    Fault("rate_limited", _path("/slow-down", _status(429, "30")), "UPSTREAM_HTTP", "http_429", True,
          status=429, retry_after=30.0),
    Fault("not_found", _path("/missing", _status(404)), "UPSTREAM_HTTP", "http_404", False, status=404),
    Fault("dns_failure", _unresolvable, "NETWORK_ERROR", "dns_failure", True),
    Fault("connection_refused", _refused_port, "NETWORK_ERROR", "connect_failed", True),
    Fault("tls_untrusted", _tls, "NETWORK_ERROR", "tls_failure", False),
]

# The TLS server's port (set by the module fixture), and ports where nothing listens.
_TLS_PORT: list[int] = [0]
_CLOSED: list[int] = []


def _closed_port() -> int:
    return _CLOSED[0]


def _serve_tls(listener: ssl.SSLSocket, stopping: threading.Event) -> None:
    while not stopping.is_set():
        try:
            conn, _ = listener.accept()
        except (TimeoutError, ssl.SSLError, OSError):
            continue
        with contextlib.suppress(OSError), conn:
            conn.recv(4096)


@pytest.fixture(scope="module")
def sites() -> Iterator[HostileServer]:
    """The fault server, a TLS server whose certificate nobody trusts, and a closed port."""
    server = HostileServer()
    server.start()
    ca = trustme.CA()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert("127.0.0.1").configure_cert(context)
    raw = socket.socket()
    raw.bind(("127.0.0.1", 0))
    raw.listen(16)
    raw.settimeout(0.1)
    listener = context.wrap_socket(raw, server_side=True, do_handshake_on_connect=True)
    _TLS_PORT[0] = listener.getsockname()[1]
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    _CLOSED[:] = [closed.getsockname()[1]]
    closed.close()  # bound once, nothing listens there now
    stopping = threading.Event()
    thread = threading.Thread(target=_serve_tls, args=(listener, stopping), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        stopping.set()
        thread.join(timeout=3)
        listener.close()
        server.stop()


@pytest.fixture(scope="module")
async def reader(anyio_backend: str, sites: HostileServer) -> AsyncIterator[pagewarden.AsyncReader]:
    """One reader for both paths, allowing the fault servers only."""
    chromium_available()
    allowed = (sites.host_port, f"127.0.0.1:{_TLS_PORT[0]}", f"127.0.0.1:{_closed_port()}", "nowhere.test:80")
    async with pagewarden.AsyncReader(
        unsafe_allow_destinations=allowed,
        resolver=StaticResolver({}),
        browser=pagewarden.BrowserConfig(external_sandbox=AS_ROOT),
    ) as shared:
        yield shared


async def _error(reader: pagewarden.AsyncReader, url: str, render: str) -> pagewarden.PagewardenError:
    with pytest.raises(pagewarden.PagewardenError) as caught:
        await reader.read(url, render=render, timeout=15)
    return caught.value


@pytest.mark.parametrize("fault", FAULTS, ids=[fault.name for fault in FAULTS])
async def test_both_paths_name_the_fault_alike(
    reader: pagewarden.AsyncReader, sites: HostileServer, fault: Fault
) -> None:
    """The static and the browser path raise the row's code, reason, retryable, status and retry_after."""
    url = fault.install(sites)
    expected = (fault.code, fault.reason, fault.retryable, fault.status, fault.retry_after)
    for render in ("never", "always"):
        error = await _error(reader, url + ("&" if "?" in url else "?") + f"path={render}", render)
        got = (str(error.code), error.reason, error.retryable, error.status, error.retry_after)
        assert (render, got) == (render, expected)
