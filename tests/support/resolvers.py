"""Injectable resolvers for tests: no test ever uses the system's DNS.

``StaticResolver`` answers from a fixed mapping; ``SequenceResolver`` answers
differently on each call (DNS rebinding: first a safe answer, then a private
one). Both record every call so a test can prove nothing re-resolves.
"""

from __future__ import annotations

import socket
from collections.abc import Mapping, Sequence

from pagewarden._protocols import IPAddress

__all__ = ["SequenceResolver", "StaticResolver"]

Answer = Sequence[IPAddress | str]


class StaticResolver:
    """Resolve from ``mapping`` (host -> addresses); unknown hosts raise ``socket.gaierror``."""

    def __init__(self, mapping: Mapping[str, Answer]) -> None:
        self.mapping = dict(mapping)
        self.calls: list[str] = []

    async def resolve(self, host: str) -> Answer:
        """Return the mapped addresses for ``host``."""
        self.calls.append(host)
        if host not in self.mapping:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return self.mapping[host]


class SequenceResolver:
    """Return ``answers[0]`` on the first call, ``answers[1]`` on the second, ... (the last one repeats)."""

    def __init__(self, answers: Sequence[Answer]) -> None:
        if not answers:
            raise ValueError("SequenceResolver needs at least one answer")
        self.answers = list(answers)
        self.calls: list[str] = []

    async def resolve(self, host: str) -> Answer:
        """Return the next answer in the sequence."""
        index = min(len(self.calls), len(self.answers) - 1)
        self.calls.append(host)
        return self.answers[index]
