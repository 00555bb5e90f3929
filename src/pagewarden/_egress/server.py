"""The DNS-pinning egress proxy every Chromium connection must go through.

Routing (``context.route``) does not see redirect hops, worker WebSockets,
service-worker fetches or Chromium's own traffic; a forced proxy sees them
all. :class:`PinningProxy` listens on ``127.0.0.1`` (ephemeral port) and for
every request:

1. reads a bounded request head (h11; 100 headers, 64 KiB);
2. checks the per-launch or per-session credentials
   (``Proxy-Authorization: Basic``, constant-time comparison; 407 with
   ``Proxy-Authenticate`` otherwise). Chromium sends credentials only after a
   407; Playwright answers that challenge itself (CDP ``Fetch.authRequired``)
   with the ``username``/``password`` of the ``proxy=`` setting;
3. refuses Chromium's background hosts, then applies the static path's
   intake, sensitive-query check, single resolution and address deny table
   (:mod:`.policy`): 403 on a policy refusal, 405 for methods other
   than GET/HEAD, 400 for a request body or a malformed request;
4. dials only a validated address through the static path's
   :class:`~pagewarden._net.pinned.PinnedBackend` (nothing resolves twice, so
   DNS rebinding cannot move the connection); failures answer 502;
5. tunnels (CONNECT, port 443) or forwards (absolute-form ``http://``, port
   80) with the caps and timeouts of :mod:`.relay`.

Every refusal, and every connection cut after its response started (a cap;
for plain requests also a truncated or stalled body: status 0), lands in a bounded
:class:`~.ledger.RefusalLedger`: the proxy's own, and the session's when the
request carried a session's credentials (:meth:`PinningProxy.new_session`,
one per browser context), whose owner also hears of it at once
(:attr:`~.sessions.ProxySession.on_fault`). The proxy never logs or echoes
header values or bodies.

Lifecycle: ``async with PinningProxy(config) as proxy`` or, for an owner with
a long-lived task group, ``await group.start(proxy.serve)`` and later
``await proxy.aclose()`` from any task. Closing cancels every connection;
no task outlives :meth:`aclose`. See ``docs/egress.md`` for the Chromium
launch settings that go with it (:mod:`.chromium`, :mod:`.attach`).
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Collection
from types import TracebackType
from typing import Final, Literal

import anyio
import anyio.abc
import h11
import httpcore
from anyio.abc import SocketAttribute

from .._config import ReaderConfig
from .._errors import ConfigMissing, InvalidInput, PagewardenError, RateLimited, ResponseTooLarge, Timeout, UpstreamHTTP
from .._net.urls import Target
from .chromium import LISTEN_HOST
from .gate import ParsedRequest, check_request, dial, parse_request, status_for
from .http1 import check_header_bounds, read_request_head, refusal_reply
from .ledger import LEDGER_SIZE, RefusalLedger, RequestKind
from .policy import DEFAULT_BACKGROUND_HOSTS, check_refused_host_patterns, is_refused_host
from .relay import RelayLimits, RelayStats, forward_http, run_tunnel
from .sessions import ProxyFault, ProxySession, authenticate

__all__ = ["DEFAULT_BACKGROUND_HOSTS", "PinningProxy", "ProxySession"]

MAX_SESSIONS: Final = 1_024
# A browser sends its request head at once; a socket silent this long is an
# idle pre-connection and is closed without an answer.
_HEAD_TIMEOUT: Final = 10.0
_GONE: Final = (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream, OSError, TimeoutError)


class PinningProxy:
    """A loopback HTTP proxy that applies pagewarden's address policy to every browser connection.

    Args:
        config: the reader's config: resolver, ``unsafe_allow_destinations``,
            sensitive-query switch and header limits are the static path's.
        refused_hosts: host patterns (``host``, ``*.suffix``, ``*-suffix``)
            answered 403 before any lookup; Chromium's background hosts by default.
        max_connections: connections served at once; as many more may wait
            for a slot (up to ``connect_timeout``), beyond that 503.
        max_download_bytes: bytes one connection may read from upstream
            (the policy's per-page byte budget; 5 MB by default).
        max_upload_bytes: bytes one tunnel may send upstream.
        connect_timeout: seconds for resolving and connecting (default
            ``config.timeout``), shortened to a session's time left.
        idle_timeout: seconds without traffic before a connection is closed
            (default ``config.timeout``).
        ledger_size: refusals kept in each ledger.

    Attributes (once started): ``port``, ``server`` (``http://127.0.0.1:PORT``),
    ``username`` / ``password`` (the launch-level credentials), ``ledger``
    (every refusal), ``challenges`` (407s sent to requests without
    credentials: the normal first step of Chromium's proxy auth, not a
    refusal) and ``requests_forwarded``.
    """

    def __init__(
        self,
        config: ReaderConfig,
        *,
        refused_hosts: Collection[str] = DEFAULT_BACKGROUND_HOSTS,
        max_connections: int = 64,
        max_download_bytes: int = 5_000_000,
        max_upload_bytes: int = 512 * 1024,
        connect_timeout: float | None = None,
        idle_timeout: float | None = None,
        ledger_size: int = LEDGER_SIZE,
    ) -> None:
        if not isinstance(config, ReaderConfig):
            raise InvalidInput("config must be a pagewarden.ReaderConfig", reason="invalid_config")
        for name, value, low in (
            ("max_connections", max_connections, 1),
            ("max_download_bytes", max_download_bytes, 1_024),
            ("max_upload_bytes", max_upload_bytes, 1_024),
            ("ledger_size", ledger_size, 1),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise InvalidInput(f"{name} must be an integer >= {low}", reason=f"invalid_{name}")
        self._config = config
        self._refused_hosts = check_refused_host_patterns(refused_hosts)
        self._connect_timeout = _seconds("connect_timeout", connect_timeout, config.timeout)
        self._limits = RelayLimits(
            max_download_bytes=max_download_bytes,
            max_upload_bytes=max_upload_bytes,
            idle_timeout=_seconds("idle_timeout", idle_timeout, config.timeout),
            max_header_count=config.limits.max_header_count,
            max_header_bytes=config.limits.max_header_bytes,
            max_header_value_bytes=min(16_384, config.limits.max_header_bytes),
        )
        self._ledger_size = ledger_size
        self.ledger = RefusalLedger(ledger_size)
        self.challenges = 0
        self.requests_forwarded = 0
        self._decoy = secrets.token_urlsafe(24)
        self._main = ProxySession(self, RefusalLedger(ledger_size), None)
        self._sessions: dict[str, ProxySession] = {self._main.username: self._main}
        self._slots = anyio.Semaphore(max_connections)
        self._max_waiting = max_connections
        self._waiting = 0
        self._live: dict[anyio.CancelScope, ProxySession | None] = {}
        self._port = 0
        self._state: Literal["new", "serving", "closed"] = "new"
        self._scope: anyio.CancelScope | None = None
        self._stopped = anyio.Event()
        self._group: anyio.abc.TaskGroup | None = None

    # -- public surface ------------------------------------------------------------
    @property
    def port(self) -> int:
        """The listening port (``0`` before the proxy started)."""
        return self._port

    @property
    def server(self) -> str:
        """``http://127.0.0.1:PORT``: the value of Playwright's ``proxy={"server": ...}``."""
        if not self._port:
            raise ConfigMissing("the proxy is not running", reason="proxy_not_running", stage="browser")
        return f"http://{LISTEN_HOST}:{self._port}"

    @property
    def username(self) -> str:
        """The launch-level user name (random per proxy)."""
        return self._main.username

    @property
    def password(self) -> str:
        """The launch-level password (random per proxy; never logged)."""
        return self._main.password

    @property
    def active_connections(self) -> int:
        """Connections being served right now."""
        return len(self._live)

    def new_session(self, *, deadline: float | None = None) -> ProxySession:
        """Fresh credentials and a ledger for one browser context.

        ``deadline`` is in ``anyio.current_time()`` terms (for example the
        read's ``anyio.current_effective_deadline()``): connections of this
        session get at most the time left and are cut when it passes.

        Raises:
            RateLimited: ``MAX_SESSIONS`` sessions are open (close finished ones).
            ConfigMissing: the proxy is closed.
        """
        if self._state == "closed":
            raise ConfigMissing("the proxy is closed", reason="proxy_closed", stage="browser")
        if len(self._sessions) > MAX_SESSIONS:
            raise RateLimited("too many open proxy sessions", reason="proxy_sessions_exhausted", stage="browser")
        if deadline is not None and (isinstance(deadline, bool) or not isinstance(deadline, int | float)):
            raise InvalidInput("deadline must be a number", reason="invalid_deadline")
        session = ProxySession(self, RefusalLedger(self._ledger_size), deadline)
        self._sessions[session.username] = session
        return session

    async def __aenter__(self) -> PinningProxy:
        group = anyio.create_task_group()
        await group.__aenter__()
        try:
            await group.start(self.serve)
        except BaseException as exc:
            group.cancel_scope.cancel()
            await group.__aexit__(type(exc), exc, exc.__traceback__)
            raise
        self._group = group
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
        if self._group is not None:
            group, self._group = self._group, None
            await group.__aexit__(exc_type, exc, tb)

    async def aclose(self) -> None:
        """Stop listening, cut every connection and wait until nothing is left running (idempotent)."""
        started = self._state != "new"
        self._state = "closed"
        for session in list(self._sessions.values()):
            session.revoke()
        if started:
            if self._scope is not None:
                self._scope.cancel()
            await self._stopped.wait()

    async def serve(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Listen and serve until :meth:`aclose` or cancellation (for ``TaskGroup.start``)."""
        if self._state != "new":
            raise ConfigMissing("a proxy serves only once", reason="proxy_closed", stage="browser")
        self._state = "serving"
        try:
            with anyio.CancelScope() as scope:
                self._scope = scope
                listener = await anyio.create_tcp_listener(local_host=LISTEN_HOST, local_port=0)
                async with listener:
                    self._port = int(listener.extra(SocketAttribute.local_port))  # noqa: S610 (anyio, not Django)
                    async with anyio.create_task_group() as group:
                        task_status.started()
                        await listener.serve(self._handle, task_group=group)
        finally:
            self._state = "closed"
            for session in list(self._sessions.values()):
                session.revoke()
            self._stopped.set()

    # -- bookkeeping used by ProxySession ---------------------------------------------
    def release(self, session: ProxySession) -> None:
        """Forget ``session`` and cut its live connections (called by :meth:`ProxySession.revoke`)."""
        if session is not self._main:
            self._sessions.pop(session.username, None)
        for scope, owner in list(self._live.items()):
            if owner is session:
                scope.cancel()

    def _refuse(
        self,
        session: ProxySession | None,
        kind: RequestKind,
        host: str | None,
        port: int | None,
        reason: str,
        status: int,
        *,
        url: str | None = None,
        error: Exception | None = None,
    ) -> None:
        self.ledger.record(kind, host, port, reason, status)
        if session is not None:
            refusal = session.ledger.record(kind, host, port, reason, status)
            if session.on_fault is not None:
                session.on_fault(ProxyFault(refusal, url, error))

    # -- one connection --------------------------------------------------------------
    async def _handle(self, client: anyio.abc.SocketStream) -> None:
        async with client:
            acquired = False
            if self._waiting < self._max_waiting:
                self._waiting += 1
                try:
                    with anyio.move_on_after(self._connect_timeout):
                        await self._slots.acquire()
                        acquired = True
                finally:
                    self._waiting -= 1
            if not acquired:
                self._refuse(None, "unknown", None, None, "proxy_busy", 503)
                await _reply(client, 503)
                return
            scope = anyio.CancelScope()
            self._live[scope] = None
            try:
                with scope:
                    await self._serve_connection(client, scope)
            except _GONE:
                pass  # the browser went away or stopped reading
            except Exception:
                # A bug or an unforeseen protocol corner in one connection must
                # not take the listener (and every other read) down with it.
                # Fail closed: record it and drop this connection only.
                self._refuse(self._live.get(scope), "unknown", None, None, "proxy_internal_error", 0)
            finally:
                self._live.pop(scope, None)
                self._slots.release()

    async def _serve_connection(self, client: anyio.abc.SocketStream, scope: anyio.CancelScope) -> None:
        server = h11.Connection(h11.SERVER, max_incomplete_event_size=self._limits.max_header_bytes)
        request: h11.Request | None = None
        with anyio.move_on_after(min(_HEAD_TIMEOUT, self._limits.idle_timeout)):
            try:
                request = await read_request_head(client, server)
                check_header_bounds(
                    request.headers if request is not None else [],
                    max_count=self._limits.max_header_count,
                    max_total=self._limits.max_header_bytes,
                    max_value=self._limits.max_header_value_bytes,
                    reason="request_headers_too_large",
                )
            except PagewardenError as exc:
                await self._answer(client, None, "unknown", None, None, exc)
                return
        if request is None:
            return  # an idle pre-connected socket, or the browser gave up
        parsed = parse_request(request, self._config)
        session = authenticate(request.headers, self._sessions, self._decoy)
        if session is None or session == "invalid":
            await self._challenge(client, parsed, invalid=session == "invalid")
            return
        self._live[scope] = session
        if session.deadline is not None:
            if session.deadline <= anyio.current_time():
                late = Timeout("the session's deadline has passed", reason="deadline_passed", stage="proxy")
                await self._answer(client, session, parsed.kind, parsed.host, parsed.port, late)
                return
            scope.deadline = min(scope.deadline, session.deadline)
        url = parsed.target.url if parsed.kind == "http" and parsed.target is not None else None
        try:
            target = check_request(parsed, request, self._refused_hosts)
            left = self._connect_timeout
            if session.deadline is not None:
                left = min(left, session.deadline - anyio.current_time())
            upstream = await dial(target, parsed.kind, self._config, timeout=left, proxy_port=self._port)
        except PagewardenError as exc:
            await self._answer(client, session, parsed.kind, parsed.host, parsed.port, exc, url)
            return
        try:
            stats = await self._relay(client, server, request, target, parsed, upstream, session, url)
        finally:
            with anyio.CancelScope(shield=True):
                await upstream.aclose()
        if stats is not None:
            self.requests_forwarded += 1
            session.note(stats.bytes_up, stats.bytes_down)
            # Cut after the response started: status 0. A plain request's cut is a fault of that response
            # (a cap, a truncated or stalled body); an idle tunnel is only a connection nobody used.
            if stats.cut in ("download_cap", "upload_cap") or (parsed.kind == "http" and stats.cut is not None):
                self._refuse(session, parsed.kind, parsed.host, parsed.port, stats.cut, 0, url=url)

    async def _challenge(self, client: anyio.abc.SocketStream, parsed: ParsedRequest, *, invalid: bool) -> None:
        """Answer a request without valid credentials."""
        if invalid:
            # Wrong credentials are worth a ledger line; a missing header is
            # only the first half of Chromium's challenge-response.
            self._refuse(None, parsed.kind, parsed.host, parsed.port, "proxy_auth_failed", 407)
            status = 407
        elif parsed.target is not None and is_refused_host(parsed.target.host, self._refused_hosts):
            # Chromium's own traffic carries no credentials; name it rather
            # than challenging it, so "doctor" can show it was refused.
            self._refuse(None, parsed.kind, parsed.host, parsed.port, "background_host", 403)
            status = 403
        else:
            self.challenges += 1
            status = 407
        await _reply(client, status)

    async def _answer(
        self,
        client: anyio.abc.SocketStream,
        session: ProxySession | None,
        kind: RequestKind,
        host: str | None,
        port: int | None,
        exc: PagewardenError,
        url: str | None = None,
    ) -> None:
        status = status_for(exc)
        self._refuse(session, kind, host, port, exc.reason or "refused", status, url=url, error=exc)
        await _reply(client, status)

    async def _relay(
        self,
        client: anyio.abc.SocketStream,
        server: h11.Connection,
        request: h11.Request,
        target: Target,
        parsed: ParsedRequest,
        upstream: httpcore.AsyncNetworkStream,
        session: ProxySession,
        url: str | None,
    ) -> RelayStats | None:
        if parsed.kind == "connect":
            await client.send(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            initial, _closed = server.trailing_data
            return await run_tunnel(client, upstream, bytes(initial), self._limits)
        try:
            return await forward_http(client, server, request, target, upstream, self._limits)
        except (UpstreamHTTP, ResponseTooLarge) as exc:
            await self._answer(client, session, parsed.kind, parsed.host, parsed.port, exc, url)
            return None


async def _reply(client: anyio.abc.SocketStream, status: int) -> None:
    with anyio.move_on_after(5.0):
        await client.send(refusal_reply(status))


def _seconds(name: str, value: float | None, default: float) -> float:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
        raise InvalidInput(f"{name} must be a positive number of seconds", reason=f"invalid_{name}")
    return float(value)
