"""Evaluate retrieval on the labelled set in bench/eval/dataset.yaml.

    python bench/eval/run.py            # recall@5 and nDCG@10, overall and per kind
    python bench/eval/run.py --shapes   # compare scoring shapes (the evidence for the default)
    python bench/eval/run.py --text     # the same by text alone (no model)
    python bench/eval/run.py --misses   # list the queries whose targets are not in the top 5

The set holds insights (with ages in days instead of timestamps) and queries, each with
the ids that should come back, best first. Query kinds: plain, person (about a named
person), trigger (describes a trigger's situation; the trigger must come back) and
paraphrase (shares at most one content word with its targets).

Each run builds a fresh store from the set in a temporary folder and queries it through
the real retrieval code (chitin.core), at a fixed moment, so figures are reproducible.
"""

from __future__ import annotations

import argparse
import math
import shutil
import statistics
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from chitin.core import Chitin
from chitin.core import Query as Asked
from chitin.format.markdown import serialize
from chitin.model.insight import PROVENANCES, Insight, format_timestamp
from chitin.retrieval.scoring import DEFAULT_SHAPE, ORIGINAL_SHAPE, RELEVANCE_HALVING, Shape

DATASET = Path(__file__).resolve().parent / "dataset.yaml"
NOW = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)
KINDS = ("plain", "person", "trigger", "paraphrase")
NO_DECAY = {"half_lives": dict.fromkeys(PROVENANCES)}  # chitin.yaml: nothing decays


class Variant(NamedTuple):
    """A way of scoring to compare: a shape, and chitin.yaml settings while it runs."""

    shape: Shape
    config: dict[str, Any] | None = None


PLAIN_RATIO = DEFAULT_SHAPE._replace(relevance_halving=None)
SHAPES: dict[str, Variant] = {
    "relevance only": Variant(Shape(0.0, 0.0, 0.0, RELEVANCE_HALVING), NO_DECAY),
    "original (undamped)": Variant(ORIGINAL_SHAPE),
    "default": Variant(DEFAULT_SHAPE),
    "all at a half": Variant(Shape(0.5, 0.5, 0.5, RELEVANCE_HALVING)),
    "all at a quarter": Variant(Shape(0.25, 0.25, 0.25, RELEVANCE_HALVING)),
    "no decay": Variant(DEFAULT_SHAPE, NO_DECAY),
    "no type boost": Variant(DEFAULT_SHAPE._replace(type_boost=0.0)),
    "plain relevance ratio": Variant(PLAIN_RATIO),
    "plain ratio, no decay": Variant(PLAIN_RATIO, NO_DECAY),
    **{
        f"relevance halving {h}": Variant(DEFAULT_SHAPE._replace(relevance_halving=h))
        for h in (0.1, 0.05, 0.023)
    },
}


class Query(NamedTuple):
    text: str
    kind: str
    relevant: list[str]


class Scores(NamedTuple):
    recall_at_5: float
    ndcg_at_10: float


def load(path: Path = DATASET) -> tuple[list[Insight], list[Query]]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    insights = [_insight(item) for item in data["insights"]]
    queries = [Query(q["query"], q["kind"], list(q["relevant"])) for q in data["queries"]]
    return insights, queries


def _insight(item: dict[str, Any]) -> Insight:
    stamp = format_timestamp(NOW - timedelta(days=float(item.get("age_days", 0))))
    return Insight(
        id=item["id"],
        type=item["type"],
        claim=item["claim"],
        confidence=float(item["confidence"]),
        created=stamp,
        updated=stamp,
        tags=tuple(item.get("tags", ())),
        provenance=item.get("provenance"),
        condition=item.get("condition"),
        avoid=bool(item.get("avoid", False)),
        reinforcements=int(item.get("reinforcements", 0)),
        reasoning=item.get("reasoning"),
        context=item.get("context"),
        limitations=item.get("limitations"),
    )


def build_store(insights: Iterable[Insight], root: Path) -> None:
    for insight in insights:
        path = root / "insights" / insight.type / f"{insight.id}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(serialize(insight), encoding="utf-8")


