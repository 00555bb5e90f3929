"""Extraction quality and timing statistics.

Quality follows the article-extraction-benchmark's method: text is tokenised
with ``\\w+``, turned into 4-gram shingles, and compared as multisets per
document; precision and recall are averaged over documents (a document with
no predicted shingles is left out of precision, one with no true shingles out
of recall) and F1 is computed from the two averages.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence

__all__ = ["Quality", "percentile", "quality", "shingles"]

_TOKEN = re.compile(r"\w+")
NGRAM = 4


def shingles(text: str) -> Counter[str]:
    """The multiset of word 4-grams of ``text`` (one shorter gram for very short texts)."""
    tokens = _TOKEN.findall(text)
    return Counter(" ".join(tokens[i : i + NGRAM]) for i in range(max(1, len(tokens) - NGRAM + 1)))


class Quality:
    """Averaged precision, recall and F1 over a set of documents."""

    def __init__(self, precisions: Sequence[float], recalls: Sequence[float]) -> None:
        self.precision = statistics.fmean(precisions) if precisions else 0.0
        self.recall = statistics.fmean(recalls) if recalls else 0.0
        total = self.precision + self.recall
        self.f1 = 2 * self.precision * self.recall / total if total else 0.0

    def to_dict(self) -> dict[str, float]:
        """JSON-ready form, rounded."""
        return {
            "f1": round(self.f1, 4),
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
        }


def quality(pairs: Iterable[tuple[str, str]]) -> Quality:
    """Quality of ``(truth, prediction)`` pairs."""
    precisions, recalls = [], []
    for truth, prediction in pairs:
        expected, found = shingles(truth), shingles(prediction)
        if not prediction.strip():
            found = Counter()
        true_positive = sum((expected & found).values())
        false_positive = sum((found - expected).values())
        false_negative = sum((expected - found).values())
        if true_positive + false_positive:
            precisions.append(true_positive / (true_positive + false_positive))
        if true_positive + false_negative:
            recalls.append(true_positive / (true_positive + false_negative))
    return Quality(precisions, recalls)


def percentile(values: Sequence[float], share: float) -> float:
    """The ``share`` quantile of ``values`` (nearest rank)."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))
    return ordered[index]
