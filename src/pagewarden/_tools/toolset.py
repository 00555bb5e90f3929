"""The model-facing toolset: tool definitions for each API and an executor whose output is safe for a model.

``Toolset.execute(name, arguments)`` never raises for anything a model can
cause: bad arguments, an unknown tool, a refused URL, a guard refusal, a
spent budget and even an unexpected failure all come back as
``{"error": {"code", "message", "retryable", ...}}``. Only cancellation
propagates.

Reads always use ``on_guard="raise"`` semantics: whatever the reader's own
``on_guard``, a document whose decision withholds it (``require_approval``,
``deny``) is refused with ``GUARD_DENIED`` and its text never leaves.

Canaries: every toolset draws its own :attr:`Toolset.canary` (see
:mod:`.canary`). ``execute()`` refuses, before validating or running
anything, a call whose arguments contain any live canary in any of the
detected forms: ``GUARD_DENIED`` with reason ``canary_in_tool_arguments`` and
category ``exfiltration``, audit-logged without the arguments.
:meth:`Toolset.check_output` looks at the model's own output (category
``extraction``).
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from .._document import Document
from .._errors import GuardDenied, InvalidInput, PagewardenError, UnknownError
from . import formats
from .audit import AuditLog, AuditRecord, Writable
from .budget import BudgetCounter, ToolBudget
from .canary import Canary, CanaryCheck, find_canaries
from .output import next_boundary, page_result, search_result, stored_result, tool_error
from .protocol import ToolReader
from .schemas import (
    DEFAULT_FETCH_CHARACTERS,
    DEFAULT_SEARCH_LIMIT,
    FETCH_CONTENT,
    FETCH_MORE,
    MAX_QUERY_CHARS,
    SEARCH_READ_PAGES,
    TOOL_SPECS,
    WEB_SEARCH,
    ToolSpec,
)
from .store import DEFAULT_MAX_DOCUMENTS, DEFAULT_TTL, DocumentStore
from .validate import validate_arguments

__all__ = ["STORED_CHARACTERS", "Toolset", "toolset_for"]

logger = logging.getLogger("pagewarden.tools")

# A fetch reads up to this many characters (the reader's maximum) and keeps
# them in the store; fetch_content returns the first page, fetch_more the rest.
STORED_CHARACTERS = 100_000
REQUESTED_USE = "answer_with_citation"
MAX_ARGUMENT_JSON_CHARS = 20_000


class Toolset:
    """``web_search``, ``fetch_content`` and ``fetch_more`` over one :class:`AsyncReader`.

    Build it with :func:`toolset_for` (or ``reader.toolset()``). The toolset
    does not own the reader: close the reader as usual. It owns a bounded
    in-memory document store (for ``fetch_more``), the session budget and
    the audit log.
    """

    def __init__(
        self,
        reader: ToolReader,
        *,
        budget: ToolBudget | None = None,
        audit_log: str | os.PathLike[str] | Writable | None = None,
        max_documents: int = DEFAULT_MAX_DOCUMENTS,
        document_ttl: float = DEFAULT_TTL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not isinstance(reader, ToolReader):
            raise InvalidInput("toolset_for needs a pagewarden.AsyncReader", reason="invalid_reader")
        if budget is not None and not isinstance(budget, ToolBudget):
            raise InvalidInput("budget must be a ToolBudget or None", reason="invalid_budget")
        self._reader = reader
        self._budget = BudgetCounter(budget if budget is not None else ToolBudget())
        self._audit = AuditLog(audit_log) if audit_log is not None else None
        self._store = DocumentStore(max_documents=max_documents, ttl=document_ttl, clock=clock)
        self._handlers: dict[str, Callable[[dict[str, Any], AuditRecord], Awaitable[dict[str, Any]]]] = {
            WEB_SEARCH.name: self._web_search,
            FETCH_CONTENT.name: self._fetch_content,
            FETCH_MORE.name: self._fetch_more,
            SEARCH_READ_PAGES.name: self._search_read_pages,
        }
        self._canary = Canary()

    # -- definitions ---------------------------------------------------------

    @property
    def search_enabled(self) -> bool:
        """Whether the reader has a search provider (otherwise ``web_search`` is not offered)."""
        return self._reader.config.search is not None

    @property
    def store_enabled(self) -> bool:
        """Whether the reader keeps a read store (otherwise ``search_read_pages`` is not offered)."""
        return self._reader.store.config.enabled

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        """The tools offered, in order (``web_search`` with a search provider, ``search_read_pages`` with a store)."""
        return tuple(
            spec
            for spec in TOOL_SPECS
            if (spec is not WEB_SEARCH or self.search_enabled)
            and (spec is not SEARCH_READ_PAGES or self.store_enabled)
        )

    @property
    def canary(self) -> str:
        """This session's canary token, to plant in the system prompt (opaque, 24 characters)."""
        return self._canary.token

    def check_output(self, text: str) -> CanaryCheck:
        """Whether ``text`` (the model's output) contains a live canary; a leak is audit-logged (``extraction``)."""
        if not isinstance(text, str):
            raise InvalidInput("check_output needs the model's output as text", reason="invalid_output_text")
        check = find_canaries(text, self._canary)
        if check.leaked:
            record = AuditRecord("model_output")
            record.set(
                outcome="canary_leak", categories=["extraction"], forms=list(check.forms), own_canary=check.own
            )
            logger.warning("pagewarden canary found in model output (forms: %s)", ",".join(check.forms))
            self._write_audit(record)
        return check

    @property
    def names(self) -> tuple[str, ...]:
        """The names of the offered tools."""
        return tuple(spec.name for spec in self.specs)

    @property
    def budget_used(self) -> dict[str, int]:
        """Calls counted against the budget so far, per tool."""
        return dict(self._budget.used)

    def openai_responses_definitions(self) -> list[dict[str, Any]]:
        """Tool definitions for the OpenAI Responses API (``tools=``), strict."""
        return formats.openai_responses(self.specs)

    def openai_chat_completions_definitions(self) -> list[dict[str, Any]]:
        """Tool definitions for the OpenAI Chat Completions API (``tools=``), strict."""
        return formats.openai_chat_completions(self.specs)

    def anthropic_definitions(self) -> list[dict[str, Any]]:
        """Tool definitions for the Anthropic Messages API (``tools=``)."""
        return formats.anthropic(self.specs)

    def bedrock_definitions(self) -> list[dict[str, Any]]:
        """``toolConfig["tools"]`` for the Amazon Bedrock Converse API."""
        return formats.bedrock(self.specs)

    # -- execution -----------------------------------------------------------

    async def execute(self, name: str, arguments: Mapping[str, Any] | str | None) -> dict[str, Any]:
        """Run tool ``name`` with ``arguments`` (a mapping, or the JSON text a model produced).

        Returns the tool's JSON-serializable result, or ``{"error": {...}}``
        with the library's error code, a bounded message and ``retryable``
        (plus ``retry_after``, ``guard_decision`` and ``warning_categories``
        when they apply). Never raises except on cancellation.
        """
        record = AuditRecord(name if isinstance(name, str) else "<invalid>")
        started = time.perf_counter()
        result: dict[str, Any] | None = None
        try:
            result = await self._run(name, arguments, record)
            record.set(outcome="ok")
        except PagewardenError as error:
            result = tool_error(error)
            record.set(
                outcome="error",
                error_code=str(error.code),
                reason=error.reason,
                decision=error.guard_decision,
                categories=list(error.warning_categories),
            )
        except Exception as exc:  # a bug must not reach the model loop as an exception
            logger.error("pagewarden tool %r failed unexpectedly: %s", record.fields["tool"], type(exc).__name__)
            unknown = UnknownError("the tool failed unexpectedly", reason="internal_error")
            result = tool_error(unknown)
            record.set(outcome="error", error_code=str(unknown.code), reason=unknown.reason)
        finally:
            record.set(duration_ms=round((time.perf_counter() - started) * 1000, 3))
            if result is None:
                record.set(outcome="cancelled")
            self._write_audit(record)
        return result

    def _write_audit(self, record: AuditRecord) -> None:
        if self._audit is None:
            return
        try:
            self._audit.write(record)
        except OSError as exc:
            logger.error("pagewarden tool audit log could not be written: %s", type(exc).__name__)

    async def _run(self, name: object, arguments: object, record: AuditRecord) -> dict[str, Any]:
        decoded = _decode(arguments)
        self._refuse_canaries(arguments, decoded, record)
        spec = next((s for s in self.specs if s.name == name), None)
        if spec is None:
            raise InvalidInput("unknown tool; available: " + ", ".join(self.names), reason="unknown_tool")
        checked = validate_arguments(spec.parameters, decoded)
        return await self._handlers[spec.name](checked, record)

    def _refuse_canaries(self, raw: object, decoded: object, record: AuditRecord) -> None:
        texts = [raw] if isinstance(raw, str) else []
        try:
            texts.append(json.dumps(decoded, ensure_ascii=False, default=str))
        except (TypeError, ValueError):
            texts.append(str(decoded))
        check = find_canaries("\n".join(texts), self._canary)
        if not check.leaked:
            return
        record.set(forms=list(check.forms), own_canary=check.own)
        logger.warning("pagewarden refused a tool call carrying a canary (forms: %s)", ",".join(check.forms))
        raise GuardDenied(
            "the tool call was refused: its arguments contain this application's canary token (exfiltration)",
            reason="canary_in_tool_arguments",
            stage="tools",
            guard_decision="deny",
            warning_categories=("exfiltration",),
        )

    async def _search_read_pages(self, args: dict[str, Any], record: AuditRecord) -> dict[str, Any]:
        record.query(args["query"])
        query = args["query"].strip()
        if not 1 <= len(query) <= MAX_QUERY_CHARS:
            raise InvalidInput(f"query must be 1..{MAX_QUERY_CHARS} characters", reason="invalid_query")
        limit = args["limit"] if args["limit"] is not None else DEFAULT_SEARCH_LIMIT
        hits = self._reader.store.search(query, limit=limit)
        record.set(hits=len(hits))
        return stored_result(hits)

    async def _web_search(self, args: dict[str, Any], record: AuditRecord) -> dict[str, Any]:
        record.query(args["query"])
        query = args["query"].strip()
        if not 1 <= len(query) <= MAX_QUERY_CHARS:
            raise InvalidInput(f"query must be 1..{MAX_QUERY_CHARS} characters", reason="invalid_query")
        limit = args["limit"] if args["limit"] is not None else DEFAULT_SEARCH_LIMIT
        self._budget.spend(WEB_SEARCH.name)
        results = await self._reader.search(
            query, limit=limit, language=args["language"], region=args["region"], time_range=args["time_range"]
        )
        hits = results.hits[:limit]
        record.set(hits=len(hits), withheld=results.withheld, provider=results.provider)
        return search_result(hits, withheld=results.withheld, provider=results.provider)

    async def _fetch_content(self, args: dict[str, Any], record: AuditRecord) -> dict[str, Any]:
        url = args["url"]
        record.url(url)
        size = args["max_characters"] if args["max_characters"] is not None else DEFAULT_FETCH_CHARACTERS
        # null means the reader's default render mode (pagewarden mcp --render).
        render = args["render"] if args["render"] is not None else self._reader.config.default_render
        record.set(render=render)
        self._budget.spend(FETCH_CONTENT.name)
        document = await self._reader.read(
            url, render=render, max_characters=STORED_CHARACTERS, requested_use=REQUESTED_USE
        )
        record.url(document.final_url)
        security = document.security
        record.set(
            decision=str(security.decision),
            categories=list(security.warning_categories),
            method=document.fetch.method,
            timings_ms={k: round(v * 1000, 3) for k, v in document.fetch.timings.to_dict().items()},
        )
        if security.decision.withholds:
            # The reader's on_guard may be "redact" or "return"; tools never hand such content over.
            raise GuardDenied(
                f"the content guard withheld the page ({security.decision})",
                reason=f"guard_{security.decision}",
                url=document.final_url,
                stage="guard",
                guard_decision=str(security.decision),
                warning_categories=security.warning_categories,
            )
        key = self._store.put(document)
        return self._page(key, document, 0, size, record)

    async def _fetch_more(self, args: dict[str, Any], record: AuditRecord) -> dict[str, Any]:
        self._budget.spend(FETCH_MORE.name)
        key, continuation = self._store.resolve(args["cursor"])
        document = continuation.document
        record.url(document.final_url)
        record.set(decision=str(document.security.decision), categories=list(document.security.warning_categories))
        size = args["max_characters"] if args["max_characters"] is not None else continuation.page_size
        return self._page(key, document, continuation.offset, size, record)

    def _page(self, key: str, document: Document, start: int, size: int, record: AuditRecord) -> dict[str, Any]:
        end = next_boundary(document.markdown, start, size)
        cursor = self._store.cursor(key, end, size) if end < len(document.markdown) else None
        record.set(characters=end - start, more=cursor is not None)
        return page_result(document, start, end, cursor)

    def clear(self) -> None:
        """Forget every stored document; outstanding cursors stop working."""
        self._store.clear()


