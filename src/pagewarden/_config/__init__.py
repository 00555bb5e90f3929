"""Frozen, validated configuration: the reader's (:mod:`.reader`), its limits (:mod:`.limits`), destinations.

Every value is checked once, when the object is built; afterwards the reader
trusts it. The names are imported from here.
"""

from .destinations import AllowedDestination, parse_allowed_destination
from .limits import MAX_CACHE_ENTRIES, MAX_CACHE_TTL, MAX_TIMEOUT, CacheConfig, Limits
from .reader import (
    DEFAULT_CONTENT_TYPES,
    DEFAULT_GUARD_TIMEOUT,
    GUARD_PROFILES,
    RENDER_MODES,
    REQUESTED_USES,
    GuardProfile,
    OnGuard,
    ReaderConfig,
    RenderMode,
    RequestedUse,
    check_choice,
    check_guard_timeout,
    check_guards,
    check_max_characters,
    check_search_provider,
    check_timeout,
)

__all__ = [
    "DEFAULT_CONTENT_TYPES",
    "DEFAULT_GUARD_TIMEOUT",
    "GUARD_PROFILES",
    "MAX_CACHE_ENTRIES",
    "MAX_CACHE_TTL",
    "MAX_TIMEOUT",
    "RENDER_MODES",
    "REQUESTED_USES",
    "AllowedDestination",
    "CacheConfig",
    "GuardProfile",
    "Limits",
    "OnGuard",
    "ReaderConfig",
    "RenderMode",
    "RequestedUse",
    "check_choice",
    "check_guard_timeout",
    "check_guards",
    "check_max_characters",
    "check_search_provider",
    "check_timeout",
    "parse_allowed_destination",
]
