"""The state of one render and the names of its failures.

A :class:`ReadState` is what one render (:mod:`.render`) knows while it runs:
its lease, target, deadline and stage, its request guard
(:class:`~.routing.PageGuard`), the main document's response and redirect
hops, and the first error that stopped it. Everything that can end a read
early reports here: a budget overrun of the guard, a crash of the page's
renderer or of the browser, a fault the egress proxy saw on the main
document, the DOM bound; :meth:`ReadState._stop` records the first error and
cancels the read's scope at once. Every Playwright exception is turned into
pagewarden's error vocabulary by :meth:`ReadState._fail` (a stop's own
error first, then the proxy's refusal, a redirect loop, then
:func:`~.boundary.translate`), so the same fault is named the same way
whichever step met it.
"""

from __future__ import annotations

import contextlib
from typing import Final

import anyio
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Request, Response

from .._egress import ProxyFault
from .._errors import PagewardenError, ResponseTooLarge, Timeout, UnsafeURL, UnsupportedContentType
from .._net.urls import Target, parse_target
from .boundary import crashed, translate
from .faults import proxy_fault_error, redirect_error, status_error
from .fresh import FreshContext
from .pool import BrowserPool, Lease
from .routing import PageGuard

__all__ = ["ReadState", "media_type"]

_HTML_TYPES: Final = frozenset({"text/html", "application/xhtml+xml"})
_MAX_NAV_URLS: Final = 64


def media_type(response: Response) -> str:
    """The media type of ``response``, lower case, without parameters."""
    value = response.headers.get("content-type", "")
    return value.split(";", 1)[0].strip().lower()


class ReadState:
    """What one render knows and how its failures are named; every Playwright exception passes :meth:`_fail`."""

    def __init__(self, pool: BrowserPool, lease: Lease, target: Target, nav_url: str, deadline: float) -> None:
        self.pool = pool
        self.lease = lease
        self.policy = pool.policy
        self.target = target
        self.nav_url = nav_url
        self.deadline = deadline
        self.stage = "context"
        self.stop_error: PagewardenError | None = None
        self.renderer_crashed = False
        self.scope: anyio.CancelScope | None = None
        self.fresh: FreshContext | None = None
        self.main_response: Response | None = None
        self.nav_hosts: set[str] = {target.host}
        # Canonical URLs of the main document and its redirect hops (bounded), and whether a hop came back.
        self.nav_urls: set[str] = {target.url}
        self.redirect_looped = False
        self.guard = PageGuard(self.policy, pool.reader_config, target.url, self._stop)
        self.timings: dict[str, float] = {}
        self.succeeded = False

    # -- stopping ---------------------------------------------------------------------------
    def _stop(self, error: PagewardenError) -> None:
        """Stop the read at once with ``error`` (budget overrun, crash)."""
        if self.stop_error is None:
            self.stop_error = error
        if self.scope is not None:
            self.scope.cancel()

    def _on_browser_dead(self) -> None:
        self._stop(crashed(renderer=False, url=self.target.url))

    def _on_crash(self) -> None:
        self.renderer_crashed = True
        self._stop(crashed(renderer=True, url=self.target.url))

    def _ms(self, since: float) -> float:
        return round((anyio.current_time() - since) * 1000, 1)

    def _time_left(self) -> float:
        return max(0.001, self.deadline - anyio.current_time())

    def _deadline_error(self) -> Timeout:
        return Timeout("the page did not render before the deadline", reason="browser_deadline",
                       url=self.target.url, stage=self.stage)

    def _fail(self, exc: BaseException) -> PagewardenError:
        if self.stop_error is not None:
            return self.stop_error
        refused = self._proxy_refusal()
        if refused is not None:
            return refused
        if isinstance(exc, PlaywrightError) and "ERR_TOO_MANY_REDIRECTS" in (exc.message or ""):
            return redirect_error(looped=self.redirect_looped, url=self.target.url)
        return translate(
            exc,
            stage=self.stage,
            url=self.target.url,
            browser_dead=self.lease.instance.dead,
            renderer_crashed=self.renderer_crashed,
        )

    def _proxy_refusal(self) -> UnsafeURL | None:
        """The proxy's refusal of the main document (or one of its redirect hops), if any."""
        if self.fresh is None:
            return None
        for entry in reversed(self.fresh.session.ledger.entries):
            if entry.host in self.nav_hosts and entry.status in (403, 405):
                return UnsafeURL(
                    "the egress proxy refused the page's address",
                    reason=entry.reason,
                    url=self.target.url,
                    stage="browser_proxy",
                )
        return None

    def _dom_error(self) -> ResponseTooLarge:
        limit = self.policy.max_dom_nodes
        return ResponseTooLarge(
            f"the rendered page has more than {limit} elements",
            reason="browser_dom_too_large",
            url=self.target.url,
            stage=self.stage,
        )

    # -- what the page reports ------------------------------------------------------------------
    def _on_request(self, request: Request) -> None:
        # Redirect hops of the main document: the proxy may refuse or cut any of them.
        if request.is_navigation_request() and request.frame.parent_frame is None:
            with contextlib.suppress(PagewardenError):
                hop = parse_target(request.url, self.pool.reader_config)
                self.nav_hosts.add(hop.host)
                if request.redirected_from is not None and hop.url in self.nav_urls:
                    self.redirect_looped = True
                if len(self.nav_urls) < _MAX_NAV_URLS:
                    self.nav_urls.add(hop.url)

    def _on_proxy_fault(self, fault: ProxyFault) -> None:
        """The proxy refused or cut one of this read's requests: if it was the main document, stop now."""
        if self.stage != "navigation" or fault.url is None or fault.url not in self.nav_urls:
            return
        error = proxy_fault_error(fault, self.target.url)
        if error is not None:
            self._stop(error)

    def _on_response(self, response: Response) -> None:
        request = response.request
        if request.is_navigation_request() and request.frame.parent_frame is None:
            self.main_response = response

    def _check_response(self, response: Response) -> None:
        status = response.status
        if not 200 <= status < 300:
            refused = self._proxy_refusal()
            if refused is not None:
                raise refused
            raise status_error(status, response.headers.get("retry-after"), self.target.url)
        media_type_ = media_type(response)
        if media_type_ not in _HTML_TYPES:
            raise UnsupportedContentType(
                "the browser renders HTML pages only",
                reason="browser_not_html",
                url=self.target.url,
                stage="navigation",
            )
