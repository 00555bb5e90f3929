"""Root fixtures shared by every test folder.

* ``anyio_backend``: async tests (``@pytest.mark.anyio``) run on asyncio only.
* ``socket_tripwire`` (autouse): every test runs under the socket tripwire of
  :mod:`tests.support.tripwire`. A TCP connect is allowed only from
  pagewarden's pinned dial path and only to a loopback address; DNS lookups
  of anything but IP literals and ``localhost`` are refused (inject a
  resolver from :mod:`tests.support.resolvers`). A violation raises
  ``TripwireTripped`` where it happens *and* fails the test afterwards, even if
  the code under test swallowed the exception. A test that means to trip it
  calls ``socket_tripwire.take_violations()``; a test that must make a raw
  connect wraps it in ``socket_tripwire.allow(host, port)``.
* ``fixture_server``: a started :class:`tests.support.server.FixtureServer`
  on 127.0.0.1, stopped after the test. pagewarden reaches it only with
  ``ReaderConfig(unsafe_allow_destinations=(fixture_server.host_port,))``.
* ``no_pending_task_destroyed`` (autouse): asyncio's "Task was destroyed but
  it is pending!" report (a task somebody started and nobody awaited or
  cancelled) fails the test during which it was logged, and one logged later
  (at garbage collection or loop close) fails the session.
* Leftover processes: pytest makes itself the subreaper of everything it
  starts (:mod:`tests.support.leftovers`); a browser, driver, Ray worker or
  server still alive at session end (after a grace period) fails the run,
  and is killed.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Generator, Iterator

import pytest

from tests.support.leftovers import become_subreaper, kill, leftover_processes
from tests.support.server import FixtureServer
from tests.support.tripwire import SocketTripwire

# pytester runs inner pytest sessions (used to prove a swallowed trip still fails a test).
pytest_plugins = ("pytester",)

_PENDING_DESTROYED = "Task was destroyed but it is pending"


class _PendingTaskLog(logging.Handler):
    """Keeps asyncio's reports of tasks destroyed while still pending (bounded)."""

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.reports: list[str] = []
        self.seen = 0  # reports already charged to a test

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if _PENDING_DESTROYED in message and len(self.reports) < 1_000:
            self.reports.append(message[:300])


_PENDING_LOG = _PendingTaskLog()
logging.getLogger("asyncio").addHandler(_PENDING_LOG)


@pytest.fixture(autouse=True)
def no_pending_task_destroyed() -> Iterator[None]:
    """Fail the test if asyncio reported a task destroyed while pending during it (or since the last test)."""
    yield
    new = _PENDING_LOG.reports[_PENDING_LOG.seen :]
    _PENDING_LOG.seen = len(_PENDING_LOG.reports)
    if new:
        pytest.fail(f"{len(new)} asyncio task(s) destroyed while pending: {new[0]}", pytrace=False)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Keep every process the run starts a descendant of pytest (see :mod:`tests.support.leftovers`)."""
    become_subreaper()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run on a pending task destroyed after its test, or on a process the run left alive."""
    gc.collect()
    late = len(_PENDING_LOG.reports) - _PENDING_LOG.seen
    if late:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        print(f"\nasyncio: {late} task(s) destroyed while pending after their tests")
    left = leftover_processes()
    if left:
        kill([pid for pid, _name in left])
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        shown = ", ".join(f"{name} ({pid})" for pid, name in left[:10])
        print(f"\nleftover processes: {len(left)} still alive after the run (now killed): {shown}")


@pytest.fixture
def anyio_backend() -> str:
    """Run anyio tests on asyncio only."""
    return "asyncio"


@pytest.fixture(autouse=True)
def socket_tripwire() -> Iterator[SocketTripwire]:
    """Install the socket tripwire around every test (setup, call and teardown of later fixtures)."""
    wire = SocketTripwire()
    wire.install()
    try:
        yield wire
    finally:
        wire.uninstall()
    leftover = wire.take_violations()
    if leftover:
        pytest.fail("socket tripwire: " + "; ".join(leftover), pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    """Fail the test itself (not only its teardown) when it tripped the tripwire."""
    failed = False
    try:
        return (yield)
    except BaseException:
        failed = True
        raise
    finally:
        funcargs = getattr(item, "funcargs", {})
        wire = funcargs.get("socket_tripwire")
        if isinstance(wire, SocketTripwire) and not failed:
            violations = wire.take_violations()
            if violations:
                pytest.fail("socket tripwire: " + "; ".join(violations), pytrace=False)


@pytest.fixture
def fixture_server() -> Iterator[FixtureServer]:
    """A started loopback fixture server, stopped after the test."""
    server = FixtureServer().start()
    try:
        yield server
    finally:
        server.stop()
