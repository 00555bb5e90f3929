"""RobotsCache: what each robots.txt outcome means for an origin, one fetch per origin, a bounded cache."""

from __future__ import annotations

import anyio
import pytest

from pagewarden import ReaderConfig, UnsafeURL
from pagewarden._ingest.robots_cache import RobotsCache
from pagewarden.testing import StaticResolver
from tests.support.server import FixtureServer

TEXT = {"Content-Type": "text/plain"}
# status of /robots.txt, its body, then [path, expected outcome]; outcome is "ok" or the UnsafeURL reason.
STATUS_CASES = [
    pytest.param(200, b"User-agent: *\nDisallow: /no\n", "/yes", "ok", id="200-allowed-path"),
    pytest.param(200, b"User-agent: *\nDisallow: /no\n", "/no/1", "robots_disallowed", id="200-disallowed-path"),
    pytest.param(404, b"", "/anything", "ok", id="404-allows"),
    pytest.param(403, b"", "/anything", "ok", id="403-allows"),
    pytest.param(410, b"", "/anything", "ok", id="410-allows"),
    pytest.param(429, b"", "/anything", "robots_unavailable", id="429-disallows"),
    pytest.param(500, b"", "/anything", "robots_unavailable", id="500-disallows"),
    pytest.param(503, b"", "/anything", "robots_unavailable", id="503-disallows"),
]


def _config(server: FixtureServer, **options: object) -> ReaderConfig:
    return ReaderConfig(unsafe_allow_destinations=(server.host_port,), **options)  # type: ignore[arg-type]


async def _outcome(cache: RobotsCache, url: str) -> str:
    try:
        await cache.check(url)
    except UnsafeURL as error:
        return f"{error.reason}" if error.code == "UNSAFE_URL" else f"wrong code {error.code}"
    return "ok"


@pytest.mark.anyio
@pytest.mark.parametrize(("status", "body", "path", "expected"), STATUS_CASES)
async def test_status_verdicts(
    fixture_server: FixtureServer, status: int, body: bytes, path: str, expected: str
) -> None:
    """2xx applies the rules, 4xx allows everything, 429 and 5xx disallow everything."""
    fixture_server.add("/robots.txt", status=status, headers=TEXT, body=body)
    cache = RobotsCache(_config(fixture_server))
    assert await _outcome(cache, fixture_server.url(path)) == expected


@pytest.mark.anyio
async def test_unreachable_disallows() -> None:
    """A robots.txt that cannot be reached (DNS failure) disallows the whole host."""
    cache = RobotsCache(ReaderConfig(resolver=StaticResolver({})))
    assert await _outcome(cache, "http://nowhere.example/page") == "robots_unavailable"


@pytest.mark.anyio
async def test_redirect_to_private_address_disallows(fixture_server: FixtureServer) -> None:
    """robots.txt goes through the address policy: a redirect into a blocked range means unavailable."""
    fixture_server.redirect("/robots.txt", "http://10.0.0.1/robots.txt")
    cache = RobotsCache(_config(fixture_server))
    assert await _outcome(cache, fixture_server.url("/page")) == "robots_unavailable"


@pytest.mark.anyio
async def test_one_fetch_per_origin_even_when_concurrent(fixture_server: FixtureServer) -> None:
    """Twenty concurrent checks on one origin fetch robots.txt once."""
    fixture_server.add("/robots.txt", headers=TEXT, body=b"User-agent: *\nDisallow: /no\n", delay_before=0.1)
    cache = RobotsCache(_config(fixture_server))
    async with anyio.create_task_group() as group:
        for n in range(20):
            group.start_soon(cache.check, fixture_server.url(f"/page/{n}"))
    assert cache.fetches == 1
    assert fixture_server.paths.count("/robots.txt") == 1


@pytest.mark.anyio
async def test_cache_is_per_host_and_bounded(fixture_server: FixtureServer) -> None:
    """Each host name gets its own robots.txt fetch, and the LRU keeps at most max_origins entries."""
    fixture_server.add("/robots.txt", headers=TEXT, body=b"User-agent: *\nDisallow: /no\n")
    hosts = [f"h{n}.example" for n in range(5)]
    resolver = StaticResolver({host: ["127.0.0.1"] for host in hosts})
    cache = RobotsCache(_config(fixture_server, resolver=resolver), max_origins=2)
    for host in hosts:
        assert await _outcome(cache, f"http://{host}:{fixture_server.port}/no/x") == "robots_disallowed"
    assert cache.fetches == 5
    assert len(cache._verdicts) == 2
    await cache.check(f"http://{hosts[-1]}:{fixture_server.port}/page")  # still cached: no new fetch
    assert cache.fetches == 5
    await cache.check(f"http://{hosts[0]}:{fixture_server.port}/page")  # evicted: fetched again
    assert cache.fetches == 6
