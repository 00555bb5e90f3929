"""``pagewarden doctor``: what a user needs to know when rendering does not work.

:func:`run_doctor` checks, in order, and never raises for a failed check:

1. which Chromium discovery finds, where, and its version;
2. whether Chromium's sandbox can run here (root without
   ``external_sandbox``, user-namespace switches of the kernel);
3. whether the request policies load (``default``, ``strict`` and the
   configured one);
4. that the environment does not weaken the proxy setup;
5. a self-test render: a built-in page served on a loopback port (explicitly
   allowed for this render only) rendered through the pool, the egress proxy,
   the request policy and the visibility snapshot. It proves that script ran
   and that hidden text was marked.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import anyio
import anyio.abc
from anyio.abc import SocketAttribute

from .._config import ReaderConfig
from .._egress import check_environment
from .._errors import PagewardenError
from .config import BrowserConfig
from .discovery import find_chromium
from .launch import check_sandbox
from .policy import BUILTIN_POLICIES, load_policy
from .pool import BrowserPool
from .render import render

__all__ = ["DoctorReport", "run_doctor"]

_SELF_TEST_MARK: Final = "pagewarden-self-test-rendered"
_SELF_TEST_PAGE: Final = (
    "<!doctype html><html><head><title>pagewarden self-test</title></head><body>"
    "<main id='app'></main><p style='display:none'>hidden self-test text</p>"
    "<script>document.getElementById('app').textContent = '" + _SELF_TEST_MARK + "';</script>"
    "</body></html>"
).encode()
_VERSION_TIMEOUT: Final = 15.0


@dataclass(slots=True)
class DoctorReport:
    """The doctor's findings; :meth:`to_dict` is what ``pagewarden doctor --json`` prints."""

    browser: dict[str, Any] = field(default_factory=dict)
    sandbox: dict[str, Any] = field(default_factory=dict)
    policies: dict[str, Any] = field(default_factory=dict)
    environment: dict[str, Any] = field(default_factory=dict)
    self_test: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Whether rendering works here."""
        return bool(self.self_test.get("ok"))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "ok": self.ok,
            "browser": self.browser,
            "sandbox": self.sandbox,
            "policies": self.policies,
            "environment": self.environment,
            "self_test": self.self_test,
        }


# Playwright's builds of the headless shell; Debian's chromium-headless-shell does answer --version.
_NO_VERSION_FLAG = frozenset({"chrome-headless-shell", "headless_shell"})


def _version(path: Path) -> str | None:
    if path.name in _NO_VERSION_FLAG:
        return None  # Playwright's headless shell has no --version (it would start); the self-test reports it
    try:
        done = subprocess.run(  # noqa: S603 - a discovered executable, fixed argument
            [str(path), "--version"], capture_output=True, text=True, timeout=_VERSION_TIMEOUT, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    line = done.stdout.strip().splitlines()[0] if done.stdout.strip() else ""
    return line[:120] or None


def _read_sysctl(path: str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def _sandbox(config: BrowserConfig) -> dict[str, Any]:
    if config.remote:
        return {"mode": "remote", "ok": True, "detail": "the remote browser's own sandbox settings apply"}
    if config.external_sandbox:
        return {
            "mode": "external",
            "ok": True,
            "detail": "Chromium runs with --no-sandbox; the container must isolate it (external_sandbox=True)",
        }
    try:
        check_sandbox(config)
    except PagewardenError as exc:
        return {"mode": "chromium", "ok": False, "reason": exc.reason, "detail": exc.message}
    notes = []
    if _read_sysctl("/proc/sys/kernel/unprivileged_userns_clone") == "0":
        notes.append("kernel.unprivileged_userns_clone=0 (user namespaces off)")
    if _read_sysctl("/proc/sys/user/max_user_namespaces") == "0":
        notes.append("user.max_user_namespaces=0")
    if _read_sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1":
        notes.append("AppArmor restricts unprivileged user namespaces (Ubuntu 23.10+)")
    detail = "; ".join(notes) if notes else "user namespaces look available; the self-test proves it"
    return {"mode": "chromium", "ok": not notes, "uid": os.geteuid(), "detail": detail}


def _policies(config: BrowserConfig) -> dict[str, Any]:
    names = list(dict.fromkeys([*BUILTIN_POLICIES, config.policy]))
    found: dict[str, Any] = {}
    for name in names:
        try:
            policy = load_policy(name)
        except PagewardenError as exc:
            found[name] = {"ok": False, "error": exc.to_dict()}
        else:
            found[name] = {"ok": True, "max_requests": policy.max_requests, "max_bytes": policy.max_bytes}
    return found


async def _serve_self_test(stream: anyio.abc.SocketStream) -> None:
    async with stream:
        received = b""
        with anyio.move_on_after(5):
            while b"\r\n\r\n" not in received and len(received) < 65_536:
                chunk = await stream.receive()
                received += chunk
        head = (
            "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
            f"Content-Length: {len(_SELF_TEST_PAGE)}\r\nConnection: close\r\n\r\n"
        ).encode()
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            await stream.send(head + _SELF_TEST_PAGE)


async def _self_test(config: BrowserConfig, timeout: float) -> dict[str, Any]:
    started = anyio.current_time()
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    port = int(listener.extra(SocketAttribute.local_port))  # noqa: S610 - anyio, not Django
    # The one explicit allowance of the self-test: its own loopback page.
    reader = ReaderConfig(unsafe_allow_destinations=(f"127.0.0.1:{port}",), timeout=timeout)
    result: dict[str, Any] = {"ok": False}
    async with listener, anyio.create_task_group() as group:
        group.start_soon(listener.serve, _serve_self_test)
        try:
            async with BrowserPool(config.replace(concurrency=1, max_queue=0), reader) as pool:
                with anyio.fail_after(timeout):
                    page = await render(pool, f"http://127.0.0.1:{port}/self-test")
                result["browser_version"] = pool.browser_version
            script_ran = _SELF_TEST_MARK in page.html
            hidden_marked = "data-pagewarden-hidden" in page.html
            result.update(
                ok=script_ran and hidden_marked,
                script_ran=script_ran,
                hidden_text_marked=hidden_marked,
                proxy_refusals=dict(page.proxy_refusals),
                timings=dict(page.timings),
            )
        except PagewardenError as exc:
            result["error"] = exc.to_dict()
        except TimeoutError:
            result["error"] = {"code": "TIMEOUT", "message": f"the self-test did not finish in {timeout:g} s"}
        finally:
            group.cancel_scope.cancel()
    result["elapsed_ms"] = round((anyio.current_time() - started) * 1000, 1)
    return result


async def run_doctor(config: BrowserConfig | None = None, *, self_test_timeout: float = 30.0) -> DoctorReport:
    """Diagnose rendering on this machine; see the module docstring. Never raises for a failed check."""
    config = config or BrowserConfig()
    report = DoctorReport()
    if config.remote:
        report.browser = {"remote": config.browser_endpoint or config.cdp_endpoint}
    else:
        try:
            found = find_chromium(config.executable)
        except PagewardenError as exc:
            report.browser = {"found": False, "error": exc.to_dict()}
        else:
            version = await anyio.to_thread.run_sync(_version, found.path)
            report.browser = {"found": True, **found.to_dict(), "version": version}
    report.sandbox = _sandbox(config)
    report.policies = _policies(config)
    try:
        check_environment()
        report.environment = {"ok": True}
    except PagewardenError as exc:
        report.environment = {"ok": False, "error": exc.to_dict()}
    blockers = [
        not report.browser.get("found", config.remote),
        not report.sandbox.get("ok") and report.sandbox.get("reason") == "sandbox_unavailable_as_root",
        not report.policies.get(config.policy, {}).get("ok"),
        not report.environment["ok"],
    ]
    if any(blockers):
        report.self_test = {"ok": False, "skipped": "fix the problems above first"}
    else:
        report.self_test = await _self_test(config, self_test_timeout)
    return report
