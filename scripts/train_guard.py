"""Rebuild the guard's detector artifact from ``../shared/corpora`` and the generator.

Usage: ``scripts/train-guard [--seed N] [--check]``

Writes ``src/pagewarden/_guard/learned/artifact/detector.json.gz`` and
``manifest.json`` next to it. The same inputs and seed give a byte-identical
artifact; ``--check`` retrains and exits 1 if the committed artifact differs.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _train.corpus import CORPORA
from _train.fit import Params
from _train.pipeline import train

ARTIFACT_DIR = Path(__file__).resolve().parents[1] / "src" / "pagewarden" / "_guard" / "learned" / "artifact"


def main(argv: list[str] | None = None) -> int:
    """Train, then write (or with ``--check`` compare) the artifact and its manifest."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=Params().seed)
    parser.add_argument("--check", action="store_true", help="retrain and compare with the committed artifact")
    args = parser.parse_args(argv)
    if not (CORPORA / "guard-train").is_dir():
        print(f"train-guard: {CORPORA / 'guard-train'} not found", file=sys.stderr)
        return 2
    raw, manifest = train(dataclasses.replace(Params(), seed=args.seed))
    manifest["artifact_sha256"] = hashlib.sha256(raw).hexdigest()
    manifest["artifact_bytes"] = len(raw)
    target = ARTIFACT_DIR / "detector.json.gz"
    if args.check:
        same = target.is_file() and target.read_bytes() == raw
        print("train-guard: artifact " + ("identical" if same else "DIFFERS"))
        return 0 if same else 1
    ARTIFACT_DIR.mkdir(parents=True, exist_ok=True)
    target.write_bytes(raw)
    (ARTIFACT_DIR / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    print(f"train-guard: wrote {target} ({len(raw)} bytes, sha256 {manifest['artifact_sha256'][:16]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
