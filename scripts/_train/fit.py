"""Fit the detector: windows -> n-gram model -> combiner -> calibrated thresholds.

The window features come from ``pagewarden._guard.learned.features`` (the
runtime's own code). A window's n-gram counts are built as
``band @ sentence_counts + junction_band @ junction_counts`` (sparse
products): each sentence's distinct unigrams and bigrams plus the bigrams
across sentence boundaries, exactly what the runtime sums.

Positive windows: for documents whose injected piece is known (generated
attacks, BIPIA insertions), the windows that start inside the piece; for a
short attack text, every window; for a long one, the window the first-pass
n-gram model scores highest (one multiple-instance step). Windows of a known
carrier that do not touch the piece are negatives.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from pagewarden._guard.learned.detect import document_words
from pagewarden._guard.learned.features import (
    FUNCTIONAL_NAMES,
    LOCATION_NAMES,
    LOGIT_CLIP,
    WINDOW_SENTENCES,
    combined_vector,
    sentence_grams,
    sentences,
    windows,
)

from .corpus import Doc

__all__ = ["Params", "WindowTable", "build_table", "fit_combiner", "fit_ngram"]


@dataclass(frozen=True, slots=True)
class Params:
    """Training parameters (recorded in the manifest)."""

    min_count: int = 3
    max_vocabulary: int = 120_000
    ngram_alpha: float = 5e-5
    ngram_epochs: int = 8
    combiner_c: float = 1.0
    combiner_negatives: int = 40_000
    max_benign_windows_per_doc: int = 10
    folds: int = 8
    seed: int = 7


@dataclass(slots=True)
class WindowTable:
    """Every window of every document, as matrices."""

    counts: sp.csr_matrix          # window x vocabulary n-gram counts
    functional: np.ndarray         # window x functional features
    location: list[str]
    doc: np.ndarray                # window -> document index
    label: np.ndarray              # 1 positive, 0 negative, -1 unknown (attack window not chosen)
    train: np.ndarray              # bool: used to fit
    vocabulary: dict[str, int]


def _doc_windows(doc: Doc) -> list[tuple[int, str, list, list, set[int]]]:
    words = document_words([text for _, text in doc.segments])
    out = []
    for index, (location, text) in enumerate(doc.segments):
        units = sentences(text)
        if not units:
            continue
        found = windows(units, location, document_words=words)
        positive: set[int] = set()
        if doc.payload is not None and doc.payload[0] == index:
            start = len(sentences(doc.payload[1]))
            end = start + max(1, len(sentences(doc.payload[2])))
            positive = {w.start for w in found if start <= w.start < end}
            # Windows that reach into the piece from before it are neither: skip them.
            positive |= {-1 - w.start for w in found if w.start < start < w.start + WINDOW_SENTENCES}
        out.append((index, location, units, found, positive))
    return out


def build_table(docs: Sequence[Doc], params: Params, vocabulary: dict[str, int] | None = None) -> WindowTable:
    """Windows, their n-gram counts and functional features, and the first labels."""
    rng = random.Random(params.seed)
    per_doc = [_doc_windows(doc) for doc in docs]
    if vocabulary is None:
        frequency: Counter[str] = Counter()
        for doc_windows in per_doc:
            for _, _, units, _, _ in doc_windows:
                for unit in units:
                    frequency.update(sentence_grams(unit.tokens))
        kept = sorted((g for g, n in frequency.items() if n >= params.min_count), key=lambda g: (-frequency[g], g))
        vocabulary = {g: i for i, g in enumerate(sorted(kept[: params.max_vocabulary]))}
    rows_s, cols_s = [], []
    rows_j, cols_j = [], []
    band_r, band_c, jband_r, jband_c = [], [], [], []
    functional, location, doc_of, label, train = [], [], [], [], []
    sentence_base = 0
    junction_base = 0
    window_index = 0
    for d, (doc, doc_windows) in enumerate(zip(docs, per_doc, strict=True)):
        total_sentences = sum(len(units) for _, _, units, _, _ in doc_windows)
        short = total_sentences <= WINDOW_SENTENCES + 1
        candidates: list[int] = []
        for _, loc, units, found, positive in doc_windows:
            for i, unit in enumerate(units):
                # Each n-gram counts once per sentence (the runtime's ``sentence_grams``).
                for g in sentence_grams(unit.tokens):
                    col = vocabulary.get(g)
                    if col is not None:
                        rows_s.append(sentence_base + i)
                        cols_s.append(col)
                if i + 1 < len(units):
                    col = vocabulary.get(f"{unit.tokens[-1]} {units[i + 1].tokens[0]}")
                    if col is not None:
                        rows_j.append(junction_base + i)
                        cols_j.append(col)
            for window in found:
                end = min(window.start + WINDOW_SENTENCES, len(units))
                for s in range(window.start, end):
                    band_r.append(window_index)
                    band_c.append(sentence_base + s)
                for s in range(window.start, end - 1):
                    jband_r.append(window_index)
                    jband_c.append(junction_base + s)
                functional.append(window.functional)
                location.append(loc)
                doc_of.append(d)
                if doc.label == 0:
                    label.append(0)
                    candidates.append(window_index)
                    train.append(False)
                elif doc.payload is not None and positive:
                    if window.start in positive:
                        label.append(1)
                        train.append(True)
                    elif -1 - window.start in positive:
                        label.append(-1)
                        train.append(False)
                    else:
                        label.append(0)  # the carrier around a known payload
                        train.append(rng.random() < 0.5)
                elif doc.payload is not None:
                    label.append(0)
                    train.append(rng.random() < 0.5)
                else:
                    label.append(1 if short else -1)
                    train.append(short)
                window_index += 1
            sentence_base += len(units)
            junction_base += len(units)
        if doc.label == 0:
            # Whole real pages hold hundreds of windows, and their hidden parts, comments and
            # attributes are exactly what the model must learn to pass: keep many more of them.
            cap = params.max_benign_windows_per_doc * (20 if doc.is_html else 1)
            chosen = candidates if len(candidates) <= cap else rng.sample(candidates, cap)
            for w in chosen:
                train[w] = True
    vocab_size = len(vocabulary)
    sent = sp.csr_matrix((np.ones(len(rows_s), dtype=np.float32), (rows_s, cols_s)),
                         shape=(sentence_base, vocab_size))
    junc = sp.csr_matrix((np.ones(len(rows_j), dtype=np.float32), (rows_j, cols_j)),
                         shape=(junction_base, vocab_size))
    band = sp.csr_matrix((np.ones(len(band_r), dtype=np.float32), (band_r, band_c)),
                         shape=(window_index, sentence_base))
    jband = sp.csr_matrix((np.ones(len(jband_r), dtype=np.float32), (jband_r, jband_c)),
                          shape=(window_index, junction_base))
    counts = (band @ sent + jband @ junc).tocsr()
    return WindowTable(counts, np.asarray(functional, dtype=np.float64).reshape(-1, len(FUNCTIONAL_NAMES)),
                       location, np.asarray(doc_of), np.asarray(label), np.asarray(train), vocabulary)


def fit_ngram(table: WindowTable, mask: np.ndarray, params: Params) -> tuple[np.ndarray, float]:
    """The n-gram model's weights and intercept, fitted on the windows in ``mask``."""
    rows = np.flatnonzero(mask & table.train & (table.label >= 0))
    from sklearn.linear_model import SGDClassifier  # training only (the `train` extra)

    # Averaged SGD on the logistic loss: the same model family as a logistic regression, fitted in
    # seconds on hundreds of thousands of windows (liblinear took minutes per fold).
    model = SGDClassifier(loss="log_loss", alpha=params.ngram_alpha, class_weight="balanced", average=True,
                          max_iter=params.ngram_epochs, tol=None, random_state=params.seed)
    model.fit(table.counts[rows], table.label[rows])
    return model.coef_[0].astype(np.float64), float(model.intercept_[0])


