"""Cooldowns: start, check, expiry, caps and Retry-After parsing, on a fake clock."""

from __future__ import annotations

import email.utils

import pytest

from pagewarden import InvalidInput, RateLimited
from pagewarden._search.cooldown import (
    DEFAULT_COOLDOWN,
    MAX_COOLDOWN,
    Cooldowns,
    clamp_cooldown,
    parse_retry_after,
)


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    """A fresh fake clock."""
    return FakeClock()


# (provider hint, seconds applied)
CLAMP_CASES: list[tuple[float | None, float]] = [
    (None, DEFAULT_COOLDOWN),
    (0, 0.0),
    (5, 5.0),
    (12.5, 12.5),
    (MAX_COOLDOWN, MAX_COOLDOWN),
    (MAX_COOLDOWN + 1, MAX_COOLDOWN),
    (10**9, MAX_COOLDOWN),
    (-3, DEFAULT_COOLDOWN),
    (float("nan"), DEFAULT_COOLDOWN),
    (float("inf"), MAX_COOLDOWN),
]


@pytest.mark.parametrize(("hint", "applied"), CLAMP_CASES)
def test_clamp_cooldown(hint: float | None, applied: float) -> None:
    """The provider's hint is used when sane, the default when absent, and never beyond the cap."""
    assert clamp_cooldown(hint) == applied


def test_no_cooldown_by_default(clock: FakeClock) -> None:
    """A provider that never failed is not cooling down."""
    cooldowns = Cooldowns(clock=clock)
    cooldowns.check("ddgs")
    assert cooldowns.remaining("ddgs") == 0.0


def test_check_raises_with_remaining_seconds_until_expiry(clock: FakeClock) -> None:
    """While cooling down, check() raises RATE_LIMITED with the seconds left; afterwards it passes."""
    cooldowns = Cooldowns(clock=clock)
    assert cooldowns.start("ddgs", None) == DEFAULT_COOLDOWN
    clock.now += 20
    with pytest.raises(RateLimited) as caught:
        cooldowns.check("ddgs")
    assert caught.value.retry_after == pytest.approx(DEFAULT_COOLDOWN - 20)
    assert caught.value.reason == "provider_cooling_down"
    clock.now += DEFAULT_COOLDOWN
    cooldowns.check("ddgs")


def test_cooldowns_are_per_provider(clock: FakeClock) -> None:
    """One provider cooling down does not block another."""
    cooldowns = Cooldowns(clock=clock)
    cooldowns.start("ddgs", 30)
    cooldowns.check("brave")
    with pytest.raises(RateLimited):
        cooldowns.check("ddgs")


def test_cooldowns_are_per_instance(clock: FakeClock) -> None:
    """Two readers' cooldown tables never influence each other (no process-wide state)."""
    first, second = Cooldowns(clock=clock), Cooldowns(clock=clock)
    first.start("ddgs", 30)
    second.check("ddgs")


def test_a_running_cooldown_is_never_shortened(clock: FakeClock) -> None:
    """A shorter later hint does not cut a longer running cooldown."""
    cooldowns = Cooldowns(clock=clock)
    cooldowns.start("brave", 100)
    cooldowns.start("brave", 5)
    assert cooldowns.remaining("brave") == pytest.approx(100)


def test_custom_default_and_cap(clock: FakeClock) -> None:
    """The default and the cap are configurable per table."""
    cooldowns = Cooldowns(default=2, cap=10, clock=clock)
    assert cooldowns.start("a", None) == 2
    assert cooldowns.start("b", 3600) == 10


def test_clear_forgets_everything(clock: FakeClock) -> None:
    """clear() ends every cooldown."""
    cooldowns = Cooldowns(clock=clock)
    cooldowns.start("a", 50)
    cooldowns.clear()
    cooldowns.check("a")


def test_table_is_bounded(clock: FakeClock) -> None:
    """Inventing provider names cannot grow the table without bound."""
    cooldowns = Cooldowns(clock=clock)
    for index in range(1_000):
        cooldowns.start(f"p{index}", 60)
    assert len(cooldowns._until) <= 256
    with pytest.raises(RateLimited):
        cooldowns.check("p999")


@pytest.mark.parametrize("bad", [-1, 86_401, "60", True])
def test_invalid_settings(bad: object) -> None:
    """Out-of-range defaults are INVALID_INPUT."""
    with pytest.raises(InvalidInput):
        Cooldowns(default=bad)  # type: ignore[arg-type]


NOW = 1_700_000_000.0
RETRY_AFTER_CASES: list[tuple[str | None, float | None]] = [
    (None, None),
    ("", None),
    ("0", 0.0),
    ("42", 42.0),
    (" 7 ", 7.0),
    ("999999", MAX_COOLDOWN),
    ("99999999999999999999", MAX_COOLDOWN),
    ("-5", None),
    ("1.5", None),
    ("soon", None),
    (email.utils.formatdate(NOW + 90, usegmt=True), 90.0),
    (email.utils.formatdate(NOW - 90, usegmt=True), 0.0),
    (email.utils.formatdate(NOW + 86_400, usegmt=True), MAX_COOLDOWN),
    ("x" * 100, None),
]


@pytest.mark.parametrize(("value", "seconds"), RETRY_AFTER_CASES)
def test_parse_retry_after(value: str | None, seconds: float | None) -> None:
    """Retry-After is read as delta-seconds or an HTTP date, capped, and garbage is ignored."""
    assert parse_retry_after(value, now=NOW) == seconds
