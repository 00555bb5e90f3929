"""Signs that a static page is the empty shell of a client-rendered app.

The auto-render controller escalates to the browser only when the guarded
static page has little readable content (below
:data:`ESCALATION_MAX_READABLE_CHARS`) *and* one of these signs is present; a
short page without them (a status page, a stub) is simply short. Each sign has
a name, recorded on the Document as ``fetch.escalation_reason``
(``client_rendered_<sign>``).

The signs are general, not a list of frameworks: an app may mount into
``#root``, a classed ``<section>``, ``<body>`` itself or a custom element, and
load as a classic, deferred or module script. In the order they are checked:

* ``empty_app_root``: a conventional app root (``#root``, ``#app``, ...)
  holding almost no text, with an executable script;
* ``framework_payload``: a framework's serialized state or bundle path;
* ``noscript_requires_javascript``: a ``<noscript>`` saying JavaScript is needed;
* ``custom_element``: an autonomous custom element (``<todo-app>``) in the
  body: its content comes from a script or a declarative shadow root;
* ``script_only_body``: executable scripts and a body with almost no text;
* ``noscript_notice``: any other ``<noscript>`` with text of its own;
* ``executable_script``: any script the browser would run (external, module or
  inline; JSON data blocks, import maps and templates are not).

The last three are general (:data:`GENERAL_SIGNS`): the pipeline acts on them
only when the static page is not readable as it is (below the reader's
``min_readable_chars``), so a short static page with an analytics script is
still returned as it is, with or without a browser. They also need the page
itself to be nearly empty: less than :data:`GENERIC_SIGN_MAX_PAGE_CHARS` characters of text in the
body outside its navigation, header, footer, asides and forms. A static page
full of text whose main content the extractor found short (a blog post with a
long comment thread, a news page of teasers) has scripts too, but nothing for
them to render; it is returned as it is.

The checks read the parsed tree only (no rendering, no script execution) and
cost a few XPath queries.
"""

from __future__ import annotations

import re
from typing import Final

import lxml.html

__all__ = [
    "CLIENT_RENDERED_SIGNS",
    "ESCALATION_MAX_READABLE_CHARS",
    "GENERAL_SIGNS",
    "GENERIC_SIGN_MAX_PAGE_CHARS",
    "client_rendered_sign",
]

# Above this much extracted text the static page is used as it is, whatever
# framework produced it (server-side rendering is common and sufficient).
ESCALATION_MAX_READABLE_CHARS = 500
# The general signs (custom elements, a noscript notice, executable scripts) count only when the page's
# own text outside its chrome is below this.
GENERIC_SIGN_MAX_PAGE_CHARS = 1000
# The general signs: the pipeline escalates on them only when the static page is not readable as it is
# (below the reader's min_readable_chars), so a short static page with a script still reads without a browser.
GENERAL_SIGNS: Final = frozenset({"custom_element", "noscript_notice", "executable_script"})
CLIENT_RENDERED_SIGNS: Final = (
    "empty_app_root",
    "framework_payload",
    "noscript_requires_javascript",
    "custom_element",
    "script_only_body",
    "noscript_notice",
    "executable_script",
)
# An app root with less text than this is considered empty (a spinner, a
# "Loading..." label).
_EMPTY_ROOT_CHARS = 120
_SCRIPT_ONLY_BODY_CHARS = 60
# A <noscript> with fewer characters than this is not a notice (a tracking pixel's alt text).
_NOSCRIPT_NOTICE_CHARS = 8
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
# The script types a browser executes (the HTML standard's JavaScript MIME type
# essences, the empty type and "module"); anything else is a data block.
_JS_TYPES: Final = frozenset({
    "", "module", "text/javascript", "application/javascript", "text/ecmascript", "application/ecmascript",
    "application/x-javascript", "application/x-ecmascript", "text/x-javascript", "text/x-ecmascript",
    "text/jscript", "text/livescript", "text/javascript1.0", "text/javascript1.1", "text/javascript1.2",
    "text/javascript1.3", "text/javascript1.4", "text/javascript1.5",
})
# A valid custom element name: a lowercase ASCII letter first and a hyphen somewhere.
# The names the HTML standard reserves (SVG and MathML elements with hyphens) are not custom elements.
_CUSTOM_ELEMENT = re.compile(r"^[a-z][a-z0-9._\u00b7\u00c0-\uffff]*-[a-z0-9._\u00b7\u00c0-\uffff-]*$")
_RESERVED_NAMES: Final = frozenset({
    "annotation-xml", "color-profile", "font-face", "font-face-src", "font-face-uri", "font-face-format",
    "font-face-name", "missing-glyph",
})


