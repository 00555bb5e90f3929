"""The pinning proxy's bookkeeping: ledgers, sessions, concurrency, shutdown, launch settings."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import anyio
import pytest

from pagewarden._egress import PinningProxy
from pagewarden._egress import server as proxy_module
from pagewarden._egress.attach import LOOPBACK_OPT_OUT_ENV, context_proxy, launch_args
from pagewarden._egress.chromium import EGRESS_ARGS
from pagewarden._egress.ledger import RefusalLedger, safe_host
from pagewarden._egress.policy import DEFAULT_BACKGROUND_HOSTS, is_refused_host
from pagewarden._egress.relay import forward_http as real_forward_http
from pagewarden._errors import ConfigMissing, InvalidInput
from tests.egress.proxy_support import (
    auth_line,
    config_for,
    connect_bytes,
    exchange,
    request_bytes,
    running_proxy,
    status_of,
)
from tests.support.server import FixtureServer
from tests.support.tripwire import SocketTripwire

HTML = {"Content-Type": "text/html"}

SAFE_HOSTS = [
    ("Example.COM", "example.com"),
    ("[::1]", "::1"),
    (None, "<none>"),
    ("", "<none>"),
    ("evil host\r\nX-Injected: 1", "<invalid>"),
    ("exa/mple.com", "<invalid>"),
    ("a" * 300, "<invalid>"),
    ("b" * 200, "b" * 119 + "…"),
]

# (host, refused by the default background table?)
BACKGROUND_CASES = [
    ("update.googleapis.com", True),
    ("optimizationguide-pa.googleapis.com", True),
    ("chromereporting-pa.googleapis.com", True),
    ("safebrowsing.googleapis.com", True),
    ("redirector.gvt1.com", True),
    ("r1---sn-4g5e6nzz.gvt1.com", True),
    ("clients2.google.com", True),
    ("accounts.google.com", True),
    ("UPDATE.googleapis.com.", True),
    # Hosts real pages depend on stay reachable.
    ("ajax.googleapis.com", False),
    ("fonts.googleapis.com", False),
    ("www.google.com", False),
    ("www.gstatic.com", False),
    ("notgvt1.com", False),
    ("example.com", False),
]

BAD_OPTIONS: list[dict[str, object]] = [
    {"max_connections": 0},
    {"max_download_bytes": 10},
    {"max_upload_bytes": True},
    {"connect_timeout": 0},
    {"idle_timeout": float("nan")},
    {"ledger_size": 0},
    {"refused_hosts": "update.googleapis.com"},
    {"refused_hosts": ["bad host!"]},
]


@pytest.mark.parametrize(("host", "expected"), SAFE_HOSTS)
def test_safe_host(host: str | None, expected: str) -> None:
    """Ledger hosts are lowercased and bounded; anything not shaped like a host is never echoed."""
    assert safe_host(host) == expected


@pytest.mark.parametrize(("host", "refused"), BACKGROUND_CASES)
def test_background_host_table(host: str, refused: bool) -> None:
    """Chromium's own service hosts are refused; the Google hosts ordinary pages load from are not."""
    assert is_refused_host(host, DEFAULT_BACKGROUND_HOSTS) is refused


def test_ledger_keeps_the_last_entries_and_exact_counts() -> None:
    """The ledger keeps the newest N entries while its counters count every refusal."""
    ledger = RefusalLedger(size=3)
    for index in range(5):
        ledger.record("connect", f"h{index}.example", 443, "background_host" if index % 2 else "address_loopback", 403)
    assert len(ledger) == 3
    assert [entry.host for entry in ledger] == ["h2.example", "h3.example", "h4.example"]
    assert ledger.total == 5
    assert ledger.by_reason == {"address_loopback": 3, "background_host": 2}
    assert ledger.describe() == "the proxy refused 5 requests (address_loopback: 3, background_host: 2)"
    assert ledger.to_dict()["total"] == 5
    assert RefusalLedger().describe() == "the proxy refused no requests"


@pytest.mark.parametrize(
    "options", BAD_OPTIONS, ids=[next(iter(o)) + "=" + repr(next(iter(o.values()))) for o in BAD_OPTIONS]
)
def test_invalid_options_are_refused(options: dict[str, object]) -> None:
    """Out-of-range limits and malformed refused-host tables are INVALID_INPUT at construction."""
    with pytest.raises(InvalidInput):
        PinningProxy(config_for(), **options)  # type: ignore[arg-type]


