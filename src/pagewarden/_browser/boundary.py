"""The one place Playwright exceptions become pagewarden errors.

Playwright raises three classes (``Error``, ``TimeoutError``,
``TargetClosedError``; ``playwright._impl._errors``); their messages can
quote page-controlled text (an exception value thrown by page script, a
browser log), so only fixed tokens ever reach a pagewarden message: Chromium's
``net::ERR_*`` codes and our own words.

Mapping (``stage`` says what was running):

====================================  =====================================================
Playwright                            pagewarden
====================================  =====================================================
``TimeoutError`` (navigation)         ``Timeout(reason="browser_navigation_timeout")``
``TimeoutError`` (anything else)      ``Timeout(reason="browser_timeout")``
the browser disconnected              ``NetworkError(reason="browser_crashed")``, retryable
the renderer crashed                  ``NetworkError(reason="browser_renderer_crashed")``, not retryable
                                      (the page itself ran it out of memory or stack; a retry
                                      renders the same page)
``TargetClosedError`` otherwise       ``NetworkError(reason="browser_target_closed")``, retryable
"Download is starting"                ``UnsupportedContentType(reason="browser_download_refused")``
``net::ERR_CERT_*``, ``ERR_SSL_*``    ``NetworkError(reason="tls_failure")``, not retryable
``net::ERR_<CODE>``                   ``NetworkError(reason="browser_net_<code>")``
any other ``Error``                   ``UnknownError(reason="browser_error")``
====================================  =====================================================

Launch and connect failures (:func:`launch_error`) are ``CONFIG_MISSING``:
the user must change something (install libraries, fix a path, allow the sandbox).
"""

from __future__ import annotations

import re
from typing import Final

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from .._errors import (
    ConfigMissing,
    NetworkError,
    PagewardenError,
    Timeout,
    UnknownError,
    UnsupportedContentType,
)
from .faults import tls_error

__all__ = ["crashed", "launch_error", "translate"]

_NET_ERROR: Final = re.compile(r"net::(ERR_[A-Z0-9_]{1,60})")


def crashed(*, renderer: bool, url: str | None = None) -> NetworkError:
    """The error of a read whose browser (or renderer) went away under it."""
    if renderer:
        # A browser still running means the page's own renderer died: the page caused it.
        return NetworkError(
            "the page's renderer process crashed",
            reason="browser_renderer_crashed",
            retryable=False,
            url=url,
            stage="browser",
        )
    return NetworkError(
        "the browser crashed or disconnected during the read; the next read starts a new one",
        reason="browser_crashed",
        url=url,
        stage="browser",
    )


def translate(
    exc: BaseException,
    *,
    stage: str,
    url: str | None = None,
    browser_dead: bool = False,
    renderer_crashed: bool = False,
) -> PagewardenError:
    """Map an exception raised by Playwright during a read to a :class:`PagewardenError`."""
    if isinstance(exc, PagewardenError):
        return exc
    if browser_dead or renderer_crashed:
        return crashed(renderer=not browser_dead, url=url)
    if not isinstance(exc, PlaywrightError):
        return UnknownError(
            f"unexpected {type(exc).__name__} in the browser", reason="browser_error", url=url, stage=stage
        )
    message = exc.message if isinstance(exc.message, str) else ""
    if isinstance(exc, PlaywrightTimeout):
        reason = "browser_navigation_timeout" if stage == "navigation" else "browser_timeout"
        return Timeout(f"the browser did not finish the {stage} in time", reason=reason, url=url, stage=stage)
    if type(exc).__name__ == "TargetClosedError" or "has been closed" in message or "Target closed" in message:
        return NetworkError("the page was closed during the read", reason="browser_target_closed", url=url, stage=stage)
    if "Download is starting" in message:
        return UnsupportedContentType(
            "the page is a download, which is refused", reason="browser_download_refused", url=url, stage=stage
        )
    code = _NET_ERROR.search(message)
    if code is not None:
        name = code.group(1)
        if name.startswith(("ERR_CERT_", "ERR_SSL_")) or name == "ERR_BAD_SSL_CLIENT_AUTH_CERT":
            return tls_error(url, stage)
        return NetworkError(
            f"the browser failed to load the page ({name})",
            reason=f"browser_net_{name[4:].lower()}",
            url=url,
            stage=stage,
        )
    return UnknownError(
        f"the browser failed during {stage} ({type(exc).__name__})", reason="browser_error", url=url, stage=stage
    )


def launch_error(exc: BaseException, *, remote: bool) -> PagewardenError:
    """Map a failure to launch or connect to the browser."""
    if isinstance(exc, PagewardenError):
        return exc
    text = exc.message if isinstance(exc, PlaywrightError) else str(exc)
    lowered = text.lower()
    if "sandbox" in lowered and not remote:
        return ConfigMissing(
            "Chromium's sandbox could not start here (user namespaces or seccomp unavailable?). Run as an "
            "unprivileged user on a host that allows it, or set external_sandbox=True inside an isolating container",
            reason="sandbox_failed",
            stage="browser",
        )
    what = "connect to" if remote else "launch"
    reason = "browser_connect_failed" if remote else "browser_launch_failed"
    if isinstance(exc, PlaywrightTimeout):
        return ConfigMissing(f"could not {what} Chromium in time", reason=reason, stage="browser")
    # The first line of Playwright's launch message names the cause; the log after it is dropped.
    first = text.strip().splitlines()[0][:160] if text.strip() else type(exc).__name__
    return ConfigMissing(f"could not {what} Chromium: {first}", reason=reason, stage="browser")
