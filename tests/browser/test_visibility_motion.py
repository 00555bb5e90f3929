"""Visibility of content that is moving when the snapshot is taken: judged by its end state, both ways."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Page

from pagewarden._browser.visibility import snapshot
from tests.browser.test_visibility import _assert_verdicts, _page, anyio_backend, chromium, vis_page

__all__ = ["anyio_backend", "chromium", "vis_page"]

pytestmark = [pytest.mark.browser, pytest.mark.anyio]

FADE = "@keyframes fade-in { from { opacity: 0 } to { opacity: 1 } }"
# Each case: the page's CSS and body, the script that starts the motion right before the snapshot (in the
# page's world), and the verdicts once the motion is judged. Without the end-state judgement, every
# "ends visible" text below would be marked hidden (it is at opacity ~0 when the snapshot runs) and every
# "fades out" text would be read.
MOTION_CASES: list[dict[str, Any]] = [
    {
        "name": "fade-in of main content by a class added after load",
        "css": "main { opacity: 0; transition: opacity 1.5s ease-in } main.ready { opacity: 1 }",
        "html": "<main><h1>VIS fading title</h1><p>VIS fading article body</p></main>",
        "start": "document.querySelector('main').classList.add('ready')",
        "visible": ["VIS fading title", "VIS fading article body"],
    },
    {
        "name": "fade-out to opacity 0",
        "css": ".gone { opacity: 0; transition: opacity 1.5s linear }",
        "html": "<p id='t'>HID fading out</p>",
        "start": "document.getElementById('t').classList.add('gone')",
        "hidden": {"HID fading out": "opacity"},
    },
    {
        "name": "transition that never ends in practice",
        "css": "#t { opacity: 0; transition: opacity 100000s linear } #t.on { opacity: 1 }",
        "html": "<p id='t'>HID endless fade</p>",
        "start": "document.getElementById('t').classList.add('on')",
        "hidden": {"HID endless fade": "opacity"},
    },
    {
        "name": "transition delayed beyond the bound",
        "css": "#t { opacity: 0; transition: opacity 0.2s linear 600s } #t.on { opacity: 1 }",
        "html": "<p id='t'>HID delayed fade</p>",
        "start": "document.getElementById('t').classList.add('on')",
        "hidden": {"HID delayed fade": "opacity"},
    },
    {
        "name": "animation with fill-mode forwards ends visible",
        "css": FADE + " #t.go { opacity: 0; animation: fade-in 2s forwards }",
        "html": "<p id='t'>VIS filled forwards</p>",
        "start": "document.getElementById('t').classList.add('go')",
        "visible": ["VIS filled forwards"],
    },
    {
        "name": "animation without fill-mode falls back to opacity 0",
        "css": FADE + " #t.go { opacity: 0; animation: fade-in 2s }",
        "html": "<p id='t'>HID unfilled fade</p>",
        "start": "document.getElementById('t').classList.add('go')",
        "hidden": {"HID unfilled fade": "opacity"},
    },
    {
        "name": "endless animation holding the text invisible",
        "css": "@keyframes flicker { from { opacity: 0 } to { opacity: 0.05 } }"
               " #t.go { animation: flicker 1s infinite alternate }",
        "html": "<p id='t'>HID endless flicker</p>",
        "start": "document.getElementById('t').classList.add('go')",
        "hidden": {"HID endless flicker": "opacity"},
    },
    {
        "name": "script animation (Web Animations API) ending visible",
        "css": "#t { opacity: 0 }",
        "html": "<p id='t'>VIS scripted fade</p>",
        "start": "document.getElementById('t').animate([{opacity: 0}, {opacity: 1}],"
                 " {duration: 2000, fill: 'forwards'})",
        "visible": ["VIS scripted fade"],
    },
    {
        "name": "paused animation is judged as it stands",
        "css": "#t { opacity: 0 }",
        "html": "<p id='t'>HID paused fade</p>",
        "start": "document.getElementById('t').animate([{opacity: 0}, {opacity: 1}],"
                 " {duration: 2000, fill: 'forwards'}).pause()",
        "hidden": {"HID paused fade": "opacity"},
    },
    {
        "name": "fade-in inside an open shadow root",
        "css": "",
        "html": "<fade-card></fade-card>",
        "start": """(() => {
            const root = document.querySelector('fade-card').attachShadow({mode: 'open'});
            root.innerHTML = '<style>p { opacity: 0; transition: opacity 1.5s } p.in { opacity: 1 }</style>'
              + '<p>VIS shadow fade</p>';
            root.querySelector('p').getBoundingClientRect();
            root.querySelector('p').classList.add('in');
        })()""",
        "visible": ["VIS shadow fade"],
    },
    {
        "name": "scroll-driven fade-in below the fold",
        "css": "@keyframes appear { from { opacity: 0 } to { opacity: 1 } }"
               " .spacer { height: 3000px } #t.go { animation: appear linear both; animation-timeline: view();"
               " animation-range: entry 0% cover 40% }",
        "html": "<div class='spacer'></div><p id='t'>VIS scrolled into view</p>",
        "start": "document.getElementById('t').classList.add('go')",
        "visible": ["VIS scrolled into view"],
    },
    {
        "name": "scroll-driven animation holding the text invisible",
        "css": "@keyframes stay { from { opacity: 0 } to { opacity: 0 } }"
               " .spacer { height: 3000px } #t.go { animation: stay linear both; animation-timeline: view() }",
        "html": "<div class='spacer'></div><p id='t'>HID scroll-driven ghost</p>",
        "start": "document.getElementById('t').classList.add('go')",
        "hidden": {"HID scroll-driven ghost": "opacity"},
    },
    {
        "name": "slide-in with transform and opacity",
        "css": "#t { opacity: 0; transform: scale(0); transition: opacity 1s, transform 1s }"
               " #t.in { opacity: 1; transform: none }",
        "html": "<p id='t'>VIS sliding in</p>",
        "start": "document.getElementById('t').classList.add('in')",
        "visible": ["VIS sliding in"],
    },
]


@pytest.mark.parametrize("case", MOTION_CASES, ids=[case["name"] for case in MOTION_CASES])
async def test_motion_is_judged_by_its_end_state(vis_page: Page, case: dict[str, Any]) -> None:
    """A transition or animation running at snapshot time is judged by where it ends (or as it stands)."""
    await vis_page.set_content(_page(case["html"], case["css"]))
    # Start the motion and let one frame run, so it is under way (not yet at its end) when the snapshot runs.
    await vis_page.evaluate(
        "async (start) => { (0, eval)(start); await new Promise(r => requestAnimationFrame(() => r())); }",
        case["start"],
    )
    snap = await snapshot(vis_page)
    _assert_verdicts(snap.html, case.get("hidden", {}), case.get("visible", []))

