"""Round 7 of issue 24's retrieval quality (docs/design.md §6b): ideas measured by
substituting the semantic hits or the fusion in the real retrieval, as rounds 2 to 5 did.

    python bench/eval/views.py --dataset bench/eval/agent-store.yaml --idea synonyms
    python bench/eval/views.py --dataset bench/eval/heldout.yaml --idea weight

``synonyms``: the query's vector and that of the query with the synonym lexicon's entries
of its words appended (chitin/assets/synonyms.txt, the table text-only retrieval uses),
averaged or the better per insight. ``weight``: the blend's text weight as a function of
how much of the query the best text match holds. ``pool``: the size of the semantic
candidate pool. ``situation``: a type prior for queries that read as a situation told in
the first person. Every variant is compared with the default by run.py's paired bootstrap.
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import yaml

import chitin.search.engine as engine
from chitin.core import Chitin
from chitin.core import Query as Asked
from chitin.index.fulltext import STOPWORDS
from chitin.model.terms import stem
from chitin.retrieval import synonym_lookup
from chitin.search import semantic

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as ev  # run.py: this folder's module, not a package

Variant = dict[str, Any]
WORD = re.compile(r"[a-z][a-z']*")
TYPES: dict[str, str] = {}  # insight id -> type, filled per set


def synonyms_of(query: str, per_word: int) -> list[str]:
    """The lexicon's other entries for the query's content words (and two-word phrases),
    at most ``per_word`` each, in the table's order."""
    words = [w for w in WORD.findall(query.lower()) if w not in STOPWORDS]
    asked = stems(" ".join(words))
    found: list[str] = []
    units = words + [f"{a} {b}" for a, b in itertools.pairwise(words)]
    for unit in units:
        head = synonym_lookup.phrase_head(unit) if " " in unit else synonym_lookup.head_of(unit)
        if head is None:
            continue
        others = [e for e in synonym_lookup.entries(head) if not stems(e) & asked]
        found.extend(others[:per_word])
    return found


def stems(text: str) -> set[str]:
    return {stem(w) for w in WORD.findall(text)}


SITUATION = re.compile(r"^(i|i'm|i've|i'd|my|we|we're|we've|our|someone|somebody|the)\b")
QUESTION = re.compile(r"^(how|what|should|when|which|who|where|why|is|are|can|do|does)\b")


def situation(query: str) -> bool:
    """A query that tells what happens rather than asks: first words such as I, my, we."""
    text = query.strip().lower()
    return bool(SITUATION.match(text)) and not QUESTION.match(text)


def substitute(variant: Variant) -> Callable[..., semantic.Nearest]:
    """semantic.nearest with the variant's change to its hits."""
    original = semantic.nearest

    def nearest(cache: Any, sem: semantic.Semantic, query: str | None, filters: Any) -> Any:
        found = original(cache, sem, query, filters)
        hits = list(found.hits)
        if not hits or query is None:
            return found
        rows = cache.current_vector_rows(sem.vectors.index_path, filters)
        pool = variant.get("pool", semantic.NEIGHBOURS)
        if "syn" in variant:
            extra = synonyms_of(query, variant["syn"])
            if extra:
                second = f"{query} ({', '.join(extra)})"
                vectors = sem.provider.embed([query, second], "query")
                if variant.get("max"):
                    one = dict(sem.vectors.nearest(vectors[0], rows, pool))
                    two = dict(sem.vectors.nearest(vectors[1], rows, pool))
                    penalty = variant.get("penalty", 0.0)
                    merged = {i: max(one.get(i, -1), two.get(i, -1) - penalty) for i in one | two}
                    hits = sorted(merged.items(), key=lambda h: -h[1])[:pool]
                else:
                    w = variant["weight"]
                    vector = (1 - w) * vectors[0] + w * vectors[1]
                    hits = sem.vectors.nearest(vector / np.linalg.norm(vector), rows, pool)
        elif "pool" in variant:
            vector = sem.provider.embed([query], "query")[0]
            hits = sem.vectors.nearest(vector, rows, pool)
        if "prior" in variant and situation(query):
            boost = variant["prior"]
            hits = [(i, c * boost.get(TYPES.get(i, ""), 1.0)) for i, c in hits]
            hits.sort(key=lambda h: -h[1])
        return semantic.Nearest(hits, found.degraded, found.unembedded)

    return nearest


