"""Snapshot a rendered page with per-text visibility, judged in an isolated world.

:func:`snapshot` runs the visibility script (package data: the files of
``visibility_js/``, one per concern, concatenated in :data:`_PARTS` order) through CDP in an
isolated world created for the page's main frame (``Page.createIsolatedWorld``
plus ``Runtime.evaluate`` with its ``contextId``). That world shares the DOM
and layout with the page but not its JavaScript globals, so a page that
replaces ``getComputedStyle``, ``getBoundingClientRect``, ``Node`` getters or
``Array``/``JSON`` builtins in its own world cannot change the verdicts.
Playwright-python has no "evaluate in the utility world" API yet
(microsoft/playwright PR #42635 adds one upstream); CDP is the way today.

Before the walk, running animations and CSS transitions that end within
:data:`FINISH_WITHIN_SECONDS` are finished (``Animation.finish()``), so the
snapshot judges a page that fades its content in, or out, by its end state
rather than mid-way: content that ends visible is read, content that ends
hidden (a fade-out, a fade-in without a forwards fill, an element whose own
opacity is 0) stays hidden. Scroll-driven animations (``animation-timeline:
view()``/``scroll()``) are judged by their end state too (what the element
looks like once scrolled through). Animations that never end, end later or
are paused are judged as they stand.

The script walks the document once and builds a serialized *copy* of the DOM;
the live DOM is never modified (finishing an animation changes no node). In that copy:

* an element judged hidden carries ``data-pagewarden-hidden="<reason>"``;
  hidden text inside an element that also shows visible content is wrapped in
  ``<span data-pagewarden-hidden="<reason>">``; the guard classifies marked
  content as ``hidden`` segments with that reason and the extractor drops it;
* an open shadow root is inlined in its host inside
  ``<div data-pagewarden-shadow-root="open">`` (``<span>`` when the host is a
  ``<p>``, heading or ``<span>``, so an HTML parser does not close the host);
* comments, ``<style>`` text, non-executable script bodies (JSON-LD, templates)
  and ``<template>`` content are kept; executable script bodies are dropped
  (they already ran, the guard ignores script text, and they are often most of
  a page's bytes); page-set ``data-pagewarden-*`` attributes are removed so
  markers are ours alone; raw text and comments are escaped so nothing a page
  puts in them can break out into visible markup.

Reasons (:data:`HIDDEN_REASONS`) and thresholds, mirrored in the script:

* attributes: ``hidden_attribute``, ``aria_hidden`` (``aria-hidden="true"``),
  ``inert``; closed ``<details>`` (all but its first ``<summary>``):
  ``closed_details``;
* subtree-wide CSS: ``display_none``, ``content_visibility``
  (``content-visibility: hidden``), ``opacity`` (cumulative opacity, ancestors
  multiplied, below 0.1: stricter than 0.01 so that nested ``0.3 x 0.3`` counts),
  ``filter_opacity`` (``filter: opacity()`` bringing it below 0.1),
  ``transform_zero`` (cumulative transform/``scale`` factor <= 0.01, projected
  axes, so ``rotateX(90deg)`` counts), ``clipped`` (``clip`` or ``clip-path``
  leaving at most 1 px), ``zero_size`` (a box <= 1 px with overflow other than
  visible; also text with no client rect >= 1 px);
* per text node: ``visibility_hidden``, ``tiny_font`` (font size times the
  cumulative scale below 4 CSS px), ``transparent_text`` (fill alpha below 0.1,
  unless a visible text stroke or contrasting text-shadow shows it),
  ``same_colour`` (WCAG contrast ratio below 1.5 between the text colour,
  or the colour of a ``background-clip: text`` background,
  composited over its background, and the effective background: the first
  opaque background colour up the ancestors, semi-transparent ones composited,
  the canvas at the top; not judged when a background image or gradient is in
  the way), ``offscreen`` (every text rect at negative document coordinates,
  beyond the scrollable area, or starting more than 3000 px past the viewport's
  far edge), ``text_indent`` (off-screen with ``text-indent <= -999px``),
  ``overflow_clipped`` (every rect outside an ancestor with ``overflow:
  hidden|clip``; scrollable ``auto|scroll`` boxes do not count, a reader can
  scroll to their content; absolute and fixed boxes escape the clips they
  escape in CSS).

Head content, ``<script>``, ``<style>``, ``<noscript>`` and ``<template>`` are
never judged or marked (the guard reads them as their own locations);
everything else is, so fallback content that is never rendered (canvas,
iframe, video) has no box and is marked ``zero_size``.

Errors are mapped at one boundary (:func:`_mapped_errors`): Playwright errors,
an exception inside the script or a malformed result give
``GuardFailed(reason="visibility_failed")``; the deadline gives
``GuardFailed(reason="visibility_timeout")``; a node, depth or HTML budget gives
``ResponseTooLarge`` (unless ``allow_truncated``); a document without any text
gives ``ContentInsufficient(reason="empty_dom")``.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
import math
import secrets
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import anyio
from playwright.async_api import Error as PlaywrightError

from .._errors import ContentInsufficient, GuardFailed, InvalidInput, PagewardenError, ResponseTooLarge

if TYPE_CHECKING:
    from playwright.async_api import CDPSession, Page

__all__ = [
    "FINISH_WITHIN_SECONDS",
    "HIDDEN_ATTRIBUTE",
    "HIDDEN_REASONS",
    "LIMITATIONS",
    "SHADOW_ROOT_ATTRIBUTE",
    "Snapshot",
    "snapshot",
]

HIDDEN_ATTRIBUTE: Final = "data-pagewarden-hidden"
SHADOW_ROOT_ATTRIBUTE: Final = "data-pagewarden-shadow-root"

HIDDEN_REASONS: Final[frozenset[str]] = frozenset(
    {
        "aria_hidden",
        "hidden_attribute",
        "inert",
        "closed_details",
        "display_none",
        "content_visibility",
        "opacity",
        "filter_opacity",
        "transform_zero",
        "clipped",
        "zero_size",
        "visibility_hidden",
        "tiny_font",
        "transparent_text",
        "same_colour",
        "offscreen",
        "text_indent",
        "overflow_clipped",
    }
)

LIMITATIONS: Final[tuple[str, ...]] = (
    "Text drawn on canvas, shown in images or generated by CSS content: is not read.",
    "Closed shadow roots cannot be read; open ones are.",
    "Iframes are not read.",
    "Text covered by another element (an overlay) is not detected as hidden.",
    "Text contrast is not judged over background images or gradients.",
    "Visibility is judged once; the page can change after the snapshot.",
    "Animations ending within a few seconds are judged by their end state; endless or longer ones as they stand.",
)
# Running animations and transitions that end within this many seconds are judged by their end state
# (see the module docstring): what a person sees a moment after the page settled.
FINISH_WITHIN_SECONDS: Final = 5.0
# The script's files, concatenated in this order (setup.js opens the function, walk.js closes it).
_PARTS: Final = ("setup.js", "animations.js", "geometry.js", "output.js", "colour.js", "judge.js", "walk.js")

# Share of the caller's timeout given to the in-page walk before it stops on
# its own, and to CDP's hard termination of the evaluation; the rest is left
# for the round trips, so an overrun is reported as a timeout, not a hang.
_SOFT_SHARE: Final = 0.7
_HARD_SHARE: Final = 0.85
_DETACH_GRACE_SECONDS: Final = 0.5
_TERMINATED: Final = "Execution was terminated"
_BUDGET_REASONS: Final[Mapping[str, str]] = {
    "nodes": "dom_node_budget",
    "depth": "dom_depth_budget",
    "chars": "snapshot_html_budget",
}


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A serialized copy of a rendered page with hidden content marked.

    Attributes:
        html: the copy (doctype included); hidden elements carry
            ``data-pagewarden-hidden="<reason>"``, open shadow roots sit in
            ``data-pagewarden-shadow-root="open"`` wrappers.
        final_url: ``page.url`` when the snapshot was taken.
        node_count: nodes walked (elements, text, comments, shadow roots).
        hidden_count: markers placed (hidden elements plus wrapped texts).
        visible_text_chars: whitespace-collapsed characters of visible text.
        truncated: a node, depth or HTML budget stopped the walk; only
            returned with ``allow_truncated=True``, and callers must then fail
            closed.
        limitations: what this snapshot cannot see.
        hidden_reasons: ``(reason, count)`` pairs, sorted by reason.
    """

    html: str
    final_url: str
    node_count: int
    hidden_count: int
    visible_text_chars: int
    truncated: bool
    limitations: tuple[str, ...] = LIMITATIONS
    hidden_reasons: tuple[tuple[str, int], ...] = ()


