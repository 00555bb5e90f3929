"""Per-provider cooldowns: after a rate limit or a challenge, fail fast instead of hammering.

A :class:`Cooldowns` belongs to one reader (there is no process-wide state:
two readers never cool each other down). :meth:`Cooldowns.start` records
"do not call provider X before t", taking the provider's ``Retry-After`` when
it gave one, else :data:`DEFAULT_COOLDOWN` seconds, always capped at
:data:`MAX_COOLDOWN` (a hostile or broken ``Retry-After: 999999`` must not
disable search for days). :meth:`Cooldowns.check` raises ``RATE_LIMITED``
with the remaining seconds while the cooldown runs.

The clock is monotonic (wall-clock jumps neither shorten nor lengthen a
cooldown) and injectable for tests.
"""

from __future__ import annotations

import email.utils
import math
import time
from collections.abc import Callable

from .._errors import InvalidInput, RateLimited

__all__ = ["DEFAULT_COOLDOWN", "MAX_COOLDOWN", "Cooldowns", "clamp_cooldown", "parse_retry_after"]

DEFAULT_COOLDOWN = 60.0
MAX_COOLDOWN = 300.0
# A name table bounded so a caller inventing provider names cannot grow it forever.
_MAX_TRACKED = 256


def clamp_cooldown(seconds: float | None, *, default: float = DEFAULT_COOLDOWN, cap: float = MAX_COOLDOWN) -> float:
    """The cooldown to apply for a provider hint of ``seconds`` (``None``, negative or NaN -> ``default``)."""
    if seconds is None or isinstance(seconds, bool) or not isinstance(seconds, int | float):
        return min(default, cap)
    value = float(seconds)
    if math.isnan(value) or value < 0:
        return min(default, cap)
    return min(value, cap)


class Cooldowns:
    """Cooldown deadlines per provider name, for one reader.

    Args:
        default: seconds used when the provider gave no ``Retry-After``.
        cap: the longest cooldown ever applied.
        clock: a monotonic clock in seconds (``time.monotonic`` by default).
    """

    def __init__(
        self,
        *,
        default: float = DEFAULT_COOLDOWN,
        cap: float = MAX_COOLDOWN,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        for name, value in (("default", default), ("cap", cap)):
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 86_400:
                raise InvalidInput(f"cooldown {name} must be 0..86400 seconds", reason="invalid_cooldown")
        self._default = float(default)
        self._cap = float(cap)
        self._clock = clock
        self._until: dict[str, float] = {}

    def remaining(self, provider_name: str) -> float:
        """Seconds left in ``provider_name``'s cooldown (0.0 when none is running)."""
        until = self._until.get(provider_name)
        if until is None:
            return 0.0
        left = until - self._clock()
        if left <= 0:
            del self._until[provider_name]
            return 0.0
        return left

    def check(self, provider_name: str) -> None:
        """Raise ``RATE_LIMITED`` (``retry_after`` = seconds left) while ``provider_name`` cools down."""
        left = self.remaining(provider_name)
        if left > 0:
            raise RateLimited(
                "the search provider is cooling down after a rate limit or challenge",
                reason="provider_cooling_down",
                retry_after=round(left, 3),
                stage="search",
            )

    def start(self, provider_name: str, seconds: float | None) -> float:
        """Start (or extend) ``provider_name``'s cooldown; returns the seconds applied.

        ``seconds`` is the provider's hint (``Retry-After``); ``None`` means
        the default. A running cooldown is never shortened.
        """
        applied = clamp_cooldown(seconds, default=self._default, cap=self._cap)
        now = self._clock()
        until = max(now + applied, self._until.get(provider_name, now))
        if provider_name not in self._until and len(self._until) >= _MAX_TRACKED:
            # Drop entries that have already expired before refusing to grow.
            for name in [n for n, t in self._until.items() if t <= now]:
                del self._until[name]
            if len(self._until) >= _MAX_TRACKED:
                self._until.pop(next(iter(self._until)))
        self._until[provider_name] = until
        return applied

    def clear(self) -> None:
        """Forget every cooldown (for ``aclose()``)."""
        self._until.clear()

    def __repr__(self) -> str:
        return f"Cooldowns(active={sorted(n for n in list(self._until) if self.remaining(n) > 0)!r})"


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds from a ``Retry-After`` value (delta-seconds or an HTTP date), capped; ``None`` if unusable.

    ``now`` is the current wall-clock time (``time.time()`` by default); a date
    in the past gives ``0.0``.
    """
    if value is None:
        return None
    text = value.strip()
    if not text or len(text) > 64:
        return None
    if text.isascii() and text.isdigit():
        return min(float(int(text[:12])), MAX_COOLDOWN)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    current = time.time() if now is None else now
    return min(max(0.0, when.timestamp() - current), MAX_COOLDOWN)
