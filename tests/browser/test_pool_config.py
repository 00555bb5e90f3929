"""BrowserConfig validation: every field is checked once, when built."""

from __future__ import annotations

from typing import Any

import pytest

from pagewarden._browser.config import BrowserConfig
from pagewarden._errors import InvalidInput

INVALID: list[tuple[dict[str, Any], str]] = [
    ({"concurrency": 0}, "invalid_concurrency"),
    ({"concurrency": 9}, "invalid_concurrency"),
    ({"concurrency": True}, "invalid_concurrency"),
    ({"max_queue": -1}, "invalid_max_queue"),
    ({"max_queue": 1_001}, "invalid_max_queue"),
    ({"recycle_after": 0}, "invalid_recycle_after"),
    ({"idle_timeout": 0}, "invalid_idle_timeout"),
    ({"idle_timeout": float("inf")}, "invalid_idle_timeout"),
    ({"launch_timeout": 0.5}, "invalid_launch_timeout"),
    ({"external_sandbox": 1}, "invalid_external_sandbox"),
    ({"browser_endpoint": "http://x:1"}, "invalid_browser_endpoint"),
    ({"cdp_endpoint": "ftp://x:1"}, "invalid_cdp_endpoint"),
    ({"browser_endpoint": "ws://a:1", "cdp_endpoint": "http://b:2"}, "invalid_browser_endpoint"),
    ({"navigation_timeout": 0}, "invalid_navigation_timeout"),
    ({"navigation_timeout": 61}, "invalid_navigation_timeout"),
    ({"settle_time": -0.1}, "invalid_settle_time"),
    ({"settle_time": 6}, "invalid_settle_time"),
    ({"policy": ""}, "invalid_policy"),
    ({"executable": ""}, "invalid_executable"),
]


def test_defaults() -> None:
    """The defaults are those of the issue: concurrency 2, queue 32, sandbox on, local launch."""
    config = BrowserConfig()
    assert (config.concurrency, config.max_queue, config.external_sandbox, config.remote) == (2, 32, False, False)
    assert config.policy == "default"


@pytest.mark.parametrize(("changes", "reason"), INVALID, ids=[r for _, r in INVALID])
def test_invalid_values(changes: dict[str, Any], reason: str) -> None:
    """Out-of-range or mistyped values are INVALID_INPUT with a named reason."""
    with pytest.raises(InvalidInput) as caught:
        BrowserConfig(**changes)
    assert caught.value.reason == reason


def test_replace_refuses_unknown_names() -> None:
    """replace() validates the copy and refuses unknown option names."""
    assert BrowserConfig().replace(concurrency=4).concurrency == 4
    with pytest.raises(InvalidInput) as caught:
        BrowserConfig().replace(concurency=4)
    assert caught.value.reason == "unknown_option"


def test_remote_modes() -> None:
    """A browser or CDP endpoint makes the pool remote (no launch, no local sandbox check)."""
    assert BrowserConfig(browser_endpoint="ws://127.0.0.1:3000/x").remote
    assert BrowserConfig(cdp_endpoint="http://127.0.0.1:9222").remote
