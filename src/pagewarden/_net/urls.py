"""URL intake: turn caller text into a canonical, policy-checked :class:`Target`.

Everything here is DNS-free and socket-free; refusals happen before any
lookup. The URL is parsed by a small strict parser of our own rather than
``urllib.parse`` (which is lenient in ways browsers and servers are not), and
the canonical string built here is the only thing ever put on the wire, so
there is no second parser that could read the host differently.

Decisions worth knowing:

* Only ``http``/``https`` with an authority (``//``); no credentials (any
  ``@`` in the authority is refused, which also closes ``a@b@c`` tricks); no
  backslash in the authority (browsers read it as ``/``).
* Host names go through IDNA (UTS46, non-transitional) via the ``idna``
  package, are lowercased and lose one trailing dot.
* IP literals: a host that "ends in a number" (the WHATWG rule) is parsed the
  way browsers do (decimal, octal, hex, 1 to 4 parts) and is **refused**
  (``ip_literal_ambiguous``) unless the caller wrote exactly the canonical
  dotted quad: ``2130706433``, ``0177.0.0.1``, ``0x7f.1``, ``127.1`` and
  fullwidth-dot forms never reach the classifier. Percent-encoded hosts are
  refused (``host_percent_encoded``). IPv6 literals are canonicalized and then
  classified; the IPv4-embedding forms are refused by the address policy.
  Zone ids are refused. Canonical literals are classified here, before any
  socket, with :func:`~pagewarden._net.addresses.classify`.
* Ports 80 and 443 only, unless ``unsafe_allow_destinations`` allows the
  destination. For an IP literal that is decided here; for a host name on
  another port without an exact ``host:port`` entry it can only be decided
  after resolution, so the target says ``needs_port_allowance``.
* Local names (``localhost``, ``*.localhost``, ``*.local``, ``*.internal``,
  ``*.home.arpa``, a few other private-use suffixes, single-label names) are
  refused unless exactly allowed by a ``host:port`` entry.
"""

from __future__ import annotations

import ipaddress
import re
import urllib.parse
from dataclasses import dataclass
from typing import Final

import idna

from .._config import ReaderConfig
from .._errors import InvalidInput, PagewardenError, UnsafeURL
from .._protocols import IPAddress
from .addresses import address_refusal_reason

__all__ = ["LOCAL_SUFFIXES", "Target", "check_link", "parse_target"]

DEFAULT_PORTS: Final[dict[str, int]] = {"http": 80, "https": 443}
STANDARD_PORTS: Final = frozenset({80, 443})

# (suffix, reason): a name equal to the suffix or ending in "." + suffix is local.
LOCAL_SUFFIXES: Final[tuple[tuple[str, str], ...]] = (
    ("localhost", "local_name_localhost"),
    ("local", "local_name_mdns"),
    ("internal", "local_name_internal"),
    ("home.arpa", "local_name_home_arpa"),
    ("localdomain", "local_name_localdomain"),
    ("lan", "local_name_private_use"),
    ("intranet", "local_name_private_use"),
    ("corp", "local_name_private_use"),
    ("home", "local_name_private_use"),
)

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_ASCII_LABEL = re.compile(r"^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$")
_HEX_PART = re.compile(r"^0[xX][0-9A-Fa-f]*$")
# Characters kept as-is in a path / query; everything else is percent-encoded.
_PATH_SAFE: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/")
_QUERY_SAFE: Final = _PATH_SAFE | {"?"}
_HEX = frozenset("0123456789abcdefABCDEF")
# Leading/trailing characters stripped like a browser's URL bar does.
_STRIP = "".join(chr(c) for c in range(0x21)) + "\x7f"


