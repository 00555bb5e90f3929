"""The toolset knows the reader only through ToolReader; AsyncReader satisfies it, other objects are refused."""

from __future__ import annotations

import pytest

import pagewarden
from pagewarden._tools import toolset_for
from pagewarden._tools.protocol import ToolReader


@pytest.mark.anyio
async def test_async_reader_is_a_tool_reader() -> None:
    """Every member the tools call exists on AsyncReader (the protocol and the reader cannot drift apart)."""
    async with pagewarden.AsyncReader() as reader:
        assert isinstance(reader, ToolReader)
        assert toolset_for(reader) is not None


@pytest.mark.parametrize("candidate", [object(), "https://example.org/", pagewarden.ReaderConfig()])
def test_something_else_is_refused(candidate: object) -> None:
    """An object that is not a reader is refused with invalid_reader, before any tool runs."""
    with pytest.raises(pagewarden.InvalidInput) as caught:
        toolset_for(candidate)  # type: ignore[arg-type]
    assert caught.value.reason == "invalid_reader"
