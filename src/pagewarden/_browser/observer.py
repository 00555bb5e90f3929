"""The isolated-world DOM observer: when the DOM last changed, and whether it grew past the node bound.

One ``MutationObserver`` per document, in a CDP isolated world of the main
frame (page script shares the DOM but not that world's globals, so it can
neither see nor disconnect the observer). It is installed when each document
is created (:func:`observer_source`, registered per context by
:mod:`.fresh`), so it sees every change from the parser's first node on. It
keeps two things:

* the time of the last change to the DOM's nodes or text (child lists and
  character data, not attributes: an animated style is not new content),
  which settle reads as its quiet window (:mod:`.settle`);
* the node bound, checked *as the page builds its DOM*. Its callback runs at
  the end of the task that changed the DOM, before the browser lays out: a
  script that appends two million elements in one loop is seen over the bound
  right after its loop, not after the many seconds of style and layout such a
  DOM costs. Counting every element on every change would cost a large page
  dearly, so the callback counts only once 1,000 nodes were added or 50 ms
  passed since the last count. Over the bound, the count is kept, the
  observer disconnects (the page's further changes cost it no records) and
  the root element is hidden (``display: none``), so the renderer never
  computes styles for or lays out what the read is refused for; probes then report the kept
  count (:func:`probe_expression`) and the render fails with
  ``browser_dom_too_large`` while the page is still loading;
* the frame bound (:data:`MAX_FRAMES` nested frames in the document's window).
  Frames are refused by the policy, yet Chromium still creates each one (a
  synchronous round trip to the browser, ~10 ms on a loaded 2-core machine
  and more as their number grows) and the refused navigation of each passes
  the driver pipe every read of the browser shares, about twenty messages.
  A page of 1,000 iframes thus kept the browser and the pipe busy for seconds
  after its read had ended. Past the bound the observer stops the document's
  loading (``window.stop()``: the parser makes no further frame, the refused
  navigations in flight end) and keeps the frame count; the render then reads
  what was parsed so far, marked truncated (``window.stop()`` keeps
  DOMContentLoaded from coming, so the render ends the navigation itself when
  a probe reports the stop). Checked on every callback: ``window.length`` is a
  counter, and the parser yields (and the callback runs) every few frames.
  A callback cannot run inside a script loop, so frames that scripts make are
  bounded elsewhere: the init script refuses frame elements and frame markup
  past the bound (``capFrames`` in ``init_script.js``), and the render counts
  the frames the browser attaches and stops the page's scripts at the bound
  (:meth:`.fresh.FreshContext.stop_scripts`).

A probe is one ``Runtime.evaluate`` in that world answering
``[elements, ms since the last change, frames at the stop]`` (elements: the
larger of the current count and the count kept at the bound; frames: 0 while
the frame bound has not stopped the document). Where the observer is missing
(the world was made after the document), the probe installs it.
"""

from __future__ import annotations

import json
from typing import Final

__all__ = ["MAX_FRAMES", "observer_source", "probe_expression"]

# Nodes added, or milliseconds passed, between two element counts of the observer.
_COUNT_EVERY_NODES: Final = 1000
_COUNT_EVERY_MS: Final = 50
# Nested frames a document may create before its loading is stopped (see the module docstring). Above the
# 150 refused frames the hostile battery expects a page to render whole with; a page rarely has a tenth.
MAX_FRAMES: Final = 200
_INSTALL: Final = """
  let s = globalThis.__pagewardenSettle;
  if (!s) {
    const limit = %(limit)s;
    s = globalThis.__pagewardenSettle = { last: performance.now(), over: 0, counted: 0, added: 0, frames: 0 };
    const observer = new MutationObserver((records) => {
      const now = performance.now();
      s.last = now;
      if (window.length > %(frames)d) {
        // Again at every change past the bound (once loading has stopped, another stop costs nothing).
        s.frames = s.frames || window.length;
        window.stop();
      }
      if (s.over || limit === null) return;
      if (records.length < %(nodes)d) {
        for (const record of records) s.added += record.addedNodes.length;
      } else {
        s.added += records.length;
      }
      if (s.added < %(nodes)d && now - s.counted < %(ms)d) return;
      s.added = 0;
      const count = document.getElementsByTagName('*').length;
      s.counted = performance.now();
      if (count > limit) {
        s.over = count;
        observer.disconnect();
        const root = document.documentElement;
        if (root) root.style.setProperty('display', 'none', 'important');
      }
    });
    observer.observe(document, { childList: true, subtree: true, characterData: true });
  }"""


def _install(max_nodes: int | None) -> str:
    return _INSTALL % {
        "limit": json.dumps(max_nodes),
        "nodes": _COUNT_EVERY_NODES,
        "ms": _COUNT_EVERY_MS,
        "frames": MAX_FRAMES,
    }


def observer_source(max_nodes: int | None) -> str:
    """The script run in the isolated world as each document is created (``None``: no node bound)."""
    return "(() => {" + _install(max_nodes) + "\n})();"


def probe_expression(max_nodes: int | None) -> str:
    """One probe: installs the observer if missing; answers ``[elements, ms since the last change, frames stopped]``."""
    return (
        "(() => {"
        + _install(max_nodes)
        + "\n  const n = document.getElementsByTagName('*').length;"
        + "\n  return [Math.max(n, s.over), Math.max(0, Math.round(performance.now() - s.last)), s.frames];"
        + "\n})()"
    )
