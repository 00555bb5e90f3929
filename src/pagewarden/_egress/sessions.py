"""Per-context credentials of the pinning proxy, with their own refusal ledger.

Each browser context gets a :class:`ProxySession` from
:meth:`PinningProxy.new_session <pagewarden._egress.server.PinningProxy.new_session>`:
a random user name and password (Playwright passes them per context with
``browser.new_context(proxy=session.proxy_settings())``; Chromium keeps a
proxy-auth cache per context, so the credentials never cross contexts), an
optional deadline, and a ledger holding only this context's refusals, so a
read can report exactly what *its* page tried. Closing the session revokes
the credentials and cuts the session's connections.

A session's owner may also listen to its faults as they happen
(:attr:`ProxySession.on_fault`, a :class:`ProxyFault` per refusal or cut
connection): the renderer uses it to end a read the moment the proxy has
refused or cut its main document, with the fault's own reason, instead of
waiting for the browser to give up.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import secrets
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from .chromium import LOOPBACK_BYPASS
from .http1 import header_values
from .ledger import Refusal, RefusalLedger

if TYPE_CHECKING:
    from playwright.async_api import ProxySettings

__all__ = ["ProxyFault", "ProxySession", "SessionIssuer", "authenticate"]


@dataclass(frozen=True, slots=True)
class ProxyFault:
    """A refusal or cut of one of a session's requests, as its listener sees it.

    Attributes:
        refusal: the ledger line (kind, host, port, reason, status).
        url: the canonical URL of a plain ``http`` request (``None`` for
            tunnels, whose paths the proxy cannot see, and unparsed requests).
        error: the proxy's own error when one was raised (``None`` for a
            connection cut after its response had started).
    """

    refusal: Refusal
    url: str | None = None
    error: Exception | None = None


class SessionIssuer(Protocol):
    """What a session needs from the proxy that issued it (a :class:`~.server.PinningProxy`).

    A protocol rather than an import, so the proxy depends on its sessions and
    never the other way round.
    """

    @property
    def server(self) -> str:
        """The proxy URL Chromium is given (no credentials in it)."""
        ...

    def release(self, session: ProxySession) -> None:
        """Stop accepting ``session``'s credentials and cut its live connections."""
        ...


class ProxySession:
    """Credentials, deadline, ledger and counters of one browser context.

    Attributes:
        username: random, ``pw-`` followed by 16 hex digits.
        password: random (24 bytes, URL-safe base64); never in ``repr``.
        ledger: this session's refusals.
        deadline: ``anyio.current_time()`` value after which its connections
            are cut, or ``None``.
        requests_forwarded, bytes_up, bytes_down: traffic that was allowed.
        closed: the credentials no longer work.
        on_fault: called with each :class:`ProxyFault` of this session (set by its owner).
    """

    def __init__(self, proxy: SessionIssuer, ledger: RefusalLedger, deadline: float | None) -> None:
        self.username = "pw-" + secrets.token_hex(8)
        self.password = secrets.token_urlsafe(24)
        self.ledger = ledger
        self.deadline = deadline
        self.requests_forwarded = 0
        self.bytes_up = 0
        self.bytes_down = 0
        self.closed = False
        self.on_fault: Callable[[ProxyFault], None] | None = None
        self._proxy = proxy

    def __repr__(self) -> str:
        return f"ProxySession(username={self.username!r}, closed={self.closed}, refused={self.ledger.total})"

    def proxy_settings(self) -> ProxySettings:
        """The Playwright ``proxy=`` mapping for ``browser.new_context`` (server, bypass, credentials)."""
        settings: ProxySettings = {
            "server": self._proxy.server,
            "bypass": LOOPBACK_BYPASS,
            "username": self.username,
            "password": self.password,
        }
        return settings

    def note(self, bytes_up: int, bytes_down: int) -> None:
        """Count one forwarded request or tunnel (called by the proxy)."""
        self.requests_forwarded += 1
        self.bytes_up += bytes_up
        self.bytes_down += bytes_down

    def revoke(self) -> None:
        """Make the credentials stop working and cut this session's live connections (idempotent)."""
        if not self.closed:
            self.closed = True
            self._proxy.release(self)

    async def aclose(self) -> None:
        """Async spelling of :meth:`revoke`, for ``async with`` style owners."""
        self.revoke()

    async def __aenter__(self) -> ProxySession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.revoke()


def authenticate(
    headers: Iterable[tuple[bytes, bytes]], sessions: Mapping[str, ProxySession], decoy: str
) -> ProxySession | Literal["invalid"] | None:
    """The session whose ``Proxy-Authorization: Basic`` credentials ``headers`` carry.

    Returns ``None`` when there is no such header (Chromium's first try,
    answered with a 407 challenge) and ``"invalid"`` for anything else that
    does not name an open session with its password. Passwords are compared
    in constant time, against ``decoy`` for an unknown user name so the time
    taken does not reveal which names exist.
    """
    values = header_values(headers, b"proxy-authorization")
    if not values:
        return None
    scheme, _, token = values[0].strip().partition(b" ")
    if len(values) != 1 or scheme.lower() != b"basic":
        return "invalid"
    try:
        decoded = base64.b64decode(token.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return "invalid"
    username, _, password = decoded.partition(":")
    session = sessions.get(username)
    expected = session.password if session is not None else decoy
    matches = hmac.compare_digest(password.encode("utf-8"), expected.encode("utf-8"))
    if session is None or not matches or session.closed:
        return "invalid"
    return session
