"""Chromium discovery over a fake filesystem: every step of the order, and its errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from pagewarden._browser import discovery
from pagewarden._browser.discovery import BrowserExecutable, find_chromium
from pagewarden._errors import ConfigMissing

EXPECTED_REVISION = "1255"
ELF = b"\x7fELF fake browser\n"
SCRIPT = b"#!/bin/sh\nexec true\n"


def _write_executable(path: Path, content: bytes = ELF, mode: int = 0o755) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    path.chmod(mode)
    return path


@dataclass
class FakeMachine:
    """A home directory, a PATH directory and a Playwright package root under tmp_path."""

    root: Path

    @property
    def bin(self) -> Path:
        return self.root / "bin"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def package_root(self) -> Path:
        return self.root / "site-packages" / "playwright" / "driver" / "package"

    def environ(self, **extra: str) -> dict[str, str]:
        return {"PATH": str(self.bin), "HOME": str(self.home), **extra}

    def add_system(self, name: str = "chromium", content: bytes = ELF) -> Path:
        return _write_executable(self.bin / name, content)

    def add_playwright(
        self,
        registry: Path | None = None,
        directory: str = f"chromium-{EXPECTED_REVISION}",
        layout: str = "chrome-linux64/chrome",
        *,
        complete: bool = True,
    ) -> Path:
        base = (registry or self.home / ".cache" / "ms-playwright") / directory
        executable = _write_executable(base / layout)
        if complete:
            (base / "INSTALLATION_COMPLETE").touch()
        return executable


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeMachine:
    """A fake machine; discovery sees only it (its Playwright package, x86-64 layout names)."""
    fake = FakeMachine(tmp_path)
    fake.bin.mkdir()
    fake.home.mkdir()
    fake.package_root.mkdir(parents=True)
    manifest = {
        "browsers": [
            {"name": "chromium", "revision": EXPECTED_REVISION},
            {"name": "chromium-headless-shell", "revision": EXPECTED_REVISION},
            {"name": "firefox", "revision": "1572"},
        ]
    }
    (fake.package_root / "browsers.json").write_text(json.dumps(manifest))
    monkeypatch.setattr(discovery, "_playwright_package_root", lambda: fake.package_root)
    monkeypatch.setattr(discovery, "_arch_names", lambda: ("linux64",))
    return fake


# --- the order -------------------------------------------------------------------------------------------

# (steps present on the machine, the source that must win)
ORDER_CASES = [
    (("explicit", "env", "playwright", "system"), "explicit"),
    (("env", "playwright", "system"), "env"),
    (("playwright", "system"), "playwright"),
    (("system",), "system"),
    (("explicit", "system"), "explicit"),
    (("env", "system"), "env"),
]


@pytest.mark.parametrize(("present", "winner"), ORDER_CASES)
def test_first_present_step_of_the_order_wins(
    machine: FakeMachine, present: tuple[str, ...], winner: str
) -> None:
    """Explicit beats PAGEWARDEN_CHROMIUM beats Playwright-managed beats the system's."""
    paths = {
        "explicit": _write_executable(machine.root / "opt" / "explicit-chrome"),
        "env": _write_executable(machine.root / "opt" / "env-chrome"),
    }
    if "playwright" in present:
        paths["playwright"] = machine.add_playwright()
    if "system" in present:
        paths["system"] = machine.add_system()
    environ = machine.environ()
    if "env" in present:
        environ[discovery.ENV_VAR] = str(paths["env"])
    explicit = str(paths["explicit"]) if "explicit" in present else None
    found = find_chromium(explicit, environ=environ)
    assert (found.path, found.source, found.wrapper) == (paths[winner], winner, None)


def test_nothing_found_is_config_missing_naming_the_remedies(machine: FakeMachine) -> None:
    """With no browser anywhere, discovery raises chromium_not_found and says what to run."""
    with pytest.raises(ConfigMissing) as caught:
        find_chromium(environ=machine.environ())
    assert caught.value.reason == "chromium_not_found"
    for remedy in ("PAGEWARDEN_CHROMIUM", "scripts/setup", "apt-get install -y chromium"):
        assert remedy in caught.value.message


