"""The routing half of the request policy, decided on stand-in requests (no browser)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from pagewarden._browser.policy import load_policy
from pagewarden._browser.routing import PageGuard, init_script
from pagewarden._config import ReaderConfig
from pagewarden._errors import PagewardenError, ResponseTooLarge

PAGE_URL = "https://news.example/article"


@dataclass
class FakeFrame:
    page: object
    parent_frame: object | None = None


@dataclass
class FakeRequest:
    url: str
    method: str = "GET"
    resource_type: str = "script"
    navigation: bool = False
    frame: FakeFrame = field(default_factory=lambda: FakeFrame(MAIN))

    def is_navigation_request(self) -> bool:
        return self.navigation


MAIN = object()
OTHER_PAGE = object()

# (name, request, verdict under the default policy, verdict under the strict policy)
CASES: list[tuple[str, FakeRequest, str | None, str | None]] = [
    ("main document", FakeRequest(PAGE_URL, resource_type="document", navigation=True), None, None),
    ("same-site script", FakeRequest("https://news.example/app.js"), None, None),
    ("cdn script", FakeRequest("https://cdn.example/lib.js"), None, "third_party"),
    ("xhr", FakeRequest("https://news.example/api", resource_type="xhr"), None, None),
    ("head fetch", FakeRequest("https://news.example/api", method="HEAD", resource_type="fetch"), None,
     "method_not_allowed"),
    ("post fetch", FakeRequest("https://news.example/api", method="POST", resource_type="fetch"),
     "method_not_allowed", "method_not_allowed"),
    ("beacon", FakeRequest("https://news.example/b", method="POST", resource_type="ping"), "method_not_allowed",
     "method_not_allowed"),
    ("image", FakeRequest("https://news.example/a.png", resource_type="image"), "type_image", "type_image"),
    ("font", FakeRequest("https://news.example/a.woff2", resource_type="font"), "type_font", "type_font"),
    ("media", FakeRequest("https://news.example/a.mp4", resource_type="media"), "type_media", "type_media"),
    ("prefetch", FakeRequest("https://news.example/next", resource_type="other"), "type_other", "type_other"),
    ("event source", FakeRequest("https://news.example/ev", resource_type="eventsource"), "type_eventsource",
     "type_eventsource"),
    ("subframe", FakeRequest("https://news.example/f", resource_type="document", navigation=True,
                             frame=FakeFrame(MAIN, parent_frame=object())), "subframe", "subframe"),
    ("popup", FakeRequest("https://news.example/p", resource_type="document", navigation=True,
                          frame=FakeFrame(OTHER_PAGE)), "popup", "popup"),
    ("private address", FakeRequest("http://10.0.0.5/x"), "url_private_10_8", "url_private_10_8"),
    ("metadata address", FakeRequest("http://169.254.169.254/"), "url_link_local", "url_link_local"),
    # A name on another port can only be judged after resolution: routing lets it pass, the proxy decides.
    ("odd port, name", FakeRequest("https://news.example:8443/x"), None, "third_party"),
    ("odd port, literal", FakeRequest("https://93.184.216.34:8443/x"), "url_port", "url_port"),
    ("data url", FakeRequest("data:text/javascript,1"), "url_scheme_not_allowed", "url_scheme_not_allowed"),
    ("localhost", FakeRequest("http://localhost/x"), "url_local_name_localhost", "url_local_name_localhost"),
]


def _guard(policy_name: str, violations: list[PagewardenError] | None = None) -> PageGuard:
    sink = violations if violations is not None else []
    guard = PageGuard(load_policy(policy_name), ReaderConfig(), PAGE_URL, sink.append)
    guard.page = MAIN  # type: ignore[assignment]
    return guard


@pytest.mark.parametrize(("name", "request_", "default", "strict"), CASES, ids=[c[0] for c in CASES])
def test_verdicts(name: str, request_: FakeRequest, default: str | None, strict: str | None) -> None:
    """Each request kind gets the documented verdict under the default and the strict policy."""
    verdict_default = _guard("default").verdict(request_)  # type: ignore[arg-type]
    verdict_strict = _guard("strict").verdict(request_)  # type: ignore[arg-type]
    if default is not None and default.startswith("url_"):
        # Reasons from the address policy: only the family is pinned here (the deny table has its own tests).
        assert verdict_default is not None and verdict_default.startswith("url_")
        assert verdict_strict is not None and verdict_strict.startswith("url_")
        return
    assert (verdict_default, verdict_strict) == (default, strict)


def test_byte_budget_trips_once() -> None:
    """Bytes past max_bytes record one RESPONSE_TOO_LARGE (browser_byte_budget) and report it once."""
    violations: list[PagewardenError] = []
    guard = _guard("default", violations)
    guard.on_network_data({"dataLength": 3_000_000, "encodedDataLength": 10})
    assert violations == []
    guard.on_network_data({"dataLength": 10, "encodedDataLength": 2_500_000})
    guard.on_network_data({"dataLength": 10, "encodedDataLength": 10})
    assert len(violations) == 1
    assert isinstance(violations[0], ResponseTooLarge)
    assert violations[0].reason == "browser_byte_budget"
    assert guard.bytes == 5_500_010


def test_inflight_counter_never_negative() -> None:
    """Finished requests decrement the in-flight count, which never goes below zero."""
    guard = _guard("default")
    request: Any = FakeRequest(PAGE_URL)
    guard.on_request(request)
    guard.on_request_done(request)
    guard.on_request_done(request)
    assert guard.inflight == 0


@pytest.mark.parametrize("api", ["websocket", "event_source", "webrtc", "send_beacon", "window_open"])
def test_init_script_follows_the_policy(api: str) -> None:
    """The init script refuses exactly the APIs the policy's [refuse] table names."""
    policy = load_policy("default")
    script = init_script(policy)
    assert "__PAGEWARDEN_REFUSE__" not in script
    assert f'"{api}": true' in script
    relaxed = init_script(policy.__class__(**{**{f: getattr(policy, f) for f in policy.__slots__},
                                              f"refuse_{api}": False}))
    assert f'"{api}": false' in relaxed
