"""The whole training run and its honest validation, shared by ``scripts/train-guard`` and ``scripts/bench guard``.

Validation is by group: every window's n-gram logit is *out of fold* (the
n-gram model that scored it was trained with its whole group left out), and
for each attack group the combiner is refitted without that group before the
group is scored. So every figure below is for a source or template family the
model never saw, scored at the shipped thresholds. The worst fold is the
figure that predicts a held-out benchmark.
"""

from __future__ import annotations

import gzip
import hashlib
import inspect
import json
import math
import pickle
import time
from collections import defaultdict
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from pagewarden._guard.learned import features
from pagewarden._guard.learned.features import FUNCTIONAL_NAMES, LOCATION_NAMES
from pagewarden._guard.learned.model import ARTIFACT_FORMAT, SIZE_EDGES, size_bucket
from pagewarden._guard.report import Location
from pagewarden._guard.rules import load_rules
from pagewarden._guard.scan import scan_segment_full
from pagewarden._guard.segments import Segment

from . import corpus, fit, goals, synth, threads
from .corpus import Doc, input_hashes, load_documents
from .fit import (
    Params,
    WindowTable,
    build_table,
    check_vector_parity,
    combiner_matrix,
    doc_scores,
    fit_combiner,
    fit_ngram,
    ngram_logits,
    probabilities,
    quantile,
)

__all__ = ["train"]

# Benign groups whose documents are dominated by text *about* attacks or by
# chat prompts; they are reported like every other group.
_ROUND = 4
# Thresholds are probabilities close to 1: kept with enough digits to stay distinct.
_THRESHOLD_ROUND = 8


def _say(message: str) -> None:
    print(f"[train-guard {time.strftime('%H:%M:%S')}] {message}", flush=True)


def _folds(docs: list[Doc], k: int) -> dict[str, int]:
    """Groups to folds: largest first, round-robin, attack and benign groups spread separately."""
    sizes: dict[tuple[int, str], int] = defaultdict(int)
    for doc in docs:
        sizes[(doc.label, doc.group)] += 1
    fold: dict[str, int] = {}
    for label in (1, 0):
        ordered = sorted((g for (lab, g) in sizes if lab == label), key=lambda g: (-sizes[(label, g)], g))
        for i, group in enumerate(ordered):
            fold.setdefault(group, i % k)
    return fold


def _mil(table: WindowTable, logits: np.ndarray) -> None:
    """Label the highest-scoring window of each long attack text as its positive instance."""
    unknown = np.flatnonzero(table.label == -1)
    best: dict[int, int] = {}
    for w in unknown:
        d = int(table.doc[w])
        if d not in best or logits[w] > logits[best[d]]:
            best[d] = int(w)
    for w in best.values():
        table.label[w] = 1
        table.train[w] = True


# Benign groups made of text *about* attacks (security tools' documentation,
# articles on prompt injection): reported like every other group, but held to
# a looser per-group bound (3%) when the thresholds are calibrated.
_ABOUT_ATTACKS = ("about", "github:NVIDIA/garak", "github:protectai/llm-guard", "github:meta-llama/PurpleLlama",
                  "github:whylabs/langkit", "github:WithSecureLabs/spikee", "github:Giskard-AI/giskard",
                  "github:deadbits/vigil-llm")


def _about_attacks(group: str) -> bool:
    return group.startswith(_ABOUT_ATTACKS)


# Benign groups written *to* an AI by design (prompt collections, system prompts, users' chat
# messages) or adversarial by construction (the generator's look-alikes): held to a 3% bound.
_LOOSER = ("awesome-chatgpt-prompts", "PurpleLlama:CyberSecEval-prompt_injection-system_prompts",
           "langkit:reference_chats", "synth:benign-lookalike")


# A threshold sits this far (in logit) above the benign score that sets it: the shipped artifact's
# weights are rounded, and the runtime slices long pieces, so its scores differ from the trainer's by
# a little; a document exactly at the edge must not flip to flagged.
_MARGIN_LOGIT = 0.02


def _above(value: float) -> float:
    """A threshold on the shipped rounding grid strictly above ``value``, with ``_MARGIN_LOGIT`` to spare."""
    step = 10.0 ** -_THRESHOLD_ROUND
    clipped = min(max(value, 1e-12), 1 - 1e-12)
    lifted = 1 / (1 + math.exp(-(math.log(clipped / (1 - clipped)) + _MARGIN_LOGIT)))
    return round(math.floor(lifted / step + 1) * step, _THRESHOLD_ROUND)