@functools.cache
def _script() -> str:
    folder = importlib.resources.files(__package__).joinpath("visibility_js")
    return "".join(folder.joinpath(name).read_text(encoding="utf-8") for name in _PARTS)


def _expression(max_nodes: int, max_html_chars: int, max_depth: int, soft_ms: int) -> str:
    options = {
        "maxNodes": max_nodes, "maxChars": max_html_chars, "maxDepth": max_depth, "timeoutMs": soft_ms,
        "finishWithinMs": int(FINISH_WITHIN_SECONDS * 1000),
    }
    return f"({_script().strip().rstrip(';')})({json.dumps(options)})"


def _failed(message: str, url: str | None, reason: str = "visibility_failed") -> GuardFailed:
    return GuardFailed(message, reason=reason, url=url, stage="visibility")


@contextmanager
def _mapped_errors(url: str | None) -> Iterator[None]:
    """Translate Playwright and deadline errors into pagewarden errors (the one boundary)."""
    try:
        yield
    except PagewardenError:
        raise
    except TimeoutError as exc:  # anyio.fail_after; Playwright's TimeoutError is a PlaywrightError
        raise _failed("the visibility snapshot did not finish in time", url, "visibility_timeout") from exc
    except PlaywrightError as exc:
        # Not the message: it can quote page-controlled text (exception values).
        raise _failed(f"the visibility snapshot failed ({type(exc).__name__})", url) from exc