def rankings(
    root: Path,
    queries: list[Query],
    shape: Shape,
    k: int = 10,
    mode: str = "blend",
    config: dict[str, Any] | None = None,
) -> list[list[str]]:
    """Each query's top ``k`` ids. ``mode``: "text", or "blend" / "rrf" (hybrid, with
    the local model); ``config``: more chitin.yaml settings while it runs."""
    shutil.rmtree(root / ".chitin" / "cache.sqlite3", ignore_errors=True)  # shaped strengths
    provider = "none" if mode == "text" else "local"
    settings = {"embedding": {"provider": provider}, **(config or {})}
    (root / "chitin.yaml").write_text(yaml.safe_dump(settings))
    chitin = Chitin(root, now=NOW, shape=shape, fusion="blend" if mode == "text" else mode)
    try:
        if mode != "text":
            chitin.embed()  # more than a retrieve embeds by itself
        return [
            [r.insight.id for r in chitin.retrieve(Asked(q.text, max_results=k)).ranked]
            for q in queries
        ]
    finally:
        chitin.close()


def recall_at(ranked: list[str], relevant: list[str], k: int) -> float:
    return len(set(ranked[:k]) & set(relevant)) / len(relevant)


def ndcg_at(ranked: list[str], relevant: list[str], k: int) -> float:
    """Binary-gain nDCG: every listed id counts as relevant."""
    wanted = set(relevant)
    dcg = sum(1 / math.log2(i + 2) for i, found in enumerate(ranked[:k]) if found in wanted)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(k, len(relevant))))
    return dcg / ideal


def evaluate(queries: list[Query], ranked: list[list[str]]) -> dict[str, Scores]:
    by_kind: dict[str, list[Scores]] = defaultdict(list)
    for query, result in zip(queries, ranked, strict=True):
        scores = Scores(recall_at(result, query.relevant, 5), ndcg_at(result, query.relevant, 10))
        by_kind[query.kind].append(scores)
        by_kind["all"].append(scores)
    return {
        kind: Scores(
            statistics.fmean(s.recall_at_5 for s in values),
            statistics.fmean(s.ndcg_at_10 for s in values),
        )
        for kind, values in by_kind.items()
    }


def triggers_surfaced(queries: list[Query], ranked: list[list[str]], k: int = 5) -> list[bool]:
    return [
        q.relevant[0] in r[:k] for q, r in zip(queries, ranked, strict=True) if q.kind == "trigger"
    ]


def _table(rows: dict[str, dict[str, Scores]]) -> str:
    kinds = ["all", *KINDS]
    head = f"{'':22}" + "".join(f"{kind:>20}" for kind in kinds)
    sub = f"{'':22}" + "".join(f"{'R@5  nDCG@10':>20}" for _ in kinds)
    lines = [head, sub]
    for name, scores in rows.items():
        cells = "".join(
            f"{scores[k].recall_at_5:>11.3f}{scores[k].ndcg_at_10:>9.3f}"
            for k in kinds
            if k in scores
        )
        lines.append(f"{name:22}{cells}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shapes", action="store_true", help="compare scoring shapes")
    parser.add_argument("--misses", action="store_true", help="list queries missing targets")
    parser.add_argument(
        "--hybrid",
        action="store_true",
        help="compare text-only with hybrid retrieval (rrf and blend fusion)",
    )
    parser.add_argument(
        "--text", action="store_true", help="rank by text alone (default: hybrid, blend)"
    )
    args = parser.parse_args(argv)
    insights, queries = load()
    mode = "text" if args.text else "blend"
    variants = SHAPES if args.shapes else {"default": Variant(DEFAULT_SHAPE)}
    runs = {name: (variant, mode) for name, variant in variants.items()}
    if args.hybrid:
        runs = {
            "text only": (Variant(DEFAULT_SHAPE), "text"),
            "hybrid, rrf": (Variant(DEFAULT_SHAPE), "rrf"),
            "hybrid, blend": (Variant(DEFAULT_SHAPE), "blend"),
        }
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        build_store(insights, root)
        results = {
            name: rankings(root, queries, v.shape, mode=mode, config=v.config)
            for name, (v, mode) in runs.items()
        }
    print(
        f"{len(insights)} insights, {len(queries)} queries "
        f"({', '.join(f'{sum(q.kind == k for q in queries)} {k}' for k in KINDS)})\n"
    )
    print(_table({name: evaluate(queries, ranked) for name, ranked in results.items()}))
    surfaced = triggers_surfaced(queries, next(iter(results.values())))
    print(f"\ntrigger queries whose trigger is in the top 5: {sum(surfaced)}/{len(surfaced)}")
    if args.misses:
        for query, ranked in zip(queries, list(results.values())[-1], strict=True):
            if recall_at(ranked, query.relevant, 5) < 1:
                print(
                    f"\n[{query.kind}] {query.text}\n  want {query.relevant}\n  got  {ranked[:5]}"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
