"""The one HTML parse refuses structurally oversized pages before building them."""

from __future__ import annotations

import pytest

import pagewarden
from pagewarden._html import MAX_NODES, parse_html


def test_too_many_elements_is_response_too_large() -> None:
    """More elements than MAX_NODES is RESPONSE_TOO_LARGE, decided before lxml parses."""
    page = "<html><body>" + "<b>x</b>" * (MAX_NODES + 1) + "</body></html>"
    with pytest.raises(pagewarden.ResponseTooLarge) as caught:
        parse_html(page)
    assert caught.value.reason == "html_node_limit"


def test_deep_nesting_is_bounded() -> None:
    """Absurd nesting is refused or flattened; the tree never grows past a few hundred levels."""
    depth = 3_000
    page = "<html><body>" + "<div>" * depth + "x" + "</div>" * depth + "</body></html>"
    root = parse_html(page)
    levels, node = 0, root
    while len(node):
        node, levels = node[0], levels + 1
    assert levels < 600


def test_empty_page_is_content_insufficient() -> None:
    """A blank body cannot be read and says so."""
    with pytest.raises(pagewarden.ContentInsufficient):
        parse_html("   \n ")


def test_comments_survive_the_parse() -> None:
    """Comments stay in the tree so the guard can inspect them."""
    root = parse_html("<html><body><!-- note --><p>text</p></body></html>")
    assert any(not isinstance(element.tag, str) for element in root.iter())