@pytest.mark.anyio
async def test_proxy_ledger_is_bounded(socket_tripwire: SocketTripwire) -> None:
    """Many refusals keep only ledger_size entries while the total stays exact."""
    async with running_proxy(config_for(), socket_tripwire, ledger_size=4) as proxy:
        for _ in range(10):
            await exchange(proxy.port, request_bytes("GET", "http://10.0.0.1/", auth_line(proxy)))
        assert len(proxy.ledger) == 4
        assert proxy.ledger.total == 10
        assert proxy.ledger.by_reason == {"address_private_10": 10}


@pytest.mark.anyio
async def test_refusals_are_attributed_to_the_session(socket_tripwire: SocketTripwire) -> None:
    """A refusal under a session's credentials lands in that session's ledger and the proxy's, not others'."""
    async with running_proxy(config_for(), socket_tripwire) as proxy:
        first, second = proxy.new_session(), proxy.new_session()
        assert first.username != second.username and first.password != second.password
        reply = await exchange(proxy.port, request_bytes("GET", "http://169.254.169.254/", auth_line(first)))
        assert status_of(reply) == 403
        assert first.ledger.by_reason == {"address_cloud_metadata": 1}
        assert second.ledger.total == 0
        assert proxy.ledger.total == 1
        assert first.password not in repr(first)


@pytest.mark.anyio
async def test_revoking_a_session_cuts_its_live_tunnels(
    socket_tripwire: SocketTripwire, fixture_server: FixtureServer
) -> None:
    """Closing a session ends its open tunnels at once, long before any timeout."""
    async with running_proxy(config_for(fixture_server), socket_tripwire, idle_timeout=30) as proxy:
        session = proxy.new_session()
        connect = connect_bytes(fixture_server.host_port, auth_line(session))
        async with anyio.create_task_group() as group:
            replies: list[bytes] = []

            async def run() -> None:
                replies.append(await exchange(proxy.port, connect))

            group.start_soon(run)
            await _wait_for(lambda: proxy.requests_forwarded == 0 and proxy.active_connections == 1)
            await anyio.sleep(0.1)
            started = time.monotonic()
            await session.aclose()
        assert time.monotonic() - started < 2.0
        assert replies == [b"HTTP/1.1 200 Connection Established\r\n\r\n"]
        assert proxy.active_connections == 0


@pytest.mark.anyio
async def test_session_deadline_cuts_connections(
    socket_tripwire: SocketTripwire, fixture_server: FixtureServer
) -> None:
    """A session's deadline ends its tunnels even when they would not idle out yet."""
    async with running_proxy(config_for(fixture_server), socket_tripwire, idle_timeout=30) as proxy:
        session = proxy.new_session(deadline=anyio.current_time() + 0.4)
        connect = connect_bytes(fixture_server.host_port, auth_line(session))
        started = time.monotonic()
        reply = await exchange(proxy.port, connect)
        assert 0.3 <= time.monotonic() - started < 3.0
        assert reply == b"HTTP/1.1 200 Connection Established\r\n\r\n"
        late = await exchange(proxy.port, connect)
        assert status_of(late) == 502
        assert session.ledger.by_reason == {"deadline_passed": 1}


@pytest.mark.anyio
async def test_concurrency_is_bounded(socket_tripwire: SocketTripwire) -> None:
    """Beyond max_connections a connection waits for a slot, then gets 503 proxy_busy."""
    async with running_proxy(config_for(), socket_tripwire, max_connections=2, connect_timeout=0.3) as proxy:
        holders = [await anyio.connect_tcp("127.0.0.1", proxy.port) for _ in range(2)]
        try:
            await _wait_for(lambda: proxy.active_connections == 2)
            reply = await exchange(proxy.port, request_bytes("GET", "http://10.0.0.1/", auth_line(proxy)))
            assert status_of(reply) == 503
            assert proxy.ledger.by_reason == {"proxy_busy": 1}
        finally:
            for holder in holders:
                await holder.aclose()
        await _wait_for(lambda: proxy.active_connections == 0)
        reply = await exchange(proxy.port, request_bytes("GET", "http://10.0.0.1/", auth_line(proxy)))
        assert status_of(reply) == 403


