"""The one sandboxed launch: Chromium's own sandbox on, under an unprivileged user, proven from inside and out.

As root (this machine's CI) Chromium's sandbox cannot start, so the browser itself is run as the
unprivileged user ``scripts/setup`` creates (``pwtest``, or ``$PAGEWARDEN_TEST_USER``): a small wrapper,
given as the executable, hands Playwright's temporary profile directory to that user and ``setpriv``s to
it before exec'ing Chromium. The Python process stays root (its interpreter lives under /root, which the
test user cannot read), which is why the pool's root check is told the truth here: the process that
runs the sandbox is not root. Not as root, the pool is used as a user would, with no wrapper.

Proof that the sandbox is on, from outside: every renderer process runs as the test user under seccomp-bpf
(``Seccomp: 2`` in /proc/<pid>/status) and in PID and network namespaces of its own (Chromium's namespace
sandbox layer; the browser process stays in the host's). From inside, where the browser has the page (the
full browser does, the headless shell has no WebUI): ``chrome://sandbox`` says "You are adequately
sandboxed.".
"""

from __future__ import annotations

import os
import pwd
import shutil
import stat
from pathlib import Path

import pytest

from pagewarden._browser.config import BrowserConfig
from pagewarden._browser.discovery import find_chromium
from pagewarden._browser.pool import BrowserPool
from pagewarden._browser.processes import group_members
from pagewarden._browser.render import render
from pagewarden._config import ReaderConfig
from pagewarden._errors import ConfigMissing
from tests.support.server import FixtureServer

pytestmark = [pytest.mark.browser, pytest.mark.anyio]

TEST_USER = os.environ.get("PAGEWARDEN_TEST_USER", "pwtest")
WRAPPER = """#!/bin/sh
set -e
for arg in "$@"; do
  case "$arg" in
    --user-data-dir=*) chown -R {user}: "${{arg#--user-data-dir=}}" ;;
  esac
done
export HOME={home}
exec {setpriv} --reuid={user} --regid={user} --init-groups -- {chromium} "$@"
"""


def _wrapper(tmp_path: Path) -> Path:
    """The root-to-test-user wrapper around the discovered Chromium."""
    try:
        pwd.getpwnam(TEST_USER)
    except KeyError:
        pytest.fail(f"no user {TEST_USER!r}: run scripts/setup (as root it creates the unprivileged test user)")
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.fail("setpriv (util-linux) is needed to drop to the test user")
    home = tmp_path / "home"
    home.mkdir()
    shutil.chown(home, TEST_USER, TEST_USER)
    try:
        chromium = find_chromium().path
    except ConfigMissing as exc:
        pytest.fail(f"{exc} (deselect with -m 'not browser')")
    wrapper = tmp_path / "chromium-as-test-user"
    wrapper.write_text(WRAPPER.format(user=TEST_USER, home=home, setpriv=setpriv, chromium=chromium))
    wrapper.chmod(stat.S_IRWXU)
    return wrapper


def _status(pid: int) -> dict[str, str]:
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return {}
    return {key: value.strip() for key, _, value in (line.partition(":") for line in lines)}


def _namespaces(pid: int) -> tuple[str, str] | None:
    """The PID and network namespaces of a process, or ``None`` when they cannot be read."""
    try:
        return os.readlink(f"/proc/{pid}/ns/pid"), os.readlink(f"/proc/{pid}/ns/net")
    except OSError:
        return None


def _renderers(pid: int) -> list[int]:
    found = []
    for member in group_members(pid):
        try:
            if b"--type=renderer" in Path(f"/proc/{member}/cmdline").read_bytes():
                found.append(member)
        except OSError:
            continue
    return found


async def test_sandboxed_launch_under_an_unprivileged_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fixture_server: FixtureServer
) -> None:
    """With the sandbox on, a page renders, and its renderers run seccomp-filtered in their own namespaces."""
    executable = None
    chromium = find_chromium().path
    if os.geteuid() == 0:
        executable = str(_wrapper(tmp_path))
        # The browser process runs as the test user, not as this root process.
        monkeypatch.setattr("pagewarden._browser.launch.os.geteuid", lambda: pwd.getpwnam(TEST_USER).pw_uid)
    fixture_server.add(
        "/s",
        headers={"Content-Type": "text/html"},
        body=b"<p id=x>static</p><script>document.getElementById('x').textContent = 'sandboxed js'</script>",
    )
    config = ReaderConfig(unsafe_allow_destinations=(fixture_server.host_port,))
    has_sandbox_page = "headless" not in chromium.name

    async with BrowserPool(BrowserConfig(executable=executable, external_sandbox=False), config) as pool:
        rendered = await render(pool, fixture_server.url("/s"))
        assert "sandboxed js" in rendered.html
        assert not any("sandbox was off" in item for item in rendered.limitations)
        async with pool.lease() as lease:
            context = await lease.browser.new_context()
            try:
                page = await context.new_page()
                report = None
                if has_sandbox_page:
                    await page.goto("chrome://sandbox")
                    report = await page.inner_text("body")
                else:
                    await page.set_content("<p>renderer</p>")
                pid = pool.stats()["pids"][0]
                renderers = _renderers(pid)
                statuses = [_status(r) for r in renderers]
                browser_namespaces = _namespaces(pid)
                renderer_namespaces = [_namespaces(r) for r in renderers]
            finally:
                await context.close()
    if report is not None:
        assert "You are adequately sandboxed." in report
        assert "Seccomp-BPF sandbox\tYes" in report
    assert renderers
    expected_uid = str(pwd.getpwnam(TEST_USER).pw_uid) if os.geteuid() == 0 else str(os.geteuid())
    for status in statuses:
        assert status.get("Seccomp") == "2"  # SECCOMP_MODE_FILTER
        assert status.get("Uid", "").split()[0] == expected_uid
    if os.geteuid() == 0:  # root may read every process's namespaces; a user may not read the sandboxed ones
        assert browser_namespaces is not None
        for namespaces in renderer_namespaces:
            assert namespaces is not None
            assert namespaces[0] != browser_namespaces[0] and namespaces[1] != browser_namespaces[1]
    assert not group_members(pid)
