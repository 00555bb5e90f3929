"""The shipped detector artifact: loaded lazily, once per process, and scored in plain Python.

The artifact (``artifact/detector.json.gz``, rebuilt by ``scripts/train-guard``)
holds two logistic models:

1. an n-gram model: a weight per word 1- or 2-gram (a vocabulary; at load it
   becomes two hash tables, one for words and one for bigrams, that also
   hold the cue masks and imperative kinds, so a page's n-grams are looked
   up once each in a few array operations, see :class:`.stream.GramTable`);
2. a combiner over the n-gram logit, the functional features, topic shift and
   the location (see :mod:`.features`), whose output is the window's
   probability of being an instruction aimed at the reader.

Calibrated thresholds per guard profile ship with it. A window's n-gram
logit is the sum of the weights of all its n-grams (bigrams across its
sentence boundaries included), exactly the counts the trainer builds. The
combiner's exact inputs (imperative sentences, character marks, topic shift)
are computed only for windows whose upper bound (:func:`.detect.upper_bounds`)
can reach a threshold, which keeps long pages cheap without changing any
score.
"""

from __future__ import annotations

import bisect
import gzip
import hashlib
import json
import math
import operator
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

import numpy as np

from ..._errors import GuardFailed
from .features import FUNCTIONAL_NAMES, LOCATION_NAMES, combined_vector
from .stream import GramTable, Items, cue_tables, first_items, imperative_table, pair_keys, table_items
from .tokens import word_keys

__all__ = ["ARTIFACT_FORMAT", "SIZE_EDGES", "Detector", "Thresholds", "artifact_vocabulary", "load_detector", "logit",
           "sigmoid", "size_bucket"]

ARTIFACT_FORMAT: Final = 2
_ARTIFACT = "detector.json.gz"
_lock = threading.Lock()
_loaded: Detector | None = None


def sigmoid(value: float) -> float:
    """The logistic function, safe for large magnitudes."""
    if value >= 0:
        return 1.0 / (1.0 + math.exp(-value))
    exp = math.exp(value)
    return exp / (1.0 + exp)


def logit(probability: float) -> float:
    """The inverse of :func:`sigmoid` (infinite at 0 and 1)."""
    if probability <= 0.0:
        return -math.inf
    if probability >= 1.0:
        return math.inf
    return math.log(probability / (1.0 - probability))


# Document sizes (windows of its written text) at which calibration buckets end: a document is in
# the first bucket whose edge it does not exceed, or in the last one. The highest window of a long
# page is the maximum of many scores, so a short document is calibrated against short ones.
SIZE_EDGES: Final = (1, 2, 4, 8, 16, 32, 64, 128)


