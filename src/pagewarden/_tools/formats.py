"""Tool definitions in the shapes the model APIs document, derived from one :class:`ToolSpec`.

Plain dicts, no SDK imported. The parameter schema is the same object (a
fresh deep copy each time) in every format:

* OpenAI Responses: ``{"type": "function", "name", "description", "parameters", "strict": true}``
* OpenAI Chat Completions: ``{"type": "function", "function": {"name", "description", "parameters", "strict": true}}``
* Anthropic Messages: ``{"name", "description", "input_schema"}``
* Amazon Bedrock Converse: ``{"toolSpec": {"name", "description", "inputSchema": {"json": ...}}}``
* MCP ``tools/list``: ``name``, ``description``, ``inputSchema`` (built by the server from :meth:`ToolSpec.schema`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .schemas import ToolSpec

__all__ = ["anthropic", "bedrock", "openai_chat_completions", "openai_responses"]


def openai_responses(specs: Iterable[ToolSpec]) -> list[dict[str, Any]]:
    """Function tools for the OpenAI Responses API (flat, strict)."""
    return [
        {
            "type": "function",
            "name": spec.name,
            "description": spec.description,
            "parameters": spec.schema(),
            "strict": True,
        }
        for spec in specs
    ]


def openai_chat_completions(specs: Iterable[ToolSpec]) -> list[dict[str, Any]]:
    """Function tools for the OpenAI Chat Completions API (wrapped in ``function``, strict)."""
    return [
        {
            "type": "function",
            "function": {
                "name": spec.name,
                "description": spec.description,
                "parameters": spec.schema(),
                "strict": True,
            },
        }
        for spec in specs
    ]


def anthropic(specs: Iterable[ToolSpec]) -> list[dict[str, Any]]:
    """Client tools for the Anthropic Messages API."""
    return [{"name": spec.name, "description": spec.description, "input_schema": spec.schema()} for spec in specs]


def bedrock(specs: Iterable[ToolSpec]) -> list[dict[str, Any]]:
    """``toolConfig.tools`` entries for the Amazon Bedrock Converse API."""
    return [
        {"toolSpec": {"name": spec.name, "description": spec.description, "inputSchema": {"json": spec.schema()}}}
        for spec in specs
    ]
