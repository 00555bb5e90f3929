"""Run the learned detector over a document's segments and turn scores into findings.

Every segment is scored as written and, for the lines that normalization
changed (decoded, de-obfuscated), as normalized, in its own location. The
document's words (all segments as written) are the reference for topic
shift. Each segment contributes at most one finding: its highest-scoring
window, if that window reaches the profile's ``warn`` threshold. A finding
names the category ``learned_injection``, the probability as its confidence,
the location, and the hash of the window (never its text).

All windows of a document are scored together (:mod:`.stream`): n-gram
logits and cue counts for every window come from array operations. The
rest of a window's inputs (imperative sentences, character marks, topic
shift) are computed in Python only for windows whose upper bound
(:func:`upper_bounds`) reaches the threshold, so skipping a window never
changes a finding.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..report import Finding, Location, Severity
from .features import (
    CUE_NAMES,
    CUE_SATURATION,
    LOCATION_NAMES,
    LOGIT_CLIP,
    MIN_TOPIC_TOKENS,
    Sentence,
    functional_vector,
    sentence_features,
    split_sentences,
    topic_shift,
    window_content,
    window_sums,
    window_tokens,
)
from .model import Detector, Thresholds, logit
from .stream import Stream, build_stream
from .tokens import word_keys

__all__ = [
    "CATEGORY",
    "MAX_LEARNED_FINDINGS",
    "DocumentScores",
    "LearnedPiece",
    "WindowScore",
    "document_words",
    "learned_findings",
    "score_pieces",
    "upper_bounds",
    "window_logits",
]

CATEGORY = "learned_injection"
MAX_LEARNED_FINDINGS = 32
# Characters of one piece that are scored together; longer pieces are scored in
# consecutive slices of this size (every character is still scored once).
_SLICE_CHARS = 200_000
_MARKS = ("email", "url", "amount", "role_mark", "separator")

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class LearnedPiece:
    """Text to score, where it came from, and the normalization it went through.

    ``lowered``, when given, must be ``text.lower()``: the guard's rule scan
    has it already, and lower-casing a page again is a pass over it.
    """

    location: Location
    text: str
    techniques: tuple[str, ...] = ()
    lowered: str | None = None


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


def _stream(pieces: Sequence[LearnedPiece]) -> Stream:
    groups = [(index, piece.text[offset: offset + _SLICE_CHARS])
              for index, piece in enumerate(pieces) for offset in range(0, max(1, len(piece.text)), _SLICE_CHARS)]
    # A piece of one slice lower-cases as a whole (lower-casing may lengthen a text, so a
    # slice of the lower-cased text is not always the lower-cased slice).
    lowered = [piece.lowered if len(piece.text) <= _SLICE_CHARS else None
               for index, piece in enumerate(pieces) for _ in range(0, max(1, len(piece.text)), _SLICE_CHARS)]
    # A normalized piece holds the lines a normalization step changed; its sentences whose
    # tokens equal a sentence as written were already scored there, so only the rest is scored.
    normalized = frozenset(index for index, piece in enumerate(pieces) if piece.techniques)
    return build_stream(groups, normalized, lowered)


@dataclass(frozen=True, slots=True)
class Rows:
    """The rows of a stream's tokens and pairs in the detector's tables, looked up once per stream."""

    words: npt.NDArray[np.int32]
    pairs: npt.NDArray[np.int32]


def table_rows(detector: Detector, stream: Stream) -> Rows:
    """Every token's and pair's row: its weight, cues and imperative kind (one lookup per table)."""
    return Rows(detector.unigrams.rows(stream.hashes), detector.bigrams.rows(stream.pairs))


def window_logits(detector: Detector, stream: Stream, rows: Rows | None = None) -> Floats:
    """The n-gram logit of the window starting at each sentence of ``stream``.

    A window's n-grams are each sentence's distinct unigrams and bigrams,
    and the bigram across each boundary between its sentences: the counts
    the trainer builds for it.
    """
    rows = table_rows(detector, stream) if rows is None else rows
    hashes = stream.hashes
    unigrams = np.zeros(len(hashes) + 1)
    (detector.unigrams.weights[rows.words] * stream.unigram_counted).cumsum(out=unigrams[1:])
    bigrams = np.zeros(max(1, len(hashes)))
    (detector.bigrams.weights[rows.pairs] * stream.bigram_counted).cumsum(out=bigrams[1:])
    starts = stream.cstarts
    ends = stream.cends[stream.window_ends()]
    result: Floats = detector.ngram_intercept + unigrams[ends] - unigrams[starts] + bigrams[ends - 1] - bigrams[starts]
    return result


def upper_bounds(detector: Detector, stream: Stream, logits: Floats, locations: Sequence[str],
                 known: bool, rows: Rows | None = None) -> Floats:
    """For each window, an upper bound of the combiner's logit.

    Everything that array operations give (the n-gram logit, cue counts,
    imperative sentences, length, location) enters exactly; each input known
    only after Python work (character marks, topic shift) enters at its most
    damaging value, term by term, so the bound is never below the window's
    real logit.
    """
    rows = table_rows(detector, stream) if rows is None else rows
    weight = detector.weight
    ends = stream.window_ends()
    counts = stream.window_cues(detector.unigrams, detector.bigrams, (rows.words, rows.pairs))
    # Capped and scaled for all cues in two array operations; each column is one cue's feature.
    capped = np.minimum(counts, CUE_SATURATION) / CUE_SATURATION
    cue = {name: capped[:, i] for i, name in enumerate(CUE_NAMES)}
    location_weight = np.array([weight(f"location_{name}") for name in LOCATION_NAMES])
    location_index = np.array([LOCATION_NAMES.index(name) for name in locations], dtype=np.int64)[stream.piece]
    hidden = (location_index != LOCATION_NAMES.index("visible")).astype(np.float64)
    lengths = (stream.cends[ends] - stream.cstarts).astype(np.float64)
    shift_known = 1.0 if known else 0.0
    bound: Floats = (
        detector.combiner_intercept
        + weight("ngram_logit") * np.clip(logits, -LOGIT_CLIP, LOGIT_CLIP)
        + sum(weight(name) * cue[name] for name in CUE_NAMES)
        + weight("topic_known") * shift_known
        + weight("length") * np.log1p(lengths) / 5.0
        + weight("ai_x_task") * cue["ai_address"] * cue["reader_task"]
        + weight("letter_x_ai") * cue["letter"] * cue["ai_address"]
        + weight("override_x_task") * cue["override"] * cue["reader_task"]
        + weight("hidden_x_second") * hidden * cue["second_person"]
        + weight("hidden_x_ai") * hidden * cue["ai_address"]
        + location_weight[location_index]
    )
    imperative_sentences = np.zeros(len(stream) + 1)
    stream.imperative(detector.unigrams, rows.words).cumsum(out=imperative_sentences[1:])
    imperative = np.minimum(imperative_sentences[ends + 1] - imperative_sentences[:-1], 2.0) / 2.0
    bound += imperative * (weight("imperative") + weight("ai_x_imperative") * cue["ai_address"]
                           + weight("task_x_imperative") * cue["reader_task"]
                           + weight("oblig_x_imperative") * cue["obligation"]
                           + weight("second_x_imperative") * cue["second_person"]
                           + weight("hidden_x_imperative") * hidden
                           + max(0.0, weight("shift_x_imperative")) * shift_known
                           + max(0.0, weight("target_x_imperative")))
    bound += sum(max(0.0, weight(name)) for name in _MARKS)
    bound += shift_known * np.maximum(weight("topic_shift") + weight("shift_x_second") * cue["second_person"], 0.0)
    return bound


def _document_counts(stream: Stream, written: npt.NDArray[np.bool_], words: set[str]) -> dict[str, int]:
    """How often each of ``words`` occurs in the document as written (the topic-shift reference).

    Only the candidate windows' content words are asked for, all at once:
    each document token is looked up among them, instead of every word of
    the document being counted into a dict.
    """
    if not words:
        return {}
    distinct = sorted(words)
    keys = word_keys(distinct)
    order = np.argsort(keys)
    keys = keys[order]
    document = stream.hashes[np.repeat(written, stream.cends - stream.cstarts)]
    position = np.minimum(np.searchsorted(keys, document), len(keys) - 1)
    matched = position[keys[position] == document]
    counts = np.bincount(matched, minlength=len(keys))
    return {distinct[index]: int(counts[rank]) for rank, index in enumerate(order.tolist())}


def _window_hash(units: Sequence[Sentence]) -> str:
    joined = " ".join(window_tokens(units, 0))
    return hashlib.sha256(joined.encode("utf-8", "surrogatepass")).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class DocumentScores:
    """The best window of every piece that had one scored, and the document's size in windows."""

    windows: int  # windows of the written text (the size its thresholds are calibrated for)
    best: list[WindowScore]


