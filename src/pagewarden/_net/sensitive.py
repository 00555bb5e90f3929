"""Request-side check: refuse URLs that would carry a secret or personal data out.

An LLM that reads the web can be talked into "reading"
``https://evil.example/?k=<your API key>``. Before any lookup, the query
(every key and percent-decoded value) is matched against :data:`SECRET_SHAPES`
and :data:`SECRET_PARAMETERS` (-> ``sensitive_query_secret``) and
:data:`PERSONAL_DATA` (-> ``sensitive_query_personal_data``). Path segments are
checked for token shapes only (-> ``sensitive_path_secret``): tokens in paths
are real (webhook and bot URLs), while e-mail-like or long-number path
segments are too common in ordinary URLs to refuse.

Card numbers need a known issuer prefix, a brand length and a passing Luhn
checksum, because about one random long number in ten passes Luhn alone.
``ReaderConfig.unsafe_allow_sensitive_query`` turns the whole check off.
Messages name the rule, never the matched value.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable
from typing import Final

from .._config import ReaderConfig
from .._errors import UnsafeURL
from .urls import Target

__all__ = ["PERSONAL_DATA", "SECRET_PARAMETERS", "SECRET_SHAPES", "check_sensitive", "find_sensitive"]

# (rule name, pattern) for values that look like credentials wherever they appear.
SECRET_SHAPES: Final[tuple[tuple[str, re.Pattern[str]], ...]] = tuple(
    (name, re.compile(pattern))
    for name, pattern in (
        ("openai_style_key", r"\bsk-(?:proj-|ant-[a-z0-9]+-)?[A-Za-z0-9_-]{20,}"),
        ("stripe_key", r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"),
        ("github_token", r"\bgh[pousr]_[A-Za-z0-9]{30,}"),
        ("github_pat", r"\bgithub_pat_[A-Za-z0-9_]{22,}"),
        ("gitlab_token", r"\bglpat-[A-Za-z0-9_-]{20,}"),
        ("aws_access_key_id", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
        ("slack_token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
        ("google_api_key", r"\bAIza[0-9A-Za-z_-]{35}"),
        ("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
        ("private_key_block", r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    )
)

# Query parameter names whose non-empty value is a credential by definition.
SECRET_PARAMETERS: Final = frozenset(
    {
        "password",
        "passwd",
        "pwd",
        "pass",
        "passphrase",
        "secret",
        "client_secret",
        "token",
        "access_token",
        "refresh_token",
        "id_token",
        "auth_token",
        "api_key",
        "apikey",
        "api-key",
        "x-api-key",
        "auth",
        "authorization",
        "private_key",
        "session_token",
        "sessionid",
    }
)

_EMAIL = re.compile(r"[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})*\.[A-Za-z]{2,24}")
_CARD_CANDIDATE = re.compile(r"(?<![0-9])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])")
# (issuer prefix regex, allowed lengths)
_CARD_BRANDS: Final[tuple[tuple[re.Pattern[str], frozenset[int]], ...]] = tuple(
    (re.compile(prefix), frozenset(lengths))
    for prefix, lengths in (
        (r"^4", (13, 16, 19)),  # Visa
        (r"^(?:5[1-5]|2(?:2[2-9]|[3-6][0-9]|7[01]|720))", (16,)),  # Mastercard
        (r"^3[47]", (15,)),  # American Express
        (r"^(?:6011|65|64[4-9])", (16, 19)),  # Discover
        (r"^35(?:2[89]|[3-8][0-9])", (16, 19)),  # JCB
        (r"^3(?:0[0-5]|[689])", (14, 16, 19)),  # Diners Club
        (r"^62", (16, 17, 18, 19)),  # UnionPay
    )
)


def _luhn_ok(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2 == 1:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _looks_like_card(text: str) -> bool:
    for match in _CARD_CANDIDATE.finditer(text):
        digits = re.sub(r"[ -]", "", match.group(0))
        if _luhn_ok(digits) and any(
            prefix.match(digits) and len(digits) in lengths for prefix, lengths in _CARD_BRANDS
        ):
            return True
    return False


def _has_email(text: str) -> bool:
    return _EMAIL.search(text) is not None


# (rule name, matcher) for personal data in query keys and values.
PERSONAL_DATA: Final[tuple[tuple[str, Callable[[str], bool]], ...]] = (
    ("email_address", _has_email),
    ("payment_card_number", _looks_like_card),
)


def _secret_shape(text: str) -> str | None:
    for name, pattern in SECRET_SHAPES:
        if pattern.search(text):
            return name
    return None


def find_sensitive(target: Target) -> tuple[str, str] | None:
    """``(reason, rule)`` for the first sensitive thing in ``target``'s query or path, else ``None``."""
    _, _, query = target.request_target.partition("?")
    path = target.request_target.split("?", 1)[0]
    pairs = urllib.parse.parse_qsl(query, keep_blank_values=True) if query else []
    for key, value in pairs:
        name = _secret_shape(key) or _secret_shape(value)
        if name is not None:
            return "sensitive_query_secret", name
        if key.strip().lower() in SECRET_PARAMETERS and value.strip():
            return "sensitive_query_secret", "secret_parameter"
        for rule, matches in PERSONAL_DATA:
            if matches(key) or matches(value):
                return "sensitive_query_personal_data", rule
    for segment in urllib.parse.unquote(path).split("/"):
        name = _secret_shape(segment)
        if name is not None:
            return "sensitive_path_secret", name
    return None


def check_sensitive(target: Target, config: ReaderConfig) -> None:
    """Raise ``UnsafeURL`` if ``target`` carries an obvious secret or personal data (unless allowed)."""
    if config.unsafe_allow_sensitive_query:
        return
    found = find_sensitive(target)
    if found is not None:
        reason, rule = found
        raise UnsafeURL(
            f"the URL looks like it carries sensitive data ({rule}); refused before sending",
            reason=reason,
            url=target.url,
            stage="intake",
        )
