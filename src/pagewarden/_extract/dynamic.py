"""Signs that a static page is the empty shell of a client-rendered app.

The auto-render controller escalates to the browser only when the guarded
static page has little readable content *and* one of these signs is present;
a short page without them (a status page, a stub) is simply short. Each sign
has a name, recorded on the Document as ``fetch.escalation_reason``.

The checks read the parsed tree only (no rendering, no script execution) and
cost a few XPath queries.
"""

from __future__ import annotations

import re

import lxml.html

__all__ = ["ESCALATION_MAX_READABLE_CHARS", "client_rendered_sign"]

# Above this much extracted text the static page is used as it is, whatever
# framework produced it (server-side rendering is common and sufficient).
ESCALATION_MAX_READABLE_CHARS = 500
# An app root with less text than this is considered empty (a spinner, a
# "Loading..." label).
_EMPTY_ROOT_CHARS = 120
_SCRIPT_ONLY_BODY_CHARS = 60
_APP_ROOTS = (
    "//*[@id='root' or @id='app' or @id='__next' or @id='__nuxt' or @id='___gatsby' or @id='svelte'"
    " or @data-reactroot or @data-v-app or @ng-version]"
)
_PAYLOAD_SCRIPTS = (
    "//script[@id='__NEXT_DATA__' or @id='__NUXT_DATA__' or @data-nuxt-data or @id='__remixContext'"
    " or contains(@src, '/_next/static/') or contains(@src, '/_nuxt/')]"
)
_STATE_ASSIGNMENT = re.compile(
    r"window\.(__NUXT__|__INITIAL_STATE__|__APOLLO_STATE__|__PRELOADED_STATE__|__remixContext)\s*="
)
_NEEDS_JS = re.compile(
    r"(enable|turn on|activate)\s+javascript|javascript\s+(is\s+)?(required|disabled|needed|must be enabled)"
    r"|requires?\s+javascript|needs?\s+javascript",
    re.IGNORECASE,
)
_MAX_INLINE_SCRIPT_CHARS = 200_000


def _text_chars(element: lxml.html.HtmlElement) -> int:
    # XPath 1.0 in lxml lacks string-join; gather the text nodes instead.
    parts = element.xpath(
        ".//text()[not(ancestor::script or ancestor::style or ancestor::noscript or ancestor::template)]"
    )
    return len(" ".join(" ".join(str(part).split()) for part in parts).strip())


def _has_executable_scripts(tree: lxml.html.HtmlElement) -> bool:
    return bool(tree.xpath("//script[@src or @type='module']"))


def client_rendered_sign(tree: lxml.html.HtmlElement) -> str | None:
    """Name the first sign that ``tree`` is a client-rendered shell, or ``None``.

    Names: ``empty_app_root``, ``framework_payload``, ``noscript_requires_javascript``,
    ``script_only_body``.
    """
    scripts = _has_executable_scripts(tree)
    if scripts and any(_text_chars(root) < _EMPTY_ROOT_CHARS for root in tree.xpath(_APP_ROOTS)):
        return "empty_app_root"
    if tree.xpath(_PAYLOAD_SCRIPTS):
        return "framework_payload"
    inline = "".join(str(text) for text in tree.xpath("//script[not(@src)]/text()"))[:_MAX_INLINE_SCRIPT_CHARS]
    if _STATE_ASSIGNMENT.search(inline):
        return "framework_payload"
    if any(_NEEDS_JS.search(noscript.text_content()) for noscript in tree.xpath("//noscript")):
        return "noscript_requires_javascript"
    bodies = tree.xpath("//body")
    if scripts and bodies and _text_chars(bodies[0]) < _SCRIPT_ONLY_BODY_CHARS:
        return "script_only_body"
    return None
