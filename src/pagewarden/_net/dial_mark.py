"""The mark of a pinned dial: :data:`PINNED_DIAL`, set while pagewarden connects a validated address.

Nothing in the library reads it; the test suite's socket tripwire uses it to
tell the one legitimate ``connect()`` path from every other. Both dialers set
it: :class:`~.pinned.PinnedBackend` for a destination and
:func:`~.upstream.open_tunnel` for the upstream proxy. It lives in a module of
its own so that neither of them has to import the other for it.
"""

from __future__ import annotations

import contextvars

__all__ = ["PINNED_DIAL"]

PINNED_DIAL: contextvars.ContextVar[tuple[str, int] | None] = contextvars.ContextVar(
    "pagewarden_pinned_dial", default=None
)
