"""Data for the guard benchmark: conformance cases, BIPIA documents, NotInject prompts, article pages.

Everything is read from ``../shared/corpora`` (outside the repository); a
missing folder yields an empty set, and the benchmark says it was skipped.
"""

from __future__ import annotations

import gzip
import json
import random
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "CORPORA",
    "BipiaDoc",
    "Disagreement",
    "article_pages",
    "bipia_documents",
    "conformance_cases",
    "disagreements",
    "notinject_prompts",
    "text_of_size",
]

CORPORA = Path(__file__).resolve().parents[3] / "shared" / "corpora"
_HERE = Path(__file__).resolve().parent
# BIPIA: text attacks go into email and table contexts, code attacks into code contexts.
_TASKS = {"text_attack_train.json": ("email", "table"), "code_attack_train.json": ("code",)}
POSITIONS = ("start", "middle", "end")


@dataclass(frozen=True, slots=True)
class Disagreement:
    """A justified, deliberate difference from the reference guard."""

    prefix: str
    ours: str
    reference: str
    why: str


@dataclass(frozen=True, slots=True)
class BipiaDoc:
    """One BIPIA document: a context with an attack inserted (or none, for a clean context)."""

    task: str
    category: str
    position: str
    text: str


def conformance_cases(root: Path = CORPORA) -> list[dict[str, Any]]:
    """The reference guard's conformance cases (empty when the corpus is missing)."""
    path = root / "llm-fetch-guard" / "ts-guard-v1.json"
    if not path.is_file():
        return []
    cases: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["cases"]
    return cases


def disagreements() -> list[Disagreement]:
    """The justification table for deliberate disagreements (``guard_disagreements.toml``)."""
    with (_HERE / "guard_disagreements.toml").open("rb") as handle:
        rows = tomllib.load(handle)["disagreement"]
    return [Disagreement(r["prefix"], r["ours"], r["reference"], r["why"]) for r in rows]


def _contexts(root: Path, task: str, limit: int) -> list[str]:
    path = root / "bipia-train" / task / "train.jsonl"
    if not path.is_file():
        return []
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [str(row["context"]) for row in rows[:limit]]


def _insert(context: str, attack: str, position: str) -> str:
    if position == "start":
        return f"{attack}\n{context}"
    if position == "end":
        return f"{context}\n{attack}"
    # Middle: at the sentence or line boundary nearest the middle of the context.
    middle = len(context) // 2
    cut = max(context.rfind("\n", 0, middle), context.rfind(". ", 0, middle))
    cut = middle if cut < 0 else cut + 1
    return f"{context[:cut]}\n{attack}\n{context[cut:]}"


def bipia_documents(root: Path = CORPORA, contexts_per_task: int = 20, seed: int = 3) -> tuple[
    list[BipiaDoc], list[BipiaDoc]
]:
    """Injected documents (every attack x position x sampled context) and the clean contexts."""
    rng = random.Random(seed)
    injected: list[BipiaDoc] = []
    clean: list[BipiaDoc] = []
    for attack_file, tasks in _TASKS.items():
        path = root / "bipia-train" / attack_file
        if not path.is_file():
            continue
        attacks: dict[str, list[str]] = json.loads(path.read_text(encoding="utf-8"))
        for task in tasks:
            contexts = _contexts(root, task, 10_000)
            sample = rng.sample(contexts, min(contexts_per_task, len(contexts)))
            clean.extend(BipiaDoc(task, "clean", "-", context) for context in contexts)
            for category, texts in attacks.items():
                for number, attack in enumerate(texts):
                    for position in POSITIONS:
                        context = sample[(number * 3 + POSITIONS.index(position)) % len(sample)]
                        injected.append(BipiaDoc(task, category, position, _insert(context, attack, position)))
    return injected, clean


def notinject_prompts(root: Path = CORPORA) -> list[str]:
    """The benign NotInject sentences (both files present in the corpus)."""
    folder = root / "notinject-dev"
    prompts: list[str] = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        prompts.extend(str(row["prompt"]) for row in json.loads(path.read_text(encoding="utf-8")))
    return prompts


def article_pages(root: Path = CORPORA) -> list[tuple[str, str, str]]:
    """(id, HTML, file name) of the 181 article-extraction-benchmark pages."""
    folder = root / "article-extraction-benchmark" / "html"
    pages = []
    for path in sorted(folder.glob("*.html.gz")) if folder.is_dir() else []:
        pages.append((path.name.removesuffix(".html.gz")[:16],
                      gzip.decompress(path.read_bytes()).decode("utf-8", "replace"), path.name))
    return pages


def text_of_size(size: int, root: Path = CORPORA) -> str:
    """About ``size`` characters of real article text (ground truth bodies), or generated prose."""
    truth = root / "article-extraction-benchmark" / "ground-truth.json"
    if truth.is_file():
        bodies = [str(v["articleBody"]) for v in json.loads(truth.read_text(encoding="utf-8")).values()]
        text = "\n".join(bodies)
    else:
        rng = random.Random(5)
        words = ["tide", "clock", "harbour", "keeper", "almanac", "river", "pilot",
                 "channel", "current", "vessel", "market", "town"]
        text = "\n".join(" ".join(rng.choice(words) for _ in range(60)) + "." for _ in range(size // 300 + 1))
    while len(text) < size:
        text += "\n" + text
    return text[:size]
