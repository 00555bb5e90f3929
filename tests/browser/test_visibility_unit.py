"""snapshot()'s boundary without a browser: CDP calls, error mapping and result checks (fake CDP session)."""

from __future__ import annotations

import inspect
import math
import time
from collections.abc import Callable
from typing import Any, cast

import anyio
import playwright._impl._errors as playwright_errors
import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from pagewarden._browser import visibility
from pagewarden._browser.visibility import HIDDEN_REASONS, LIMITATIONS, Snapshot, snapshot
from pagewarden._errors import ContentInsufficient, GuardFailed, InvalidInput, ResponseTooLarge

URL = "https://example.test/a?token=secret-value#frag"
GOOD: dict[str, Any] = {
    "hasDocument": True, "html": "<!DOCTYPE html><html><body><p>hi</p></body></html>", "nodeCount": 5,
    "hiddenCount": 1, "visibleTextChars": 2, "textChars": 9, "stopped": None, "reasons": {"opacity": 1},
}

Responder = Callable[[str, dict[str, Any]], Any]


class FakeSession:
    """Answers the three CDP calls snapshot() makes; records calls and detaches."""

    def __init__(self, evaluate: Responder) -> None:
        self.evaluate = evaluate
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.detached = 0
        self.detach_error: Exception | None = None

    async def send(self, method: str, params: dict[str, Any] | None = None) -> Any:
        params = params or {}
        self.calls.append((method, params))
        if method == "Page.getFrameTree":
            return {"frameTree": {"frame": {"id": "F1"}}}
        if method == "Page.createIsolatedWorld":
            return {"executionContextId": 77}
        result = self.evaluate(method, params)
        if inspect.isawaitable(result):
            result = await result
        return result

    async def detach(self) -> None:
        self.detached += 1
        if self.detach_error is not None:
            raise self.detach_error


class FakeContext:
    def __init__(self, session: FakeSession) -> None:
        self.session = session

    async def new_cdp_session(self, page: object) -> FakeSession:
        return self.session


class FakePage:
    def __init__(self, session: FakeSession) -> None:
        self.url = URL
        self.context = FakeContext(session)


def _page(value: Any = None, *, raises: BaseException | None = None) -> tuple[Page, FakeSession]:
    def evaluate(method: str, params: dict[str, Any]) -> Any:
        if raises is not None:
            raise raises
        return {"result": {"type": "object", "value": value}}

    session = FakeSession(evaluate)
    return cast(Page, FakePage(session)), session


def _with(**changes: Any) -> dict[str, Any]:
    return {**GOOD, **changes}


@pytest.mark.anyio
async def test_cdp_calls_use_an_isolated_world_without_universal_access() -> None:
    """The script runs in a fresh isolated world of the main frame, by value, under a CDP timeout."""
    page, session = _page(GOOD)
    snap = await snapshot(page, timeout=2.0)
    methods = [method for method, _ in session.calls]
    assert methods == ["Page.getFrameTree", "Page.createIsolatedWorld", "Runtime.evaluate"]
    world = session.calls[1][1]
    assert world["frameId"] == "F1"
    assert world["grantUniveralAccess"] is False
    assert world["worldName"].startswith("pagewarden-") and len(world["worldName"]) > len("pagewarden-") + 8
    evaluate = session.calls[2][1]
    assert evaluate["contextId"] == 77
    assert evaluate["returnByValue"] is True
    assert evaluate["awaitPromise"] is False
    assert 0 < evaluate["timeout"] < 2000
    assert "(function pagewardenSnapshot(options)" in evaluate["expression"]
    assert evaluate["expression"].endswith(
        '({"maxNodes": 100000, "maxChars": 2000000, "maxDepth": 512, "timeoutMs": 1400, "finishWithinMs": 5000})'
    )
    assert session.detached == 1
    assert snap == Snapshot(
        html=GOOD["html"], final_url=URL, node_count=5, hidden_count=1, visible_text_chars=2, truncated=False,
        limitations=LIMITATIONS, hidden_reasons=(("opacity", 1),),
    )