def _profile_thresholds(calibrating: dict[str, np.ndarray]) -> dict[str, tuple[float, float]]:
    pooled = np.concatenate(list(calibrating.values()))
    big = {g: s for g, s in calibrating.items() if len(s) >= 50}

    def bound(group: str, rate: float) -> float:
        return rate * 3 if group.startswith(_LOOSER) else rate

    # Just above each quantile: a document scoring exactly at a threshold is flagged, and with fewer
    # than 100 documents a group's 1% quantile is its highest score.
    warn = _above(max(quantile(pooled, 0.995), *(quantile(s, 1 - bound(g, 0.01)) for g, s in big.items()), 0.5))
    withhold = max(_above(max(quantile(pooled, 0.999), *(quantile(s, 1 - bound(g, 0.002)) for g, s in big.items()))),
                   warn)
    strict_warn = min(max(quantile(pooled, 0.98), 0.5), warn)
    strict_withhold = min(max(quantile(pooled, 0.995), strict_warn), withhold)
    return {"balanced": (warn, withhold), "strict": (strict_warn, strict_withhold)}


def _binding(calibrating: dict[str, np.ndarray]) -> str:
    """The group whose own bound sets a bucket's balanced ``warn`` (or "pooled")."""
    big = {g: s for g, s in calibrating.items() if len(s) >= 50}
    bounds = {g: quantile(s, 1 - (0.03 if g.startswith(_LOOSER) else 0.01)) for g, s in big.items()}
    bounds["pooled"] = quantile(np.concatenate(list(calibrating.values())), 0.995)
    return max(bounds, key=lambda g: bounds[g])


def _thresholds(benign_scores: dict[str, np.ndarray], benign_sizes: dict[str, np.ndarray]) -> dict[str, Any]:
    """Document-level thresholds from benign scores, with ``warn`` also per document size.

    ``warn`` keeps every benign group of ordinary text (real pages,
    documentation, man pages, e-mails and tables, trigger-word prompts) at or
    below 1% flagged, the groups in ``_LOOSER`` at 3%, and the pool at 0.5%;
    ``withhold`` at a fifth of those rates. Groups of text *about* attacks
    (security tools' documentation quoting payloads) are reported but do not
    set the thresholds: they contain the attacks themselves.

    ``warn`` is set again within each size bucket (``SIZE_EDGES``, windows of
    the document) by the same rule: a document's score is its highest
    window, so a long page is judged against long pages and a short tool
    output against short texts. A bucket with fewer than
    ``_MIN_BUCKET_DOCUMENTS`` benign documents keeps the overall value, and
    no bucket's exceeds it, except as :func:`_hold_each_group` raises it.
    ``withhold`` stays one value: a fifth of 1% of a bucket is too few
    documents to estimate.
    """
    calibrating = {g: s for g, s in benign_scores.items() if not _about_attacks(g)}
    overall = _profile_thresholds(calibrating)
    per_size: dict[str, list[float]] = {name: [] for name in overall}
    for bucket in range(len(SIZE_EDGES) + 1):
        inside = {g: s[np.array([size_bucket(int(n)) == bucket for n in benign_sizes[g]], dtype=bool)]
                  for g, s in calibrating.items()}
        inside = {g: s for g, s in inside.items() if len(s)}
        enough = sum(len(s) for s in inside.values()) >= _MIN_BUCKET_DOCUMENTS
        found = _profile_thresholds(inside) if enough else overall
        if enough:
            _say(f"size bucket {bucket}: balanced warn {found['balanced'][0]:.6f}, set by {_binding(inside)}")
        for name, (warn, _) in found.items():
            per_size[name].append(min(warn, overall[name][0]))
    per_size["balanced"] = _hold_each_group(per_size["balanced"], overall["balanced"][1], calibrating, benign_sizes)
    return {name: {"warn": round(warn, _THRESHOLD_ROUND), "withhold": round(withhold, _THRESHOLD_ROUND),
                   "warn_by_size": [round(w, _THRESHOLD_ROUND) for w in per_size[name]]}
            for name, (warn, withhold) in overall.items()}


def _hold_each_group(by_size: list[float], cap: float, calibrating: dict[str, np.ndarray],
                     sizes: dict[str, np.ndarray]) -> list[float]:
    """Raise bucket thresholds until every big group is within its bound over all its documents.

    A bucket's own calibration sees only the groups with enough documents in
    that bucket, so a source spread over several buckets (real pages, from 30
    to 2,000 windows) could exceed its bound in total. While one does, the
    bucket of its lowest flagged document is raised just above that
    document's score, never above ``cap`` (``withhold``). A bucket may end
    just above the overall ``warn``: with fewer than 100 documents a group's
    1% quantile is its highest score, which the overall value only equals.
    """
    cuts = list(by_size)
    for group, scores in calibrating.items():
        if len(scores) < 50:
            continue
        bound = 0.03 if group.startswith(_LOOSER) else 0.01
        buckets = np.array([size_bucket(int(n)) for n in sizes[group]])
        while True:
            flagged = scores >= np.array(cuts)[buckets]
            if flagged.sum() <= bound * len(scores):
                break
            lowest = int(np.flatnonzero(flagged)[np.argmin(scores[flagged])])
            bucket = int(buckets[lowest])
            raised = min(cap, _above(float(scores[lowest])))
            if raised <= cuts[bucket]:
                break
            _say(f"size bucket {bucket}: balanced warn raised to {raised:.8f} for {group}")
            cuts[bucket] = raised
    return cuts