async def _evaluate(cdp: CDPSession, expression: str, hard_ms: int, url: str | None) -> Any:
    tree = await cdp.send("Page.getFrameTree")
    frame_id = tree["frameTree"]["frame"]["id"]
    world = await cdp.send(
        "Page.createIsolatedWorld",
        # "Univeral" is CDP's own spelling of the parameter.
        {"frameId": frame_id, "worldName": f"pagewarden-{secrets.token_hex(8)}", "grantUniveralAccess": False},
    )
    try:
        result = await cdp.send(
            "Runtime.evaluate",
            {
                "expression": expression,
                "contextId": world["executionContextId"],
                "returnByValue": True,
                "awaitPromise": False,
                "timeout": hard_ms,
            },
        )
    except PlaywrightError as exc:
        # CDP's own ``timeout`` ends the script with this protocol error.
        if _TERMINATED in str(exc):
            raise _failed("the visibility snapshot did not finish in time", url, "visibility_timeout") from exc
        raise
    if "exceptionDetails" in result:
        raise _failed("the visibility script raised or was terminated", url)
    return result.get("result", {}).get("value")


def _int_field(data: Mapping[str, Any], key: str, url: str | None) -> int:
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise _failed("the visibility script returned a malformed result", url)
    return value


def _check_positive(name: str, value: float) -> None:
    if isinstance(value, bool) or not value > 0 or not math.isfinite(value):
        raise InvalidInput(f"{name} must be a positive number", reason=f"invalid_{name}")


