"""The browser request policy, loaded from TOML into a frozen object.

The shipped policies live in ``browser_policy/`` at the repository root and
are installed as ``pagewarden/browser_policy`` in the wheel; each key is
documented in ``browser_policy/default.toml``. A policy file is validated
strictly: unknown or missing keys, wrong types and out-of-range values are
``INVALID_INPUT``, so a typo can never silently loosen the policy. Values
that would open a channel the design depends on closing (POST, WebSocket or
beacon resource types) are refused outright rather than accepted.
"""

from __future__ import annotations

import importlib.resources
import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from .._errors import InvalidInput

__all__ = [
    "ALLOWED_METHODS",
    "ALLOWED_RESOURCE_TYPES",
    "BUILTIN_POLICIES",
    "BrowserPolicy",
    "load_policy",
    "parse_policy",
    "policy_source",
]

BUILTIN_POLICIES: Final = ("default", "strict")
# GET and HEAD carry no body; nothing else may ever be allowed.
ALLOWED_METHODS: Final = frozenset({"GET", "HEAD"})
# Types a policy may let through. websocket, eventsource, ping (sendBeacon)
# and other (prefetch, ...) are never allowed: they are exactly the channels
# the policy exists to close.
ALLOWED_RESOURCE_TYPES: Final = frozenset(
    {"document", "script", "stylesheet", "xhr", "fetch", "image", "media", "font", "texttrack", "manifest"}
)
_MAX_FILE_BYTES = 65_536

_SCHEMA: Final[dict[str, dict[str, type | tuple[type, ...]]]] = {
    "requests": {
        "methods": list,
        "resource_types": list,
        "max_requests": int,
        "max_bytes": int,
        "third_party": bool,
        "subframes": bool,
    },
    "page": {
        "max_dom_nodes": int,
        "max_html_chars": int,
        "navigation_timeout": (int, float),
        "settle_time": (int, float),
        "settle_quiet": (int, float),
        "settle_idle": (int, float),
        "scroll_steps": int,
        "scroll_time": (int, float),
        "snapshot_timeout": (int, float),
    },
    "refuse": {
        "websocket": bool,
        "event_source": bool,
        "webrtc": bool,
        "send_beacon": bool,
        "window_open": bool,
    },
}


@dataclass(frozen=True, slots=True)
class BrowserPolicy:
    """What a rendered page may do; see ``browser_policy/default.toml`` for each field.

    Attributes:
        name: where the policy came from (``default``, ``strict`` or the file path).
        methods: allowed HTTP methods (a subset of GET, HEAD).
        resource_types: Playwright resource types let through.
        max_requests: requests per page, the main document included.
        max_bytes: network bytes per page.
        third_party: whether resources from other hosts than the page's may load.
        subframes: whether nested frames may load (always ``False`` in the shipped policies).
        max_dom_nodes: element, text and comment nodes per page.
        max_html_chars: characters of serialized snapshot HTML.
        navigation_timeout: seconds to reach DOMContentLoaded.
        settle_time: most seconds to wait for the page to settle afterwards.
        settle_quiet: seconds of quiet (no DOM change, no request in flight) that count as settled.
        settle_idle: the shorter quiet that counts as settled when the page also has no timer,
            animation frame, idle callback or script request pending (see :mod:`.settle`); at
            most ``settle_quiet``.
        scroll_steps: viewport steps the render scrolls a page that loads content on scroll (0: never).
        scroll_time: most seconds spent scrolling and settling after the scroll steps.
        snapshot_timeout: seconds allowed for the visibility snapshot.
        refuse_websocket, refuse_event_source, refuse_webrtc, refuse_send_beacon,
        refuse_window_open: page APIs neutralized before any page script runs.
    """

    name: str
    methods: frozenset[str]
    resource_types: frozenset[str]
    max_requests: int
    max_bytes: int
    third_party: bool
    subframes: bool
    max_dom_nodes: int
    max_html_chars: int
    navigation_timeout: float
    settle_time: float
    settle_quiet: float
    settle_idle: float
    scroll_steps: int
    scroll_time: float
    snapshot_timeout: float
    refuse_websocket: bool
    refuse_event_source: bool
    refuse_webrtc: bool
    refuse_send_beacon: bool
    refuse_window_open: bool

    def with_timings(self, navigation_timeout: float | None, settle_time: float | None) -> BrowserPolicy:
        """A copy with the given timings (``None`` keeps the policy's own)."""
        from dataclasses import replace

        return replace(
            self,
            navigation_timeout=self.navigation_timeout if navigation_timeout is None else navigation_timeout,
            settle_time=self.settle_time if settle_time is None else settle_time,
        )

    @property
    def render_budget(self) -> float:
        """Seconds one render may take by itself: navigation, settle, scrolling and snapshot."""
        return self.navigation_timeout + self.settle_time + self.scroll_time + self.snapshot_timeout


def _bad(source: str, message: str, reason: str = "invalid_browser_policy") -> InvalidInput:
    # The file name is the user's own; the message never quotes file contents.
    return InvalidInput(f"browser policy {source}: {message}", reason=reason, stage="browser")


def _int(source: str, key: str, value: int, low: int, high: int) -> int:
    if not low <= value <= high:
        raise _bad(source, f"{key} must be in {low}..{high}")
    return value


def _float(source: str, key: str, value: float, low: float, high: float) -> float:
    number = float(value)
    if not math.isfinite(number) or not low <= number <= high:
        raise _bad(source, f"{key} must be in [{low:g}, {high:g}]")
    return number


