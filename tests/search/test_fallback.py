"""fallback(): advance only after retryable failures; report the most informative failure."""

from __future__ import annotations

import pytest

from pagewarden import (
    BotChallenge,
    ConfigMissing,
    InvalidInput,
    NetworkError,
    PagewardenError,
    ParseChanged,
    RateLimited,
    Timeout,
    UnknownError,
    UnsafeURL,
    UpstreamHTTP,
)
from pagewarden._search.cooldown import Cooldowns
from pagewarden._search.fallback import fallback
from pagewarden._search.query import validate_query
from pagewarden._search.run import run_search
from tests.search.provider_fakes import ScriptedProvider, hits

pytestmark = pytest.mark.anyio

# (the first provider's failure, whether the chain moves on to the second)
ADVANCE_CASES: list[tuple[PagewardenError, bool]] = [
    (RateLimited("429"), True),
    (BotChallenge("challenge"), True),
    (Timeout("slow"), True),
    (NetworkError("down"), True),
    (ParseChanged("layout"), True),
    (UpstreamHTTP("503", status=503, retryable=True), True),
    (UpstreamHTTP("401", status=401, retryable=False), False),
    (InvalidInput("bad query"), False),
    (ConfigMissing("no key"), False),
    (UnknownError("bug"), False),
    (UnsafeURL("refused"), False),
]


ADVANCE_IDS = [f"{type(error).__name__}-{advances}" for error, advances in ADVANCE_CASES]


@pytest.mark.parametrize(("error", "advances"), ADVANCE_CASES, ids=ADVANCE_IDS)
async def test_advances_only_after_retryable_failures(error: PagewardenError, advances: bool) -> None:
    """The second provider is asked only when the first failed in a retryable way."""
    first = ScriptedProvider("first", error)
    second = ScriptedProvider("second", hits("https://example.com/"))
    chain = fallback([first, second])
    if advances:
        results = await run_search(chain, validate_query("q"), cooldowns=Cooldowns())
        assert results.provider == "second"
        assert [h.provider for h in results.hits] == ["second"]
    else:
        with pytest.raises(type(error)):
            await run_search(chain, validate_query("q"), cooldowns=Cooldowns())
    assert second.calls == (1 if advances else 0)


async def test_empty_result_does_not_advance() -> None:
    """An empty answer from the first provider is the answer."""
    first, second = ScriptedProvider("first", []), ScriptedProvider("second", hits("https://example.com/"))
    results = await run_search(fallback([first, second]), validate_query("q"), cooldowns=Cooldowns())
    assert results.hits == () and results.provider == "first"
    assert second.calls == 0


# (failures in chain order, the type raised when all fail)
ALL_FAIL_CASES: list[tuple[list[PagewardenError], type[PagewardenError]]] = [
    ([BotChallenge("c"), NetworkError("n")], BotChallenge),
    ([NetworkError("n"), BotChallenge("c")], BotChallenge),
    ([BotChallenge("c"), Timeout("t"), ParseChanged("p")], BotChallenge),
    ([RateLimited("r"), NetworkError("n")], RateLimited),
    ([ParseChanged("p"), Timeout("t")], ParseChanged),
    ([NetworkError("n"), Timeout("t")], Timeout),
    ([Timeout("t"), NetworkError("n")], Timeout),
]


@pytest.mark.parametrize(("failures", "expected"), ALL_FAIL_CASES)
async def test_most_informative_failure_is_raised(
    failures: list[PagewardenError], expected: type[PagewardenError]
) -> None:
    """When every member fails, a challenge beats weaker failures, whatever their order."""
    chain = fallback([ScriptedProvider(f"p{i}", error) for i, error in enumerate(failures)])
    with pytest.raises(expected):
        await run_search(chain, validate_query("q"), cooldowns=Cooldowns())


async def test_members_cool_down_separately() -> None:
    """A rate-limited member is skipped (not called) on the next search while the other answers."""
    first = ScriptedProvider("first", RateLimited("429", retry_after=30), hits("https://first.example/"))
    second = ScriptedProvider("second", hits("https://second.example/"))
    chain = fallback([first, second])
    cooldowns = Cooldowns()
    for _ in range(3):
        results = await run_search(chain, validate_query("q"), cooldowns=cooldowns)
        assert results.provider == "second"
    assert first.calls == 1 and second.calls == 3
    assert cooldowns.remaining("first") > 25
    assert cooldowns.remaining(chain.name) == 0


async def test_nested_chains() -> None:
    """A chain can be a member of another chain; the answering leaf is reported."""
    inner = fallback([ScriptedProvider("a", NetworkError("n")), ScriptedProvider("b", ParseChanged("p"))])
    outer = fallback([inner, ScriptedProvider("c", hits("https://example.com/"))])
    results = await run_search(outer, validate_query("q"), cooldowns=Cooldowns())
    assert results.provider == "c"


async def test_chain_works_as_a_plain_provider() -> None:
    """Called through the SearchProvider protocol alone, the chain still falls back."""
    chain = fallback([ScriptedProvider("a", Timeout("t")), ScriptedProvider("b", hits("https://example.com/"))])
    raw = await chain.search(validate_query("q"), deadline=1e12)
    assert [h.url for h in raw] == ["https://example.com/"]


@pytest.mark.parametrize(
    "members",
    [[], "ab", None, [object()], [ScriptedProvider("same"), ScriptedProvider("same")], [ScriptedProvider("x")] * 17],
)
def test_invalid_chains(members: object) -> None:
    """fallback() refuses empty, oversized, duplicate-named or non-provider members."""
    with pytest.raises(InvalidInput):
        fallback(members)  # type: ignore[arg-type]


def test_default_name_lists_members() -> None:
    """The chain's default name names its members."""
    assert fallback([ScriptedProvider("a"), ScriptedProvider("b")]).name == "fallback(a,b)"
