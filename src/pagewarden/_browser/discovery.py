"""Find the Chromium executable pagewarden launches.

The order, first match wins:

1. ``explicit``: a path (or a command name looked up on ``PATH``) the caller
   configured.
2. ``env``: the ``PAGEWARDEN_CHROMIUM`` environment variable, same forms.
3. ``playwright``: a browser installed by ``python -m playwright install
   chromium`` in Playwright's registry directory.
4. ``system``: ``chromium-headless-shell``, ``chromium``, ``chromium-browser``,
   ``google-chrome`` or ``google-chrome-stable`` on ``PATH``.

Within steps 3 and 4 the headless shell (Chromium's old headless mode, a
separate binary since Chromium 132) comes before the full browser. pagewarden
only ever runs headless, and the full browser creates a complete profile
(extensions, sync, safe-browsing services ...) for every new context: measured
here, a fresh context per read cost ~290 ms of CPU with the full browser and
~90 ms with the shell, 3.0 against 9.9 reads/s at concurrency 4 on 2 cores
(docs/benchmarks.md). Playwright itself launches the shell for headless runs.

A configured path (steps 1 and 2) that does not exist or cannot be executed is
an error, never a silent fall-through: the user asked for that browser, and
quietly launching another one would hide the mistake.

Nothing is launched or imported from Playwright here: the registry directory
is inspected the way Playwright 1.65 lays it out (``lib/server/registry`` in
its driver bundle): ``$PLAYWRIGHT_BROWSERS_PATH`` (``0`` meaning the driver
package's ``.local-browsers``), else ``$XDG_CACHE_HOME/ms-playwright`` or
``~/.cache/ms-playwright``; inside it ``chromium-<rev>/chrome-linux64/chrome``
and ``chromium_headless_shell-<rev>/chrome-headless-shell-linux64/
chrome-headless-shell`` (``-linux-arm64`` on ARM; older releases used
``chrome-linux/chrome`` and ``chrome-linux/headless_shell``), each directory
marked complete by an ``INSTALLATION_COMPLETE`` file.

Run as ``python -m pagewarden._browser.discovery`` it prints what it found;
``scripts/setup`` relies on that so the order has exactly one implementation.
Exit status: 0 found, 3 none found, 4 a configured path is invalid. The codes
are distinct from 1 (an uncaught exception, for example a package that does
not import) and 2 (a usage error) so the set-up script never mistakes a broken
checkout for a missing browser and starts installing one.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import shutil
import stat
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .._errors import ConfigMissing

__all__ = [
    "ENV_VAR",
    "EXIT_NOT_FOUND",
    "EXIT_PATH_INVALID",
    "SYSTEM_NAMES",
    "BrowserExecutable",
    "BrowserSource",
    "find_chromium",
    "main",
]

ENV_VAR = "PAGEWARDEN_CHROMIUM"
EXIT_NOT_FOUND = 3
EXIT_PATH_INVALID = 4
SYSTEM_NAMES: tuple[str, ...] = (
    "chromium-headless-shell",
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
)

BrowserSource = Literal["explicit", "env", "playwright", "system"]

REMEDIES = (
    f"set {ENV_VAR}=/path/to/chromium, run scripts/setup, "
    "or install one (apt-get install -y chromium-headless-shell, or python -m playwright install chromium)"
)

# Registry directory names (Playwright writes dashes in browser names as
# underscores) and, per kind, the executable inside for each layout Playwright
# has used on Linux. ``{arch}`` is ``linux64`` or ``linux-arm64``.
# The headless shell comes first (see the module docstring).
_REGISTRY_KINDS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "chromium_headless_shell",
        "chromium-headless-shell",
        ("chrome-headless-shell-{arch}/chrome-headless-shell", "chrome-linux/headless_shell"),
    ),
    ("chromium", "chromium", ("chrome-{arch}/chrome", "chrome-linux/chrome")),
)
_MARKER = "INSTALLATION_COMPLETE"


@dataclass(frozen=True, slots=True)
class BrowserExecutable:
    """A Chromium executable and how it was found.

    Attributes:
        path: the executable to launch.
        source: which step of the discovery order found it.
        wrapper: for ``system`` finds, the launcher script ``path`` was
            resolved from (for example Debian's ``/usr/bin/chromium``), else ``None``.
    """

    path: Path
    source: BrowserSource
    wrapper: Path | None = None

    def to_dict(self) -> dict[str, str | None]:
        """JSON-ready form."""
        return {
            "path": str(self.path),
            "source": self.source,
            "wrapper": None if self.wrapper is None else str(self.wrapper),
        }


def find_chromium(explicit: str | None = None, *, environ: Mapping[str, str] | None = None) -> BrowserExecutable:
    """Return the Chromium to use, following the module's discovery order.

    Args:
        explicit: a configured executable path or command name; wins over everything.
        environ: the environment to read (``PAGEWARDEN_CHROMIUM``, ``PATH``,
            ``HOME``, ``XDG_CACHE_HOME``, ``PLAYWRIGHT_BROWSERS_PATH``);
            defaults to ``os.environ``.

    Raises:
        ConfigMissing: ``reason="chromium_path_invalid"`` when the explicit
            setting or ``PAGEWARDEN_CHROMIUM`` names something that is not an
            executable file; ``reason="chromium_not_found"`` when no step finds one.
    """
    env = os.environ if environ is None else environ
    if explicit:
        return BrowserExecutable(_configured_path(explicit, "the configured browser path", env), "explicit")
    from_env = env.get(ENV_VAR, "")
    if from_env:
        return BrowserExecutable(_configured_path(from_env, ENV_VAR, env), "env")
    managed = next(_playwright_candidates(env), None)
    if managed is not None:
        return BrowserExecutable(managed, "playwright")
    found = _system_candidate(env)
    if found is not None:
        return found
    raise ConfigMissing(f"no Chromium found; {REMEDIES}", reason="chromium_not_found", stage="browser")


def _probe(path: Path) -> Literal["ok", "missing", "not_executable", "inaccessible"]:
    """Classify ``path`` as an executable candidate without ever raising.

    ``Path.is_file()`` and friends raise on ``EACCES`` (a browser under
    another user's home), which must not crash discovery.
    """
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return "missing"
    except OSError:
        return "inaccessible"
    if not stat.S_ISREG(info.st_mode) or not os.access(path, os.X_OK):
        return "not_executable"
    return "ok"


def _is_executable_file(path: Path) -> bool:
    return _probe(path) == "ok"


def _home(env: Mapping[str, str]) -> Path:
    home = env.get("HOME")
    return Path(home) if home else Path.home()


def _configured_path(value: str, setting: str, env: Mapping[str, str]) -> Path:
    """Validate a user-configured executable; never fall through to another browser."""
    if os.sep not in value and not value.startswith("~"):
        # A bare command name, as people write in shell configs.
        found = shutil.which(value, path=env.get("PATH", os.defpath))
        if found is None:
            raise ConfigMissing(
                f"{setting} names {value!r}, which is not a command on PATH; {REMEDIES}",
                reason="chromium_path_invalid",
                stage="browser",
            )
        return Path(found)
    path = Path(value)
    if value == "~" or value.startswith("~/"):
        path = _home(env) / value[2:]
    problem = {
        "missing": "does not exist",
        "not_executable": "is not an executable file",
        "inaccessible": "cannot be accessed (permissions?)",
    }.get(_probe(path))
    if problem is None:
        return path
    raise ConfigMissing(
        f"{setting} points to {str(path)!r}, which {problem}; {REMEDIES}",
        reason="chromium_path_invalid",
        stage="browser",
    )


def _playwright_package_root() -> Path | None:
    """The Playwright driver package directory, found without importing Playwright."""
    try:
        spec = importlib.util.find_spec("playwright")
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / "driver" / "package"


def _expected_revisions(package_root: Path | None) -> dict[str, str]:
    """Browser revisions the installed Playwright expects, from its ``browsers.json``."""
    if package_root is None:
        return {}
    try:
        data = json.loads((package_root / "browsers.json").read_text(encoding="utf-8"))
        return {str(entry["name"]): str(entry["revision"]) for entry in data["browsers"]}
    except (OSError, ValueError, KeyError, TypeError):
        # An unreadable manifest only loses the preference for the exact
        # revision; any complete installation is still usable.
        return {}


def _registry_directory(env: Mapping[str, str], package_root: Path | None) -> Path | None:
    """Where Playwright keeps its browsers, computed as its registry does."""
    configured = env.get("PLAYWRIGHT_BROWSERS_PATH", "")
    if configured == "0":
        return None if package_root is None else package_root / ".local-browsers"
    if configured:
        path = Path(configured)
        if not path.is_absolute():
            path = Path(env.get("INIT_CWD") or os.getcwd()) / path
        return path
    cache = env.get("XDG_CACHE_HOME")
    return (Path(cache) if cache else _home(env) / ".cache") / "ms-playwright"


def _arch_names() -> tuple[str, ...]:
    machine = platform.machine().lower()
    if machine in ("x86_64", "amd64"):
        return ("linux64",)
    if machine in ("aarch64", "arm64"):
        return ("linux-arm64",)
    return ()


def _playwright_candidates(env: Mapping[str, str]) -> Iterator[Path]:
    """Complete Playwright-managed Chromium executables, best first.

    The revision the installed Playwright expects comes first (the headless
    shell, then full Chromium), then other revisions, newest first.
    """
    package_root = _playwright_package_root()
    registry = _registry_directory(env, package_root)
    # os.path.isdir/isfile answer False on any OSError, unlike their pathlib twins.
    if registry is None or not os.path.isdir(registry):
        return
    expected = _expected_revisions(package_root)
    ranked: list[tuple[tuple[bool, int, int], Path]] = []
    for rank, (dir_prefix, manifest_name, layouts) in enumerate(_REGISTRY_KINDS):
        try:
            directories = list(registry.glob(f"{dir_prefix}-*"))
        except OSError:
            directories = []
        for directory in directories:
            revision = directory.name.removeprefix(f"{dir_prefix}-")
            if not revision.isdigit() or not os.path.isfile(directory / _MARKER):
                continue
            for layout in layouts:
                for arch in _arch_names() if "{arch}" in layout else ("",):
                    executable = directory / layout.format(arch=arch)
                    if _is_executable_file(executable):
                        key = (revision != expected.get(manifest_name), -int(revision), rank)
                        ranked.append((key, executable))
    for _, executable in sorted(ranked, key=lambda item: item[0]):
        yield executable


def _is_script(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(2) == b"#!"
    except OSError:
        return False


def _unwrap_launcher(found: Path) -> tuple[Path, Path | None]:
    """Resolve a distribution's shell launcher to the browser binary it execs.

    Debian's ``/usr/bin/chromium`` sources ``/etc/chromium.d``, which exports
    Google API keys into the browser's environment and appends flags
    (``--load-extension``, ``--enable-remote-extensions`` ...). The browser's
    flag set is part of pagewarden's egress policy, so launch the binary
    itself. A launcher whose binary is not where expected is used as is.
    """
    real = Path(os.path.realpath(found))
    if not _is_script(real):
        return found, None
    # Debian: /usr/bin/chromium -> /usr/lib/chromium/chromium, and
    # /usr/bin/chromium-headless-shell -> /usr/lib/chromium/chromium-headless-shell.
    lib = real.parent.parent / "lib"
    for binary in (lib / real.name / real.name, lib / "chromium" / real.name, real.parent / "chrome"):
        if binary != real and _is_executable_file(binary) and not _is_script(binary):
            return binary, found
    return found, None


def _system_candidate(env: Mapping[str, str]) -> BrowserExecutable | None:
    search_path = env.get("PATH", os.defpath)
    for name in SYSTEM_NAMES:
        found = shutil.which(name, path=search_path)
        if found is not None:
            binary, wrapper = _unwrap_launcher(Path(found))
            return BrowserExecutable(binary, "system", wrapper)
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Print the discovered Chromium; see the module docstring for the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m pagewarden._browser.discovery",
        description="Find the Chromium pagewarden would launch.",
    )
    parser.add_argument("--explicit", metavar="PATH", help="an explicitly configured executable")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print the result as JSON")
    output.add_argument("--path-only", action="store_true", help="print only the executable path")
    args = parser.parse_args(argv)
    try:
        found = find_chromium(args.explicit)
    except ConfigMissing as exc:
        if args.json:
            print(json.dumps(exc.to_dict()))
        else:
            print(exc, file=sys.stderr)
        return EXIT_PATH_INVALID if exc.reason == "chromium_path_invalid" else EXIT_NOT_FOUND
    if args.json:
        print(json.dumps(found.to_dict()))
    elif args.path_only:
        print(found.path)
    else:
        via = f" via {found.wrapper}" if found.wrapper is not None else ""
        print(f"chromium: {found.path} (source: {found.source}{via})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
