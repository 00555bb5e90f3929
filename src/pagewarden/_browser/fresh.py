"""Fresh browser contexts for reads, made ready ahead of time and used exactly once.

Opening a context is the slowest part of a short read: the context itself,
the init script, the routes, a page (Chromium starts a renderer process for
it) and a CDP session with network events. :class:`FreshContext` does all of
that *before* a read needs it, so the pool can keep one ready
(``BrowserPool(prewarm=True)``) while other reads run.

What makes this safe is that nothing is shared: a fresh context is
non-persistent, gets its own proxy credentials (a new
:class:`~pagewarden._egress.ProxySession`) and is attached to exactly one read
(:meth:`FreshContext.attach` refuses a second), then closed with its
credentials revoked. Until a read is attached the context has only
``about:blank``; should anything still try to load, every routed request is
aborted, WebSockets are closed, dialogs dismissed, downloads cancelled and
extra pages closed. The read's deadline is set on the proxy session when the
read attaches (the session cuts connections at the deadline).
"""

from __future__ import annotations

import contextlib
import math
import secrets
from collections.abc import Callable
from typing import Any, Final

import anyio
import anyio.lowlevel
from playwright.async_api import (
    Browser,
    BrowserContext,
    CDPSession,
    Dialog,
    Download,
    Page,
    Request,
    Response,
    Route,
    WebSocketRoute,
)
from playwright.async_api import Error as PlaywrightError

from .._egress import PinningProxy, ProxySession
from .._errors import UnknownError
from .observer import MAX_FRAMES, observer_source
from .policy import BrowserPolicy
from .routing import ABORT_ERROR_CODE, PageGuard, init_script
from .settle import DomProbe

__all__ = ["CLOSE_TIMEOUT", "FreshContext", "ReadHooks"]

CLOSE_TIMEOUT: Final = 3.0
# Seconds a close waits for the page's renderer to die after it was told to (see close(stop_page=True)).
_CRASH_WAIT: Final = 0.5
# Seconds a page has to take the script stop at the frame bound (see stop_scripts()).
_STOP_SCRIPTS_WAIT: Final = 1.0
# Seconds a spare's renderer has to answer before it is given to a read (see responsive()).
_RESPONSIVE_TIMEOUT: Final = 1.0
_VIEWPORT: Final = {"width": 1280, "height": 720}
_WS_POLICY_VIOLATION: Final = 1008


class ReadHooks:
    """What one read listens to: its request guard plus crash and main-frame callbacks."""

    def __init__(
        self,
        guard: PageGuard,
        *,
        on_crash: Callable[[], None],
        on_request: Callable[[Request], None],
        on_response: Callable[[Response], None],
        on_frames: Callable[[int], None] | None = None,
    ) -> None:
        self.guard = guard
        self.on_crash = on_crash
        self.on_request = on_request
        self.on_response = on_response
        self.on_frames = on_frames