def _decode(arguments: object) -> object:
    if arguments is None:
        return {}
    if isinstance(arguments, str):
        # OpenAI hands function arguments over as JSON text.
        if len(arguments) > MAX_ARGUMENT_JSON_CHARS:
            raise InvalidInput("tool arguments are too long", reason="arguments_too_long")
        try:
            return json.loads(arguments)
        except ValueError:
            raise InvalidInput("tool arguments are not valid JSON", reason="invalid_arguments_json") from None
    return arguments


def toolset_for(
    reader: ToolReader,
    *,
    budget: ToolBudget | None = None,
    audit_log: str | os.PathLike[str] | Writable | None = None,
    max_documents: int = DEFAULT_MAX_DOCUMENTS,
    document_ttl: float = DEFAULT_TTL,
) -> Toolset:
    """Build the :class:`Toolset` of ``reader``.

    Args:
        reader: the reader the tools read and search with.
        budget: the session's call caps (default :class:`ToolBudget()`:
            50 fetches, 20 searches, 200 continuations).
        audit_log: a path or a writable text file for the JSONL audit log,
            or ``None`` for no log.
        max_documents: documents kept for ``fetch_more`` (least recently used
            dropped first).
        document_ttl: seconds a stored document (and its cursors) lives.
    """
    return Toolset(
        reader, budget=budget, audit_log=audit_log, max_documents=max_documents, document_ttl=document_ttl
    )
