"""Command-line options shared by ``pagewarden read``, ``search``, ``ingest`` and ``doctor``.

One definition per option, so the commands cannot drift apart (and the ingest
command, which lives in its own package, does not import the CLI module).
"""

from __future__ import annotations

import argparse
from typing import Any

from ._browser.config import BrowserConfig
from ._config import GUARD_PROFILES, REQUESTED_USES

__all__ = [
    "add_browser_options",
    "add_guard_options",
    "add_proxy_options",
    "add_unsafe_options",
    "browser_config",
    "proxy_options",
]


def add_guard_options(parser: argparse.ArgumentParser, *, subject: str = "content") -> None:
    """``--profile`` and ``--requested-use``."""
    parser.add_argument("--profile", choices=GUARD_PROFILES, default="balanced", help="guard profile")
    parser.add_argument("--requested-use", choices=REQUESTED_USES, default="answer_with_citation",
                        help=f"what the {subject} will be used for (default: answer_with_citation)")


def add_unsafe_options(parser: argparse.ArgumentParser, *, sensitive_query: bool = True) -> None:
    """``--unsafe-allow-destination`` (repeatable) and, optionally, ``--unsafe-allow-sensitive-query``."""
    parser.add_argument("--unsafe-allow-destination", action="append", default=[], metavar="D",
                        help="ip:port, host:port or CIDR that may be reached although private or on a "
                             "non-standard port (repeatable; for local testing only)")
    if sensitive_query:
        parser.add_argument("--unsafe-allow-sensitive-query", action="store_true",
                            help="send URLs whose query looks like it carries a secret or personal data")
    # Every network command takes the unsafe options, so the proxy options come with them.
    add_proxy_options(parser)


def add_proxy_options(parser: argparse.ArgumentParser) -> None:
    """``--proxy`` and ``--unsafe-proxy-remote-dns`` (see docs/egress.md)."""
    parser.add_argument("--proxy", metavar="URL",
                        help="upstream proxy for every connection: http://, https:// or socks5://host:port "
                             "(user:password@ allowed; visible in process listings). Environment proxies are "
                             "never used")
    parser.add_argument("--unsafe-proxy-remote-dns", action="store_true",
                        help="let the proxy resolve names (socks5h://, .onion over Tor): the address policy "
                             "then checks names and IP literals only")


def proxy_options(args: argparse.Namespace) -> dict[str, Any]:
    """The :class:`ReaderConfig` fields the proxy options describe."""
    return {
        "proxy": getattr(args, "proxy", None),
        "unsafe_proxy_remote_dns": bool(getattr(args, "unsafe_proxy_remote_dns", False)),
    }


def add_browser_options(parser: argparse.ArgumentParser) -> None:
    """``--chromium``, ``--browser-policy`` and ``--external-sandbox``."""
    parser.add_argument("--chromium", metavar="PATH",
                        help="the Chromium to use (default: PAGEWARDEN_CHROMIUM, Playwright's, the system's)")
    parser.add_argument("--browser-policy", default="default", metavar="POLICY",
                        help="request policy of the browser: default, strict or a TOML file")
    parser.add_argument("--external-sandbox", action="store_true",
                        help="run Chromium without its own sandbox because a container already isolates it "
                             "(needed as root)")


def browser_config(args: argparse.Namespace, **changes: Any) -> BrowserConfig:
    """The :class:`BrowserConfig` the browser options describe (plus ``changes``)."""
    return BrowserConfig(
        executable=args.chromium, policy=args.browser_policy, external_sandbox=args.external_sandbox, **changes
    )