def _warn_cuts(thresholds: dict[str, Any], sizes: np.ndarray) -> np.ndarray:
    """Each document's ``warn`` threshold for its size."""
    by_size = thresholds["warn_by_size"]
    return np.array([by_size[size_bucket(int(n))] for n in sizes])


_MIN_BUCKET_DOCUMENTS = 300
_CACHE = Path(__file__).resolve().parents[2] / ".cache" / "train-guard"


def _rule_flags(docs: list[Doc]) -> np.ndarray:
    """Whether the shipped rules alone flag each document (any non-benign finding), for guard-level figures."""
    rules = load_rules()
    flags = np.zeros(len(docs), dtype=bool)
    for i, doc in enumerate(docs):
        for location, text in doc.segments:
            found = scan_segment_full(Segment(Location(location), text), rules, strict=False).findings
            if any(f.category != "benign_mention" for f in found):
                flags[i] = True
                break
    return flags


def _cached_table(params: Params) -> tuple[list[Doc], WindowTable]:
    """Documents and windows, from a local cache keyed by everything that shapes them.

    Building the windows is the slow, pure-Python part of a run; the cache
    (``.cache/train-guard``, never committed) makes a retrain with other model
    parameters take a fraction of the time. Any change to the features, the
    corpus loader, the generator, the corpora or the table parameters misses it.
    """
    key = hashlib.sha256()
    for module in (features, corpus, synth, goals, threads):
        key.update(Path(module.__file__ or "").read_bytes())
    for function in (fit.build_table, fit._doc_windows):
        key.update(inspect.getsource(function).encode())
    key.update(json.dumps(input_hashes(), sort_keys=True).encode())
    key.update(repr((params.min_count, params.max_vocabulary, params.max_benign_windows_per_doc,
                     params.seed)).encode())
    path = _CACHE / f"table-{key.hexdigest()[:20]}.pickle"
    if path.is_file():
        with path.open("rb") as handle:
            cached: tuple[list[Doc], WindowTable] = pickle.load(handle)
        return cached
    docs = load_documents(params.seed)
    table = build_table(docs, params)
    _CACHE.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        pickle.dump((docs, table), handle, protocol=pickle.HIGHEST_PROTOCOL)
    return docs, table