def score_pieces(detector: Detector, pieces: Sequence[LearnedPiece], *,
                 thresholds: Thresholds | None = None) -> DocumentScores:
    """The best window of every piece, among windows that can reach the document's ``warn`` threshold.

    With ``thresholds``, only windows whose upper bound reaches the warn
    threshold for the document's size are scored exactly, and a piece with
    none has no entry; without them, every window is scored.
    """
    stream = _stream(pieces)
    written = np.array([not piece.techniques for piece in pieces], dtype=bool)[stream.piece]
    size = int(np.count_nonzero(written))
    if not len(stream):
        return DocumentScores(size, [])
    rows = table_rows(detector, stream)
    logits = window_logits(detector, stream, rows)
    known = int(np.sum((stream.cends - stream.cstarts)[written])) >= MIN_TOPIC_TOKENS
    locations = [str(piece.location) for piece in pieces]
    if thresholds is None:
        candidates = np.arange(len(stream))
    else:
        bounds = upper_bounds(detector, stream, logits, locations, known, rows)
        candidates = (bounds >= logit(thresholds.at(size).warn)).nonzero()[0]
    if not len(candidates):
        return DocumentScores(size, [])
    ends = stream.window_ends()
    cache: dict[int, Sentence] = {}
    windows: dict[int, list[Sentence]] = {}
    for start in candidates.tolist():
        units = windows[start] = []
        for index in range(start, int(ends[start]) + 1):
            unit = cache.get(index)
            if unit is None:
                unit = cache[index] = sentence_features(stream.sentence_tokens(index), stream.raws[index])
            units.append(unit)
    contents = {start: window_content(units, 0) for start, units in windows.items()} if known else {}
    counts = _document_counts(stream, written, set().union(*contents.values())) if contents else {}
    best: dict[int, tuple[float, list[Sentence]]] = {}
    for start, units in windows.items():
        piece = int(stream.piece[start])
        location = locations[piece]
        shift = topic_shift(contents[start], counts) if known else 0.0
        functional = functional_vector(window_sums(units, 0), shift, known, location)
        probability = detector.probability(float(logits[start]), functional, location)
        if piece not in best or probability > best[piece][0]:
            best[piece] = (probability, units)
    return DocumentScores(size, [
        WindowScore(probability, pieces[piece].location, pieces[piece].techniques, _window_hash(units))
        for piece, (probability, units) in sorted(best.items())])


def learned_findings(detector: Detector, pieces: Sequence[LearnedPiece], *, profile: str) -> list[Finding]:
    """Findings for every piece whose best window reaches the profile's ``warn`` threshold."""
    scored = score_pieces(detector, pieces, thresholds=detector.thresholds[profile])
    thresholds = detector.thresholds[profile].at(scored.windows)
    findings: list[Finding] = []
    for score in sorted(scored.best, key=lambda s: -s.probability):
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
