"""The SSRF-safe static transport: URL intake, address policy, pinned fetching, decoding.

The flow of one hop: :func:`parse_target` (DNS-free URL checks) ->
sensitive-query check -> :func:`resolve_and_check` (resolve once, every answer
public or explicitly allowed) -> a connection pinned to those addresses ->
bounded content decoding -> strict charset decoding. :func:`fetch` runs it for
every redirect hop.
"""

from .addresses import AddressVerdict, classify
from .resolve import SystemResolver, resolve_and_check
from .transport import FetchedResponse, fetch
from .urls import Target, check_link, parse_target

__all__ = [
    "AddressVerdict",
    "FetchedResponse",
    "SystemResolver",
    "Target",
    "check_link",
    "classify",
    "fetch",
    "parse_target",
    "resolve_and_check",
]