def train(params: Params | None = None) -> tuple[bytes, dict[str, Any]]:
    """Run the training; return the artifact (gzip JSON bytes) and the manifest."""
    params = params or Params()
    started = time.time()
    docs, table = _cached_table(params)
    labels = np.array([d.label for d in docs])
    _say(f"{len(docs)} documents ({int(labels.sum())} attack)")
    _say(f"{table.counts.shape[0]} windows, vocabulary {len(table.vocabulary)}")
    everything = np.ones(len(table.label), dtype=bool)
    weights, intercept = fit_ngram(table, everything, params)
    _mil(table, ngram_logits(table, weights, intercept))
    fold_of_group = _folds(docs, params.folds)
    window_fold = np.array([fold_of_group[docs[d].group] for d in table.doc])
    oof = np.zeros(len(table.label))
    for fold in range(params.folds):
        held = window_fold == fold
        w, b = fit_ngram(table, ~held, params)
        oof[held] = ngram_logits(table, w, b)[held]
        _say(f"fold {fold + 1}/{params.folds} done")
    # Every window is scored in training and validation, as at run time (where the windows skipped
    # are only those whose upper bound cannot reach a threshold).
    passed = np.ones(len(table.label), dtype=bool)
    matrix = combiner_matrix(table, oof)
    check_vector_parity(table, oof)
    comb_w, comb_b = fit_combiner(matrix, table.label, passed & table.train, params)
    probs = probabilities(matrix, comb_w, comb_b)
    scores = doc_scores(table, probs, passed, len(docs))
    benign_groups: dict[str, list[int]] = defaultdict(list)
    attack_groups: dict[str, list[int]] = defaultdict(list)
    for i, doc in enumerate(docs):
        (attack_groups if doc.label else benign_groups)[doc.group].append(i)
    sizes = np.bincount(table.doc, minlength=len(docs))
    benign_scores = {g: scores[idx] for g, idx in benign_groups.items()}
    # The shipped model scores the benign documents it was trained on too, not always lower than the
    # out-of-fold models do: the thresholds must hold for both, so each document counts with the higher.
    final_w, final_b = fit_ngram(table, everything, params)
    shipped = doc_scores(table, probabilities(combiner_matrix(table, ngram_logits(table, final_w, final_b)),
                                              comb_w, comb_b), passed, len(docs))
    calibration_scores = {g: np.maximum(scores[idx], shipped[idx]) for g, idx in benign_groups.items()}
    thresholds = _thresholds(calibration_scores, {g: sizes[idx] for g, idx in benign_groups.items()})
    for group, values in sorted(benign_scores.items()):
        if len(values) >= 50:
            _say(f"benign {group}: q99 {quantile(values, 0.99):.6f} q998 {quantile(values, 0.998):.6f}")
    balanced = thresholds["balanced"]
    warn_cut = _warn_cuts(balanced, sizes)
    rules_flag = _rule_flags(docs)
    # Leave-one-group-out recall: the combiner refitted without the group.
    recall: dict[str, dict[str, float]] = {}
    for group, idx in sorted(attack_groups.items()):
        doc_mask = np.zeros(len(docs), dtype=bool)
        doc_mask[idx] = True
        in_group = doc_mask[table.doc]
        cw, cb = fit_combiner(matrix, table.label, passed & table.train & ~in_group, params)
        group_scores = doc_scores(table, probabilities(matrix, cw, cb), passed & in_group, len(docs))[idx]
        flagged = group_scores >= warn_cut[idx]
        recall[group] = {
            "documents": len(idx),
            "flagged": round(float(np.mean(flagged)), _ROUND),
            "flagged_with_rules": round(float(np.mean(flagged | rules_flag[idx])), _ROUND),
            "withheld_model": round(float(np.mean(group_scores >= balanced["withhold"])), _ROUND),
        }
    false_alarms = {}
    for g, s in sorted(benign_scores.items()):
        idx = np.array(benign_groups[g])
        flagged = s >= warn_cut[idx]
        false_alarms[g] = {"documents": len(s), "flagged": round(float(np.mean(flagged)), _ROUND),
                           "flagged_with_rules": round(float(np.mean(flagged | rules_flag[idx])), _ROUND),
                           "withheld_model": round(float(np.mean(s >= balanced["withhold"])), _ROUND)}
    inverse = {i: g for g, i in table.vocabulary.items()}
    vocabulary = {inverse[i]: round(float(v), _ROUND) for i, v in enumerate(final_w) if abs(v) >= 5e-4}
    artifact = {
        "format": ARTIFACT_FORMAT,
        # Words and bigrams as newline-joined strings with parallel weight lists: a JSON dict of
        # 100,000 entries takes several times longer to decode when the detector loads.
        "unigrams": "\n".join(g for g in sorted(vocabulary) if " " not in g),
        "unigram_weights": [vocabulary[g] for g in sorted(vocabulary) if " " not in g],
        "bigrams": "\n".join(g for g in sorted(vocabulary) if " " in g),
        "bigram_weights": [vocabulary[g] for g in sorted(vocabulary) if " " in g],
        "ngram_intercept": round(final_b, _ROUND),
        "combiner_names": ["ngram_logit", *FUNCTIONAL_NAMES, *(f"location_{n}" for n in LOCATION_NAMES)],
        "combiner": [round(float(v), _ROUND) for v in comb_w],
        "combiner_intercept": round(comb_b, _ROUND),
        "thresholds": thresholds,
    }
    raw = gzip.compress(json.dumps(artifact, sort_keys=True, separators=(",", ":")).encode(), 9, mtime=0)
    manifest = {
        "artifact_format": ARTIFACT_FORMAT,
        "inputs": input_hashes(),
        "params": asdict(params),
        "documents": {"attack": int(labels.sum()), "benign": int(len(labels) - labels.sum())},
        "windows": len(table.label),
        "vocabulary": len(vocabulary),
        "thresholds": thresholds,
        "validation": {
            "method": "leave-one-group-out: out-of-fold n-gram logits (group folds), combiner refitted without "
                      "the group; documents scored by their highest window at the shipped balanced thresholds "
                      "for their size",
            "attack_recall": recall,
            "worst_attack_group": min(recall.items(), key=lambda kv: kv[1]["flagged"])[0] if recall else None,
            "worst_attack_group_with_rules": min(recall.items(), key=lambda kv: kv[1]["flagged_with_rules"])[0]
            if recall else None,
            "benign_false_alarms": false_alarms,
        },
        "combiner": dict(zip(artifact["combiner_names"], artifact["combiner"], strict=True)),
    }
    _say(f"done in {time.time() - started:.0f} s")
    return raw, manifest