def fused(variant: Variant) -> Callable[..., Any]:
    """engine._fused with a text weight set by the best text match's share of the query."""
    original = engine._fused

    def blend(cache: Any, text: Any, meaning: Any, filters: Any, method: str, share: Any) -> Any:
        if "weight" not in variant or "syn" in variant:
            return original(cache, text, meaning, filters, method, share)
        best = max(share.values(), default=0.0)
        low, high = variant["weight"]
        engine.TEXT_WEIGHT = low + (high - low) * min(1.0, best)
        try:
            return original(cache, text, meaning, filters, method, share)
        finally:
            engine.TEXT_WEIGHT = 0.3

    return blend


def rankings(root: Path, queries: list[ev.Query], variant: Variant) -> Any:
    chitin = Chitin(root, now=ev.NOW, shape=ev.DEFAULT_SHAPE, fusion="blend")
    nearest, blend = engine.nearest, engine._fused
    engine.nearest, engine._fused = substitute(variant), fused(variant)  # type: ignore[assignment]
    try:
        asked = [Asked(q.text, max_results=ev.CUTOFF) for q in queries]
        return [[r.insight.id for r in chitin.retrieve(a, record=False).ranked] for a in asked]
    finally:
        engine.nearest, engine._fused = nearest, blend
        chitin.close()


SITUATION_PRIORS = {
    "trigger 1.05": {"trigger": 1.05},
    "trigger, behavioral 1.05": {"trigger": 1.05, "behavioral": 1.05},
    "trigger 1.1": {"trigger": 1.1},
    "skill 0.95": {"skill": 0.95},
}
IDEAS: dict[str, list[tuple[str, Variant]]] = {
    "synonyms": [
        *((f"syn {n}, avg {w}", {"syn": n, "weight": w}) for n in (2, 4) for w in (0.3, 0.5)),
        ("syn 3, max", {"syn": 3, "max": True}),
        ("syn 3, max less 0.02", {"syn": 3, "max": True, "penalty": 0.02}),
    ],
    "weight": [
        (f"text weight {a}..{b} by best share", {"weight": (a, b)})
        for a, b in ((0.2, 0.4), (0.15, 0.45), (0.25, 0.35), (0.2, 0.3))
    ],
    "pool": [(f"pool {n}", {"pool": n}) for n in (30, 60, 100, 400)],
    "situation": [(name, {"prior": prior}) for name, prior in SITUATION_PRIORS.items()],
}


def measure(dataset: Path, ideas: list[str]) -> None:
    insights, queries = ev.load(dataset)
    TYPES.clear()
    TYPES.update({i.id: i.type for i in insights})
    told = sum(situation(q.text) for q in queries)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        ev.build_store(insights, root)
        (root / "chitin.yaml").write_text(yaml.safe_dump({"embedding": {"provider": "local"}}))
        ev.rankings(root, queries[:1], ev.DEFAULT_SHAPE)  # embeds the store
        base = rankings(root, queries, {})
        print(f"{dataset.name}: nDCG@10 B - A, A = default, [95% interval], * outside noise")
        print(f"  ({told} of {len(queries)} queries read as situations)")
        for idea in ideas:
            for name, variant in IDEAS[idea]:
                result = ev.compare(queries, base, rankings(root, queries, variant))
                cells = [
                    f"{g} {i.b:.3f} {i.diff:+.3f} [{i.low:+.3f}, {i.high:+.3f}]"
                    f"{'*' * i.outside_noise}"
                    for g, i in ((g, result[g]["ndcg"]) for g in ev.GROUPS if g in result)
                ]
                print(f"{name:34}" + " | ".join(cells), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=ev.AGENT_STORE)
    parser.add_argument("--idea", choices=sorted(IDEAS), action="append")
    args = parser.parse_args()
    measure(args.dataset, args.idea or sorted(IDEAS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