def _text_chars(element: lxml.html.HtmlElement) -> int:
    # XPath 1.0 in lxml lacks string-join; gather the text nodes instead.
    parts = element.xpath(
        ".//text()[not(ancestor::script or ancestor::style or ancestor::noscript or ancestor::template)]"
    )
    return len(" ".join(" ".join(str(part).split()) for part in parts).strip())


# Text of the page proper: not in scripts, styles, templates, nor in the site's chrome.
_PAGE_TEXT = (
    ".//text()[not(ancestor::script or ancestor::style or ancestor::noscript or ancestor::template"
    " or ancestor::nav or ancestor::header or ancestor::footer or ancestor::aside or ancestor::form"
    " or ancestor::*[@role='navigation' or @role='banner' or @role='contentinfo' or @role='complementary'])]"
)


def _page_text_chars(body: lxml.html.HtmlElement) -> int:
    total = 0
    for part in body.xpath(_PAGE_TEXT):
        total += len(" ".join(str(part).split()))
        if total >= GENERIC_SIGN_MAX_PAGE_CHARS:
            break
    return total


def _script_type(script: lxml.html.HtmlElement) -> str:
    # The type's essence: "text/javascript; charset=utf-8" runs, so does " Module ".
    return str(script.get("type") or "").split(";", 1)[0].strip().lower()


def _executable_scripts(tree: lxml.html.HtmlElement) -> int:
    """Scripts the browser would run: external ones and non-empty inline ones of a JavaScript type."""
    count = 0
    for script in tree.iter("script"):
        if _script_type(script) not in _JS_TYPES:
            continue
        if script.get("src") is not None or (script.text or "").strip():
            count += 1
    return count


def _has_custom_element(tree: lxml.html.HtmlElement) -> bool:
    for body in tree.iter("body"):
        for element in body.iter():
            tag = element.tag
            if isinstance(tag, str) and "-" in tag and tag not in _RESERVED_NAMES and _CUSTOM_ELEMENT.match(tag):
                return True
    return False


def client_rendered_sign(tree: lxml.html.HtmlElement) -> str | None:
    """Name the first sign that ``tree`` is a client-rendered shell, or ``None``.

    The names, in the order they are checked, are :data:`CLIENT_RENDERED_SIGNS`
    (see the module docstring). Call it only for a page whose readable content
    is below :data:`ESCALATION_MAX_READABLE_CHARS`: any page with a script has
    the ``executable_script`` sign.
    """
    scripts = _executable_scripts(tree) > 0
    if scripts and any(_text_chars(root) < _EMPTY_ROOT_CHARS for root in tree.xpath(_APP_ROOTS)):
        return "empty_app_root"
    if tree.xpath(_PAYLOAD_SCRIPTS):
        return "framework_payload"
    inline = "".join(str(text) for text in tree.xpath("//script[not(@src)]/text()"))[:_MAX_INLINE_SCRIPT_CHARS]
    if _STATE_ASSIGNMENT.search(inline):
        return "framework_payload"
    notices = [" ".join(noscript.text_content().split()) for noscript in tree.iter("noscript")]
    if any(_NEEDS_JS.search(notice) for notice in notices):
        return "noscript_requires_javascript"
    bodies = tree.xpath("//body")
    if bodies and _page_text_chars(bodies[0]) >= GENERIC_SIGN_MAX_PAGE_CHARS:
        # A page full of text of its own: nothing is left for a script to render.
        return None
    if _has_custom_element(tree):
        return "custom_element"
    if scripts and bodies and _text_chars(bodies[0]) < _SCRIPT_ONLY_BODY_CHARS:
        return "script_only_body"
    if any(len(notice) >= _NOSCRIPT_NOTICE_CHARS for notice in notices):
        return "noscript_notice"
    if scripts:
        return "executable_script"
    return None
