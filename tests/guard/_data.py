"""Loading helpers for the guard's data-table tests."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent


def load_table(name: str, key: str) -> list[dict[str, Any]]:
    """Rows of the array-of-tables ``key`` in the TOML file ``name`` next to the tests."""
    with (HERE / name).open("rb") as handle:
        rows: list[dict[str, Any]] = tomllib.load(handle)[key]
    return rows
