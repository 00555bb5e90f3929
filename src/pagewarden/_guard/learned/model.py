"""The shipped detector artifact: loaded lazily, once per process, and scored in plain Python.

The artifact (``artifact/detector.json.gz``, rebuilt by ``scripts/train-guard``)
holds two logistic models:

1. an n-gram model: a weight per word 1- or 2-gram (a vocabulary, so scoring
   is one dictionary lookup per n-gram and needs no numeric library);
2. a combiner over the n-gram logit, the functional features, topic shift and
   the location (see :mod:`.features`), whose output is the window's
   probability of being an instruction aimed at the reader.

Calibrated thresholds per guard profile ship with it. Scoring is additive per
sentence: a window's n-gram logit is the sum of its sentences' sums (each
distinct n-gram once per sentence) plus the bigrams that cross a sentence
boundary, exactly the counts the trainer builds for the window. The combiner
runs only on windows whose n-gram logit reaches ``gate_logit``: a floor read
off the training data (no window, attack or benign, whose n-gram logit was
below it reached the lowest threshold of any profile; a margin is taken off).
A window below it costs one n-gram sum, which keeps long pages cheap.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import operator
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from itertools import repeat
from typing import Any, Final

from ..._errors import GuardFailed
from .features import FUNCTIONAL_NAMES, LOCATION_NAMES, combined_vector

__all__ = ["ARTIFACT_FORMAT", "Detector", "Thresholds", "load_detector", "sigmoid"]

ARTIFACT_FORMAT: Final = 1
_ARTIFACT = "detector.json.gz"
_lock = threading.Lock()
_loaded: Detector | None = None


def sigmoid(value: float) -> float:
    """The logistic function, safe for large magnitudes."""
    if value >= 0:
        return 1.0 / (1.0 + math.exp(-value))
    exp = math.exp(value)
    return exp / (1.0 + exp)


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Window probabilities at which a profile warns and withholds.

    Attributes:
        warn: at or above, a ``low`` finding (``allow_with_warning``, in any
            location: the location is already part of the probability).
        withhold: at or above, a ``high`` finding (``require_approval``).
    """

    warn: float
    withhold: float


@dataclass(frozen=True, slots=True)
class Detector:
    """A loaded detector artifact (immutable; shared by every guard call in the process)."""

    # Unigrams keyed by the word, bigrams by a (word, word) tuple: hashing a tuple of two
    # already-hashed strings is cheaper than building "a b" for every pair of a page.
    weights: Mapping[str | tuple[str, str], float]
    ngram_intercept: float
    combiner: tuple[float, ...]
    combiner_intercept: float
    gate_logit: float  # windows with a lower n-gram logit are not scored (see the module docstring)
    thresholds: Mapping[str, Thresholds]
    digest: str

    def ngram_sum(self, grams: Iterable[str | tuple[str, str]]) -> float:
        """Sum of the weights of ``grams`` (unknown n-grams weigh nothing)."""
        return sum(map(self.weights.get, grams, repeat(0.0)))

    def vocabulary(self) -> dict[str, float]:
        """The n-gram weights keyed as shipped and trained (bigrams as ``"a b"``)."""
        return {k if isinstance(k, str) else f"{k[0]} {k[1]}": v for k, v in self.weights.items()}


    def probability(self, ngram_logit: float, functional: Sequence[float], location: str) -> float:
        """The combiner's probability that the window instructs its reader."""
        vector = combined_vector(ngram_logit, functional, location)
        total = self.combiner_intercept + sum(map(operator.mul, self.combiner, vector))
        return sigmoid(total)




def _runtime_key(gram: str) -> str | tuple[str, str]:
    first, space, second = gram.partition(" ")
    return (first, second) if space else gram


def parse_artifact(raw: bytes) -> Detector:
    """Build a :class:`Detector` from the artifact's gzip-compressed JSON.

    Raises:
        GuardFailed: the artifact is unreadable or of another format.
    """
    try:
        data: dict[str, Any] = json.loads(gzip.decompress(raw))
        if data.get("format") != ARTIFACT_FORMAT:
            raise ValueError("format")
        names = tuple(data["combiner_names"])
        expected = ("ngram_logit", *FUNCTIONAL_NAMES, *(f"location_{n}" for n in LOCATION_NAMES))
        if names != expected:
            raise ValueError("features")
        thresholds = {name: Thresholds(float(t["warn"]), float(t["withhold"]))
                      for name, t in data["thresholds"].items()}
        return Detector(
            weights={_runtime_key(str(k)): float(v) for k, v in data["vocabulary"].items()},
            ngram_intercept=float(data["ngram_intercept"]),
            combiner=tuple(float(w) for w in data["combiner"]),
            combiner_intercept=float(data["combiner_intercept"]),
            gate_logit=float(data["gate_logit"]),
            thresholds=thresholds,
            digest=hashlib.sha256(raw).hexdigest()[:16],
        )
    except (OSError, EOFError, ValueError, KeyError, TypeError) as exc:
        raise GuardFailed("the guard's detector artifact is missing or invalid; reinstall pagewarden",
                            reason="guard_model_invalid", stage="guard") from exc


def load_detector() -> Detector:
    """The process's detector, loaded on first use (thread-safe, once per process).

    Raises:
        GuardFailed: the artifact is missing or invalid (the guard fails
            closed rather than run without its model).
    """
    global _loaded
    if _loaded is not None:
        return _loaded
    with _lock:
        if _loaded is None:
            try:
                raw = resources.files(__package__).joinpath("artifact", _ARTIFACT).read_bytes()
            except OSError as exc:
                raise GuardFailed("the guard's detector artifact is missing; reinstall pagewarden",
                                    reason="guard_model_missing", stage="guard") from exc
            _loaded = parse_artifact(raw)
        return _loaded
