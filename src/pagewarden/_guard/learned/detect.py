"""Run the learned detector over a document's segments and turn scores into findings.

Every segment is scored as written and, for the lines that normalization
changed (decoded, de-obfuscated), as normalized, in its own location. The
document's words (all segments together) are the reference for topic
shift. Each segment contributes at most one finding: its highest-scoring
window, if that window reaches the profile's ``warn`` threshold. A finding
names the category ``learned_injection``, the probability as its confidence,
the location, and the hash of the window (never its text).
"""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ..report import Finding, Location, Severity
from .features import (
    WINDOW_SENTENCES,
    Sentence,
    functional_vector,
    runtime_grams,
    sentence_features,
    split_sentences,
    topic_known,
    topic_shift,
    window_content,
    window_sums,
    window_tokens,
)
from .model import Detector

__all__ = [
    "CATEGORY",
    "MAX_LEARNED_FINDINGS",
    "LearnedPiece",
    "WindowScore",
    "document_words",
    "learned_findings",
    "score_pieces",
]

CATEGORY = "learned_injection"
MAX_LEARNED_FINDINGS = 32
# Characters of one piece that are scored; longer pieces are scored in
# consecutive slices of this size (every character is still scored once).
_SLICE_CHARS = 200_000


@dataclass(frozen=True, slots=True)
class LearnedPiece:
    """Text to score, where it came from, and the normalization it went through."""

    location: Location
    text: str
    techniques: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class WindowScore:
    """The best window of one piece."""

    probability: float
    location: Location
    techniques: tuple[str, ...]
    window_hash: str


def document_words(texts: Sequence[str]) -> Counter[str]:
    """Token counts of a whole document (the topic-shift reference)."""
    counts: Counter[str] = Counter()
    for text in texts:
        for tokens, _ in split_sentences(text):
            counts.update(tokens)
    return counts


Split = list[tuple[list[str], str]]


def _slices(text: str) -> list[Split]:
    return [units for offset in range(0, max(1, len(text)), _SLICE_CHARS)
            if (units := split_sentences(text[offset: offset + _SLICE_CHARS]))]


def window_logits(detector: Detector, token_lists: Sequence[Sequence[str]]) -> list[float]:
    """The n-gram logit of the window starting at each sentence.

    Each sentence's distinct n-grams are summed once, then a window adds its
    sentences' sums and the bigrams across their boundaries: the same counts
    the trainer builds for the window.
    """
    weights = detector.weights
    sums = [detector.ngram_sum(runtime_grams(tokens)) for tokens in token_lists]
    junctions = [weights.get((left[-1], right[0]), 0.0) for left, right in itertools.pairwise(token_lists)]
    logits = []
    for start in range(len(token_lists)):
        end = min(start + WINDOW_SENTENCES, len(token_lists))
        logits.append(detector.ngram_intercept + sum(sums[start:end]) + sum(junctions[start:end - 1]))
    return logits


def _candidates(detector: Detector, split: Split) -> list[tuple[int, float]]:
    """Windows whose n-gram logit leaves them any chance of reaching a threshold (see ``Detector.gate_logit``)."""
    gate = detector.gate_logit
    return [(start, logit) for start, logit in enumerate(window_logits(detector, [t for t, _ in split]))
            if logit >= gate]


def _score_window(
    detector: Detector, piece: LearnedPiece, split: Split, start: int, logit: float, words: Counter[str],
    cache: dict[int, Sentence],
) -> tuple[float, list[Sentence]]:
    units = []
    for index in range(start, min(start + WINDOW_SENTENCES, len(split))):
        unit = cache.get(index)
        if unit is None:
            unit = cache[index] = sentence_features(*split[index])
        units.append(unit)
    location = str(piece.location)
    known = topic_known(words)
    shift = topic_shift(window_content(units, 0), words) if known else 0.0
    functional = functional_vector(window_sums(units, 0), shift, known, location)
    return detector.probability(logit, functional, location), units


def _window_hash(units: Sequence[Sentence]) -> str:
    joined = " ".join(window_tokens(units, 0))
    return hashlib.sha256(joined.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def score_pieces(detector: Detector, pieces: Sequence[LearnedPiece]) -> list[WindowScore]:
    """The best window of every piece that has a window past the gate.

    Only the n-gram logit is computed for every window; the functional
    features, topic shift and the combiner run for the few windows that pass
    the gate. The document's words (the topic-shift reference) are counted
    over the pieces as written (those without normalization techniques), and
    only when some window needs them.
    """
    sliced = [_slices(piece.text) for piece in pieces]
    # A normalized piece holds the lines a normalization step changed; its sentences whose
    # tokens equal a sentence as written were already scored there, so only the rest is scored.
    written = {tuple(tokens) for piece, slices in zip(pieces, sliced, strict=True) if not piece.techniques
               for split in slices for tokens, _ in split}
    sliced = [slices if not piece.techniques else
              [kept for split in slices if (kept := [u for u in split if tuple(u[0]) not in written])]
              for piece, slices in zip(pieces, sliced, strict=True)]
    candidates = [[(split, _candidates(detector, split)) for split in slices] for slices in sliced]
    if not any(found for per_piece in candidates for _, found in per_piece):
        return []
    words: Counter[str] = Counter()
    for piece, slices in zip(pieces, sliced, strict=True):
        if not piece.techniques:
            for split in slices:
                for tokens, _ in split:
                    words.update(tokens)
    scores = []
    for piece, per_piece in zip(pieces, candidates, strict=True):
        best: tuple[float, list[Sentence]] | None = None
        for split, found in per_piece:
            cache: dict[int, Sentence] = {}
            for start, logit in found:
                scored = _score_window(detector, piece, split, start, logit, words, cache)
                if best is None or scored[0] > best[0]:
                    best = scored
        if best is not None:
            scores.append(WindowScore(best[0], piece.location, piece.techniques, _window_hash(best[1])))
    return scores


def learned_findings(detector: Detector, pieces: Sequence[LearnedPiece], *, profile: str) -> list[Finding]:
    """Findings for every piece whose best window reaches the profile's ``warn`` threshold."""
    thresholds = detector.thresholds[profile]
    findings: list[Finding] = []
    for score in sorted(score_pieces(detector, pieces), key=lambda s: -s.probability):
        if score.probability < thresholds.warn or len(findings) >= MAX_LEARNED_FINDINGS:
            break
        # The location is already in the probability, so a learned finding's severity does
        # not rise outside visible text: below ``withhold`` it warns, at or above it withholds.
        severity = Severity.HIGH if score.probability >= thresholds.withhold else Severity.LOW
        cut = thresholds.withhold if severity is Severity.HIGH else thresholds.warn
        reason = f"model:{detector.digest} p={score.probability:.3f}>={cut:.3f} ({profile})"
        findings.append(Finding(CATEGORY, severity, round(score.probability, 3), score.location,
                                ("learned_detector", *score.techniques), score.window_hash, reason))
    return findings