@pytest.mark.anyio
async def test_the_world_name_is_random_per_snapshot() -> None:
    """Each snapshot creates its own world with an unpredictable name."""
    page, session = _page(GOOD)
    await snapshot(page)
    await snapshot(page)
    names = [params["worldName"] for method, params in session.calls if method == "Page.createIsolatedWorld"]
    assert len(set(names)) == 2


# Every exception class Playwright defines must be mapped (a new one fails here).
PLAYWRIGHT_ERRORS = [
    cls for _, cls in inspect.getmembers(playwright_errors, inspect.isclass) if issubclass(cls, BaseException)
]


@pytest.mark.anyio
@pytest.mark.parametrize("error_class", PLAYWRIGHT_ERRORS, ids=lambda cls: cls.__name__)
async def test_every_playwright_error_becomes_visibility_failed(error_class: type[Exception]) -> None:
    """Each Playwright exception class is translated to GuardFailed(visibility_failed) without its message."""
    assert issubclass(error_class, PlaywrightError)
    page, session = _page(raises=error_class("Target closed: page-controlled text SECRET"))
    with pytest.raises(GuardFailed) as caught:
        await snapshot(page)
    assert caught.value.reason == "visibility_failed"
    assert caught.value.stage == "visibility"
    assert "SECRET" not in str(caught.value)
    assert caught.value.url is not None and "secret-value" not in caught.value.url
    assert session.detached == 1


@pytest.mark.anyio
async def test_cdp_termination_is_a_visibility_timeout() -> None:
    """CDP ending the script at its timeout ("Execution was terminated") is reported as visibility_timeout."""
    page, _ = _page(raises=PlaywrightError("Protocol error (Runtime.evaluate): Execution was terminated"))
    with pytest.raises(GuardFailed) as caught:
        await snapshot(page)
    assert caught.value.reason == "visibility_timeout"


@pytest.mark.anyio
async def test_a_hanging_session_times_out_within_the_timeout_and_detaches() -> None:
    """A CDP call that never answers ends in visibility_timeout within the timeout, and the session is detached."""

    async def hang(method: str, params: dict[str, Any]) -> Any:
        await anyio.sleep_forever()

    session = FakeSession(hang)
    started = time.monotonic()
    with pytest.raises(GuardFailed) as caught:
        await snapshot(cast(Page, FakePage(session)), timeout=0.5)
    assert caught.value.reason == "visibility_timeout"
    assert time.monotonic() - started <= 0.55
    assert session.detached == 1


@pytest.mark.anyio
async def test_a_failing_detach_does_not_hide_the_result() -> None:
    """A detach that fails (page already gone) is ignored; the snapshot is still returned."""
    page, session = _page(GOOD)
    session.detach_error = PlaywrightError("Target closed")
    assert (await snapshot(page)).node_count == 5


@pytest.mark.anyio
async def test_script_exception_is_visibility_failed() -> None:
    """An exception inside the script (exceptionDetails) is GuardFailed(visibility_failed)."""
    session = FakeSession(lambda m, p: {"result": {"type": "object"}, "exceptionDetails": {"text": "Uncaught"}})
    with pytest.raises(GuardFailed) as caught:
        await snapshot(cast(Page, FakePage(session)))
    assert caught.value.reason == "visibility_failed"


MALFORMED = [
    ("none", None),
    ("list", [1, 2]),
    ("html_missing", {k: v for k, v in GOOD.items() if k != "html"}),
    ("html_not_string", _with(html=5)),
    ("count_negative", _with(nodeCount=-1)),
    ("count_bool", _with(hiddenCount=True)),
    ("count_float", _with(textChars=1.5)),
    ("reasons_unknown", _with(reasons={"made_up": 1})),
    ("reasons_not_dict", _with(reasons=["opacity"])),
    ("stopped_unknown", _with(stopped="weird")),
]


