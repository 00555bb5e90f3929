"""Signs of a client-rendered shell, as a data table of pages and expected sign names."""

from __future__ import annotations

import pytest

from pagewarden._extract.dynamic import CLIENT_RENDERED_SIGNS, client_rendered_sign
from pagewarden._html import parse_html

ARTICLE_BODY = "<p>" + "A complete server-rendered paragraph about tides and moons. " * 12 + "</p>"

SIGN_CASES = [
    ("react root", "<div id='root'></div><script src='/static/js/main.js'></script>", "empty_app_root"),
    ("vue app with spinner", "<div id='app'>Loading…</div><script type='module' src='/a.js'></script>",
     "empty_app_root"),
    ("next payload", "<div id='__next'>" + ARTICLE_BODY + "</div>"
     "<script id='__NEXT_DATA__' type='application/json'>{}</script>", "framework_payload"),
    ("nuxt state", "<main>Short</main><script>window.__NUXT__={data:[]}</script>", "framework_payload"),
    ("noscript notice", "<noscript>You need to enable JavaScript to run this app.</noscript><p>x</p>",
     "noscript_requires_javascript"),
    ("script only", "<script src='/bundle.js'></script><footer>© 2026</footer>", "script_only_body"),
    ("static article", "<article>" + ARTICLE_BODY + "</article>", None),
    # Not an empty root; only the generic script sign (the pipeline asks only for pages below the threshold).
    ("root with content", "<div id='root'>" + ARTICLE_BODY + "</div><script src='/hydrate.js'></script>",
     "executable_script"),
    ("app root without scripts", "<div id='app'></div><p>Plain page, no scripts at all.</p>", None),
    ("noscript unrelated", "<noscript><img src='/pixel.gif'></noscript><p>Short page.</p>", None),
    ("mount into a classed section", "<section class='todoapp'></section><footer class='info'>"
     "<p>Double-click to edit a todo</p><p>Part of a demo of many frameworks</p></footer>"
     "<script defer src='/assets/index.js'></script>", "executable_script"),
    ("mount into body", "<script type='module' src='/build/bundle.js'></script>", "script_only_body"),
    ("mount into body, short footer", "<p>Written by someone who likes lists, ages ago.</p><p>Credits go here.</p>"
     "<script type='module'>import './app.js';</script>", "executable_script"),
    ("custom element", "<todo-app></todo-app><footer><p>Double-click to edit a todo, enter to save it.</p>"
     "</footer><script type='module' src='/app.js'></script>", "custom_element"),
    ("custom element, declarative shadow root", "<x-card><template shadowrootmode='open'><p>Card</p>"
     "</template></x-card><p>A static page around one card, long enough to pass the body test.</p>",
     "custom_element"),
    ("noscript notice in other words", "<noscript>Sorry, this site works best with scripts.</noscript>"
     "<p>Short page.</p>", "noscript_notice"),
    ("inline classic script", "<p>A short page whose footer text is long enough to not be an empty body.</p>"
     "<script>document.body.append('hello')</script>", "executable_script"),
    ("typed javascript with parameters", "<p>A short page whose footer text is long enough to not be empty.</p>"
     "<script type='text/javascript; charset=utf-8' src='/a.js'></script>", "executable_script"),
    ("json data blocks only", "<p>A short page with data blocks only, and no script that would ever run.</p>"
     "<script type='application/ld+json'>{\"@type\": \"Thing\"}</script>"
     "<script type='application/json' id='state'>{\"a\": 1}</script><script type='importmap'>{}</script>",
     None),
    ("empty inline script", "<p>A short page whose only script element is empty and runs nothing.</p>"
     "<script></script>", None),
    ("reserved hyphenated svg name", "<svg><font-face></font-face></svg><p>Short page.</p>", None),
    # A text-rich static page whose extracted main content is short: scripts, but nothing left to render.
    ("text-rich page with scripts", "<nav>" + "<a href='/x'>Section</a> " * 40 + "</nav><main>"
     + "<p>A teaser paragraph of a news front page, one of many on it.</p>" * 20 + "</main>"
     "<script src='/analytics.js'></script><todo-widget></todo-widget>", None),
    ("chrome-heavy shell with scripts", "<nav>" + "<a href='/x'>Section</a> " * 80 + "</nav><main></main>"
     "<footer>" + "<a href='/y'>Footer link</a> " * 60 + "</footer><script src='/app.js'></script>",
     "executable_script"),
]


@pytest.mark.parametrize(("name", "body", "expected"), SIGN_CASES, ids=[case[0] for case in SIGN_CASES])
def test_client_rendered_signs(name: str, body: str, expected: str | None) -> None:
    """Each page shows exactly the expected sign (or none)."""
    tree = parse_html(f"<html><head><title>{name}</title></head><body>{body}</body></html>")
    assert client_rendered_sign(tree) == expected


def test_every_sign_is_exercised_by_the_table() -> None:
    """The table covers every sign name the module can return."""
    assert {case[2] for case in SIGN_CASES} - {None} == set(CLIENT_RENDERED_SIGNS)
