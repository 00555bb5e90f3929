"""Plain-text and Markdown responses, used as they are.

A ``text/plain`` or ``text/markdown`` answer needs no boilerplate removal: its
body is the content. Two things still happen. Links are collected under the
same policy as for HTML, and in Markdown every link or image whose destination
the policy refuses loses its destination (the text stays), exactly as in the
HTML path. And the plain-text rendering of Markdown drops the link, image,
heading, emphasis and fence syntax so that ``text`` never carries Markdown.
"""

from __future__ import annotations

import re

from .._document import Metadata
from .._errors import PagewardenError
from .links import LinkFilter, LinkPolicy
from .result import Extraction, clean_field, extraction_failed, readable_length, strip_controls

__all__ = ["extract_plain", "markdown_to_text"]

MARKDOWN_TYPES = frozenset({"text/markdown", "text/x-markdown"})
# [text](destination "title") and ![alt](destination), one level of nested
# brackets in the text; <destination> in angle brackets may hold spaces.
_INLINE_LINK = re.compile(
    r"(?P<bang>!?)\[(?P<text>(?:[^\[\]\\]|\\.|\[[^\[\]]*\])*)\]"
    r"\(\s*(?P<dest><[^<>\n]*>|[^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*)(?P<title>\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)"
)
_AUTOLINK = re.compile(r"<(?P<dest>[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)>")
# [label]: destination "optional title", at the start of a line.
_REFERENCE = re.compile(
    r"^(?P<lead> {0,3}\[(?P<label>[^\]\n]+)\]:[ \t]*)(?P<dest><[^<>\n]*>|\S+)(?P<rest>.*)$", re.M
)
_BARE_URL = re.compile(r"\bhttps?://[^\s<>\"'`]+", re.I)
_TRAILING_PUNCT = ".,;:!?)]}'\""
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$", re.M)
_FENCE = re.compile(r"^ {0,3}(?:`{3,}|~{3,}).*$\n?", re.M)
_QUOTE = re.compile(r"^ {0,3}> ?", re.M)
_RULE = re.compile(r"^ {0,3}(?:[-*_][ \t]*){3,}$", re.M)
_EMPHASIS = re.compile(r"(\*{1,3}|_{1,3}|~~)(?=\S)(.+?)(?<=\S)\1")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def _destination(raw: str) -> str:
    return raw[1:-1] if raw.startswith("<") and raw.endswith(">") else raw


def _filter_markdown_links(markdown: str, policy: LinkPolicy) -> str:
    def inline(match: re.Match[str]) -> str:
        canonical = policy.decide(_destination(match["dest"]))
        if canonical is None:
            return match["text"]
        target = f"<{canonical}>" if any(ch in canonical for ch in " ()<>") else canonical
        return f"{match['bang']}[{match['text']}]({target}{match['title'] or ''})"

    def autolink(match: re.Match[str]) -> str:
        canonical = policy.decide(match["dest"])
        return f"<{canonical}>" if canonical is not None else ""

    def reference(match: re.Match[str]) -> str:
        canonical = policy.decide(_destination(match["dest"]))
        # A refused definition keeps its label and title, with no destination.
        return f"{match['lead']}{canonical or '#'}{match['rest']}"

    return _REFERENCE.sub(reference, _AUTOLINK.sub(autolink, _INLINE_LINK.sub(inline, markdown)))


def markdown_to_text(markdown: str) -> str:
    """A plain-text rendering of Markdown: the words stay, the syntax goes (best effort)."""
    text = _FENCE.sub("", markdown)
    text = _REFERENCE.sub("", text)
    text = _INLINE_LINK.sub(lambda match: match["text"], text)
    text = _AUTOLINK.sub(lambda match: match["dest"], text)
    text = _HEADING.sub(lambda match: match[2], text)
    text = _RULE.sub("", _QUOTE.sub("", text))
    text = _CODE_SPAN.sub(lambda match: match[2].strip(), text)
    text = _EMPHASIS.sub(lambda match: match[2], text)
    return _ESCAPE.sub(r"\1", text)


def _collect_bare_urls(text: str, policy: LinkPolicy) -> None:
    for match in _BARE_URL.finditer(text):
        policy.decide(match.group().rstrip(_TRAILING_PUNCT))


def _first_heading(markdown: str) -> str | None:
    match = _HEADING.search(markdown)
    return clean_field(match[2]) if match else None


def _extract(
    text: str, content_type: str, final_url: str, link_filter: LinkFilter, max_links: int
) -> Extraction:
    policy = LinkPolicy(final_url, link_filter, max_links)
    body = strip_controls(text)
    if content_type in MARKDOWN_TYPES:
        markdown = _filter_markdown_links(body, policy)
        plain = markdown_to_text(markdown)
        title = _first_heading(markdown)
    else:
        # Plain text is shown as it came; its URLs are listed, not rewritten.
        markdown = plain = body
        _collect_bare_urls(body, policy)
        title = None
    return Extraction(
        title=title,
        markdown=markdown,
        text=plain,
        metadata=Metadata(),
        links=policy.links,
        readable_chars=readable_length(plain),
    )


def extract_plain(
    text: str,
    *,
    content_type: str,
    final_url: str,
    link_filter: LinkFilter,
    max_links: int,
) -> Extraction:
    """Use a plain-text or Markdown body as the content.

    ``text/markdown`` keeps its Markdown (with refused link destinations
    removed) and gets a syntax-free ``text``; anything else is treated as plain
    text, identical in both renderings. Control characters are removed and line
    ends normalised in both cases.

    Raises:
        ContentInsufficient: ``reason="extraction_failed"`` if processing breaks.
    """
    try:
        return _extract(text, content_type, final_url, link_filter, max_links)
    except PagewardenError:
        raise
    except Exception:
        raise extraction_failed(final_url) from None