def test_empty_env_variable_counts_as_unset(machine: FakeMachine) -> None:
    """PAGEWARDEN_CHROMIUM set to the empty string does not stop the search."""
    system = machine.add_system()
    found = find_chromium(environ=machine.environ(**{discovery.ENV_VAR: ""}))
    assert found == BrowserExecutable(system, "system")


# --- configured paths: validated, never a silent fall-through -------------------------------------------

# (what the setting names, a short description used in the message)
INVALID_SETTINGS = [
    ("missing", "does not exist"),
    ("not_executable", "is not an executable file"),
    ("directory", "is not an executable file"),
    ("bare_name_not_on_path", "not a command on PATH"),
]


def _invalid_setting(machine: FakeMachine, kind: str) -> str:
    if kind == "missing":
        return str(machine.root / "opt" / "no-such-chrome")
    if kind == "not_executable":
        return str(_write_executable(machine.root / "opt" / "chrome", mode=0o644))
    if kind == "directory":
        (machine.root / "opt" / "chrome-dir").mkdir(parents=True)
        return str(machine.root / "opt" / "chrome-dir")
    return "no-such-browser-command"


@pytest.mark.parametrize("setting", ["explicit", "env"])
@pytest.mark.parametrize(("kind", "problem"), INVALID_SETTINGS)
def test_invalid_configured_path_is_an_error_not_a_fallthrough(
    machine: FakeMachine, setting: str, kind: str, problem: str
) -> None:
    """A configured path that is not an executable file raises chromium_path_invalid though others exist."""
    machine.add_system()
    machine.add_playwright()
    value = _invalid_setting(machine, kind)
    environ = machine.environ()
    if setting == "env":
        environ[discovery.ENV_VAR] = value
    with pytest.raises(ConfigMissing) as caught:
        find_chromium(value if setting == "explicit" else None, environ=environ)
    assert caught.value.reason == "chromium_path_invalid"
    assert problem in caught.value.message
    assert "scripts/setup" in caught.value.message
    if setting == "env":
        assert discovery.ENV_VAR in caught.value.message


def test_configured_command_name_is_looked_up_on_path(machine: FakeMachine) -> None:
    """A bare command name in PAGEWARDEN_CHROMIUM is resolved with the environment's PATH."""
    browser = machine.add_system("my-chrome")
    found = find_chromium(environ=machine.environ(**{discovery.ENV_VAR: "my-chrome"}))
    assert found == BrowserExecutable(browser, "env")


def test_configured_path_expands_home(machine: FakeMachine) -> None:
    """``~/`` in a configured path means the environment's HOME."""
    browser = _write_executable(machine.home / "browsers" / "chrome")
    found = find_chromium("~/browsers/chrome", environ=machine.environ())
    assert found == BrowserExecutable(browser, "explicit")


def test_configured_script_is_not_unwrapped(machine: FakeMachine) -> None:
    """An explicitly configured launcher script is launched as configured."""
    launcher = _write_executable(machine.bin / "chromium", SCRIPT)
    _write_executable(machine.root / "lib" / "chromium" / "chromium")
    found = find_chromium(str(launcher), environ=machine.environ())
    assert found == BrowserExecutable(launcher, "explicit")


def _lock(monkeypatch: pytest.MonkeyPatch, locked: Path) -> None:
    """Make stat() under ``locked`` fail with EACCES, as another user's home does (root ignores modes)."""
    real_stat = os.stat

    def stat(path: object, *args: object, **kwargs: object) -> os.stat_result:
        if str(path).startswith(str(locked) + os.sep):
            raise PermissionError(13, "Permission denied", str(path))
        return real_stat(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "stat", stat)