def size_bucket(windows: int) -> int:
    """The calibration bucket of a document with ``windows`` windows."""
    return bisect.bisect_left(SIZE_EDGES, windows)


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Window probabilities at which a profile warns and withholds.

    Attributes:
        warn: at or above, a ``low`` finding (``allow_with_warning``, in any
            location: the location is already part of the probability).
        withhold: at or above, a ``high`` finding (``require_approval``).
        warn_by_size: ``warn`` per size bucket (see ``SIZE_EDGES``), each at
            most ``warn``; empty means ``warn`` for every size. (``withhold``
            is one value: a fifth of 1% of a bucket's documents is too few
            to estimate.)
    """

    warn: float
    withhold: float
    warn_by_size: tuple[float, ...] = ()

    def at(self, windows: int) -> Thresholds:
        """The thresholds for a document of ``windows`` windows."""
        if not self.warn_by_size:
            return self
        return Thresholds(self.warn_by_size[min(size_bucket(windows), len(self.warn_by_size) - 1)], self.withhold)


@dataclass(frozen=True, slots=True)
class Detector:
    """A loaded detector artifact (immutable; shared by every guard call in the process)."""

    unigrams: GramTable           # word hash -> weight, bit mask of the cues it signals, ACTION or LEAD
    bigrams: GramTable            # mixed hash of two words -> weight, cue bit mask
    ngram_intercept: float
    combiner: tuple[float, ...]
    combiner_intercept: float
    thresholds: Mapping[str, Thresholds]
    digest: str

    @property
    def verbs(self) -> GramTable:
        """The table of imperative kinds (the unigram table: one lookup gives a word's weight, cues and kind)."""
        return self.unigrams

    def weight(self, name: str) -> float:
        """The combiner's weight of one input (``ngram_logit``, a functional feature or ``location_<name>``)."""
        return self.combiner[_COMBINER_INDEX[name]]

    def probability(self, ngram_logit: float, functional: Sequence[float], location: str) -> float:
        """The combiner's probability that the window instructs its reader."""
        vector = combined_vector(ngram_logit, functional, location)
        total = self.combiner_intercept + sum(map(operator.mul, self.combiner, vector))
        return sigmoid(total)




_COMBINER_NAMES = ("ngram_logit", *FUNCTIONAL_NAMES, *(f"location_{n}" for n in LOCATION_NAMES))
_COMBINER_INDEX = {name: index for index, name in enumerate(_COMBINER_NAMES)}


def _words(joined: str) -> list[str]:
    return joined.split("\n") if joined else []


def _ngram_items(data: Mapping[str, Any]) -> tuple[Items, Items]:
    words = _words(str(data["unigrams"]))
    word_weights = [float(w) for w in data["unigram_weights"]]
    pairs = _words(str(data["bigrams"]))
    pair_weights = [float(w) for w in data["bigram_weights"]]
    if len(words) != len(word_weights) or len(pairs) != len(pair_weights):
        raise ValueError("vocabulary")
    # "a b\nc d" -> ["a", "b", "c", "d"]: the two words of each bigram, in C.
    halves = "\n".join(pairs).replace(" ", "\n").split("\n") if pairs else []
    if len(halves) != 2 * len(pairs):
        raise ValueError("bigrams")
    pair_table = pair_keys(word_keys(halves[0::2]), word_keys(halves[1::2]))
    return (first_items(word_keys(words), word_weights, np.float64),
            first_items(pair_table, pair_weights, np.float64))


def _thresholds(data: Mapping[str, Any]) -> Thresholds:
    warn, withhold = float(data["warn"]), float(data["withhold"])
    by_size = tuple(min(float(value), warn) for value in data.get("warn_by_size", ()))
    if by_size and len(by_size) != len(SIZE_EDGES) + 1:
        raise ValueError("size buckets")
    return Thresholds(warn, withhold, by_size)


def parse_artifact(raw: bytes) -> Detector:
    """Build a :class:`Detector` from the artifact's gzip-compressed JSON.

    Raises:
        GuardFailed: the artifact is unreadable or of another format.
    """
    try:
        data: dict[str, Any] = json.loads(gzip.decompress(raw))
        if data.get("format") != ARTIFACT_FORMAT:
            raise ValueError("format")
        if tuple(data["combiner_names"]) != _COMBINER_NAMES:
            raise ValueError("features")
        thresholds = {name: _thresholds(t) for name, t in data["thresholds"].items()}
        unigrams, bigrams = _ngram_items(data)
        cue_unigrams, cue_bigrams = cue_tables()
        return Detector(
            unigrams=GramTable.build(unigrams, table_items(cue_unigrams), table_items(imperative_table())),
            bigrams=GramTable.build(bigrams, table_items(cue_bigrams)),
            ngram_intercept=float(data["ngram_intercept"]),
            combiner=tuple(float(w) for w in data["combiner"]),
            combiner_intercept=float(data["combiner_intercept"]),
            thresholds=thresholds,
            digest=hashlib.sha256(raw).hexdigest()[:16],
        )
    except (OSError, EOFError, ValueError, KeyError, TypeError) as exc:
        raise GuardFailed("the guard's detector artifact is missing or invalid; reinstall pagewarden",
                            reason="guard_model_invalid", stage="guard") from exc


def _artifact_bytes() -> bytes:
    try:
        return resources.files(__package__).joinpath("artifact", _ARTIFACT).read_bytes()
    except OSError as exc:
        raise GuardFailed("the guard's detector artifact is missing; reinstall pagewarden",
                          reason="guard_model_missing", stage="guard") from exc


def artifact_vocabulary() -> dict[str, float]:
    """The shipped n-gram weights by name (bigrams as ``"a b"``), read afresh: for tests and tools."""
    data = json.loads(gzip.decompress(_artifact_bytes()))
    grams = [*_words(data["unigrams"]), *_words(data["bigrams"])]
    weights = [*data["unigram_weights"], *data["bigram_weights"]]
    return {gram: float(weight) for gram, weight in zip(grams, weights, strict=True)}


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
            _loaded = parse_artifact(_artifact_bytes())
        return _loaded