def ngram_logits(table: WindowTable, weights: np.ndarray, intercept: float) -> np.ndarray:
    """The n-gram logit of every window."""
    return np.asarray(table.counts @ weights).ravel() + intercept


def combiner_matrix(table: WindowTable, logits: np.ndarray) -> np.ndarray:
    """The combiner's input for every window (see ``combined_vector``)."""
    onehot = np.array([[1.0 if loc == name else 0.0 for name in LOCATION_NAMES] for loc in table.location])
    clipped = np.clip(logits, -LOGIT_CLIP, LOGIT_CLIP)
    return np.hstack([clipped[:, None], table.functional, onehot])


def check_vector_parity(table: WindowTable, logits: np.ndarray) -> None:
    """The matrix form equals the runtime's ``combined_vector`` on a few rows."""
    matrix = combiner_matrix(table, logits)
    for row in range(0, len(logits), max(1, len(logits) // 50)):
        runtime = combined_vector(float(logits[row]), table.functional[row].tolist(), table.location[row])
        assert np.allclose(matrix[row], runtime), row


def fit_combiner(matrix: np.ndarray, labels: np.ndarray, mask: np.ndarray, params: Params) -> tuple[np.ndarray, float]:
    """The combiner's weights and intercept, fitted on the windows in ``mask``.

    Every positive window is used and at most ``combiner_negatives`` negatives
    (a fixed, seeded sample): the combiner has a few dozen weights. Columns are
    standardized for the solver, and the scaling is folded back into the
    returned weights, so the runtime applies them to raw features.
    """
    positive = np.flatnonzero(mask & (labels == 1))
    negative = np.flatnonzero(mask & (labels == 0))
    if len(negative) > params.combiner_negatives:
        negative = np.sort(np.random.default_rng(params.seed).choice(negative, params.combiner_negatives,
                                                                     replace=False))
    from sklearn.linear_model import LogisticRegression  # training only (the `train` extra)

    rows = np.concatenate([positive, negative])
    data = matrix[rows]
    mean = data.mean(axis=0)
    scale = data.std(axis=0)
    scale[scale < 1e-9] = 1.0
    model = LogisticRegression(C=params.combiner_c, solver="lbfgs", class_weight="balanced", max_iter=1000)
    model.fit((data - mean) / scale, labels[rows])
    weights = model.coef_[0] / scale
    intercept = float(model.intercept_[0] - np.sum(model.coef_[0] * mean / scale))
    return weights.astype(np.float64), intercept


def probabilities(matrix: np.ndarray, weights: np.ndarray, intercept: float) -> np.ndarray:
    """The combiner's probability per window."""
    z = matrix @ weights + intercept
    return 1.0 / (1.0 + np.exp(-np.clip(z, -60, 60)))


def doc_scores(table: WindowTable, probs: np.ndarray, passed: np.ndarray, n_docs: int) -> np.ndarray:
    """Each document's highest window probability among the windows in ``passed`` (0 when none)."""
    scores = np.zeros(n_docs)
    np.maximum.at(scores, table.doc[passed], probs[passed])
    return scores


def quantile(values: Sequence[float] | np.ndarray, q: float) -> float:
    """The ``q`` quantile (nearest rank, higher), or 0 for no values."""
    data = np.sort(np.asarray(values, dtype=np.float64))
    if not len(data):
        return 0.0
    return float(data[min(len(data) - 1, math.ceil(q * len(data)) - 1)])