async def snapshot(
    page: Page,
    *,
    max_nodes: int = 100_000,
    max_html_chars: int = 2_000_000,
    max_depth: int = 512,
    timeout: float = 5.0,
    allow_truncated: bool = False,
    cdp: CDPSession | None = None,
) -> Snapshot:
    """Serialize ``page``'s main frame with hidden content marked, judged in an isolated world.

    Args:
        page: a loaded (and settled) Chromium page; the snapshot is taken once.
        max_nodes: nodes walked at most (elements, text, comments, shadow roots).
        max_html_chars: characters of serialized HTML at most.
        max_depth: element nesting at most (the static parser refuses deeper trees).
        timeout: seconds for the whole snapshot, CDP round trips included.
        allow_truncated: return a partial snapshot with ``truncated=True``
            instead of raising when a budget is hit.
        cdp: a CDP session of ``page`` to use (the render's own, which saves
            opening and detaching one); by default a session is opened for the
            snapshot and detached after it. Either way the script runs in a
            new isolated world.

    Raises:
        InvalidInput: a budget or the timeout is not positive.
        ResponseTooLarge: a budget was hit (``dom_node_budget``,
            ``dom_depth_budget``, ``snapshot_html_budget``).
        ContentInsufficient: the document holds no text at all (``empty_dom``).
        GuardFailed: ``visibility_timeout``, or ``visibility_failed`` for any
            other failure (closed page, crashed renderer, script error).
    """
    for name, value in (
        ("max_nodes", max_nodes),
        ("max_html_chars", max_html_chars),
        ("max_depth", max_depth),
        ("timeout", timeout),
    ):
        _check_positive(name, value)
    url = page.url
    soft_ms = max(1, int(timeout * 1000 * _SOFT_SHARE))
    hard_ms = max(1, int(timeout * 1000 * _HARD_SHARE))
    expression = _expression(max_nodes, max_html_chars, max_depth, soft_ms)
    # The detach has its own slice of the timeout, so the whole call (a
    # timed-out one included) returns within ``timeout``.
    detach_grace = min(_DETACH_GRACE_SECONDS, timeout * 0.1)
    own: CDPSession | None = None
    with _mapped_errors(url):
        try:
            with anyio.fail_after(timeout - detach_grace):
                if cdp is None:
                    cdp = own = await page.context.new_cdp_session(page)
                raw = await _evaluate(cdp, expression, hard_ms, url)
        finally:
            if own is not None:
                # Shielded: a timed-out snapshot still releases its session,
                # and a page that is already gone makes detach fail harmlessly.
                with anyio.move_on_after(detach_grace, shield=True), suppress(PlaywrightError):
                    await own.detach()
    return _to_snapshot(raw, url, max_html_chars, allow_truncated)


def _to_snapshot(raw: Any, url: str, max_html_chars: int, allow_truncated: bool) -> Snapshot:
    if not isinstance(raw, dict) or not isinstance(raw.get("html"), str):
        raise _failed("the visibility script returned a malformed result", url)
    if raw.get("hasDocument") is not True:
        raise ContentInsufficient(
            "the rendered page has no document element", reason="empty_dom", url=url, stage="visibility"
        )
    stopped = raw.get("stopped")
    if stopped == "time":
        raise _failed("the visibility snapshot did not finish in time", url, "visibility_timeout")
    html: str = raw["html"]
    if stopped is None and len(html) > max_html_chars:
        stopped = "chars"  # the closing tags and markers added after the last check
    if stopped is not None and stopped not in _BUDGET_REASONS:
        raise _failed("the visibility script returned a malformed result", url)
    reasons = raw.get("reasons")
    if not isinstance(reasons, dict) or not all(
        isinstance(k, str) and k in HIDDEN_REASONS and isinstance(v, int) for k, v in reasons.items()
    ):
        raise _failed("the visibility script returned a malformed result", url)
    counts = {key: _int_field(raw, key, url) for key in ("nodeCount", "hiddenCount", "visibleTextChars", "textChars")}
    if stopped is not None and not allow_truncated:
        raise ResponseTooLarge(
            "the rendered page exceeds a snapshot budget", reason=_BUDGET_REASONS[stopped], url=url, stage="visibility"
        )
    if stopped is None and counts["textChars"] == 0:
        raise ContentInsufficient("the rendered page holds no text", reason="empty_dom", url=url, stage="visibility")
    if stopped is not None:
        # A partial copy stays within the budget too; cutting can only drop
        # text (a hidden span cut open still parses as hidden).
        html = html[:max_html_chars]
    return Snapshot(
        html=html,
        final_url=url,
        node_count=counts["nodeCount"],
        hidden_count=counts["hiddenCount"],
        visible_text_chars=counts["visibleTextChars"],
        truncated=stopped is not None,
        limitations=LIMITATIONS,
        hidden_reasons=tuple(sorted(reasons.items())),
    )
