"""How retrieval's selection judges pairs of insights: which it would fold into one line
as the same lesson, which as a contradiction (chitin/retrieval/selection.py).

    python bench/selection_pairs.py                                   # the held-out pairs
    python bench/selection_pairs.py --pairs bench/dedup/pairs.yaml    # another labelled set

A wrong fold hides an insight from the agent, so what matters most is how rarely a
compatible or unrelated pair is folded; then how many duplicates and conflicts are.
Each pair is judged as retrieval judges two ranked insights (``selection.relation``),
with the cosine of the two insights' whole-text vectors from the local model
(all-MiniLM-L6-v2), as the vector sidecar holds them.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import yaml

from chitin.model.insight import Insight
from chitin.model.search_text import embedding_text
from chitin.providers import create
from chitin.retrieval import selection

HERE = Path(__file__).resolve().parent
HELD_OUT = HERE / "dedup" / "heldout-pairs.yaml"


def insight(side: dict[str, Any], name: str) -> Insight:
    return Insight(
        id=name,
        type=side["type"],
        claim=side["claim"],
        confidence=0.8,
        created="2026-11-29T12:00:00Z",
        updated="2026-11-29T12:00:00Z",
        condition=side.get("condition"),
        avoid=bool(side.get("avoid", False)),
    )


def judge(pairs: list[dict[str, Any]]) -> list[str]:
    """For each pair: "duplicate", "conflict" or "" (both shown)."""
    sides = [(insight(p["a"], "a"), insight(p["b"], "b")) for p in pairs]
    model = create("local")
    texts = [embedding_text(i) for pair in sides for i in pair]
    vectors = model.embed(texts, "document")
    verdicts = []
    for n, (a, b) in enumerate(sides):
        cosine = float(vectors[2 * n] @ vectors[2 * n + 1])
        verdicts.append(selection.relation(a, b, cosine) if a.type == b.type else "")
    return verdicts


def report(pairs: list[dict[str, Any]], verdicts: list[str]) -> str:
    by_kind: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for pair, verdict in zip(pairs, verdicts, strict=True):
        by_kind[(pair["label"], pair.get("kind", ""))][verdict or "shown"] += 1
    lines = [
        f"{'label / kind':36} {'pairs':>5} {'as dup':>7} {'as conflict':>11} {'both shown':>10}"
    ]
    for (label, kind), counts in sorted(by_kind.items()):
        total = sum(counts.values())
        lines.append(
            f"{label + ' / ' + kind:36} {total:>5} {counts['duplicate']:>7} "
            f"{counts['conflict']:>11} {counts['shown']:>10}"
        )
    lines.append("")
    for verdict in ("duplicate", "conflict"):
        said = [p for p, v in zip(pairs, verdicts, strict=True) if v == verdict]
        right = sum(p["label"] == verdict for p in said)
        labelled = sum(p["label"] == verdict for p in pairs)
        precision = right / len(said) if said else float("nan")
        lines.append(
            f"folded as {verdict}: {len(said)}, of which right {right} "
            f"(precision {precision:.2f}, recall {right / labelled:.2f} of {labelled})"
        )
    harmless = [p for p in pairs if p["label"] in ("compatible", "unrelated")]
    folded = sum(v != "" for p, v in zip(pairs, verdicts, strict=True) if p in harmless)
    lines.append(
        f"compatible or unrelated pairs folded (an insight hidden wrongly): "
        f"{folded} of {len(harmless)}"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=Path, default=HELD_OUT, help="a labelled pair set")
    args = parser.parse_args(argv)
    pairs = yaml.safe_load(args.pairs.read_text())["pairs"]
    print(report(pairs, judge(pairs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
