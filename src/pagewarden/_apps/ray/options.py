"""Reader options that travel to Ray actors, and the output schema of a Ray read.

Ray ships the arguments of an actor's constructor to another process (maybe
another machine) with cloudpickle. A :class:`~pagewarden.ReaderConfig` holds
objects that need not pickle (a resolver, extra guards), so the driver passes
a plain mapping of :class:`~pagewarden.ReaderConfig` field names instead, with
the nested ``limits``, ``browser`` and ``cache`` given as mappings too. The
driver validates the mapping once (:func:`reader_config`) so a typo fails
before any actor starts; each actor builds its own frozen config from it.

The output columns are fixed (:data:`RESULT_COLUMNS`): Arrow needs one schema
for documents and failures alike, so the common facts are typed columns and
the complete record, exactly the line ``pagewarden ingest`` writes, is a JSON
string in ``record``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..._browser.config import BrowserConfig
from ..._config import CacheConfig, Limits, ReaderConfig
from ..._errors import InvalidInput

__all__ = ["RESULT_COLUMNS", "reader_config", "record_columns"]

# name -> Arrow type name (see pyarrow.type_for_alias); every column is nullable.
RESULT_COLUMNS: dict[str, str] = {
    "ok": "bool",
    "final_url": "string",
    "title": "string",
    "markdown": "string",
    "method": "string",
    "status": "int64",
    "code": "string",
    "reason": "string",
    "retryable": "bool",
    "record": "string",
}

_NESTED: dict[str, type[Any]] = {"limits": Limits, "browser": BrowserConfig, "cache": CacheConfig}


def reader_config(options: Mapping[str, Any] | None) -> ReaderConfig:
    """Build the :class:`ReaderConfig` an actor uses from a plain mapping of its fields.

    ``limits``, ``browser`` and ``cache`` may be mappings of their own fields
    (or the config objects). Unknown names are ``INVALID_INPUT``.
    """
    if options is None:
        return ReaderConfig()
    if not isinstance(options, Mapping):
        raise InvalidInput("reader_options must be a mapping of ReaderConfig fields", reason="invalid_reader_options")
    fields: dict[str, Any] = {}
    for name, value in options.items():
        nested = _NESTED.get(name)
        if nested is not None and isinstance(value, Mapping):
            try:
                value = nested(**value)
            except TypeError:
                raise InvalidInput(f"unknown {name} option", reason="unknown_option") from None
        fields[name] = value
    return ReaderConfig().replace(**fields)


def record_columns(record: Mapping[str, Any]) -> dict[str, Any]:
    """The result columns of one record (a document or a failure from ``read_record``)."""
    ok = bool(record.get("ok"))
    fetch = record.get("fetch") if ok else None
    fetch = fetch if isinstance(fetch, Mapping) else {}
    return {
        "ok": ok,
        "final_url": record.get("final_url") if ok else None,
        "title": record.get("title") if ok else None,
        "markdown": record.get("markdown") if ok else None,
        "method": fetch.get("method"),
        "status": fetch.get("status"),
        "code": None if ok else record.get("code"),
        "reason": None if ok else record.get("reason"),
        "retryable": None if ok else record.get("retryable"),
        # default=str: pass-through fields from Arrow may be dates or decimals.
        "record": json.dumps(record, ensure_ascii=False, default=str),
    }
