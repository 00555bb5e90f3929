"""Tool definitions: each format matches its API's documented shape, and every format publishes the same schema."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest

import pagewarden
from pagewarden._tools import Toolset, toolset_for
from pagewarden._tools.validate import SUPPORTED_KEYWORDS
from tests.tools.fakes import FakeSearchProvider

# name -> (extract the tool list entries' (name, description, parameters), required top-level keys of an entry)
FORMATS: dict[str, tuple[Callable[[dict[str, Any]], tuple[str, str, dict[str, Any]]], set[str]]] = {
    # OpenAI Responses: {"type": "function", "name", "description", "parameters", "strict"}
    "openai_responses": (
        lambda d: (d["name"], d["description"], d["parameters"]),
        {"type", "name", "description", "parameters", "strict"},
    ),
    # OpenAI Chat Completions: {"type": "function", "function": {"name", "description", "parameters", "strict"}}
    "openai_chat_completions": (
        lambda d: (d["function"]["name"], d["function"]["description"], d["function"]["parameters"]),
        {"type", "function"},
    ),
    # Anthropic Messages: {"name", "description", "input_schema"}
    "anthropic": (lambda d: (d["name"], d["description"], d["input_schema"]), {"name", "description", "input_schema"}),
    # Bedrock Converse: {"toolSpec": {"name", "description", "inputSchema": {"json": ...}}}
    "bedrock": (
        lambda d: (d["toolSpec"]["name"], d["toolSpec"]["description"], d["toolSpec"]["inputSchema"]["json"]),
        {"toolSpec"},
    ),
}
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def _definitions(toolset: Toolset, fmt: str) -> list[dict[str, Any]]:
    method: Callable[[], list[dict[str, Any]]] = getattr(toolset, f"{fmt}_definitions")
    return method()


@pytest.fixture
async def toolset() -> Toolset:
    """A toolset whose reader has a (fake) search provider."""
    reader = pagewarden.AsyncReader(search=FakeSearchProvider([]))
    return toolset_for(reader)


@pytest.mark.anyio
@pytest.mark.parametrize("fmt", sorted(FORMATS))
async def test_format_has_documented_shape(toolset: Toolset, fmt: str) -> None:
    """Every entry carries exactly the keys its API documents, with a valid name and an object schema."""
    extract, keys = FORMATS[fmt]
    entries = _definitions(toolset, fmt)
    names = [extract(entry)[0] for entry in entries]
    assert names == ["web_search", "fetch_content", "fetch_more", "search_read_pages"]
    for entry in entries:
        assert set(entry) == keys
        name, description, parameters = extract(entry)
        assert TOOL_NAME.match(name)
        assert isinstance(description, str) and 20 < len(description) <= 1024
        assert parameters["type"] == "object"
        json.dumps(entry)  # plain JSON, no SDK objects
        if fmt == "openai_responses":
            assert entry["type"] == "function" and entry["strict"] is True
        if fmt == "openai_chat_completions":
            assert entry["type"] == "function"
            assert set(entry["function"]) == {"name", "description", "parameters", "strict"}
            assert entry["function"]["strict"] is True
        if fmt == "bedrock":
            assert set(entry["toolSpec"]) == {"name", "description", "inputSchema"}
            assert set(entry["toolSpec"]["inputSchema"]) == {"json"}


@pytest.mark.anyio
async def test_parameter_schemas_identical_across_formats(toolset: Toolset) -> None:
    """The four formats publish the same name, description and parameter schema per tool."""
    seen = {fmt: [FORMATS[fmt][0](entry) for entry in _definitions(toolset, fmt)] for fmt in FORMATS}
    first = seen.pop("openai_responses")
    for fmt, entries in seen.items():
        assert entries == first, fmt


@pytest.mark.anyio
async def test_definitions_are_fresh_copies(toolset: Toolset) -> None:
    """Mutating a returned definition does not change the next one."""
    entries = toolset.anthropic_definitions()
    entries[0]["input_schema"]["properties"].clear()
    assert toolset.anthropic_definitions()[0]["input_schema"]["properties"]


@pytest.mark.anyio
@pytest.mark.parametrize("fmt", sorted(FORMATS))
async def test_schemas_valid_draft_2020_12_and_strict(toolset: Toolset, fmt: str) -> None:
    """Every schema is valid JSON Schema 2020-12 and meets OpenAI strict mode's rules."""
    for entry in _definitions(toolset, fmt):
        _, _, schema = FORMATS[fmt][0](entry)
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["additionalProperties"] is False
        assert sorted(schema["required"]) == sorted(schema["properties"])
        for prop in schema["properties"].values():
            assert set(prop) <= SUPPORTED_KEYWORDS
            assert "default" not in prop
            assert prop.get("description")
            kinds = prop["type"] if isinstance(prop["type"], list) else [prop["type"]]
            if "enum" in prop and "null" in kinds:
                assert None in prop["enum"]  # else a null could never validate


@pytest.mark.anyio
@pytest.mark.parametrize("fmt", sorted(FORMATS))
async def test_web_search_omitted_without_provider(fmt: str) -> None:
    """Without a search provider no format offers web_search."""
    toolset = toolset_for(pagewarden.AsyncReader())
    names = [FORMATS[fmt][0](entry)[0] for entry in _definitions(toolset, fmt)]
    assert names == ["fetch_content", "fetch_more", "search_read_pages"]


def test_toolset_imports_no_sdk() -> None:
    """Importing the toolset and building every format loads neither the MCP SDK nor pydantic nor Playwright."""
    code = (
        "import sys, pagewarden\n"
        "from pagewarden._tools import toolset_for\n"
        "t = toolset_for(pagewarden.AsyncReader())\n"
        "[t.openai_responses_definitions(), t.openai_chat_completions_definitions(),\n"
        " t.anthropic_definitions(), t.bedrock_definitions()]\n"
        "names = ('mcp', 'pydantic', 'playwright', 'openai', 'anthropic', 'boto3')\n"
        "print(sorted(m for m in names if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]"
