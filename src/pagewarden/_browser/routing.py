"""Per-read enforcement of the request policy inside a browser context.

One :class:`PageGuard` lives for one read. It decides every routed request
(method, resource type, frame, third party, the URL re-checked DNS-free by
:func:`~pagewarden._net.urls.parse_target`), closes WebSockets, closes popups
and extra pages, dismisses dialogs, counts requests and network bytes, and
keeps per-reason counters of everything it blocked.

Routing is policy and hygiene, not the boundary: it does not see redirect
hops, worker WebSockets or Chromium's own traffic. The DNS-pinning proxy sees
those and applies the address policy (see :mod:`.launch`). What routing adds
is what the proxy cannot see inside an HTTPS tunnel: the method and the kind
of request.

Requests the policy lets through count against the request budget; refused
ones count apart (see :meth:`PageGuard.handle_route`). A budget overrun
(requests, refused requests, bytes) is recorded as :attr:`PageGuard.violation`
and reported through the ``on_violation`` callback, which the renderer uses
to stop the read at once.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import json
from collections.abc import Callable
from importlib import resources
from typing import Any, Final

from playwright.async_api import Dialog, Download, Error, Page, Request, Route, WebSocketRoute

from .._config import ReaderConfig
from .._errors import InvalidInput, PagewardenError, ResponseTooLarge, UnsafeURL
from .._net.urls import parse_target
from .observer import MAX_FRAMES
from .policy import BrowserPolicy

__all__ = ["ABORT_ERROR_CODE", "REFUSED_PER_REQUEST", "PageGuard", "init_script"]

# Chromium's net::ERR_BLOCKED_BY_CLIENT: what an ad blocker produces, so pages
# treat it as an ordinary failed load.
ABORT_ERROR_CODE: Final = "blockedbyclient"
_WS_POLICY_VIOLATION: Final = 1008
_PLACEHOLDER: Final = "__PAGEWARDEN_REFUSE__"
_PENDING_PLACEHOLDER: Final = "__PAGEWARDEN_PENDING_NAME__"
_TIMER_LIMIT_PLACEHOLDER: Final = "__PAGEWARDEN_TIMER_LIMIT_MS__"
_REQUEST_LIMIT_PLACEHOLDER: Final = "__PAGEWARDEN_REQUEST_LIMIT__"
_FRAME_LIMIT_PLACEHOLDER: Final = "__PAGEWARDEN_FRAME_LIMIT__"
# Refused requests a page may make per request of its budget (5,000 under the default policy).
REFUSED_PER_REQUEST: Final = 50


@functools.cache
def _template() -> str:
    # Read once: every fresh context (one per read) needs the script.
    return resources.files(__package__).joinpath("init_script.js").read_text(encoding="utf-8")


def init_script(policy: BrowserPolicy, pending_name: str = "__pagewardenPending") -> str:
    """The init script for ``policy``: ``init_script.js`` with the refused APIs filled in.

    ``pending_name`` is the global under which the page's pending-work count is
    exposed to the settle step (per context, so a page cannot know it in advance).
    """
    template = _template()
    refuse = {
        "websocket": policy.refuse_websocket,
        "event_source": policy.refuse_event_source,
        "webrtc": policy.refuse_webrtc,
        "send_beacon": policy.refuse_send_beacon,
        "window_open": policy.refuse_window_open,
    }
    return (
        template.replace(_PLACEHOLDER, json.dumps(refuse, sort_keys=True))
        .replace(_PENDING_PLACEHOLDER, json.dumps(pending_name))
        .replace(_TIMER_LIMIT_PLACEHOLDER, str(round(policy.settle_time * 1000)))
        .replace(_REQUEST_LIMIT_PLACEHOLDER, str(policy.max_requests))
        .replace(_FRAME_LIMIT_PLACEHOLDER, str(MAX_FRAMES))
    )


class PageGuard:
    """The request policy of one read.

    Args:
        policy: the loaded request policy.
        reader_config: the reader's config (``unsafe_allow_destinations`` and
            the URL limits apply to every request, as on the static path).
        page_url: the URL being read; its host and port define "first party".
        on_violation: called once, with the error, when a budget is exceeded.
    """

    def __init__(
        self,
        policy: BrowserPolicy,
        reader_config: ReaderConfig,
        page_url: str,
        on_violation: Callable[[PagewardenError], None],
    ) -> None:
        self._policy = policy
        self._config = reader_config
        self._on_violation = on_violation
        target = parse_target(page_url, reader_config)
        self._first_party = {(target.scheme, target.host, target.port)}
        self.page: Page | None = None
        self.blocked: collections.Counter[str] = collections.Counter()
        self.requests = 0
        self.refused = 0
        self._max_refused = REFUSED_PER_REQUEST * policy.max_requests
        self.bytes = 0
        self.inflight = 0
        self.violation: PagewardenError | None = None

    # -- bookkeeping ------------------------------------------------------------------
    def _violate(self, error: PagewardenError) -> None:
        if self.violation is None:
            self.violation = error
            self._on_violation(error)

    def add_bytes(self, count: int) -> None:
        """Account ``count`` received network bytes; past the budget the read is stopped."""
        self.bytes += max(0, int(count))
        if self.bytes > self._policy.max_bytes:
            self._violate(
                ResponseTooLarge(
                    f"the page received more than {self._policy.max_bytes} bytes",
                    reason="browser_byte_budget",
                    stage="browser",
                )
            )

    def on_network_data(self, event: dict[str, Any]) -> None:
        """CDP ``Network.dataReceived``: count the larger of decoded and encoded bytes."""
        self.add_bytes(max(int(event.get("dataLength", 0)), int(event.get("encodedDataLength", 0))))

    def on_request(self, _request: Request) -> None:
        """A request started (routed or not): one more in flight."""
        self.inflight += 1

    def on_request_done(self, _request: Request) -> None:
        """A request finished or failed."""
        self.inflight = max(0, self.inflight - 1)

    def blocked_counts(self) -> dict[str, int]:
        """Blocked requests by reason, most frequent first."""
        return dict(self.blocked.most_common())

    # -- decisions ----------------------------------------------------------------------
    def verdict(self, request: Request) -> str | None:
        """The reason to block ``request``, or ``None`` to let it through."""
        if request.method not in self._policy.methods:
            return "method_not_allowed"
        kind = request.resource_type
        if kind == "document" or request.is_navigation_request():
            frame_reason = self._frame_reason(request)
            if frame_reason is not None:
                return frame_reason
        elif kind not in self._policy.resource_types:
            return f"type_{kind}"
        try:
            target = parse_target(request.url, self._config)
        except UnsafeURL as exc:
            return f"url_{exc.reason or 'refused'}"
        except InvalidInput:
            return "url_invalid"
        if not self._policy.third_party and (target.scheme, target.host, target.port) not in self._first_party:
            return "third_party"
        return None

    def _frame_reason(self, request: Request) -> str | None:
        try:
            frame = request.frame
        except Error:
            # Service-worker and other frameless navigations.
            return "frameless_document"
        if self.page is None or frame.page is not self.page:
            return "popup"
        if frame.parent_frame is not None:
            return "subframe"
        return None

    # -- Playwright handlers ------------------------------------------------------------
    async def handle_route(self, route: Route, request: Request) -> None:
        """The ``context.route("**/*")`` handler.

        A request the policy lets through counts against ``max_requests``; a
        refused one (a subframe, an image, a third party...) never reaches the
        network and counts apart, against a larger bound
        (:data:`REFUSED_PER_REQUEST` times ``max_requests``), so a page with
        many refused frames still renders its own text while a page that
        loops on refused requests still ends.
        """
        reason = self.verdict(request)
        if reason is None:
            self.requests += 1
            if self.requests > self._policy.max_requests:
                reason = "request_budget"
                self._violate(
                    ResponseTooLarge(
                        f"the page made more than {self._policy.max_requests} requests",
                        reason="browser_request_budget",
                        stage="browser",
                    )
                )
        else:
            self.refused += 1
            if self.refused > self._max_refused:
                self._violate(
                    ResponseTooLarge(
                        f"the page made more than {self._max_refused} refused requests",
                        reason="browser_refused_budget",
                        stage="browser",
                    )
                )
        # The page or context may go away while the request waits; nothing to do then.
        with contextlib.suppress(Error):
            if reason is None:
                await route.continue_()
            else:
                self.blocked[reason] += 1
                if reason == "subframe":
                    # An empty 204 leaves the frame on its initial blank document: no error page to
                    # commit, which a page with hundreds of frames would otherwise pay for per frame.
                    await route.fulfill(status=204)
                else:
                    await route.abort(ABORT_ERROR_CODE)

    async def handle_websocket(self, ws: WebSocketRoute) -> None:
        """The ``context.route_web_socket("**/*")`` handler: close every page WebSocket."""
        self.blocked["websocket"] += 1
        with contextlib.suppress(Error):
            await ws.close(code=_WS_POLICY_VIOLATION, reason="refused by pagewarden")

    async def handle_page(self, page: Page) -> None:
        """``context.on("page")``: any page but the read's own is a popup, closed at once."""
        if page is self.page:
            return
        self.blocked["popup"] += 1
        with contextlib.suppress(Error):
            await page.close()

    async def handle_dialog(self, dialog: Dialog) -> None:
        """``page.on("dialog")``: alerts, confirms and prompts are dismissed."""
        self.blocked["dialog"] += 1
        with contextlib.suppress(Error):
            await dialog.dismiss()

    async def handle_download(self, download: Download) -> None:
        """``page.on("download")``: downloads are refused (the context does not accept them either)."""
        self.blocked["download"] += 1
        with contextlib.suppress(Error):
            await download.cancel()
