"""Resolve a target once and apply the address policy to every answer.

The answer set returned by :func:`resolve_and_check` is the only thing the
transport may dial (see :mod:`pagewarden._net.transport`); nothing resolves
the name again afterwards, so a DNS answer that changes between "check" and
"connect" (rebinding) cannot move the connection.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Sequence

import anyio

from .._config import ReaderConfig
from .._errors import NetworkError, PagewardenError, UnsafeURL
from .._protocols import IPAddress, Resolver
from .addresses import address_refusal_reason
from .urls import STANDARD_PORTS, Target

__all__ = ["SystemResolver", "resolve_and_check"]


class SystemResolver:
    """The operating system's resolver (``getaddrinfo``), returning every address."""

    async def resolve(self, host: str) -> list[IPAddress]:
        """Every distinct address ``host`` resolves to; ``OSError`` when it does not resolve."""
        answers = await anyio.getaddrinfo(host, None, type=socket.SOCK_STREAM)
        addresses: list[IPAddress] = []
        for _family, _type, _proto, _canon, sockaddr in answers:
            address = ipaddress.ip_address(sockaddr[0])
            if address not in addresses:
                addresses.append(address)
        return addresses


_SYSTEM_RESOLVER = SystemResolver()


def _parse_answers(answers: object, target: Target, config: ReaderConfig) -> tuple[IPAddress, ...]:
    def invalid() -> UnsafeURL:
        return UnsafeURL(
            "the resolver returned something that is not a list of IP addresses",
            reason="resolver_invalid_answer",
            url=target.url,
            stage="dns",
        )

    if isinstance(answers, str | bytes) or not isinstance(answers, Sequence):
        raise invalid()
    if len(answers) == 0:
        raise UnsafeURL("the host name has no addresses", reason="dns_no_answers", url=target.url, stage="dns")
    if len(answers) > config.limits.max_dns_answers:
        raise UnsafeURL(
            f"the host name has more than {config.limits.max_dns_answers} addresses",
            reason="dns_too_many_answers",
            url=target.url,
            stage="dns",
        )
    parsed: list[IPAddress] = []
    for answer in answers:
        if isinstance(answer, ipaddress.IPv4Address | ipaddress.IPv6Address):
            address: IPAddress = answer
        elif isinstance(answer, str) and len(answer) <= 64:
            try:
                address = ipaddress.ip_address(answer)
            except ValueError:
                raise invalid() from None
        else:
            raise invalid()
        if address not in parsed:
            parsed.append(address)
    return tuple(parsed)


def check_addresses(target: Target, addresses: tuple[IPAddress, ...], config: ReaderConfig) -> None:
    """Refuse unless every address may be dialled for ``target`` (policy only, no I/O)."""
    for address in addresses:
        permitted = target.host_allowed or any(
            entry.allows_address(address, target.port) for entry in config.allowed_destinations
        )
        if permitted:
            continue
        reason = address_refusal_reason(address)
        if reason is not None:
            raise UnsafeURL(
                "the host name resolves to an address that is not public",
                reason=reason,
                url=target.url,
                stage="dns",
            )
        if target.port not in STANDARD_PORTS:
            raise UnsafeURL("only ports 80 and 443 are allowed", reason="port_not_allowed", url=target.url, stage="dns")


async def resolve_and_check(target: Target, config: ReaderConfig) -> tuple[IPAddress, ...]:
    """Resolve ``target.host`` once and return its addresses if ALL of them pass the policy.

    IP literals skip DNS; ``.onion`` names are refused without a lookup
    (``onion_needs_remote_dns``) unless the proxy resolves names. Raises ``NetworkError(reason="dns_failure")`` when
    the name does not resolve and ``UnsafeURL`` when any answer is refused,
    when there are none or too many, or when the resolver answers garbage.
    """
    proxy = config.upstream_proxy
    if target.ip is None and proxy is not None and proxy.remote_dns:
        # unsafe_proxy_remote_dns: the proxy resolves the name (which already passed intake);
        # only the port rule can still be checked here.
        if not target.host_allowed and target.port not in STANDARD_PORTS:
            raise UnsafeURL("only ports 80 and 443 are allowed", reason="port_not_allowed", url=target.url, stage="dns")
        return ()
    if target.host.endswith(".onion") or target.host == "onion":
        # Tor names never resolve in public DNS; asking would only leak them to the resolver (RFC 7686).
        raise UnsafeURL(
            "a .onion name is reachable only through a Tor proxy with unsafe_proxy_remote_dns",
            reason="onion_needs_remote_dns",
            url=target.url,
            stage="dns",
        )
    if target.ip is not None:
        addresses: tuple[IPAddress, ...] = (target.ip,)
    else:
        resolver: Resolver = config.resolver if config.resolver is not None else _SYSTEM_RESOLVER
        try:
            answers = await resolver.resolve(target.host)
        except PagewardenError:
            raise
        except OSError:
            raise NetworkError(
                "the host name could not be resolved", reason="dns_failure", url=target.url, stage="dns"
            ) from None
        except Exception as exc:
            # A custom resolver's bug is not a transient DNS failure.
            raise NetworkError(
                f"the resolver failed ({type(exc).__name__})",
                reason="resolver_error",
                retryable=False,
                url=target.url,
                stage="dns",
            ) from None
        addresses = _parse_answers(answers, target, config)
    check_addresses(target, addresses, config)
    return addresses
