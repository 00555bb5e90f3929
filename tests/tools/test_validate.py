"""The argument validator enforces the published schemas, and agrees with the jsonschema package."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest

from pagewarden import InvalidInput
from pagewarden._tools.schemas import TOOL_SPECS
from pagewarden._tools.validate import validate_arguments

SPECS = {spec.name: spec for spec in TOOL_SPECS}
VECTORS: list[dict[str, Any]] = json.loads((Path(__file__).parent / "validate_vectors.json").read_text())["vectors"]
IDS = [f"{v['tool']}-{i}-{'ok' if v['valid'] else v['reason']}" for i, v in enumerate(VECTORS)]


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_validator_decision(vector: dict[str, Any]) -> None:
    """Each vector is accepted or refused with the named reason, never echoing the value."""
    schema = SPECS[vector["tool"]].parameters
    if vector["valid"]:
        checked = validate_arguments(schema, vector["args"])
        assert set(checked) == set(schema["properties"])
        for key, value in vector["args"].items():
            assert checked[key] == value
        return
    with pytest.raises(InvalidInput) as caught:
        validate_arguments(schema, vector["args"])
    assert caught.value.reason == vector["reason"]
    assert "example.org" not in caught.value.message


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_validator_agrees_with_jsonschema(vector: dict[str, Any]) -> None:
    """On complete argument objects the verdict equals jsonschema's (Draft 2020-12) on the same schema."""
    schema = SPECS[vector["tool"]].parameters
    args = vector["args"]
    if vector.get("lenient"):
        # Complete the omitted nullable properties with null, as the executor does, before comparing.
        args = {key: None for key in schema["properties"]} | args
    reference = jsonschema.Draft202012Validator(schema).is_valid(args)
    assert reference == vector["valid"]


def test_integral_float_becomes_int() -> None:
    """A JSON number such as 5.0 for an integer property is accepted and handed on as an int."""
    checked = validate_arguments(SPECS["web_search"].parameters, {"query": "q", "limit": 5.0})
    assert checked["limit"] == 5 and isinstance(checked["limit"], int)