class FreshContext:
    """One non-persistent context with a page, ready for one read; see the module docstring.

    Build with :meth:`create`; attach once with :meth:`attach`; always :meth:`close`.

    Attributes:
        context, page, cdp, session: the Playwright objects and the proxy session.
        crashed: the page's renderer crashed (a spare that crashed is not used).
        closed: :meth:`close` ran.
        attached: a read was attached.
    """

    def __init__(self, context: BrowserContext, session: ProxySession) -> None:
        self.context = context
        self.session = session
        self.page: Page | None = None
        self.cdp: CDPSession | None = None
        self.hooks: ReadHooks | None = None
        self.crashed = False
        self.closed = False
        self._renderer_gone = anyio.Event()
        # The isolated world whose observer tells settle when the DOM last changed (per context).
        self.settle_world = f"pagewarden-settle-{secrets.token_hex(8)}"
        self._max_nodes: int | None = None
        # The page-world global counting scheduled work (see init_script.js), per context.
        self.pending_name = f"__pw{secrets.token_hex(8)}"
        # Requests in flight and when one last started or ended (anyio time): settle's network signal.
        self.inflight = 0
        self.network_at = anyio.current_time()
        # Frames attached in the read's page (nested ones and script-made ones too), and whether its scripts
        # were stopped at the frame bound (see stop_scripts()).
        self.frames = 0
        self.scripts_stopped = False

    @classmethod
    async def create(
        cls,
        browser: Browser,
        proxy: PinningProxy,
        policy: BrowserPolicy,
        *,
        user_agent: str | None,
        on_context: Callable[[BrowserContext], None] | None = None,
    ) -> FreshContext:
        """Open a context under new proxy credentials, with routing, init script, a page and a CDP session.

        ``on_context`` is told about the context as soon as it exists (the
        pool counts spares with it). On any failure what was made is closed.
        """
        session = proxy.new_session()
        try:
            context = await browser.new_context(
                proxy=session.proxy_settings(),
                java_script_enabled=True,
                service_workers="block",
                accept_downloads=False,
                ignore_https_errors=False,
                bypass_csp=False,
                permissions=[],
                viewport=_VIEWPORT,  # type: ignore[arg-type]
                user_agent=user_agent,
            )
        except BaseException:
            session.revoke()
            raise
        fresh = cls(context, session)
        if on_context is not None:
            on_context(context)
        try:
            await fresh._prepare(policy)
        except BaseException:
            await fresh.close()
            raise
        return fresh

    async def _prepare(self, policy: BrowserPolicy) -> None:
        context = self.context
        timeout_ms = policy.navigation_timeout * 1000
        context.set_default_timeout(timeout_ms)
        context.set_default_navigation_timeout(timeout_ms)
        await context.add_init_script(script=init_script(policy, self.pending_name))
        await context.route("**/*", self._route)
        if policy.refuse_websocket:
            await context.route_web_socket("**/*", self._websocket)
        context.on("request", self._request_started)
        context.on("requestfinished", self._request_done)
        context.on("requestfailed", self._request_done)
        page = self.page = await context.new_page()
        context.on("page", self._new_page)
        page.on("dialog", self._dialog)
        page.on("download", self._download)
        page.on("crash", self._crash)
        page.on("request", self._page_request)
        page.on("response", self._page_response)
        cdp = self.cdp = await context.new_cdp_session(page)
        cdp.on("Network.dataReceived", self._network_data)
        cdp.on("Page.frameAttached", self._frame_attached)
        await cdp.send("Network.enable")
        # Page.enable is needed for the script to run; it installs the settle observer in its
        # isolated world as each document is created.
        await cdp.send("Page.enable")
        await cdp.send(
            "Page.addScriptToEvaluateOnNewDocument",
            {"source": observer_source(policy.max_dom_nodes), "worldName": self.settle_world},
        )
        self._max_nodes = policy.max_dom_nodes

    # -- use ------------------------------------------------------------------------------
    def probe(self) -> DomProbe:
        """A probe of this page's DOM, reading the observer registered for its documents."""
        if self.cdp is None:  # pragma: no cover - set by create()
            raise UnknownError("the context has no CDP session", reason="browser_context_unprepared", stage="browser")
        return DomProbe(self.cdp, self.settle_world, self.pending_name, self._max_nodes)

    @property
    def attached(self) -> bool:
        """Whether a read was attached (a context serves one read only)."""
        return self.hooks is not None

    @property
    def usable(self) -> bool:
        """Whether a read can still be attached: not attached, closed or crashed, and its page open."""
        return (
            self.hooks is None
            and not self.closed
            and not self.crashed
            and self.page is not None
            and not self.page.is_closed()
        )

    async def responsive(self) -> bool:
        """Whether the page's renderer answers now (one ``Runtime.evaluate`` round trip).

        A spare prepared ahead of time may have lost its renderer (killed, out
        of memory) before the crash event reached us; handing it to a read
        would fail that read for nothing. An answer proves the renderer was
        alive at that moment; a crash after it is the read's own.
        """
        if self.cdp is None or not self.usable:
            return False
        with anyio.move_on_after(_RESPONSIVE_TIMEOUT):
            try:
                await self.cdp.send("Runtime.evaluate", {"expression": "0", "returnByValue": True})
            except PlaywrightError:
                return False
            return self.usable
        return False

    def attach(self, hooks: ReadHooks, *, deadline: float) -> Page:
        """Give this context to one read; return its page.

        Raises:
            UnknownError: ``reason="browser_context_reused"`` when a read was
                attached before or the context is not usable (a programming
                error; the pool never hands such a context out).
        """
        if not self.usable or self.page is None:
            raise UnknownError(
                "a fresh browser context serves exactly one read", reason="browser_context_reused", stage="browser"
            )
        self.hooks = hooks
        hooks.guard.page = self.page
        # The proxy cuts this read's connections at its deadline.
        self.session.deadline = None if math.isinf(deadline) else deadline
        return self.page

    async def stop_scripts(self, *, timeout: float = _STOP_SCRIPTS_WAIT) -> bool:
        """Stop the page where it stands: end its running script, run no more of its scripts, stop its loading.

        Used at the frame bound (:data:`.observer.MAX_FRAMES` frames attached, counted from the browser's
        ``Page.frameAttached`` events, so frames made by markup, script loops, timers, ``srcdoc`` or
        ``about:blank`` and nested frames all count). ``Runtime.terminateExecution`` is carried out through
        V8's interrupt, so a loop making frames stops between two iterations;
        ``Emulation.setScriptExecutionDisabled`` keeps the page's timers, handlers and later scripts from
        running (CDP evaluations in isolated worlds, the snapshot's, still run); ``Page.stopLoading`` stops
        the parser and the navigations in flight, as ``window.stop()`` does. Returns whether the page took
        the stop within ``timeout`` (a page inside one long native call, such as an ``innerHTML``
        assignment of many frames, takes it only once that call returns). The termination ends whatever
        script runs in the page's V8 isolate, a read's own isolated-world evaluation included: the caller
        runs nothing of its own in the page meanwhile, or runs it again.
        """
        cdp = self.cdp
        if self.scripts_stopped:
            return True
        if cdp is None or self.closed or self.crashed:
            return False
        with anyio.move_on_after(max(0.0, timeout)):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(self._send_quietly, cdp, "Runtime.terminateExecution")
                tasks.start_soon(self._send_quietly, cdp, "Page.stopLoading")
                try:
                    await cdp.send("Emulation.setScriptExecutionDisabled", {"value": True})
                except PlaywrightError:
                    return False
                self.scripts_stopped = True
        return self.scripts_stopped

    async def close(self, *, stop_page: bool = False) -> bool:
        """Close the context (shielded, bounded) and revoke its credentials; ``False`` if it would not close.

        With ``stop_page``, the page's renderer is ended first (:meth:`_end_renderer`): a hostile page
        still building frames or firing requests would otherwise keep the browser busy tearing it down,
        and Chromium makes the next context only after that.
        """
        self.closed = True
        closed_in_time = True
        with anyio.CancelScope(shield=True):
            if stop_page:
                await self._end_renderer()
            with anyio.move_on_after(CLOSE_TIMEOUT) as closing:
                with contextlib.suppress(PlaywrightError):
                    await self.context.close()
            closed_in_time = not closing.cancelled_caught
            self.session.revoke()
        return closed_in_time

    async def _end_renderer(self) -> None:
        """Crash the page's renderer on purpose (CDP ``Page.crash``) and wait, bounded, until it is gone.

        The page's running script is terminated first (``Runtime.terminateExecution``), so a loop that
        holds the main thread (where the crash is carried out) does not hold the crash too.

        A renderer serves one context only (Chromium never shares one across contexts), so nothing
        but this page goes with it. The command gets no answer (its renderer dies), so it is sent in a
        task that is cancelled once the crash is seen or :data:`_CRASH_WAIT` has passed. The page's
        CDP session is detached right after the command.
        """
        cdp, page = self.cdp, self.page
        if cdp is None or page is None or self.crashed or page.is_closed():
            return
        with anyio.move_on_after(_CRASH_WAIT):
            async with anyio.create_task_group() as tasks:
                # A script in a long loop (making frames, say) holds the renderer's main thread, where the
                # crash is carried out; terminating its execution is done through V8's interrupt and lets
                # the crash land at once.
                tasks.start_soon(self._send_quietly, cdp, "Runtime.terminateExecution")
                tasks.start_soon(self._send_crash, cdp)
                await anyio.lowlevel.checkpoint()  # the command is sent once the task awaits its answer
                # Nothing of this session is needed any more: its events (the network events of every
                # request still in flight) would only queue up on the pipe the next reads share.
                tasks.start_soon(self._detach, cdp)
                await self._renderer_gone.wait()
                tasks.cancel_scope.cancel()

    @staticmethod
    async def _send_quietly(cdp: CDPSession, method: str) -> None:
        with contextlib.suppress(PlaywrightError):
            await cdp.send(method)

    @staticmethod
    async def _send_crash(cdp: CDPSession) -> None:
        with contextlib.suppress(PlaywrightError):
            await cdp.send("Page.crash")

    @staticmethod
    async def _detach(cdp: CDPSession) -> None:
        with contextlib.suppress(PlaywrightError):
            await cdp.detach()

    # -- handlers: the attached read's guard, or refusal before a read is attached -----------
    async def _route(self, route: Route, request: Request) -> None:
        if self.hooks is not None:
            await self.hooks.guard.handle_route(route, request)
            return
        with contextlib.suppress(PlaywrightError):
            await route.abort(ABORT_ERROR_CODE)

    async def _websocket(self, ws: WebSocketRoute) -> None:
        if self.hooks is not None:
            await self.hooks.guard.handle_websocket(ws)
            return
        with contextlib.suppress(PlaywrightError):
            await ws.close(code=_WS_POLICY_VIOLATION, reason="refused by pagewarden")

    def _request_started(self, request: Request) -> None:
        self.inflight += 1
        self.network_at = anyio.current_time()
        if self.hooks is not None:
            self.hooks.guard.on_request(request)

    def _request_done(self, request: Request) -> None:
        self.inflight = max(0, self.inflight - 1)
        self.network_at = anyio.current_time()
        if self.hooks is not None:
            self.hooks.guard.on_request_done(request)

    async def _new_page(self, page: Page) -> None:
        if self.hooks is not None:
            await self.hooks.guard.handle_page(page)
        elif page is not self.page:
            with contextlib.suppress(PlaywrightError):
                await page.close()

    async def _dialog(self, dialog: Dialog) -> None:
        if self.hooks is not None:
            await self.hooks.guard.handle_dialog(dialog)
            return
        with contextlib.suppress(PlaywrightError):
            await dialog.dismiss()

    async def _download(self, download: Download) -> None:
        if self.hooks is not None:
            await self.hooks.guard.handle_download(download)
            return
        with contextlib.suppress(PlaywrightError):
            await download.cancel()

    def _crash(self, _page: Page) -> None:
        self._renderer_gone.set()
        if self.closed:
            return  # ended on purpose by close(stop_page=True), after its read
        self.crashed = True
        if self.hooks is not None:
            self.hooks.on_crash()

    def _page_request(self, request: Request) -> None:
        if self.hooks is not None:
            self.hooks.on_request(request)

    def _page_response(self, response: Response) -> None:
        if self.hooks is not None:
            self.hooks.on_response(response)

    def _frame_attached(self, _event: dict[str, Any]) -> None:
        if self.hooks is None:
            return
        self.frames += 1
        if self.frames == MAX_FRAMES + 1 and self.hooks.on_frames is not None:
            self.hooks.on_frames(self.frames)

    def _network_data(self, event: dict[str, Any]) -> None:
        if self.hooks is not None:
            self.hooks.guard.on_network_data(event)