def test_inaccessible_configured_path_is_invalid_not_a_crash(
    machine: FakeMachine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A configured browser the user may not stat raises chromium_path_invalid, not PermissionError."""
    browser = _write_executable(machine.root / "locked" / "chrome")
    _lock(monkeypatch, machine.root / "locked")
    with pytest.raises(ConfigMissing, match="cannot be accessed") as caught:
        find_chromium(str(browser), environ=machine.environ())
    assert caught.value.reason == "chromium_path_invalid"


def test_inaccessible_registry_is_skipped(machine: FakeMachine, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Playwright registry the user may not read is passed over for the system browser."""
    machine.add_playwright(machine.root / "locked" / "ms-playwright")
    system = machine.add_system()
    _lock(monkeypatch, machine.root / "locked")
    environ = machine.environ(PLAYWRIGHT_BROWSERS_PATH=str(machine.root / "locked" / "ms-playwright"))
    assert find_chromium(environ=environ) == BrowserExecutable(system, "system")


# --- the Playwright registry ----------------------------------------------------------------------------

# (environment variables relative to the fake machine, registry directory relative to it)
REGISTRY_LOCATIONS = [
    ({}, "home/.cache/ms-playwright"),
    ({"XDG_CACHE_HOME": "xdg"}, "xdg/ms-playwright"),
    ({"PLAYWRIGHT_BROWSERS_PATH": "pw-browsers"}, "pw-browsers"),
    ({"PLAYWRIGHT_BROWSERS_PATH": "pw-browsers", "XDG_CACHE_HOME": "xdg"}, "pw-browsers"),
    ({"PLAYWRIGHT_BROWSERS_PATH": "0"}, "site-packages/playwright/driver/package/.local-browsers"),
]


@pytest.mark.parametrize(("variables", "registry"), REGISTRY_LOCATIONS)
def test_registry_directory_follows_playwright_rules(
    machine: FakeMachine, variables: dict[str, str], registry: str
) -> None:
    """The registry is found where Playwright puts it: BROWSERS_PATH, its 0 form, XDG cache, ~/.cache."""
    browser = machine.add_playwright(machine.root / registry)
    environ = machine.environ(
        **{key: value if value == "0" else str(machine.root / value) for key, value in variables.items()}
    )
    assert find_chromium(environ=environ) == BrowserExecutable(browser, "playwright")


def test_relative_browsers_path_resolves_against_init_cwd(machine: FakeMachine) -> None:
    """A relative PLAYWRIGHT_BROWSERS_PATH is taken relative to INIT_CWD, as Playwright does."""
    browser = machine.add_playwright(machine.root / "project" / "browsers")
    environ = machine.environ(PLAYWRIGHT_BROWSERS_PATH="browsers", INIT_CWD=str(machine.root / "project"))
    assert find_chromium(environ=environ) == BrowserExecutable(browser, "playwright")


# Each case: installations as (directory, layout, complete) and the index of the one that must be chosen,
# or None when none is usable.
INSTALLATION_CASES = [
    pytest.param(
        [("chromium-1300", "chrome-linux64/chrome", True), ("chromium-1255", "chrome-linux64/chrome", True)],
        1,
        id="expected-revision-beats-newer",
    ),
    pytest.param(
        [
            ("chromium_headless_shell-1255", "chrome-headless-shell-linux64/chrome-headless-shell", True),
            ("chromium-1255", "chrome-linux64/chrome", True),
        ],
        0,
        id="headless-shell-beats-full-chromium",
    ),
    pytest.param(
        [("chromium_headless_shell-1255", "chrome-headless-shell-linux64/chrome-headless-shell", True)],
        0,
        id="headless-shell-alone",
    ),
    pytest.param(
        [("chromium-1100", "chrome-linux/chrome", True), ("chromium-1200", "chrome-linux/chrome", True)],
        1,
        id="newest-other-revision-legacy-layout",
    ),
    pytest.param(
        [("chromium_headless_shell-1100", "chrome-linux/headless_shell", True)],
        0,
        id="legacy-headless-shell",
    ),
    pytest.param([("chromium-1255", "chrome-linux64/chrome", False)], None, id="incomplete-install-skipped"),
    pytest.param([("chromium-tip", "chrome-linux64/chrome", True)], None, id="non-numeric-revision"),
    pytest.param(
        [("chromium_tip_of_tree-1255", "chrome-linux64/chrome", True)], None, id="other-channel-ignored"
    ),
    pytest.param([("chromium-1255", "chrome-mac-arm64/chrome", True)], None, id="other-platform-ignored"),
    pytest.param(
        [("chromium-1255", "chrome-linux64/chrome", False), ("chromium-1200", "chrome-linux64/chrome", True)],
        1,
        id="falls-back-to-complete-older",
    ),
]


@pytest.mark.parametrize(("installations", "chosen"), INSTALLATION_CASES)
def test_playwright_installation_ranking(
    machine: FakeMachine, installations: list[tuple[str, str, bool]], chosen: int | None
) -> None:
    """Complete installs only; the revision Playwright expects first, the headless shell before full Chromium."""
    system = machine.add_system()
    paths = [
        machine.add_playwright(directory=directory, layout=layout, complete=complete)
        for directory, layout, complete in installations
    ]
    found = find_chromium(environ=machine.environ())
    if chosen is None:
        assert found == BrowserExecutable(system, "system")
    else:
        assert found == BrowserExecutable(paths[chosen], "playwright")


def test_unreadable_manifest_still_finds_installs(machine: FakeMachine) -> None:
    """A missing browsers.json only loses the revision preference: the newest install is used."""
    (machine.package_root / "browsers.json").unlink()
    machine.add_playwright(directory="chromium-1100")
    newest = machine.add_playwright(directory="chromium-1200")
    assert find_chromium(environ=machine.environ()) == BrowserExecutable(newest, "playwright")


# (platform.machine() value, layout names)
ARCHES = [("x86_64", ("linux64",)), ("AMD64", ("linux64",)), ("aarch64", ("linux-arm64",)),
          ("arm64", ("linux-arm64",)), ("riscv64", ())]


@pytest.mark.parametrize(("machine_name", "names"), ARCHES)
def test_arch_names_match_playwright_platform_dirs(
    monkeypatch: pytest.MonkeyPatch, machine_name: str, names: tuple[str, ...]
) -> None:
    """The CPU architecture maps to Playwright's chrome-<arch> directory names."""
    monkeypatch.setattr(discovery.platform, "machine", lambda: machine_name)
    assert discovery._arch_names() == names


# --- system browsers ------------------------------------------------------------------------------------

# (names present on PATH, the one chosen)
SYSTEM_CASES = [
    (("chromium", "chromium-headless-shell"), "chromium-headless-shell"),
    (("chromium", "google-chrome"), "chromium"),
    (("chromium-browser", "google-chrome"), "chromium-browser"),
    (("google-chrome-stable", "google-chrome"), "google-chrome"),
    (("google-chrome-stable",), "google-chrome-stable"),
]


@pytest.mark.parametrize(("names", "chosen"), SYSTEM_CASES)
def test_system_names_in_order(machine: FakeMachine, names: tuple[str, ...], chosen: str) -> None:
    """System browsers are tried as chromium-headless-shell, chromium, chromium-browser, google-chrome(-stable)."""
    for name in names:
        machine.add_system(name)
    assert find_chromium(environ=machine.environ()) == BrowserExecutable(machine.bin / chosen, "system")


def test_system_lookup_uses_the_given_path_only(machine: FakeMachine) -> None:
    """A browser outside the environment's PATH is not found."""
    _write_executable(machine.root / "elsewhere" / "chromium")
    with pytest.raises(ConfigMissing):
        find_chromium(environ=machine.environ())


def test_debian_launcher_resolves_to_the_binary(machine: FakeMachine) -> None:
    """Debian's /usr/bin/chromium script gives way to /usr/lib/chromium/chromium; the wrapper is kept."""
    launcher = machine.add_system("chromium", SCRIPT)
    binary = _write_executable(machine.root / "lib" / "chromium" / "chromium")
    assert find_chromium(environ=machine.environ()) == BrowserExecutable(binary, "system", launcher)


def test_debian_headless_shell_launcher_resolves_to_the_binary(machine: FakeMachine) -> None:
    """Debian's /usr/bin/chromium-headless-shell script gives way to /usr/lib/chromium/chromium-headless-shell."""
    launcher = machine.add_system("chromium-headless-shell", SCRIPT)
    binary = _write_executable(machine.root / "lib" / "chromium" / "chromium-headless-shell")
    assert find_chromium(environ=machine.environ()) == BrowserExecutable(binary, "system", launcher)


def test_chrome_launcher_behind_symlink_resolves_to_chrome(machine: FakeMachine) -> None:
    """google-chrome -> /opt/google/chrome/google-chrome (a script) resolves to the chrome beside it."""
    script = _write_executable(machine.root / "opt" / "google" / "chrome" / "google-chrome", SCRIPT)
    binary = _write_executable(script.parent / "chrome")
    (machine.bin / "google-chrome").symlink_to(script)
    found = find_chromium(environ=machine.environ())
    assert found == BrowserExecutable(binary, "system", machine.bin / "google-chrome")


def test_launcher_without_known_binary_is_used_as_is(machine: FakeMachine) -> None:
    """A launcher script whose binary is not in a known place is launched itself."""
    launcher = machine.add_system("chromium", SCRIPT)
    assert find_chromium(environ=machine.environ()) == BrowserExecutable(launcher, "system")


# --- the command line -----------------------------------------------------------------------------------


@pytest.fixture
def cli_env(machine: FakeMachine, monkeypatch: pytest.MonkeyPatch) -> FakeMachine:
    """Point the process environment at the fake machine for main()."""
    for name in (discovery.ENV_VAR, "PLAYWRIGHT_BROWSERS_PATH", "XDG_CACHE_HOME", "INIT_CWD"):
        monkeypatch.delenv(name, raising=False)
    for name, value in machine.environ().items():
        monkeypatch.setenv(name, value)
    return machine


# (arguments, whether a system browser exists, PAGEWARDEN_CHROMIUM value, exit status, expected stdout text)
CLI_CASES = [
    ([], True, None, 0, "(source: system)"),
    (["--path-only"], True, None, 0, "/bin/chromium\n"),
    (["--json"], True, None, 0, '"source": "system"'),
    ([], False, None, discovery.EXIT_NOT_FOUND, ""),
    (["--json"], False, None, discovery.EXIT_NOT_FOUND, '"reason": "chromium_not_found"'),
    ([], True, "/no/such/chrome", discovery.EXIT_PATH_INVALID, ""),
    (["--explicit", "/no/such/chrome"], True, None, discovery.EXIT_PATH_INVALID, ""),
]


@pytest.mark.parametrize(("argv", "system", "env_value", "status", "stdout"), CLI_CASES)
def test_cli_prints_result_and_exit_status(
    cli_env: FakeMachine,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    system: bool,
    env_value: str | None,
    status: int,
    stdout: str,
) -> None:
    """main() prints the find (text, path or JSON) and exits 0, 3 (none) or 4 (invalid configured path)."""
    if system:
        cli_env.add_system()
    if env_value is not None:
        monkeypatch.setenv(discovery.ENV_VAR, env_value)
    assert discovery.main(argv) == status
    out, err = capsys.readouterr()
    assert stdout in out
    if status and "--json" not in argv:
        assert "CONFIG_MISSING" in err
        assert out == ""


def test_module_runs_without_import_warnings(tmp_path: Path) -> None:
    """``python -m pagewarden._browser.discovery`` runs cleanly and exits 3 when nothing is found."""
    empty = tmp_path / "empty"
    empty.mkdir()
    # The child imports the same pagewarden as this process, whatever put it on the path.
    env = {
        "PATH": str(empty),
        "HOME": str(tmp_path),
        "PYTHONWARNINGS": "error",
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    result = subprocess.run(
        [sys.executable, "-m", "pagewarden._browser.discovery"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == discovery.EXIT_NOT_FOUND, result.stderr
    assert result.stderr.startswith("CONFIG_MISSING: no Chromium found")
    assert "Warning" not in result.stderr


# --- the layout assumptions, checked against the installed Playwright -----------------------------------

LAYOUT_MARKERS = [
    "PLAYWRIGHT_BROWSERS_PATH",
    '"ms-playwright"',
    "INSTALLATION_COMPLETE",
    '"chrome-linux64", "chrome"',
    '"chrome-headless-shell-linux64", "chrome-headless-shell"',
    '"chrome-linux-arm64", "chrome"',
    '"chromium-headless-shell"',
    ".local-browsers",
    "XDG_CACHE_HOME",
]


def test_installed_playwright_still_uses_the_layout_we_read() -> None:
    """The installed Playwright's registry code still names the directories discovery inspects."""
    package_root = discovery._playwright_package_root()
    assert package_root is not None
    revisions = discovery._expected_revisions(package_root)
    assert revisions.get("chromium", "").isdigit()
    assert revisions.get("chromium-headless-shell", "").isdigit()
    sources = "".join(path.read_text(encoding="utf-8") for path in (package_root / "lib").rglob("*.js"))
    missing = [marker for marker in LAYOUT_MARKERS if marker not in sources]
    assert not missing, f"Playwright's registry layout changed; discovery.py must follow: {missing}"