@dataclass(frozen=True, slots=True)
class Target:
    """A canonical, DNS-free-checked request target.

    Attributes:
        url: the canonical URL sent on the wire (no credentials, no fragment).
        scheme: ``http`` or ``https``.
        host: lowercase ASCII host (IDNA-encoded); an IPv6 literal without brackets.
        port: the explicit port number.
        ip: the address when the host is an IP literal, else ``None``.
        fragment: the fragment (kept for the Document, never sent).
        needs_port_allowance: the port is non-standard and the host is a name
            not allowed as ``host:port``; every resolved address must then be
            allowed for this port.
        host_allowed: an exact ``host:port`` entry allows this host, so its
            resolved addresses are trusted whatever they are.
    """

    url: str
    scheme: str
    host: str
    port: int
    ip: IPAddress | None
    fragment: str | None
    needs_port_allowance: bool = False
    host_allowed: bool = False

    @property
    def request_target(self) -> str:
        """Path and query, as sent in the request line."""
        rest = self.url.split("//", 1)[1]
        slash = rest.find("/")
        return rest[slash:] if slash >= 0 else "/"

    @property
    def host_header(self) -> str:
        """The ``Host`` header value (port omitted when it is the scheme's default)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        if self.port != DEFAULT_PORTS[self.scheme]:
            host += f":{self.port}"
        return host


def _refuse(reason: str, message: str, url: str) -> UnsafeURL:
    return UnsafeURL(message, reason=reason, url=url, stage="intake")


def _invalid(reason: str, message: str) -> InvalidInput:
    # The raw input is not a URL; do not echo it.
    return InvalidInput(message, reason=reason, stage="intake")


def _whatwg_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """Parse ``host`` as browsers do (WHATWG IPv4 parser); ``None`` on failure."""
    parts = host.split(".")
    if parts and parts[-1] == "" and len(parts) > 1:
        parts.pop()
    if not 1 <= len(parts) <= 4:
        return None
    numbers: list[int] = []
    for part in parts:
        if part == "":
            return None
        if _HEX_PART.match(part):
            value = int(part[2:] or "0", 16)
        elif len(part) > 1 and part.startswith("0"):
            if not part.isascii() or not part.isdigit() or any(c in "89" for c in part):
                return None
            value = int(part, 8)
        elif part.isascii() and part.isdigit():
            value = int(part)
        else:
            return None
        numbers.append(value)
    if any(n > 255 for n in numbers[:-1]) or numbers[-1] >= 256 ** (5 - len(numbers)):
        return None
    value = numbers[-1]
    for index, n in enumerate(numbers[:-1]):
        value += n * 256 ** (3 - index)
    return ipaddress.IPv4Address(value)


def _ends_in_number(host: str) -> bool:
    labels = host.split(".")
    if labels[-1] == "" and len(labels) > 1:
        labels.pop()
    last = labels[-1]
    return (last.isascii() and last.isdigit()) or bool(_HEX_PART.match(last))


def _encode(text: str, safe: frozenset[str]) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "%" and i + 2 < len(text) and text[i + 1] in _HEX and text[i + 2] in _HEX:
            out.append(text[i : i + 3].upper())
            i += 3
            continue
        if ch in safe:
            out.append(ch)
        else:
            out.append("".join(f"%{b:02X}" for b in ch.encode("utf-8", "surrogatepass")))
        i += 1
    return "".join(out)


def _remove_dot_segments(path: str) -> str:
    # RFC 3986 section 5.2.4, so the canonical URL is what a server sees.
    segments = path.split("/")
    out: list[str] = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == ".":
            if last:
                out.append("")
        elif segment == "..":
            if len(out) > 1:
                out.pop()
            if last:
                out.append("")
        else:
            out.append(segment)
    result = "/".join(out)
    return result if result.startswith("/") else "/" + result


def _parse_host(raw: str, url: str) -> tuple[str, IPAddress | None]:
    """Return (canonical host, ip) or raise; ``raw`` is the authority's host part."""
    if raw.startswith("["):
        if not raw.endswith("]"):
            raise _invalid("invalid_host", "the IPv6 literal is not closed")
        inner = raw[1:-1]
        if "%" in inner:
            raise _refuse("ip_literal_zone_id", "IPv6 zone ids are not allowed", url)
        try:
            v6 = ipaddress.IPv6Address(inner)
        except ValueError:
            raise _invalid("invalid_host", "the IPv6 literal is malformed") from None
        return v6.compressed, v6
    if not raw:
        raise _invalid("missing_host", "the URL has no host")
    if "%" in raw:
        raise _refuse("host_percent_encoded", "percent-encoded hosts are not allowed", url)
    if raw.isascii():
        host = raw.lower()
    else:
        try:
            host = idna.encode(raw, uts46=True, std3_rules=True, transitional=False).decode("ascii")
        except (idna.IDNAError, UnicodeError, ValueError):
            raise _invalid("invalid_host", "the host name is not a valid internationalized name") from None
    if _ends_in_number(host):
        v4 = _whatwg_ipv4(host)
        if v4 is None or raw.lower() != str(v4):
            raise _refuse("ip_literal_ambiguous", "IPv4 literals must be written as a plain dotted quad", url)
        return str(v4), v4
    if host.endswith("."):
        host = host[:-1]
    labels = host.split(".")
    if len(host) > 253 or not all(_ASCII_LABEL.match(label) for label in labels):
        raise _invalid("invalid_host", "the host name is malformed")
    return host, None


def _local_name_reason(host: str) -> str | None:
    if "." not in host:
        return "local_name_single_label" if host != "localhost" else "local_name_localhost"
    for suffix, reason in LOCAL_SUFFIXES:
        if host == suffix or host.endswith("." + suffix):
            return reason
    return None