def _check_shape(source: str, data: Mapping[str, Any]) -> None:
    expected = {"version", *_SCHEMA}
    unknown = sorted(set(data) - expected)
    missing = sorted(expected - set(data))
    if unknown:
        raise _bad(source, "unknown key " + ", ".join(unknown)[:120])
    if missing:
        raise _bad(source, "missing key " + ", ".join(missing)[:120])
    if data["version"] != 1 or isinstance(data["version"], bool):
        raise _bad(source, "version must be 1")
    for table, fields in _SCHEMA.items():
        section = data[table]
        if not isinstance(section, dict):
            raise _bad(source, f"[{table}] must be a table")
        unknown = sorted(set(section) - set(fields))
        missing = sorted(set(fields) - set(section))
        if unknown:
            raise _bad(source, f"unknown key in [{table}]: " + ", ".join(unknown)[:120])
        if missing:
            raise _bad(source, f"missing key in [{table}]: " + ", ".join(missing)[:120])
        for key, kind in fields.items():
            value = section[key]
            # bool is an int subclass; only bool fields may hold one.
            if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
                raise _bad(source, f"{table}.{key} has the wrong type")


def _string_set(source: str, key: str, values: list[Any], allowed: frozenset[str]) -> frozenset[str]:
    if not values or not all(isinstance(v, str) for v in values):
        raise _bad(source, f"{key} must be a non-empty list of strings")
    found = frozenset(values)
    extra = sorted(found - allowed)
    if extra:
        raise _bad(source, f"{key} may not contain " + ", ".join(extra)[:120])
    return found


def parse_policy(data: Mapping[str, Any], source: str) -> BrowserPolicy:
    """Validate parsed TOML ``data`` into a :class:`BrowserPolicy`.

    Raises:
        InvalidInput: ``reason="invalid_browser_policy"`` naming the offending key.
    """
    _check_shape(source, data)
    req, page, refuse = data["requests"], data["page"], data["refuse"]
    methods = _string_set(source, "requests.methods", req["methods"], ALLOWED_METHODS)
    if "GET" not in methods:
        raise _bad(source, "requests.methods must include GET")
    types = _string_set(source, "requests.resource_types", req["resource_types"], ALLOWED_RESOURCE_TYPES)
    if "document" not in types:
        raise _bad(source, "requests.resource_types must include document")
    if req["subframes"]:
        # Frames would need their own visibility pass and routing by frame;
        # this version does not read them, so it must not load them either.
        raise _bad(source, "requests.subframes = true is not supported")
    settle_time = _float(source, "page.settle_time", page["settle_time"], 0.0, 5.0)
    settle_quiet = _float(source, "page.settle_quiet", page["settle_quiet"], 0.05, 2.0)
    settle_idle = _float(source, "page.settle_idle", page["settle_idle"], 0.01, settle_quiet)
    return BrowserPolicy(
        name=source,
        methods=methods,
        resource_types=types,
        max_requests=_int(source, "requests.max_requests", req["max_requests"], 1, 1_000),
        max_bytes=_int(source, "requests.max_bytes", req["max_bytes"], 100_000, 50_000_000),
        third_party=req["third_party"],
        subframes=False,
        max_dom_nodes=_int(source, "page.max_dom_nodes", page["max_dom_nodes"], 100, 500_000),
        max_html_chars=_int(source, "page.max_html_chars", page["max_html_chars"], 10_000, 10_000_000),
        navigation_timeout=_float(source, "page.navigation_timeout", page["navigation_timeout"], 0.1, 60.0),
        settle_time=settle_time,
        settle_quiet=settle_quiet,
        settle_idle=settle_idle,
        scroll_steps=_int(source, "page.scroll_steps", page["scroll_steps"], 0, 100),
        scroll_time=_float(source, "page.scroll_time", page["scroll_time"], 0.0, 10.0),
        snapshot_timeout=_float(source, "page.snapshot_timeout", page["snapshot_timeout"], 0.1, 30.0),
        refuse_websocket=refuse["websocket"],
        refuse_event_source=refuse["event_source"],
        refuse_webrtc=refuse["webrtc"],
        refuse_send_beacon=refuse["send_beacon"],
        refuse_window_open=refuse["window_open"],
    )


def policy_source(name: str) -> Path | importlib.resources.abc.Traversable:
    """Where the policy ``name`` (a built-in name or a file path) is read from.

    Built-in policies come from the installed package (``pagewarden/browser_policy``,
    put there by the wheel build) and, in an editable install where that folder
    does not exist, from the repository's ``browser_policy/`` folder.
    """
    if name not in BUILTIN_POLICIES:
        return Path(name).expanduser()
    packaged = importlib.resources.files("pagewarden").joinpath("browser_policy", f"{name}.toml")
    if packaged.is_file():
        return packaged
    # src/pagewarden/_browser/policy.py -> the repository root.
    return Path(__file__).resolve().parents[3] / "browser_policy" / f"{name}.toml"


def load_policy(name: str = "default") -> BrowserPolicy:
    """Load and validate a policy: ``"default"``, ``"strict"`` or a TOML file path.

    Raises:
        InvalidInput: the file is missing, unreadable, too large, not TOML, or
            fails validation (``reason`` ``browser_policy_unreadable`` or
            ``invalid_browser_policy``).
    """
    source = policy_source(name)
    label = name if name in BUILTIN_POLICIES else Path(name).name
    try:
        raw = source.read_bytes()
    except OSError:
        raise _bad(label, "cannot be read", "browser_policy_unreadable") from None
    if len(raw) > _MAX_FILE_BYTES:
        raise _bad(label, f"is larger than {_MAX_FILE_BYTES} bytes")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        raise _bad(label, "is not valid UTF-8 TOML") from None
    return parse_policy(data, label)
