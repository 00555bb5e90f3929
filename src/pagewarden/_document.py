"""The result of a read: :class:`Document` and the records it carries."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from ._report import Decision, Finding

__all__ = ["Document", "FetchInfo", "Metadata", "PageLinks", "SecurityReport", "Timings"]


@dataclass(frozen=True, slots=True)
class Timings:
    """Where the time of a read went, in seconds.

    ``render`` is the time spent in the browser (queue, launch, navigation,
    settle and the visibility snapshot); the other stages add up over both
    the static read and, after an escalation, the rendered one.
    """

    total: float
    dns: float = 0.0
    connect: float = 0.0
    http: float = 0.0
    guard: float = 0.0
    extract: float = 0.0
    render: float = 0.0

    def to_dict(self) -> dict[str, float]:
        """JSON-ready form, rounded to microseconds."""
        return {name: round(getattr(self, name), 6) for name in self.__slots__}


@dataclass(frozen=True, slots=True)
class FetchInfo:
    """How the document was obtained.

    Attributes:
        method: ``http`` (static) or ``browser`` (rendered).
        status: the final HTTP status.
        content_type: the final media type, without parameters.
        charset: the character set the body was decoded with.
        compressed_bytes: bytes received on the wire (all hops).
        decoded_bytes: bytes of the final body after content decoding.
        redirects: number of redirects followed.
        timings: see :class:`Timings`.
        escalation_reason: why the browser was used, when it was.
    """

    method: Literal["http", "browser"]
    status: int
    content_type: str
    charset: str | None
    compressed_bytes: int
    decoded_bytes: int
    redirects: int
    timings: Timings
    escalation_reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "method": self.method,
            "status": self.status,
            "content_type": self.content_type,
            "charset": self.charset,
            "compressed_bytes": self.compressed_bytes,
            "decoded_bytes": self.decoded_bytes,
            "redirects": self.redirects,
            "timings": self.timings.to_dict(),
            "escalation_reason": self.escalation_reason,
        }


@dataclass(frozen=True, slots=True)
class Metadata:
    """Descriptive metadata found in the page (all untrusted, all optional)."""

    author: str | None = None
    date: str | None = None
    site_name: str | None = None
    language: str | None = None
    description: str | None = None

    def to_dict(self) -> dict[str, str | None]:
        """JSON-ready form."""
        return {name: getattr(self, name) for name in self.__slots__}


@dataclass(frozen=True, slots=True)
class PageLinks:
    """Every link of the whole page (navigation included), for crawling.

    :attr:`Document.links` lists the links of the readable content only; a
    crawler also needs the menus, footers and pagination around it.

    Attributes:
        links: absolute ``http(s)`` URLs of ``<a href>`` and ``<area href>``
            elements, in order, deduplicated, each accepted by the same
            DNS-free URL policy as :attr:`Document.links` (canonical form), at
            most ``limits.max_links``. A fragment route (``#/path`` or
            ``#!/path``, as hash-routing apps link) is kept; any other
            fragment (an in-page anchor) is removed, and a link that is only
            an in-page anchor is not listed.
        canonical: the page's ``<link rel="canonical">``, when the URL policy
            accepts it.
        refused: how many distinct ``http(s)`` links the URL policy refused
            (private or special addresses, local names, refused ports,
            credentials); links of other schemes are ignored, not counted.
    """

    links: tuple[str, ...] = ()
    canonical: str | None = None
    refused: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"links": list(self.links), "canonical": self.canonical, "refused": self.refused}


@dataclass(frozen=True, slots=True)
class SecurityReport:
    """The security facts of a document. Every document is untrusted and tainted.

    Attributes:
        trust: always ``"untrusted"``: page content is data, never instructions.
        tainted: always ``True``: anything derived from it stays untrusted.
        decision: the guard decision, merged over the built-in guard and any
            extra guards. With the default ``on_guard="raise"`` a returned
            document is ``allow`` or ``allow_with_warning`` (stricter decisions
            raise ``GUARD_DENIED``); with ``"redact"`` or ``"return"`` it may be
            ``require_approval`` or ``deny``: check it before use.
        findings: the guard findings.
        limitations: what the guard and transport could not check.
    """

    decision: Decision
    findings: tuple[Finding, ...] = ()
    limitations: tuple[str, ...] = ()
    trust: Literal["untrusted"] = "untrusted"
    tainted: Literal[True] = True

    @property
    def warning_categories(self) -> tuple[str, ...]:
        """Distinct non-benign finding categories."""
        return tuple(dict.fromkeys(f.category for f in self.findings if f.category != "benign_mention"))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (no page text)."""
        return {
            "trust": self.trust,
            "tainted": self.tainted,
            "decision": str(self.decision),
            "warning_categories": list(self.warning_categories),
            "findings": [f.to_dict() for f in self.findings],
            "limitations": list(self.limitations),
        }


@dataclass(frozen=True, slots=True)
class Document:
    """A page, read, guarded and extracted.

    Attributes:
        url: the URL as requested (fragment kept, it was never sent).
        final_url: the URL after redirects; cite this one.
        title: the page title, if any.
        markdown: the readable content as safe Markdown (bounded by
            ``max_characters``, links section included): images reduced to
            their alt text, raw HTML, comments, autolinks and reference
            definitions removed, links shown as their text and listed once,
            policy-filtered, in a closing "Links on this page" section. With
            ``on_guard="redact"``, blocks where a rule matched are replaced by
            ``[withheld by pagewarden: <category>]``.
        text: the same content as plain text (same bound).
        links: absolute, policy-filtered links found in the content.
        metadata: author, date, site name, language, description.
        retrieved_at: when the read finished (UTC).
        truncated: whether ``markdown``/``text`` were cut at ``max_characters``,
            or a rendered page was still loading content as it was scrolled
            when the browser policy's scroll bound stopped it.
        content_sha256: hex SHA-256 (UTF-8) of ``unsafe_raw_markdown``: the
            extracted content before safe rendering, redaction and
            truncation, so it identifies the page's content independently of
            ``max_characters``, ``on_guard`` and the rendering rules.
        fetch: how the page was obtained, see :class:`FetchInfo`.
        security: the guard's verdict, see :class:`SecurityReport`.
        page_links: the links of the whole page (navigation included) for
            crawling, see :class:`PageLinks`; empty for documents not built by
            a read.
        unsafe_raw_markdown: the extractor's Markdown, untruncated, with live
            links and (for Markdown pages) images and HTML as the page wrote
            them, and never redacted. For trusted code only (auditing,
            hashing); never hand it to a model. Left out of :meth:`to_dict`.
    """

    url: str
    final_url: str
    title: str | None
    markdown: str
    text: str
    links: tuple[str, ...]
    metadata: Metadata
    retrieved_at: datetime
    truncated: bool
    content_sha256: str
    fetch: FetchInfo
    security: SecurityReport = field(repr=False)
    page_links: PageLinks = field(default_factory=PageLinks, repr=False)
    unsafe_raw_markdown: str = field(default="", repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form of every public field except ``unsafe_raw_markdown``."""
        return {
            "url": self.url,
            "final_url": self.final_url,
            "title": self.title,
            "markdown": self.markdown,
            "text": self.text,
            "links": list(self.links),
            "metadata": self.metadata.to_dict(),
            "retrieved_at": self.retrieved_at.isoformat(),
            "truncated": self.truncated,
            "content_sha256": self.content_sha256,
            "fetch": self.fetch.to_dict(),
            "security": self.security.to_dict(),
            "page_links": self.page_links.to_dict(),
        }