def parse_target(url: str, config: ReaderConfig) -> Target:
    """Parse and check ``url`` without any DNS lookup or socket.

    Raises:
        InvalidInput: the text is not a URL at all.
        UnsafeURL: the URL is refused by policy; ``reason`` names the rule.
    """
    if not isinstance(url, str):
        raise _invalid("url_not_text", "the URL must be a string")
    if len(url) > config.limits.max_url_chars:
        raise _refuse("url_too_long", f"the URL is longer than {config.limits.max_url_chars} characters", "")
    text = url.strip(_STRIP)
    if not text:
        raise _invalid("empty_url", "the URL is empty")
    # Browsers silently drop tabs and newlines inside URLs; we refuse them
    # (and every other control character) rather than guess.
    if any(ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F for ch in text):
        raise _invalid("url_control_characters", "the URL contains control characters")
    match = _SCHEME.match(text)
    if match is None:
        raise _invalid("missing_scheme", "the URL needs a scheme such as https://")
    scheme = match.group(1).lower()
    if scheme not in DEFAULT_PORTS:
        raise _refuse("scheme_not_allowed", "only http and https URLs can be read", url)
    rest = text[match.end() :]
    if not rest.startswith("//"):
        raise _invalid("missing_authority", "the URL needs // and a host after the scheme")
    rest = rest[2:]
    end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    authority, rest = rest[:end], rest[end:]
    if "@" in authority:
        raise _refuse("credentials_in_url", "URLs with credentials are not allowed", url)
    if "\\" in authority:
        raise _refuse("ambiguous_authority", "backslashes are not allowed in the host", url)
    fragment: str | None = None
    if "#" in rest:
        rest, fragment = rest.split("#", 1)
    query: str | None = None
    if "?" in rest:
        rest, query = rest.split("?", 1)
    path = rest

    if authority.startswith("["):
        close = authority.find("]")
        host_part, port_part = (authority, "") if close < 0 else (authority[: close + 1], authority[close + 1 :])
        if port_part and not port_part.startswith(":"):
            raise _invalid("invalid_port", "unexpected text after the IPv6 literal")
        port_text = port_part[1:] if port_part else ""
    else:
        host_part, _, port_text = authority.partition(":")
    if port_text and not (port_text.isascii() and port_text.isdigit()):
        raise _invalid("invalid_port", "the port must be a number")
    port = int(port_text) if port_text else DEFAULT_PORTS[scheme]
    if not 1 <= port <= 65535:
        raise _invalid("invalid_port", "the port must be in 1..65535")

    host, ip = _parse_host(host_part, url)
    allowed = config.allowed_destinations
    needs_port_allowance = False
    host_allowed = False
    if ip is not None:
        permitted = any(entry.allows_address(ip, port) for entry in allowed)
        reason = address_refusal_reason(ip)
        if reason is not None and not permitted:
            raise _refuse(reason, "the address is not a public internet address", url)
        if port not in STANDARD_PORTS and not permitted:
            raise _refuse("port_not_allowed", "only ports 80 and 443 are allowed", url)
    else:
        host_allowed = any(entry.allows_host(host, port) for entry in allowed)
        local = _local_name_reason(host)
        if local is not None and not host_allowed:
            raise _refuse(local, "local host names are not allowed", url)
        needs_port_allowance = port not in STANDARD_PORTS and not host_allowed

    url_host = f"[{host}]" if ip is not None and ip.version == 6 else host
    netloc = url_host if port == DEFAULT_PORTS[scheme] else f"{url_host}:{port}"
    canonical = f"{scheme}://{netloc}{_remove_dot_segments(_encode(path, _PATH_SAFE))}"
    if query:
        canonical += "?" + _encode(query, _QUERY_SAFE)
    if len(canonical) > config.limits.max_url_chars:
        raise _refuse("url_too_long", "the canonical URL is too long", url)
    return Target(
        url=canonical,
        scheme=scheme,
        host=host,
        port=port,
        ip=ip,
        fragment=fragment,
        needs_port_allowance=needs_port_allowance,
        host_allowed=host_allowed,
    )


def check_link(href: str, base_url: str, config: ReaderConfig) -> str | None:
    """Resolve a page link against ``base_url``; the canonical URL if it passes every DNS-free check.

    Returns ``None`` for anything :func:`parse_target` would refuse
    (``javascript:``, ``data:``, ``file:``, credentials, refused ports, local
    names, refused IP literals) and for malformed links. Never raises.
    """
    if not isinstance(href, str) or not isinstance(base_url, str):
        return None
    # Browsers drop tab and newline anywhere in a URL ("java\nscript:").
    cleaned = href.strip(_STRIP).replace("\t", "").replace("\n", "").replace("\r", "")
    if not cleaned or len(cleaned) > config.limits.max_url_chars:
        return None
    try:
        absolute = urllib.parse.urljoin(base_url, cleaned)
        target = parse_target(absolute, config)
    except (PagewardenError, ValueError):
        return None
    if target.needs_port_allowance and not any(
        entry.kind == "network" or (entry.kind == "address" and entry.port == target.port)
        for entry in config.allowed_destinations
    ):
        # A name on a non-standard port could only pass after resolution, and
        # no allowance could ever cover it: the link can never be read.
        return None
    return target.url
