"""``custom(callable)``: any search backend as a provider.

The callable receives the validated :class:`SearchQuery` and returns (or, if
async, resolves to) an iterable of mappings with ``url`` and ``title``
(strings) and an optional ``snippet`` (a string, default empty). A sync
callable runs in a worker thread so it cannot block the event loop; if the
deadline passes, the search stops waiting for it (the thread itself cannot be
interrupted and finishes in the background).

Failure mapping (one boundary, here):

* a :class:`~pagewarden.PagewardenError` raised by the callable passes through
  unchanged: that is how a custom backend reports ``RATE_LIMITED`` (with
  ``retry_after``), ``BOT_CHALLENGE`` and friends;
* ``TimeoutError`` -> ``TIMEOUT``, ``OSError`` -> ``NETWORK_ERROR`` (both
  retryable, so a fallback chain moves on);
* any other exception -> ``UNKNOWN`` (``custom_provider_failed``; not
  retryable: it is most likely a bug, and a fallback chain stops on it);
* an answer that is not an iterable of such mappings, or more than 1,000
  items -> ``PARSE_CHANGED`` (``invalid_provider_output``).

The exception's message is never copied (it could hold a key or a body).
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any

import anyio.to_thread

from .._errors import InvalidInput, NetworkError, PagewardenError, ParseChanged, Timeout, UnknownError
from .calling import check_name
from .normalize import MAX_PROVIDER_ITEMS
from .types import RawHit, SearchQuery

__all__ = ["CustomProvider", "custom"]

SearchCallable = Callable[[SearchQuery], "Iterable[Mapping[str, Any]] | Awaitable[Iterable[Mapping[str, Any]]]"]


class CustomProvider:
    """A provider wrapping a user callable; see the module docstring."""

    def __init__(self, function: SearchCallable, name: str) -> None:
        self._function = function
        self.name = name

    def _bad(self, message: str) -> ParseChanged:
        return ParseChanged(
            f"custom search provider {self.name[:60]} returned {message}",
            reason="invalid_provider_output",
            stage="search",
        )

    def _convert(self, answer: object) -> list[RawHit]:
        if isinstance(answer, str | bytes | bytearray | Mapping) or not isinstance(answer, Iterable):
            raise self._bad("something that is not an iterable of hits")
        items = list(itertools.islice(answer, MAX_PROVIDER_ITEMS + 1))
        if len(items) > MAX_PROVIDER_ITEMS:
            raise self._bad(f"more than {MAX_PROVIDER_ITEMS} hits")
        hits: list[RawHit] = []
        for item in items:
            if not isinstance(item, Mapping):
                raise self._bad("an item that is not a mapping")
            url, title, snippet = item.get("url"), item.get("title"), item.get("snippet", "")
            if snippet is None:
                snippet = ""
            if not isinstance(url, str) or not isinstance(title, str) or not isinstance(snippet, str):
                raise self._bad("an item without text url and title")
            hits.append(RawHit(url=url, title=title, snippet=snippet))
        return hits

    async def _call(self, query: SearchQuery) -> object:
        function = self._function
        if inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(getattr(function, "__call__", None)):  # noqa: B004
            return await function(query)  # type: ignore[misc]
        answer = await anyio.to_thread.run_sync(function, query, abandon_on_cancel=True)
        if inspect.isawaitable(answer):
            return await answer
        return answer

    async def search(self, query: SearchQuery, *, deadline: float) -> Sequence[RawHit]:
        """Call the wrapped function and convert its answer (the caller enforces ``deadline``)."""
        label = self.name[:60]
        try:
            answer = await self._call(query)
            return self._convert(answer)
        except PagewardenError:
            raise
        except TimeoutError:
            raise Timeout(
                f"custom search provider {label} timed out", reason="provider_timeout", stage="search"
            ) from None
        except OSError:
            raise NetworkError(
                f"custom search provider {label} lost its connection", reason="provider_network", stage="search"
            ) from None
        except Exception as exc:
            raise UnknownError(
                f"custom search provider {label} failed ({type(exc).__name__})",
                reason="custom_provider_failed",
                stage="search",
            ) from None

    def __repr__(self) -> str:
        return f"CustomProvider(name={self.name!r})"


def custom(function: SearchCallable, *, name: str = "custom") -> CustomProvider:
    """Wrap ``function(query) -> iterable of {url, title, snippet}`` (sync or async) as a search provider.

    Raises:
        InvalidInput: ``function`` is not callable or ``name`` is not 1..100 printable characters.
    """
    if not callable(function):
        raise InvalidInput("custom() needs a callable", reason="invalid_provider")
    return CustomProvider(function, check_name(name))
