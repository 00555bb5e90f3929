"""The address policy: every denied range, its edges, and the embedding forms."""

from __future__ import annotations

import ipaddress
import json
from pathlib import Path

import pytest

from pagewarden._net.addresses import DENY_TABLE, AddressVerdict, address_refusal_reason, classify

VECTORS = json.loads((Path(__file__).with_name("addresses.json")).read_text(encoding="utf-8"))


@pytest.mark.parametrize(("address", "verdict"), [(row["address"], row["verdict"]) for row in VECTORS["verdicts"]])
def test_classify_vectors(address: str, verdict: str) -> None:
    """Each vector address gets exactly the expected named verdict."""
    assert classify(ipaddress.ip_address(address)) is AddressVerdict(verdict)


@pytest.mark.parametrize(("address", "reason"), [(row["address"], row["reason"]) for row in VECTORS["reasons"]])
def test_refusal_reasons_name_the_embedded_address(address: str, reason: str | None) -> None:
    """Refusal reasons name the range and, for tunnel forms, what the embedded IPv4 is."""
    assert address_refusal_reason(ipaddress.ip_address(address)) == reason


def test_every_deny_row_has_vectors_inside() -> None:
    """Each deny-table row is exercised by at least one vector inside it (tables cannot drift apart)."""
    addresses = [ipaddress.ip_address(row["address"].split("%")[0]) for row in VECTORS["verdicts"]]
    for network, verdict in DENY_TABLE:
        inside = [a for a in addresses if a.version == network.version and a in network]
        assert inside, f"no vector inside {network} ({verdict})"


def test_every_verdict_is_reachable() -> None:
    """Every AddressVerdict appears in the vectors, so no verdict is dead."""
    seen = {row["verdict"] for row in VECTORS["verdicts"]}
    assert seen == {str(v) for v in AddressVerdict}
