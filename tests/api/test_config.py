"""ReaderConfig: frozen, validated once, with typed errors for bad values."""

from __future__ import annotations

import dataclasses
import ipaddress

import pytest

import pagewarden
from pagewarden._config import parse_allowed_destination

INVALID_OPTIONS = [
    {"timeout": 0},
    {"timeout": -1},
    {"timeout": float("nan")},
    {"timeout": 301},
    {"timeout": True},
    {"max_characters": 199},
    {"max_characters": 100_001},
    {"guard_profile": "lenient"},
    {"default_render": "sometimes"},
    {"user_agent": ""},
    {"user_agent": "bad\nagent"},
    {"allowed_content_types": []},
    {"allowed_content_types": ["image/png"]},
    {"allowed_content_types": "text/html"},
    {"unsafe_allow_destinations": "127.0.0.1:80"},
    {"unsafe_allow_destinations": ["127.0.0.1"]},
    {"unsafe_allow_destinations": ["127.0.0.1/8"]},
    {"unsafe_allow_destinations": ["bad host:80"]},
    {"unsafe_allow_sensitive_query": "yes"},
    {"resolver": object()},
    {"no_such_option": 1},
]


@pytest.mark.parametrize("options", INVALID_OPTIONS)
def test_invalid_options_are_invalid_input(options: dict[str, object]) -> None:
    """Each out-of-range or ill-typed option is refused with INVALID_INPUT."""
    with pytest.raises(pagewarden.InvalidInput):
        pagewarden.ReaderConfig().replace(**options)


def test_config_is_frozen() -> None:
    """A built config cannot be changed in place."""
    config = pagewarden.ReaderConfig()
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.timeout = 1.0  # type: ignore[misc]


INVALID_LIMITS = [
    {"max_compressed_bytes": 10},
    {"max_decoded_bytes": 2_000},
    {"max_redirects": -1},
    {"max_redirects": 21},
    {"max_dns_answers": 0},
]


@pytest.mark.parametrize("limits", INVALID_LIMITS)
def test_invalid_limits_are_invalid_input(limits: dict[str, int]) -> None:
    """Limits outside their ranges are refused when built."""
    with pytest.raises(pagewarden.InvalidInput):
        pagewarden.Limits(**limits)


DESTINATIONS = [
    ("127.0.0.1:8080", "address", ipaddress.ip_address("127.0.0.1"), 8080),
    ("[::1]:8443", "address", ipaddress.ip_address("::1"), 8443),
    ("Fixture.Test:8080", "host", "fixture.test", 8080),
    ("10.0.0.0/8", "network", ipaddress.ip_network("10.0.0.0/8"), None),
]


@pytest.mark.parametrize(("entry", "kind", "target", "port"), DESTINATIONS)
def test_allowed_destinations_parse(entry: str, kind: str, target: object, port: int | None) -> None:
    """Allowance entries parse into exact address, host or network forms."""
    parsed = parse_allowed_destination(entry)
    assert parsed.kind == kind
    assert parsed.port == port
    assert target in (parsed.address, parsed.host, parsed.network)


def test_address_allowance_is_exact() -> None:
    """An ip:port allowance admits that pair only, not the neighbouring port or address."""
    entry = parse_allowed_destination("127.0.0.1:8080")
    assert entry.allows_address(ipaddress.ip_address("127.0.0.1"), 8080)
    assert not entry.allows_address(ipaddress.ip_address("127.0.0.1"), 8081)
    assert not entry.allows_address(ipaddress.ip_address("127.0.0.2"), 8080)


def test_reader_options_override_config() -> None:
    """AsyncReader(config, **options) applies the options on top of config."""
    base = pagewarden.ReaderConfig(timeout=5)
    reader = pagewarden.AsyncReader(base, max_characters=500)
    assert reader.config.timeout == 5
    assert reader.config.max_characters == 500
