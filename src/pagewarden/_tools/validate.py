"""Validate tool arguments against the published JSON Schema subset.

The schemas of :mod:`.schemas` use a small subset of JSON Schema (draft
2020-12): an object root with ``properties``, ``required`` and
``additionalProperties: false``; properties with ``type`` (a name or a list
of names among string, integer, number, boolean, null), ``enum``,
``pattern``, ``minimum`` and ``maximum``. This module implements exactly that
subset, so the toolset needs no JSON Schema library; the tests check it
agrees with the ``jsonschema`` package on the same vectors.

One leniency, documented in docs/tools.md: a nullable property that is left
out counts as ``null`` (the default). Strict OpenAI calls always send every
property; other clients often omit optional ones.

Every failure raises ``INVALID_INPUT`` with a bounded message naming the
property, never echoing the value (it may be long or hostile).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from .._errors import InvalidInput

__all__ = ["SUPPORTED_KEYWORDS", "validate_arguments"]

# A schema using any other keyword would be enforced more loosely than
# published; a test pins that every tool schema stays inside this set.
SUPPORTED_KEYWORDS = frozenset({"type", "enum", "pattern", "minimum", "maximum", "description"})


def _nullable(schema: Mapping[str, Any]) -> bool:
    kind = schema.get("type")
    return kind == "null" or (isinstance(kind, list) and "null" in kind)


def _type_matches(value: object, kind: str) -> bool:
    if kind == "null":
        return value is None
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "string":
        return isinstance(value, str)
    if isinstance(value, bool):
        # JSON has no bool/int overlap; Python's bool is an int subclass.
        return False
    if kind == "integer":
        return isinstance(value, int) or (isinstance(value, float) and math.isfinite(value) and value.is_integer())
    if kind == "number":
        return isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))
    return False


def _check_property(name: str, value: object, schema: Mapping[str, Any]) -> object:
    kinds = schema.get("type")
    allowed = [kinds] if isinstance(kinds, str) else list(kinds or ())
    if allowed and not any(_type_matches(value, kind) for kind in allowed):
        expected = " or ".join(allowed)
        raise InvalidInput(f"argument '{name}' must be {expected}", reason="invalid_argument_type")
    if "enum" in schema and value not in schema["enum"]:
        choices = ", ".join("null" if c is None else str(c) for c in schema["enum"])
        raise InvalidInput(f"argument '{name}' must be one of: {choices}", reason="invalid_argument_value")
    if isinstance(value, str) and "pattern" in schema and re.search(schema["pattern"], value) is None:
        raise InvalidInput(f"argument '{name}' has an invalid format", reason="invalid_argument_format")
    if isinstance(value, int | float) and not isinstance(value, bool):
        low, high = schema.get("minimum"), schema.get("maximum")
        if (low is not None and value < low) or (high is not None and value > high):
            raise InvalidInput(
                f"argument '{name}' must be in {low if low is not None else '-inf'}.."
                f"{high if high is not None else 'inf'}",
                reason="argument_out_of_range",
            )
        if isinstance(value, float) and "integer" in allowed and "number" not in allowed:
            return int(value)
    return value


def validate_arguments(schema: Mapping[str, Any], arguments: object) -> dict[str, Any]:
    """Check ``arguments`` against the object ``schema``; return them with omitted nullable ones set to ``None``.

    Raises:
        InvalidInput: not an object, an unknown or missing property, or a
            value of the wrong type, outside its range or enum, or not
            matching its pattern.
    """
    if not isinstance(arguments, Mapping):
        raise InvalidInput("tool arguments must be a JSON object", reason="invalid_arguments")
    properties: Mapping[str, Mapping[str, Any]] = schema.get("properties", {})
    if not all(isinstance(key, str) for key in arguments):
        raise InvalidInput("tool argument names must be strings", reason="invalid_arguments")
    unknown = sorted(set(arguments) - set(properties))
    if unknown and schema.get("additionalProperties") is False:
        names = ", ".join(name[:40] for name in unknown[:5])
        raise InvalidInput(f"unknown argument(s): {names}", reason="unknown_argument")
    checked: dict[str, Any] = {}
    for name, property_schema in properties.items():
        if name not in arguments:
            if name in schema.get("required", ()) and not _nullable(property_schema):
                raise InvalidInput(f"missing required argument '{name}'", reason="missing_argument")
            checked[name] = None
            continue
        checked[name] = _check_property(name, arguments[name], property_schema)
    return checked
