"""With ReaderConfig(proxy=...), built-in search providers must leave through the same proxy."""

from __future__ import annotations

import pytest

import pagewarden
from pagewarden import brave, custom, ddgs, fallback, fused, searxng

PROXY = "socks5://127.0.0.1:1080"
OTHER = "http://127.0.0.1:3128"
KEY = "k" * 20


def proxied() -> pagewarden.ReaderConfig:
    """A provider config using PROXY (with credentials, which do not matter for the comparison)."""
    return pagewarden.ReaderConfig(proxy="socks5://user:pw@127.0.0.1:1080")


ACCEPTED = [
    lambda: ddgs(proxy=PROXY),
    lambda: brave(KEY, config=proxied()),
    lambda: searxng("https://search.example.org", config=proxied()),
    lambda: fused([ddgs(proxy=PROXY), brave(KEY, config=proxied())]),
    lambda: fallback([custom(lambda q: [], name="mine"), ddgs("brave", proxy=PROXY)]),
]
REFUSED = [
    lambda: ddgs(),
    lambda: ddgs(proxy=OTHER),
    lambda: brave(KEY),
    lambda: fused([ddgs(proxy=PROXY), brave(KEY)]),
    lambda: fallback([fused([ddgs(proxy=PROXY), searxng("https://search.example.org")])]),
]


@pytest.mark.parametrize("make", ACCEPTED)
def test_providers_using_the_same_proxy_are_accepted(make: object) -> None:
    """Members with the reader's proxy (or custom ones, which cannot be inspected) are accepted."""
    config = pagewarden.ReaderConfig(proxy=PROXY, search=make())  # type: ignore[operator]
    assert config.search is not None


@pytest.mark.parametrize("make", REFUSED)
def test_a_provider_that_would_go_around_the_proxy_is_refused(make: object) -> None:
    """Any built-in member without the reader's proxy is INVALID_INPUT search_bypasses_proxy."""
    with pytest.raises(pagewarden.InvalidInput) as caught:
        pagewarden.ReaderConfig(proxy=PROXY, search=make())  # type: ignore[operator]
    assert caught.value.reason == "search_bypasses_proxy"
    assert "pw" not in str(caught.value)


def test_a_proxied_provider_without_a_reader_proxy_is_refused() -> None:
    """A reader without a proxy refuses a provider that uses one: the two would leave by different routes."""
    with pytest.raises(pagewarden.InvalidInput):
        pagewarden.ReaderConfig(search=ddgs(proxy=PROXY))
