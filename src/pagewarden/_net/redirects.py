"""A per-task redirect policy: a caller (the crawler) can refuse redirects out of its scope.

:func:`fetch` follows redirects itself, hop by hop. A crawl must not follow a
redirect that leaves its scope, so before each hop the transport calls
:func:`check_redirect`, which asks the policy set in the current context by
:func:`redirect_policy` (a ``contextvars`` value: it holds for the task that
set it and the tasks it starts, never process-wide). Without a policy every
redirect the address policy accepts is followed, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from .._errors import UnsafeURL

__all__ = ["RedirectPolicy", "check_redirect", "redirect_policy"]

RedirectPolicy = Callable[[str], "str | None"]
"""Given a redirect target URL, ``None`` to follow it or a refusal reason."""

_POLICY: ContextVar[RedirectPolicy | None] = ContextVar("pagewarden_redirect_policy", default=None)


@contextmanager
def redirect_policy(policy: RedirectPolicy) -> Iterator[None]:
    """Apply ``policy`` to every redirect fetched in this context until the block ends."""
    token = _POLICY.set(policy)
    try:
        yield
    finally:
        _POLICY.reset(token)


def check_redirect(target_url: str, requested_url: str) -> None:
    """Raise ``UnsafeURL`` (the policy's reason) when the context's policy refuses ``target_url``."""
    policy = _POLICY.get()
    if policy is None:
        return
    reason = policy(target_url)
    if reason is not None:
        raise UnsafeURL("the page redirects to a URL the crawl does not follow", reason=reason,
                        url=requested_url, stage="http")