@pytest.mark.anyio
@pytest.mark.parametrize(("name", "value"), MALFORMED, ids=[name for name, _ in MALFORMED])
async def test_malformed_results_are_visibility_failed(name: str, value: Any) -> None:
    """A result not of the expected shape is a guard failure, never a half-trusted snapshot."""
    page, _ = _page(value)
    with pytest.raises(GuardFailed) as caught:
        await snapshot(page)
    assert caught.value.reason == "visibility_failed"


BUDGETS = [("nodes", "dom_node_budget"), ("depth", "dom_depth_budget"), ("chars", "snapshot_html_budget")]


@pytest.mark.anyio
@pytest.mark.parametrize(("stopped", "reason"), BUDGETS)
async def test_budget_stops_raise_or_return_truncated(stopped: str, reason: str) -> None:
    """A budget stop raises ResponseTooLarge with its reason, or with allow_truncated returns truncated=True."""
    page, _ = _page(_with(stopped=stopped))
    with pytest.raises(ResponseTooLarge) as caught:
        await snapshot(page)
    assert caught.value.reason == reason
    partial = await snapshot(page, allow_truncated=True, max_html_chars=20)
    assert partial.truncated
    assert partial.html == GOOD["html"][:20]


@pytest.mark.anyio
async def test_html_over_the_budget_after_the_walk_is_refused() -> None:
    """The returned HTML is re-checked against max_html_chars in Python."""
    page, _ = _page(_with(html="x" * 101))
    with pytest.raises(ResponseTooLarge) as caught:
        await snapshot(page, max_html_chars=100)
    assert caught.value.reason == "snapshot_html_budget"


@pytest.mark.anyio
async def test_in_page_deadline_is_a_visibility_timeout() -> None:
    """The script stopping at its own soft deadline is visibility_timeout, even when truncation is allowed."""
    page, _ = _page(_with(stopped="time"))
    with pytest.raises(GuardFailed) as caught:
        await snapshot(page, allow_truncated=True)
    assert caught.value.reason == "visibility_timeout"


EMPTY = [("no_document", _with(hasDocument=False, html="")), ("no_text", _with(textChars=0))]


@pytest.mark.anyio
@pytest.mark.parametrize(("name", "value"), EMPTY, ids=[name for name, _ in EMPTY])
async def test_empty_documents_are_content_insufficient(name: str, value: dict[str, Any]) -> None:
    """No document element, or no text at all, is ContentInsufficient(empty_dom)."""
    page, _ = _page(value)
    with pytest.raises(ContentInsufficient) as caught:
        await snapshot(page)
    assert caught.value.reason == "empty_dom"


BAD_ARGUMENTS = [
    ("max_nodes", 0), ("max_nodes", -5), ("max_html_chars", 0), ("max_depth", 0), ("timeout", 0.0),
    ("timeout", -1.0), ("timeout", math.nan), ("timeout", math.inf), ("max_nodes", True),
]


@pytest.mark.anyio
@pytest.mark.parametrize(("name", "value"), BAD_ARGUMENTS)
async def test_bad_arguments_are_invalid_input(name: str, value: Any) -> None:
    """Budgets and the timeout must be positive finite numbers; nothing is sent to CDP otherwise."""
    page, session = _page(GOOD)
    with pytest.raises(InvalidInput) as caught:
        await snapshot(page, **{name: value})
    assert caught.value.reason == f"invalid_{name}"
    assert session.calls == []


def test_script_is_package_data_and_reasons_match() -> None:
    """The script loads through importlib.resources and names exactly the Python reason vocabulary."""
    script = visibility._script()
    assert script.lstrip().startswith("//")
    for reason in HIDDEN_REASONS:
        assert f'"{reason}"' in script, reason

