"""Waiting for a rendered page to settle after DOMContentLoaded.

Client-rendered pages fetch their content and build the DOM after
DOMContentLoaded. :func:`settle` waits until the page is quiet (no request in
flight and an unchanged DOM signature for ``quiet`` seconds) or ``max_time``
has passed, whichever comes first, and stops the read early when the DOM
grows beyond the node budget.

The DOM signature (element count, text length) is read through CDP in an
isolated world, like the visibility snapshot, so page script cannot fake it
by replacing DOM getters. A probe that cannot run (the main thread is busy,
the document was replaced) simply counts as "not quiet".
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any, Final

import anyio
from playwright.async_api import CDPSession
from playwright.async_api import Error as PlaywrightError

from .._errors import ResponseTooLarge

__all__ = ["DomProbe", "settle"]

_POLL: Final = 0.1
_PROBE_TIMEOUT: Final = 0.5
_EXPRESSION: Final = (
    "(() => { const root = document.documentElement;"
    " return [document.getElementsByTagName('*').length, root ? root.textContent.length : 0]; })()"
)


class DomProbe:
    """Reads ``(elements, text length)`` of the main frame in an isolated world."""

    def __init__(self, cdp: CDPSession) -> None:
        self._cdp = cdp
        self._context_id: int | None = None

    async def _world(self) -> int:
        if self._context_id is None:
            tree = await self._cdp.send("Page.getFrameTree")
            world = await self._cdp.send(
                "Page.createIsolatedWorld",
                {
                    "frameId": tree["frameTree"]["frame"]["id"],
                    "worldName": f"pagewarden-settle-{secrets.token_hex(4)}",
                    # "Univeral" is CDP's own spelling.
                    "grantUniveralAccess": False,
                },
            )
            self._context_id = int(world["executionContextId"])
        return self._context_id

    async def sample(self) -> tuple[int, int] | None:
        """The current signature, or ``None`` when it cannot be read right now."""
        try:
            context_id = await self._world()
            result: dict[str, Any] = await self._cdp.send(
                "Runtime.evaluate",
                {
                    "expression": _EXPRESSION,
                    "contextId": context_id,
                    "returnByValue": True,
                    "timeout": int(_PROBE_TIMEOUT * 1000),
                },
            )
        except PlaywrightError:
            # A new document destroyed the world; make a new one next time.
            self._context_id = None
            return None
        value = result.get("result", {}).get("value")
        if (
            isinstance(value, list)
            and len(value) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        ):
            return value[0], value[1]
        return None


async def settle(
    probe: DomProbe,
    inflight: Callable[[], int],
    *,
    max_time: float,
    quiet: float,
    max_nodes: int,
) -> bool:
    """Wait for the page to settle; return whether it did (``False``: ``max_time`` ran out).

    Raises:
        ResponseTooLarge: ``reason="browser_dom_too_large"`` once the element
            count exceeds ``max_nodes``.
    """
    start = anyio.current_time()
    deadline = start + max_time
    last: tuple[int, int] | None = None
    last_at = start
    quiet_since: float | None = None
    while True:
        signature = None
        with anyio.move_on_after(min(_PROBE_TIMEOUT, max(0.01, deadline - anyio.current_time()))):
            signature = await probe.sample()
        now = anyio.current_time()
        if signature is not None and signature[0] > max_nodes:
            raise ResponseTooLarge(
                f"the rendered page has more than {max_nodes} elements",
                reason="browser_dom_too_large",
                stage="settle",
            )
        if signature is not None and signature == last and inflight() == 0:
            if quiet_since is None:
                # Unchanged since the previous sample: quiet began then.
                quiet_since = last_at
            if now - quiet_since >= quiet:
                return True
        else:
            quiet_since = None
        last, last_at = signature, now
        if now >= deadline:
            return False
        await anyio.sleep(min(_POLL, max(0.0, deadline - now)))
