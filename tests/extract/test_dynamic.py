"""Signs of a client-rendered shell, as a data table of pages and expected sign names."""

from __future__ import annotations

import pytest

from pagewarden._extract.dynamic import client_rendered_sign
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
    ("root with content", "<div id='root'>" + ARTICLE_BODY + "</div><script src='/hydrate.js'></script>", None),
    ("app root without scripts", "<div id='app'></div><p>Plain page, no scripts at all.</p>", None),
    ("noscript unrelated", "<noscript><img src='/pixel.gif'></noscript><p>Short page.</p>", None),
]


@pytest.mark.parametrize(("name", "body", "expected"), SIGN_CASES, ids=[case[0] for case in SIGN_CASES])
def test_client_rendered_signs(name: str, body: str, expected: str | None) -> None:
    """Each page shows exactly the expected sign (or none)."""
    tree = parse_html(f"<html><head><title>{name}</title></head><body>{body}</body></html>")
    assert client_rendered_sign(tree) == expected
