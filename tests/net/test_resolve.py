"""Resolution: once per hop, every answer checked, garbage refused."""

from __future__ import annotations

import ipaddress

import pytest

from pagewarden._config import Limits, ReaderConfig
from pagewarden._errors import NetworkError, PagewardenError, UnsafeURL
from pagewarden._net.resolve import SystemResolver, resolve_and_check
from pagewarden._net.urls import parse_target
from tests.support.resolvers import SequenceResolver, StaticResolver

pytestmark = pytest.mark.anyio

PUBLIC = "93.184.216.34"

REFUSALS = [
    ([PUBLIC, "127.0.0.1"], "address_loopback"),
    (["10.0.0.7"], "address_private_10"),
    ([PUBLIC, "169.254.169.254"], "address_cloud_metadata"),
    (["::ffff:127.0.0.1"], "address_ipv4_mapped_embeds_loopback"),
    (["2002:a00:1::1"], "address_sixtofour_embeds_private_10"),
    (["64:ff9b::a00:1"], "address_nat64_embeds_private_10"),
    ([], "dns_no_answers"),
    ([PUBLIC] * 65, "dns_too_many_answers"),
    (["not-an-ip"], "resolver_invalid_answer"),
    (["127.1"], "resolver_invalid_answer"),
    ([42], "resolver_invalid_answer"),
    ("93.184.216.34", "resolver_invalid_answer"),
    (None, "resolver_invalid_answer"),
]


@pytest.mark.parametrize(("answers", "reason"), REFUSALS)
async def test_any_bad_answer_refuses(answers: object, reason: str) -> None:
    """ANY non-public answer, none, too many, or a malformed answer refuses the host with a named reason."""
    resolver = StaticResolver({"site.example": answers})  # type: ignore[dict-item]
    config = ReaderConfig(resolver=resolver)
    with pytest.raises(UnsafeURL) as info:
        await resolve_and_check(parse_target("https://site.example/", config), config)
    assert info.value.reason == reason
    assert resolver.calls == ["site.example"]


async def test_public_answers_pass_deduplicated() -> None:
    """Public answers are returned once each, as ipaddress objects, after exactly one lookup."""
    resolver = StaticResolver({"site.example": [PUBLIC, ipaddress.ip_address(PUBLIC), "2606:2800:220:1::"]})
    config = ReaderConfig(resolver=resolver)
    addresses = await resolve_and_check(parse_target("https://site.example/", config), config)
    assert addresses == (ipaddress.ip_address(PUBLIC), ipaddress.ip_address("2606:2800:220:1::"))
    assert resolver.calls == ["site.example"]


async def test_max_dns_answers_follows_config() -> None:
    """The answer-count limit comes from config.limits.max_dns_answers."""
    answers = [f"93.184.216.{i}" for i in range(1, 5)]
    config = ReaderConfig(resolver=StaticResolver({"site.example": answers}), limits=Limits(max_dns_answers=3))
    with pytest.raises(UnsafeURL) as info:
        await resolve_and_check(parse_target("https://site.example/", config), config)
    assert info.value.reason == "dns_too_many_answers"


async def test_unresolvable_name_is_retryable_network_error() -> None:
    """A name that does not resolve is NETWORK_ERROR dns_failure, retryable."""
    config = ReaderConfig(resolver=StaticResolver({}))
    with pytest.raises(NetworkError) as info:
        await resolve_and_check(parse_target("https://missing.example/", config), config)
    assert info.value.reason == "dns_failure" and info.value.retryable


async def test_buggy_resolver_is_not_retryable() -> None:
    """A resolver raising a non-OSError is a non-retryable NETWORK_ERROR, not a raw exception."""

    class Broken:
        async def resolve(self, host: str) -> list[str]:
            raise ValueError("boom")

    config = ReaderConfig(resolver=Broken())
    with pytest.raises(NetworkError) as info:
        await resolve_and_check(parse_target("https://site.example/", config), config)
    assert info.value.reason == "resolver_error" and not info.value.retryable


async def test_ip_literal_skips_dns() -> None:
    """An IP literal never reaches the resolver."""
    resolver = StaticResolver({})
    config = ReaderConfig(resolver=resolver)
    assert await resolve_and_check(parse_target("http://8.8.8.8/", config), config) == (
        ipaddress.ip_address("8.8.8.8"),
    )
    assert resolver.calls == []


ALLOWANCES = [
    # (url, allow entries, answers, expected reason or None)
    ("http://site.example:8080/", (), [PUBLIC], "port_not_allowed"),
    ("http://site.example:8080/", (f"{PUBLIC}:8080",), [PUBLIC], None),
    ("http://site.example:8080/", (f"{PUBLIC}:8081",), [PUBLIC], "port_not_allowed"),
    ("http://site.example:8080/", ("site.example:8080",), ["127.0.0.1"], None),
    ("http://site.example/", ("127.0.0.1:80",), ["127.0.0.1"], None),
    ("http://site.example/", ("127.0.0.1:80",), ["127.0.0.1", "127.0.0.2"], "address_loopback"),
    ("http://site.example/", ("127.0.0.0/8",), ["127.0.0.1", "127.0.0.2"], None),
    ("http://site.example:9000/", ("127.0.0.1:8080",), ["127.0.0.1"], "address_loopback"),
    ("http://other.example:8080/", ("site.example:8080",), ["127.0.0.1"], "address_loopback"),
]


@pytest.mark.parametrize(("url", "allow", "answers", "reason"), ALLOWANCES)
async def test_allowances_are_exact(url: str, allow: tuple[str, ...], answers: list[str], reason: str | None) -> None:
    """unsafe_allow_destinations lets through exactly the named address:port, host:port or network."""
    host = url.split("//")[1].split(":")[0].split("/")[0]
    config = ReaderConfig(resolver=StaticResolver({host: answers}), unsafe_allow_destinations=allow)
    target = parse_target(url, config)
    if reason is None:
        assert await resolve_and_check(target, config)
    else:
        with pytest.raises(PagewardenError) as info:
            await resolve_and_check(target, config)
        assert info.value.reason == reason


async def test_sequence_resolver_is_called_once_per_check() -> None:
    """resolve_and_check asks the resolver exactly once; a rebinding answer only shows on the next call."""
    resolver = SequenceResolver([[PUBLIC], ["127.0.0.1"]])
    config = ReaderConfig(resolver=resolver)
    target = parse_target("https://rebind.example/", config)
    assert await resolve_and_check(target, config) == (ipaddress.ip_address(PUBLIC),)
    assert resolver.calls == ["rebind.example"]
    with pytest.raises(UnsafeURL):
        await resolve_and_check(target, config)
    assert resolver.calls == ["rebind.example", "rebind.example"]


async def test_system_resolver_resolves_localhost() -> None:
    """SystemResolver returns ipaddress objects from getaddrinfo (localhost only: no DNS in tests)."""
    addresses = await SystemResolver().resolve("localhost")
    assert addresses and all(a.is_loopback for a in addresses)
