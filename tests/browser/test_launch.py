"""Launch flags: the egress settings are all there, once, and the environment cannot weaken them."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import async_playwright

from pagewarden._browser.config import BrowserConfig
from pagewarden._browser.discovery import find_chromium
from pagewarden._browser.launch import build_chromium_args, build_launch_options, check_sandbox, new_marker
from pagewarden._browser.processes import find_marked_process, kill_group
from pagewarden._egress import attach
from pagewarden._egress.chromium import (
    EGRESS_ARGS,
    LOOPBACK_BYPASS,
    LOOPBACK_ENV,
    ProxyEndpoint,
    build_context_proxy,
    check_environment,
)
from pagewarden._errors import ConfigMissing
from tests.browser.pool_support import AS_ROOT, chromium_available

ENDPOINT = ProxyEndpoint("127.0.0.1", 41234, "user", "secret-password")
REQUIRED_SWITCHES = (
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--disable-quic",
    "--dns-prefetch-disable",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)


def test_required_switches_present() -> None:
    """Every egress switch of the design is passed, and no feature list that would replace Playwright's."""
    args = build_chromium_args(ENDPOINT, new_marker())
    for switch in REQUIRED_SWITCHES:
        assert switch in args
    assert not [a for a in args if a.startswith(("--disable-features", "--enable-features", "--no-sandbox"))]


def test_proxy_option_removes_loopback_bypass() -> None:
    """The launch proxy names our proxy, bypasses nothing but removes the implicit loopback bypass."""
    options = build_launch_options(BrowserConfig(), Path("/x/chromium"), ENDPOINT, new_marker(), environ={})
    assert options["proxy"] == {
        "server": "http://127.0.0.1:41234",
        "bypass": "<-loopback>",
        "username": "user",
        "password": "secret-password",
    }
    assert options["chromium_sandbox"] is True
    assert options["headless"] is True


def test_proxy_launch_uses_the_same_definition() -> None:
    """The pool's launch switches and the proxy's launch_args are the same, defined once in _egress.chromium."""
    marker = new_marker()
    assert build_chromium_args(ENDPOINT, marker) == [*EGRESS_ARGS, marker]
    assert attach.LOOPBACK_OPT_OUT_ENV is LOOPBACK_ENV
    assert build_context_proxy(ENDPOINT)["bypass"] == LOOPBACK_BYPASS


def test_proxy_launch_keeps_its_reason() -> None:
    """The shared environment check still reports attach's documented reason through its helper."""
    with pytest.raises(ConfigMissing) as caught:
        attach.check_loopback_proxied({LOOPBACK_ENV: "1"})
    assert caught.value.reason == "proxied_loopback_disabled"


@pytest.mark.parametrize(
    ("host", "rule"),
    [("127.0.0.1", "EXCLUDE 127.0.0.1"), ("::1", "EXCLUDE [::1]"), ("proxy.internal", "EXCLUDE proxy.internal")],
)
def test_resolver_rule_excludes_only_the_proxy(host: str, rule: str) -> None:
    """The host-resolver rule maps everything to NOTFOUND except the proxy's own host."""
    args = build_chromium_args(ProxyEndpoint(host, 1, "u", "p"), new_marker())
    assert args[0] == f"--host-resolver-rules=MAP * ~NOTFOUND , {rule}"


def test_external_sandbox_turns_chromium_sandbox_off() -> None:
    """external_sandbox=True is the only way to launch without Chromium's sandbox."""
    options = build_launch_options(
        BrowserConfig(external_sandbox=True), Path("/x"), ENDPOINT, new_marker(), environ={}
    )
    assert options["chromium_sandbox"] is False


def test_browser_environment_is_reduced() -> None:
    """Proxy variables and keys in the caller's environment never reach Chromium."""
    environ = {"PATH": "/bin", "HOME": "/h", "HTTPS_PROXY": "http://evil:1", "GOOGLE_API_KEY": "k", "LANG": "C"}
    options = build_launch_options(BrowserConfig(), Path("/x"), ENDPOINT, new_marker(), environ=environ)
    assert options["env"] == {"PATH": "/bin", "HOME": "/h", "LANG": "C"}


@pytest.mark.parametrize(("value", "refused"), [("1", True), ("true", True), ("", False), (None, False)])
def test_loopback_env_is_refused(value: str | None, refused: bool) -> None:
    """PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK set to anything non-empty refuses the launch."""
    environ = {} if value is None else {LOOPBACK_ENV: value}
    if refused:
        with pytest.raises(ConfigMissing) as caught:
            check_environment(environ)
        assert caught.value.reason == "playwright_loopback_bypass_env"
    else:
        check_environment(environ)


@pytest.mark.parametrize(
    ("euid", "config", "refused"),
    [
        (0, BrowserConfig(), True),
        (0, BrowserConfig(external_sandbox=True), False),
        (0, BrowserConfig(cdp_endpoint="http://127.0.0.1:9222"), False),
        (1000, BrowserConfig(), False),
    ],
    ids=["root", "root-external", "root-remote", "user"],
)
def test_sandbox_as_root(euid: int, config: BrowserConfig, refused: bool) -> None:
    """As root without external_sandbox the launch is CONFIG_MISSING naming both remedies."""
    if not refused:
        check_sandbox(config, euid)
        return
    with pytest.raises(ConfigMissing) as caught:
        check_sandbox(config, euid)
    assert caught.value.reason == "sandbox_unavailable_as_root"
    assert "unprivileged user" in caught.value.message
    assert "external_sandbox=True" in caught.value.message


@pytest.mark.browser
@pytest.mark.anyio
async def test_real_command_line_has_one_feature_list() -> None:
    """The launched browser's real command line has our switches and exactly one --disable-features."""
    chromium_available()
    marker = new_marker()
    config = BrowserConfig(external_sandbox=AS_ROOT)
    executable = find_chromium()
    options = build_launch_options(config, executable.path, ENDPOINT, marker)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(**options)
        try:
            pid = find_marked_process(marker)
            assert pid is not None
            raw = Path(f"/proc/{pid}/cmdline").read_bytes()  # noqa: ASYNC240 - /proc, instant
            command = [part.decode() for part in raw.split(b"\0") if part]
        finally:
            await browser.close()
    assert kill_group(pid, marker, str(executable.path))
    assert sum(part.startswith("--disable-features=") for part in command) == 1
    assert "--proxy-server=http://127.0.0.1:41234" in command
    assert sum(part.startswith("--proxy-bypass-list") for part in command) == 1
    assert "--proxy-bypass-list=<-loopback>" in command
    for switch in REQUIRED_SWITCHES:
        assert switch in command
    assert ("--no-sandbox" in command) == AS_ROOT
