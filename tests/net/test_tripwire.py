"""The socket tripwire itself: it trips on stray connects and lookups, and only allows the pinned path."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from pagewarden._config import ReaderConfig
from pagewarden._errors import PagewardenError
from pagewarden._net.pinned import PINNED_DIAL
from pagewarden._net.transport import fetch
from tests.support.server import FixtureServer
from tests.support.tripwire import SocketTripwire, TripwireTripped

REPO = Path(__file__).resolve().parents[2]


def test_raw_connect_to_the_fixture_server_trips(
    fixture_server: FixtureServer, socket_tripwire: SocketTripwire
) -> None:
    """A raw connect to 127.0.0.1:<port> outside the pinned path raises and is recorded."""
    sock = socket.socket()
    try:
        with pytest.raises(TripwireTripped):
            sock.connect(("127.0.0.1", fixture_server.port))
        with pytest.raises(TripwireTripped):
            sock.connect_ex(("127.0.0.1", fixture_server.port))
    finally:
        sock.close()
    with pytest.raises(TripwireTripped):
        socket.create_connection(("127.0.0.1", fixture_server.port), timeout=1)
    assert socket_tripwire.take_violations() == [f"connect to 127.0.0.1:{fixture_server.port}"] * 3
    assert fixture_server.requests == []


def test_dns_lookups_of_names_trip(socket_tripwire: SocketTripwire) -> None:
    """getaddrinfo/gethostbyname of a real name trips; literals and localhost do not."""
    with pytest.raises(TripwireTripped):
        socket.getaddrinfo("example.com", 443)
    with pytest.raises(TripwireTripped):
        socket.gethostbyname("example.com")
    with pytest.raises(TripwireTripped):
        socket.create_connection(("example.com", 80))
    assert len(socket_tripwire.take_violations()) == 3
    socket.getaddrinfo("127.0.0.1", 80)
    socket.getaddrinfo("localhost", 80)


def test_pinned_context_must_match_the_exact_address(
    fixture_server: FixtureServer, socket_tripwire: SocketTripwire
) -> None:
    """A pinned-dial marker for another port does not let a connect through."""
    token = PINNED_DIAL.set(("127.0.0.1", fixture_server.port + 1))
    sock = socket.socket()
    try:
        with pytest.raises(TripwireTripped):
            sock.connect(("127.0.0.1", fixture_server.port))
    finally:
        PINNED_DIAL.reset(token)
        sock.close()
    assert socket_tripwire.take_violations()


def test_explicit_allowance_lets_a_helper_connect(
    fixture_server: FixtureServer, socket_tripwire: SocketTripwire
) -> None:
    """SocketTripwire.allow(host, port) is the documented way for a raw helper connect."""
    with socket_tripwire.allow("127.0.0.1", fixture_server.port):
        socket.create_connection(("127.0.0.1", fixture_server.port), timeout=2).close()
    assert socket_tripwire.take_violations() == []


@pytest.mark.anyio
async def test_even_the_pinned_path_cannot_reach_the_internet(socket_tripwire: SocketTripwire) -> None:
    """An allowed non-loopback destination still trips: tests never leave the machine."""
    config = ReaderConfig(unsafe_allow_destinations=("192.0.2.0/24",), timeout=2)
    with pytest.raises((PagewardenError, TripwireTripped, ExceptionGroup)):
        await fetch("http://192.0.2.1/", config)
    assert any("non-loopback 192.0.2.1:80" in v for v in socket_tripwire.take_violations())


def test_a_swallowed_trip_still_fails_the_test(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """Code that catches the tripwire's exception cannot hide it: the test fails anyway."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    pytester.makeconftest("from tests.conftest import *  # noqa: F403\n")
    pytester.makepyfile(
        test_inner="""
import socket

def test_swallows():
    try:
        socket.create_connection(("127.0.0.1", 9), timeout=1)
    except BaseException:
        pass
"""
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*socket tripwire: connect to 127.0.0.1:9*"])
