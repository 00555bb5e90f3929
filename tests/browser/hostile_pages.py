"""The hostile pages and responses of the battery (tests/browser/test_hostile.py) and of ``scripts/bench faults``.

Each :class:`Hostile` is served by a :class:`~tests.support.hostile.HostileServer`
at ``/<name>``; ``outcomes`` lists what a read of it may end with: ``"ok"``
or an error ``(code, reason)``. More than one outcome is allowed only where
the machine's speed decides (a timer storm settles on a quiet machine and
runs into its deadline on a loaded one); a hostile read must always end
typed, within its deadline.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from tests.support.hostile import HostileServer, endless_body, huge_header, reset_mid_body, sized_body

__all__ = ["CONTROL", "HOSTILE", "HTML", "Hostile", "control_body", "install"]

HTML = {"Content-Type": "text/html; charset=utf-8"}
CONTROL = "/control"


def _page(body: str, head: str = "") -> bytes:
    return f"<!doctype html><html><head><title>t</title>{head}</head><body>{body}</body></html>".encode()


def control_body() -> bytes:
    """The ordinary page read after every hostile one."""
    words = "An ordinary article with plain sentences, read after a hostile page. " * 12
    return _page(f"<h1>Control</h1><p>{words}</p><p>{words}</p>")


TEXT = "<h1>Hostile</h1><p>" + "This page has its own text as well. " * 8 + "</p>"
BUDGET = ("RESPONSE_TOO_LARGE", "browser_request_budget")
DEADLINE = ("TIMEOUT", "browser_deadline")
NAV_TIMEOUT = ("TIMEOUT", "browser_navigation_timeout")
READ_DEADLINE = ("TIMEOUT", "read_deadline")
SLOW = (DEADLINE, NAV_TIMEOUT, READ_DEADLINE)
# A frame flood: read truncated at the frame bound, or, on a machine too slow to make the bound's frames in
# time, a typed timeout (the snapshot's own included).
FRAMES = ("ok", *SLOW, ("GUARD_FAILED", "visibility_timeout"))


@dataclass(frozen=True)
class Hostile:
    """One hostile page or response and what reading it may end with."""

    name: str
    install: Callable[[HostileServer, str], None]
    outcomes: tuple[str | tuple[str, str], ...]
    static: tuple[str | tuple[str, str], ...] = field(default=())


def _html(body: str, head: str = "") -> Callable[[HostileServer, str], None]:
    def install(server: HostileServer, path: str) -> None:
        server.add(path, headers=HTML, body=_page(body, head))

    return install


def _behave(factory: Callable[[], object]) -> Callable[[HostileServer, str], None]:
    def install(server: HostileServer, path: str) -> None:
        server.behave(path, factory())  # type: ignore[arg-type]

    return install


def _busy(server: HostileServer, path: str) -> None:
    server.add(path, status=503, headers={**HTML, "Retry-After": "7"}, body=_page(TEXT))


def _redirect_loop(server: HostileServer, path: str) -> None:
    server.redirect(path, path + "-b")
    server.redirect(path + "-b", path)


def _slow(server: HostileServer, path: str) -> None:
    server.add(path, headers=HTML, body=_page(TEXT), delay_before=30.0)


def _trickle(server: HostileServer, path: str) -> None:
    server.add(path, headers=HTML, chunks=[b"<!doctype html><p>"] + [b"slow "] * 400, delay_per_chunk=0.05)


_WORKER = (
    "const src = \"for (let i = 0; i < 3000; i++) fetch('/w?' + i).catch(() => {});\";"
    "new Worker(URL.createObjectURL(new Blob([src], {type: 'text/javascript'})));"
)

# Reloads, popups, dialogs, timers. A page that keeps replacing its document may leave no stable
# document to snapshot: GUARD_FAILED (visibility_failed) is then the typed answer.
RELOADING = ("ok", *SLOW, ("NETWORK_ERROR", "browser_net_aborted"), ("GUARD_FAILED", "visibility_failed"))

HOSTILE: list[Hostile] = [
    # Request floods of several kinds.
    Hostile("fetch_flood", _html(TEXT + "<script>for (let i = 0; i < 5000; i++) fetch('/f?' + i).catch(() => {});"
                                 "</script>"), (BUDGET,)),
    Hostile("xhr_flood", _html(TEXT + "<script>for (let i = 0; i < 5000; i++) { const x = new XMLHttpRequest();"
                               "x.open('GET', '/x?' + i); try { x.send(); } catch (e) {} }</script>"), (BUDGET,)),
    Hostile("script_flood", _html(TEXT + "<script>for (let i = 0; i < 400; i++) { const s = document.createElement("
                                  "'script'); s.src = '/s.js?' + i; document.head.appendChild(s); }</script>"),
            (BUDGET,)),
    Hostile("stylesheet_flood", _html(TEXT + "<script>for (let i = 0; i < 400; i++) {"
                                      " const l = document.createElement('link'); l.setAttribute('rel', 'stylesheet');"
                                      " l.setAttribute('href', '/c.css?' + i);"
                                      " document.head.appendChild(l); }</script>"), (BUDGET,)),
    Hostile("image_flood", _html(TEXT + "<script>for (let i = 0; i < 2000; i++) new Image().src = '/i.png?' + i;"
                                 "</script>"), ("ok", *SLOW)),
    Hostile("worker_flood", _html(TEXT + f"<script>{_WORKER}</script>"), (BUDGET, "ok", *SLOW)),
    # Frame floods: refused frames never count against the request budget. Past the frame bound (200) the
    # page's loading is stopped and what was parsed is read, truncated; a machine slow enough to take the
    # navigation timeout over 200 frames still ends it typed.
    Hostile("frames_150", _html(TEXT + "".join(f"<iframe src='/fr?{i}'></iframe>" for i in range(150))), ("ok",)),
    Hostile("frames_1000", _html(TEXT + "".join(f"<iframe src='/fr?{i}'></iframe>" for i in range(1000))),
            ("ok", *SLOW)),
    # The same from the page's scripts and by other means. Past the bound the init script refuses further frame
    # elements and frame markup, and the browser counts every frame it attaches (nested, srcdoc and about:blank
    # ones too): the page's script is terminated, its scripts disabled and its loading stopped, and what it
    # holds is read, truncated. One loop; batches of 50 from timers.
    Hostile("frames_script_loop", _html(TEXT + "<script>for (let i = 0; i < 1000; i++) {"
                                        " const f = document.createElement('iframe'); f.src = '/fr?' + i;"
                                        " document.body.appendChild(f); }</script>"), FRAMES),
    Hostile("frames_script_batches", _html(TEXT + "<script>let n = 0; function more() {"
                                           " for (let i = 0; i < 50; i++) { const f = document.createElement("
                                           "'iframe'); f.src = '/fr?' + (n++); document.body.appendChild(f); }"
                                           " if (n < 1000) setTimeout(more, 0); } more();</script>"), FRAMES),
    # Frames that never make a request (no routing sees them): about:blank and srcdoc.
    Hostile("frames_blank_loop", _html(TEXT + "<script>for (let i = 0; i < 1000; i++)"
                                       " document.body.appendChild(document.createElement('iframe'));</script>"),
            FRAMES),
    Hostile("frames_srcdoc_loop", _html(TEXT + "<script>for (let i = 0; i < 1000; i++) {"
                                        " const f = document.createElement('iframe'); f.srcdoc = '<p>x</p>';"
                                        " document.body.appendChild(f); }</script>"), FRAMES),
    # Nested: each srcdoc frame makes three more like itself (the main document never holds more than one).
    Hostile("frames_nested", _html(TEXT + "<script>window.__src = '<p>n</p><script>for (let i = 0; i < 3; i++) {"
                                   " const f = document.createElement(\"iframe\"); f.srcdoc = top.__src;"
                                   " document.body.appendChild(f); }<' + '/script>';"
                                   " const f = document.createElement('iframe'); f.srcdoc = window.__src;"
                                   " document.body.appendChild(f);</script>"), FRAMES),
    # document.write in a loop (the parser makes the frames), and one innerHTML assignment of 1,000 frames (one
    # native call that no script termination interrupts: the init script refuses such markup whole).
    Hostile("frames_document_write", _html(TEXT + "<script>for (let i = 0; i < 1000; i++)"
                                           " document.write(\"<iframe src='/fr?\" + i + \"'></iframe>\");</script>"),
            FRAMES),
    Hostile("frames_inner_html", _html(TEXT + "<div id=d></div><script>document.getElementById('d').innerHTML ="
                                       " \"<iframe src='/fr'></iframe>\".repeat(1000);</script>"), FRAMES),
    # Reloads, popups, dialogs, timers.
    Hostile("infinite_reload", _html(TEXT + "<script>setTimeout(() => location.reload(), 10);</script>"), RELOADING),
    Hostile("meta_refresh_loop", _html(TEXT, "<meta http-equiv=refresh content='0'>"), RELOADING),
    Hostile("popups_and_dialogs", _html(TEXT + "<script>for (let i = 0; i < 50; i++) { window.open('/p?' + i); }"
                                        "for (let i = 0; i < 20; i++) alert(i);</script>"), ("ok",)),
    Hostile("timer_storm", _html(TEXT + "<script>for (let i = 0; i < 2000; i++) setInterval(() => {"
                                 "document.title = String(Math.random()); }, 0);</script>"),
            ("ok", *SLOW, ("GUARD_FAILED", "visibility_timeout"))),
    # CPU, memory and DOM.
    Hostile("busy_loop", _html(TEXT + "<script>while (true) {}</script>"), SLOW),
    Hostile("dom_bomb", _html("<div id=b></div><script>const b = document.getElementById('b');"
                              "for (let i = 0; i < 150000; i++) b.appendChild(document.createElement('i'));</script>"),
            # A walk cut by its own timeout over a DOM that probes could not count either: GUARD_FAILED.
            (("RESPONSE_TOO_LARGE", "browser_dom_too_large"), *SLOW, ("GUARD_FAILED", "visibility_timeout"))),
    # Two million elements in one script task, before DOMContentLoaded: the isolated-world observer sees the
    # bound at the end of the loop, before the browser would spend many seconds laying them out. The loop
    # itself takes the renderer seconds: on a loaded machine it can outlast the navigation timeout.
    Hostile("dom_bomb_2m", _html("<div id=b></div><script>const b = document.getElementById('b');"
                                 "for (let i = 0; i < 2000000; i++) b.appendChild(document.createElement('i'));"
                                 "</script><p>after</p>"),
            # When the probes all miss the bound, the snapshot's walk counts past it itself (dom_node_budget).
            (("RESPONSE_TOO_LARGE", "browser_dom_too_large"), ("RESPONSE_TOO_LARGE", "dom_node_budget"), *SLOW)),
    # Two million elements from one innerHTML assignment.
    Hostile("dom_bomb_markup", _html("<div id=b></div><script>document.getElementById('b').innerHTML ="
                                     " '<i></i>'.repeat(2000000);</script>"),
            (("RESPONSE_TOO_LARGE", "browser_dom_too_large"),)),
    # The same DOM built in batches of 50,000 from timers after DOMContentLoaded.
    Hostile("dom_bomb_batches", _html("<div id=b></div><script>const b = document.getElementById('b'); let n = 0;"
                                      "function grow() { for (let i = 0; i < 50000; i++) b.appendChild("
                                      "document.createElement('i')); n += 50000;"
                                      " if (n < 2000000) setTimeout(grow, 0); } grow();</script>"),
            (("RESPONSE_TOO_LARGE", "browser_dom_too_large"),)),
    # Slow and endless responses, bombs and broken transfers (these also run on the static path).
    Hostile("silent_server", _slow, SLOW, static=(READ_DEADLINE,)),
    Hostile("trickle", _trickle, ("ok", *SLOW), static=("ok", READ_DEADLINE)),
    Hostile("endless_body", _behave(lambda: endless_body()),
            # On a loaded machine the 5 MB may not arrive before the navigation timeout.
            (("RESPONSE_TOO_LARGE", "compressed_body_too_large"), ("RESPONSE_TOO_LARGE", "browser_byte_budget"),
             *SLOW),
            static=(("RESPONSE_TOO_LARGE", "compressed_body_too_large"),)),
    Hostile("page_20mb", _behave(lambda: sized_body(20_000_000)),
            (("RESPONSE_TOO_LARGE", "content_length_too_large"),),
            static=(("RESPONSE_TOO_LARGE", "content_length_too_large"),)),
    Hostile("header_1mb", _behave(lambda: huge_header(1_000_000)), (("RESPONSE_TOO_LARGE", "header_too_large"),),
            static=(("RESPONSE_TOO_LARGE", "header_too_large"),)),
    Hostile("reset_mid_body", _behave(lambda: reset_mid_body(declared=200_000, sent=4_096)),
            (("NETWORK_ERROR", "connection_lost"),), static=(("NETWORK_ERROR", "connection_lost"),)),
    Hostile("redirect_loop", _redirect_loop, (("UPSTREAM_HTTP", "redirect_loop"),),
            static=(("UPSTREAM_HTTP", "redirect_loop"),)),
    Hostile("busy_503", _busy, (("UPSTREAM_HTTP", "http_503"),),
            static=(("UPSTREAM_HTTP", "http_503"),)),
]


def install(server: HostileServer) -> None:
    """Serve every hostile case at ``/<name>``, the control page and the floods' targets."""
    for case in HOSTILE:
        case.install(server, f"/{case.name}")
    server.add(CONTROL, headers=HTML, body=control_body())
    for path in ("/f", "/x", "/w", "/fr", "/p"):
        server.add(path, headers=HTML, body=b"<p>x</p>")
    server.add("/s.js", headers={"Content-Type": "text/javascript"}, body=b"void 0;")
    server.add("/c.css", headers={"Content-Type": "text/css"}, body=b"p { margin: 0 }")
