"""Training documents for the guard's detector, from ``../shared/corpora`` and the generator.

Every document is a list of located segments (what the guard would see), a
label, and a *group* (its source, or its template family for generated
text): validation leaves whole groups out. HTML carriers are segmented by
the guard's own segmenter, so hidden divs, comments and attributes reach the
model in the location they would have at run time.

Held out on purpose (never trained on): half of the 181 article pages of
``article-extraction-benchmark`` (by a hash of the file name: the real-page
false-alarm check, see ``held_out_article``) and the reference guard's
conformance cases. The other half is trained on as real pages, whose hidden
parts, attributes and metadata are what ordinary pages look like to the guard.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pagewarden._guard.guard import DEFAULT_LIMITS
from pagewarden._guard.segments import collect_html_segments
from pagewarden._html import parse_html

from . import goals, synth, threads

__all__ = ["CORPORA", "Doc", "input_hashes", "load_documents"]

CORPORA = Path(__file__).resolve().parents[3] / "shared" / "corpora"
_HTML = re.compile(r"<(?:div|span|p|!--|meta|img|main|html|body|section|article|a|template|noscript)\b", re.I)
# Caps that keep one training run within minutes on two cores.
MAX_BENIGN_PER_SOURCE = 2500
MAX_TEXT_CHARS = 6000
MAX_PAGE_CHARS = 60_000
SYNTH_ATTACKS = 5500
SYNTH_BENIGN = 1500


@dataclass(slots=True)
class Doc:
    """One training document.

    Attributes:
        group: the source or template family (the unit validation leaves out).
        label: 1 attack, 0 benign.
        segments: ``(location, text)`` as the guard would see them.
        payload: for attacks whose injected piece is known, ``(segment index, text before it in that
            segment, the piece)``; the text before it ends with a newline, so the piece's sentences follow.
        raw: the document as the guard's entry points take it (for rule checks).
        is_html: whether ``raw`` is HTML.
    """

    group: str
    label: int
    segments: list[tuple[str, str]]
    payload: tuple[int, str, str] | None = None
    raw: str = ""
    is_html: bool = False
    kind: str = field(default="")


def _jsonl(path: Path) -> Iterator[dict[str, object]]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def _segments_of(text: str) -> tuple[list[tuple[str, str]], bool]:
    if _HTML.search(text):
        found = collect_html_segments(parse_html(text), DEFAULT_LIMITS, [])
        return [(str(s.location), s.text) for s in found.segments if s.text.strip()], True
    return [("visible", text)], False


def _group(source: str) -> str:
    return source.split("(")[0] if source.startswith("debian:") else source


def _from_pieces(doc: synth.SynthDoc, label: int, group: str) -> Doc:
    by_location: dict[str, list[str]] = {}
    payload: tuple[int, str, str] | None = None
    order: list[str] = []
    for index, (location, text) in enumerate(doc.pieces):
        if location not in by_location:
            by_location[location] = []
            order.append(location)
        if doc.payload == index:
            payload = (order.index(location), "\n".join([*by_location[location], ""]), doc.payload_text)
        by_location[location].append(text)
    segments = [(loc, "\n".join(by_location[loc])) for loc in order]
    raw = "\n".join(text for _, text in doc.pieces)
    return Doc(group, label, segments, payload, raw, False, doc.family)


def _bipia(rng: random.Random) -> tuple[list[Doc], list[Doc]]:
    attacks: list[Doc] = []
    clean: list[Doc] = []
    folder = CORPORA / "bipia-train"
    tasks = {"text_attack_train.json": ("email", "table"), "code_attack_train.json": ("code",)}
    for attack_file, names in tasks.items():
        path = folder / attack_file
        if not path.is_file():
            continue
        table: dict[str, list[str]] = json.loads(path.read_text(encoding="utf-8"))
        for name in names:
            contexts = [str(r["context"]) for r in _jsonl(folder / name / "train.jsonl")]
            for context in rng.sample(contexts, min(600, len(contexts))):
                clean.append(Doc(f"bipia-clean:{name}", 0, [("visible", context[:MAX_TEXT_CHARS])],
                                 raw=context[:MAX_TEXT_CHARS]))
            for texts in table.values():
                for attack in texts:
                    context = rng.choice(contexts)[:MAX_TEXT_CHARS]
                    lines = context.split("\n")
                    cut = rng.randint(0, len(lines))
                    before = "\n".join(lines[:cut])
                    text = "\n".join([*lines[:cut], attack, *lines[cut:]])
                    prefix = before + "\n" if before else ""
                    attacks.append(Doc("bipia-train", 1, [("visible", text)], (0, prefix, attack),
                                       raw=text))
    return attacks, clean


def _notinject() -> list[Doc]:
    docs = []
    for path in sorted((CORPORA / "notinject-dev").glob("*.json")):
        for row in json.loads(path.read_text(encoding="utf-8")):
            docs.append(Doc("notinject-dev", 0, [("visible", row["prompt"])], raw=row["prompt"]))
    return docs


def _html_pages() -> list[Doc]:
    docs = []
    folder = CORPORA / "guard-train"
    for row in _jsonl(folder / "pages.jsonl"):
        html = gzip.decompress((folder / str(row["path"])).read_bytes()).decode("utf-8", "replace")
        segments, _ = _segments_of(html)
        docs.append(Doc("debian-html-pages", 0, segments, raw=html, is_html=True))
    return docs


def held_out_article(name: str) -> bool:
    """Whether an article page (by file name) is kept out of training, for the real-page check."""
    return hashlib.sha256(name.encode()).digest()[0] % 2 == 0


def _article_pages() -> list[Doc]:
    docs = []
    folder = CORPORA / "article-extraction-benchmark" / "html"
    for path in sorted(folder.glob("*.html.gz")) if folder.is_dir() else []:
        if held_out_article(path.name):
            continue
        html = gzip.decompress(path.read_bytes()).decode("utf-8", "replace")
        segments, _ = _segments_of(html)
        docs.append(Doc("article-pages(train-half)", 0, [(loc, text[:MAX_PAGE_CHARS]) for loc, text in segments],
                        raw=html, is_html=True))
    return docs


def load_documents(seed: int = 7) -> list[Doc]:
    """Every training document (attack and benign), in a fixed order for a given seed."""
    rng = random.Random(seed)
    docs: list[Doc] = []
    folder = CORPORA / "guard-train"
    for row in _jsonl(folder / "attack.jsonl"):
        text = str(row["text"])[:MAX_TEXT_CHARS]
        segments, is_html = _segments_of(text)
        docs.append(Doc(_group(str(row["source"])), 1, segments, raw=text, is_html=is_html, kind=str(row["kind"])))
    benign_by_source: dict[str, list[Doc]] = {}
    carriers: list[str] = []
    for name in ("benign.jsonl", "about.jsonl"):
        for row in _jsonl(folder / name):
            text = str(row["text"])[:MAX_TEXT_CHARS]
            group = "about" if name == "about.jsonl" else _group(str(row["source"]))
            segments, is_html = _segments_of(text)
            benign_by_source.setdefault(group, []).append(
                Doc(group, 0, segments, raw=text, is_html=is_html, kind=str(row["kind"])))
            if row["kind"] == "doc" and str(row.get("lang", "en")) == "en" and 200 <= len(text) <= 2500:
                carriers.append(text)
    for _group_name, rows in sorted(benign_by_source.items()):
        docs.extend(rows if len(rows) <= MAX_BENIGN_PER_SOURCE else rng.sample(rows, MAX_BENIGN_PER_SOURCE))
    bipia_attacks, bipia_clean = _bipia(rng)
    docs.extend(bipia_attacks)
    docs.extend(bipia_clean)
    carriers.extend(d.raw for d in bipia_clean)
    docs.extend(_notinject())
    docs.extend(_html_pages())
    docs.extend(_article_pages())
    rng.shuffle(carriers)
    carriers = carriers[:4000]
    for doc in synth.attacks(carriers, SYNTH_ATTACKS, seed):
        docs.append(_from_pieces(doc, 1, f"synth:{doc.family}"))
    for text in synth.benign_lookalikes(SYNTH_BENIGN, seed + 1):
        docs.append(Doc("synth:benign-lookalike", 0, [("visible", text)], raw=text))
    for text in synth.benign_threads(carriers, SYNTH_BENIGN, seed + 3):
        docs.append(Doc("synth:benign-thread", 0, [("visible", text)], raw=text))
    for pieces in synth.benign_interface(carriers, SYNTH_BENIGN, seed + 2):
        by_location: dict[str, list[str]] = {}
        for location, text in pieces:
            by_location.setdefault(location, []).append(text)
        docs.append(Doc("synth:benign-interface", 0, [(loc, "\n".join(t)) for loc, t in by_location.items()],
                        raw="\n".join(t for _, t in pieces)))
    return docs


def input_hashes() -> dict[str, str]:
    """SHA-256 of every corpus file the training reads (for the manifest)."""
    names = ["guard-train/attack.jsonl", "guard-train/benign.jsonl", "guard-train/about.jsonl",
             "guard-train/pages.jsonl", "bipia-train/text_attack_train.json", "bipia-train/code_attack_train.json",
             "bipia-train/email/train.jsonl", "bipia-train/table/train.jsonl", "bipia-train/code/train.jsonl",
             "notinject-dev/NotInject_one.json", "notinject-dev/NotInject_two.json"]
    result = {}
    for name in names:
        path = CORPORA / name
        if path.is_file():
            result[name] = hashlib.sha256(path.read_bytes()).hexdigest()
    pages = hashlib.sha256()
    folder = CORPORA / "article-extraction-benchmark" / "html"
    for path in sorted(folder.glob("*.html.gz")) if folder.is_dir() else []:
        if not held_out_article(path.name):
            pages.update(path.name.encode() + path.read_bytes())
    result["article-extraction-benchmark/html (training half)"] = pages.hexdigest()
    for module in (synth, goals, threads):
        name = Path(module.__file__ or "").name
        result[f"scripts/_train/{name}"] = hashlib.sha256(Path(module.__file__ or "").read_bytes()).hexdigest()
    return result