@pytest.mark.anyio
async def test_aclose_leaves_nothing_running(socket_tripwire: SocketTripwire, fixture_server: FixtureServer) -> None:
    """aclose cuts live tunnels and idle sockets, stops listening and leaves no task behind."""
    before = len(asyncio.all_tasks())
    proxy = PinningProxy(config_for(fixture_server), idle_timeout=30)
    async with anyio.create_task_group() as owner:
        await owner.start(proxy.serve)
        with socket_tripwire.allow("127.0.0.1", proxy.port):
            idle = await anyio.connect_tcp("127.0.0.1", proxy.port)
            tunnel = await anyio.connect_tcp("127.0.0.1", proxy.port)
            connect = connect_bytes(fixture_server.host_port, auth_line(proxy))
            await tunnel.send(connect)
            assert (await tunnel.receive()).startswith(b"HTTP/1.1 200")
            assert proxy.active_connections == 2

            async def close_elsewhere() -> None:
                await proxy.aclose()  # from another task than the one serving

            owner.start_soon(close_elsewhere)
        # The serve task ends by itself once closed; the task group just waits.
    with socket_tripwire.allow("127.0.0.1", proxy.port):
        for stream in (idle, tunnel):
            with anyio.fail_after(2):
                with pytest.raises((anyio.EndOfStream, anyio.BrokenResourceError)):
                    await stream.receive()
            await stream.aclose()
        with pytest.raises(OSError, match="connection attempts failed"):
            await anyio.connect_tcp("127.0.0.1", proxy.port)
    assert proxy.active_connections == 0
    assert len(asyncio.all_tasks()) == before
    await proxy.aclose()  # idempotent
    with pytest.raises(ConfigMissing):
        proxy.new_session()


@pytest.mark.anyio
async def test_launch_settings(socket_tripwire: SocketTripwire) -> None:
    """launch_args carries the proxy, the <-loopback> bypass, its credentials and every egress flag, once each."""
    async with running_proxy(config_for(), socket_tripwire) as proxy:
        settings = launch_args(proxy, environ={})
        session = proxy.new_session()
        per_context = context_proxy(session)
    assert settings["proxy"] == {
        "server": f"http://127.0.0.1:{proxy.port}",
        "bypass": "<-loopback>",
        "username": proxy.username,
        "password": proxy.password,
    }
    assert settings["args"] == list(EGRESS_ARGS)
    assert "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1" in settings["args"]
    assert "--webrtc-ip-handling-policy=disable_non_proxied_udp" in settings["args"]
    assert "--force-webrtc-ip-handling-policy=disable_non_proxied_udp" in settings["args"]
    assert {"--disable-quic", "--dns-prefetch-disable"} <= set(settings["args"])
    assert not any(
        arg.startswith(("--disable-features", "--proxy-bypass-list", "--no-sandbox")) for arg in settings["args"]
    )
    assert per_context == {**settings["proxy"], "username": session.username, "password": session.password}


@pytest.mark.anyio
async def test_launch_refused_when_loopback_opt_out_is_set(socket_tripwire: SocketTripwire) -> None:
    """With Playwright's loopback opt-out variable set, launch_args refuses with CONFIG_MISSING."""
    async with running_proxy(config_for(), socket_tripwire) as proxy:
        with pytest.raises(ConfigMissing) as caught:
            launch_args(proxy, environ={LOOPBACK_OPT_OUT_ENV: "1"})
    assert caught.value.reason == "proxied_loopback_disabled"


async def _wait_for(condition: object, timeout: float = 3.0) -> None:
    with anyio.fail_after(timeout):
        # Polling is right here: the condition belongs to the proxy, which has no event for it.
        while not condition():  # type: ignore[operator]  # noqa: ASYNC110
            await anyio.sleep(0.01)


@pytest.mark.anyio
async def test_a_failing_connection_does_not_stop_the_proxy(
    socket_tripwire: SocketTripwire, fixture_server: FixtureServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unexpected error in one connection drops only that connection and is recorded; the next request works."""
    fixture_server.add("/a", headers=HTML, body=b"<p>ok</p>")
    calls = 0
    real = real_forward_http

    async def flaky(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("simulated bug")
        return await real(*args, **kwargs)

    monkeypatch.setattr(proxy_module, "forward_http", flaky)
    async with running_proxy(config_for(fixture_server), socket_tripwire) as proxy:
        broken = await exchange(proxy.port, request_bytes("GET", fixture_server.url("/a"), auth_line(proxy)))
        working = await exchange(proxy.port, request_bytes("GET", fixture_server.url("/a"), auth_line(proxy)))
        assert proxy.ledger.by_reason == {"proxy_internal_error": 1}
    assert broken == b""
    assert status_of(working) == 200
