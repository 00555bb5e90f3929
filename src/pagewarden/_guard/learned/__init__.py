"""The guard's learned detector: a second layer beside the rules.

It scores normalized, located windows of every segment for "this text tries
to instruct the reader or agent" (see :mod:`.features`), with a model trained
in this repository (``scripts/train-guard``) and shipped inside the wheel.
It cannot be switched off: the guard always runs it.
"""

from .detect import CATEGORY, LearnedPiece, document_words, learned_findings, score_pieces
from .model import Detector, Thresholds, load_detector

__all__ = ["CATEGORY", "Detector", "LearnedPiece", "Thresholds", "document_words", "learned_findings",
           "load_detector", "score_pieces"]
