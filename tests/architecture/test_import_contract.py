"""The import contract (.importlinter) holds for src/, and a wrong import in a copy of the package breaks it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / ".importlinter"
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

# (contract id, module of the copy, import added to it): one wrong import per contract.
WRONG_IMPORTS = [
    ("layers", "_config/limits.py", "from pagewarden._search.run import run_search"),
    ("layers", "_net/urls.py", "from pagewarden._reader import AsyncReader"),
    ("leaves", "_guard/guard.py", "from pagewarden._net import fetch"),
    ("egress", "_egress/server.py", "from pagewarden._browser import render"),
    # A type-only import closes a circle too: the tools used to import the reader that builds them.
    ("no-circles", "_tools/toolset.py", "if TYPE_CHECKING:\n    from pagewarden._reader import AsyncReader"),
]

pytestmark = pytest.mark.skipif(not LINT_IMPORTS.exists(), reason="import-linter is not installed (test extra)")


def _copy(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "src" / "pagewarden", tmp_path / "src" / "pagewarden",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(CONFIG, tmp_path / ".importlinter")
    return tmp_path


def _lint(root: Path, *contracts: str) -> subprocess.CompletedProcess[str]:
    # The copy comes first on the path, so grimp analyses it and not the installed package.
    env = {**os.environ, "PYTHONPATH": str(root / "src")}
    arguments = [str(LINT_IMPORTS), "--no-cache", *(f"--contract={c}" for c in contracts)]
    return subprocess.run(arguments, cwd=root, env=env, capture_output=True, text=True, timeout=120, check=False)


def test_the_contract_holds_for_src(tmp_path: Path) -> None:
    """Every contract is kept by the package as it is (and by a faithful copy, the baseline of the next test)."""
    result = _lint(_copy(tmp_path))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(("contract", "module", "line"), WRONG_IMPORTS)
def test_a_wrong_import_breaks_its_contract(tmp_path: Path, contract: str, module: str, line: str) -> None:
    """Adding one import that goes against the architecture makes lint-imports fail on that contract."""
    root = _copy(tmp_path)
    target = root / "src" / "pagewarden" / module
    text = target.read_text(encoding="utf-8")
    if "TYPE_CHECKING" in line and "import TYPE_CHECKING" not in text and "TYPE_CHECKING," not in text:
        line = "from typing import TYPE_CHECKING\n" + line
    target.write_text(text + "\n" + line + "\n", encoding="utf-8")
    result = _lint(root, contract)
    assert result.returncode != 0
    assert "BROKEN" in result.stdout and "1 broken" in result.stdout
