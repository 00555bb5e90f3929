"""pagewarden doctor: each check reports what is wrong, and the self-test renders through the proxy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pagewarden._browser.discovery import find_chromium
from pagewarden._browser.doctor import run_doctor
from tests.browser.pool_support import AS_ROOT, browser_config, chromium_available

pytestmark = [pytest.mark.anyio]


@pytest.mark.browser
async def test_self_test_renders_through_the_proxy() -> None:
    """On a working setup the doctor finds the browser, its version, and the self-test render passes."""
    chromium_available()
    report = await run_doctor(browser_config())
    data = report.to_dict()
    json.dumps(data)
    assert data["ok"] is True
    assert data["browser"]["found"] is True
    assert data["browser"]["path"] == str(find_chromium().path)
    assert data["self_test"]["script_ran"] and data["self_test"]["hidden_text_marked"]
    assert data["self_test"]["browser_version"].split(".")[0].isdigit()
    assert data["sandbox"]["mode"] == ("external" if AS_ROOT else "chromium")
    assert all(entry["ok"] for entry in data["policies"].values())


async def test_root_without_external_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    """As root without external_sandbox the sandbox check fails with its reason and the self-test is skipped."""
    monkeypatch.setattr("pagewarden._browser.launch.os.geteuid", lambda: 0)
    report = await run_doctor(browser_config().replace(external_sandbox=False))
    assert report.sandbox["ok"] is False
    assert report.sandbox["reason"] == "sandbox_unavailable_as_root"
    assert "external_sandbox=True" in report.sandbox["detail"]
    assert report.self_test["ok"] is False
    assert "skipped" in report.self_test
    assert not report.ok


async def test_missing_browser(tmp_path: Path) -> None:
    """A configured executable that does not exist is reported, not raised."""
    report = await run_doctor(browser_config(executable=str(tmp_path / "no-chromium")))
    assert report.browser["found"] is False
    assert report.browser["error"]["reason"] == "chromium_path_invalid"
    assert "skipped" in report.self_test


async def test_broken_policy_file(tmp_path: Path) -> None:
    """A configured policy file that does not validate is reported with its error; built-ins still load."""
    policy = tmp_path / "broken.toml"
    policy.write_text("version = 1\n")
    report = await run_doctor(browser_config(policy=str(policy)))
    assert report.policies["default"]["ok"] and report.policies["strict"]["ok"]
    assert report.policies[str(policy)]["ok"] is False
    assert report.policies[str(policy)]["error"]["code"] == "INVALID_INPUT"
    assert "skipped" in report.self_test


async def test_loopback_env_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Playwright loopback opt-out variable is reported as an environment problem."""
    monkeypatch.setenv("PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK", "1")
    report = await run_doctor(browser_config())
    assert report.environment["ok"] is False
    assert report.environment["error"]["reason"] == "playwright_loopback_bypass_env"
    assert "skipped" in report.self_test


# (executable name, whether doctor asks it for --version)
VERSION_FLAG_CASES = [
    ("chrome-headless-shell", False),  # Playwright's shell: --version would start a browser
    ("headless_shell", False),  # Playwright's older layout
    ("chromium-headless-shell", True),  # Debian's shell answers --version
    ("chromium", True),
]


@pytest.mark.parametrize(("name", "asked"), VERSION_FLAG_CASES)
def test_version_is_asked_only_of_browsers_that_answer_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, asked: bool
) -> None:
    """Doctor runs --version except for Playwright's headless shell builds, and reports the first line."""
    import subprocess

    from pagewarden._browser import doctor

    calls: list[list[str]] = []

    def fake_run(argv: list[str], **_: object) -> subprocess.CompletedProcess[str]:
        calls.append(argv)
        return subprocess.CompletedProcess(argv, 0, stdout="Chromium 156.0.1\nmore\n", stderr="")

    monkeypatch.setattr(doctor.subprocess, "run", fake_run)
    version = doctor._version(tmp_path / name)
    assert (calls == [[str(tmp_path / name), "--version"]]) is asked
    assert version == ("Chromium 156.0.1" if asked else None)
