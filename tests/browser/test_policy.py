"""The request policy files: the shipped ones load, invalid ones are refused key by key."""

from __future__ import annotations

import copy
import importlib.resources
import tomllib
from pathlib import Path
from typing import Any

import pytest

from pagewarden._browser import policy as policy_module
from pagewarden._browser.config import BrowserConfig
from pagewarden._browser.policy import BUILTIN_POLICIES, load_policy, parse_policy, policy_source
from pagewarden._errors import InvalidInput

REPO = Path(__file__).resolve().parents[2]
CASES: list[dict[str, Any]] = tomllib.loads((Path(__file__).parent / "data" / "policy_cases.toml").read_text())[
    "case"
]
DEFAULT_DATA: dict[str, Any] = tomllib.loads((REPO / "browser_policy" / "default.toml").read_text())


def _patched(case: dict[str, Any]) -> dict[str, Any]:
    data = copy.deepcopy(DEFAULT_DATA)
    for dotted, value in case.get("set", {}).items():
        *tables, key = dotted.split(".")
        target = data
        for table in tables:
            target = target[table]
        target[key] = value
    if "delete" in case:
        *tables, key = case["delete"].split(".")
        target = data
        for table in tables:
            target = target[table]
        del target[key]
    return data


def test_default_policy_matches_the_issue() -> None:
    """The default policy is GET/HEAD, five resource types, no frames, 100 requests, 5 MB, 100k nodes."""
    policy = load_policy("default")
    assert policy.methods == {"GET", "HEAD"}
    assert policy.resource_types == {"document", "script", "stylesheet", "xhr", "fetch"}
    assert not policy.subframes
    assert (policy.max_requests, policy.max_bytes, policy.max_dom_nodes) == (100, 5_000_000, 100_000)
    assert (policy.navigation_timeout, policy.settle_time) == (8.0, 0.75)
    assert all(
        (policy.refuse_websocket, policy.refuse_event_source, policy.refuse_webrtc, policy.refuse_send_beacon,
         policy.refuse_window_open)
    )


def test_strict_policy_is_stricter_than_default() -> None:
    """Every budget of the strict policy is at most the default's, and it refuses third parties."""
    default, strict = load_policy("default"), load_policy("strict")
    assert strict.methods <= default.methods
    assert strict.resource_types <= default.resource_types
    assert strict.max_requests <= default.max_requests
    assert strict.max_bytes <= default.max_bytes
    assert strict.max_dom_nodes <= default.max_dom_nodes
    assert strict.third_party is False


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_invalid_policy_is_refused(case: dict[str, Any]) -> None:
    """An invalid policy is INVALID_INPUT naming the offending key or value."""
    with pytest.raises(InvalidInput) as caught:
        parse_policy(_patched(case), "case")
    assert caught.value.reason == "invalid_browser_policy"
    assert case["mentions"] in caught.value.message


def test_default_file_round_trips() -> None:
    """The unpatched default parses (so the invalid cases fail for their patch, not the base)."""
    assert parse_policy(_patched({}), "x").max_requests == 100


def test_user_policy_file(tmp_path: Path) -> None:
    """A user policy file is loaded by path; its name in errors is the file name only."""
    text = (REPO / "browser_policy" / "default.toml").read_text().replace("max_requests = 100", "max_requests = 7")
    path = tmp_path / "mine.toml"
    path.write_text(text)
    assert load_policy(str(path)).max_requests == 7
    path.write_text(text.replace("max_requests = 7", "max_requests = 7\nbogus = 1"))
    with pytest.raises(InvalidInput, match=r"mine\.toml") as caught:
        load_policy(str(path))
    assert str(tmp_path) not in caught.value.message


@pytest.mark.parametrize(
    ("content", "reason"),
    [(None, "browser_policy_unreadable"), (b"\xff\xfe", "invalid_browser_policy"),
     (b"version = [", "invalid_browser_policy"), (b"#" * 70_000, "invalid_browser_policy")],
    ids=["missing", "not-utf8", "not-toml", "too-large"],
)
def test_unloadable_policy_file(tmp_path: Path, content: bytes | None, reason: str) -> None:
    """Missing, non-UTF-8, non-TOML and oversized files are INVALID_INPUT with a named reason."""
    path = tmp_path / "p.toml"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(InvalidInput) as caught:
        load_policy(str(path))
    assert caught.value.reason == reason


def test_editable_install_reads_the_repository_folder() -> None:
    """Without a packaged copy (editable install), built-in policies come from the repo's browser_policy/."""
    packaged = importlib.resources.files("pagewarden").joinpath("browser_policy", "default.toml")
    if packaged.is_file():
        pytest.skip("a packaged copy exists: this is an installed wheel")
    assert Path(str(policy_source("default"))) == REPO / "browser_policy" / "default.toml"


def test_installed_package_copy_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """When the wheel's pagewarden/browser_policy exists, it is read instead of the repository folder."""
    package = tmp_path / "pagewarden"
    (package / "browser_policy").mkdir(parents=True)
    text = (REPO / "browser_policy" / "strict.toml").read_text().replace("max_requests = 40", "max_requests = 41")
    (package / "browser_policy" / "strict.toml").write_text(text)
    monkeypatch.setattr(policy_module.importlib.resources, "files", lambda _name: package)
    assert load_policy("strict").max_requests == 41


@pytest.mark.parametrize("name", BUILTIN_POLICIES)
def test_builtin_policies_document_every_key(name: str) -> None:
    """Every key of a shipped policy is preceded by a comment line (the defaults are documented line by line)."""
    lines = (REPO / "browser_policy" / f"{name}.toml").read_text().splitlines()
    reference = (REPO / "browser_policy" / "default.toml").read_text() if name != "default" else ""
    for index, line in enumerate(lines):
        if "=" in line and not line.startswith("#") and name == "default":
            assert lines[index - 1].startswith("#"), f"undocumented line: {line}"
        if "=" in line and not line.startswith("#") and name != "default":
            assert line.split("=")[0].strip() in reference


def test_config_overrides_timings() -> None:
    """BrowserConfig navigation_timeout/settle_time override the policy's values."""
    policy = load_policy("default").with_timings(BrowserConfig(navigation_timeout=3, settle_time=0).navigation_timeout,
                                                 0.0)
    assert (policy.navigation_timeout, policy.settle_time) == (3.0, 0.0)
