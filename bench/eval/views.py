"""Rounds 7 and 8 of issue 24's retrieval quality (docs/design.md §6b): ideas measured by
substituting the semantic hits, the fusion or the ranking in the real retrieval, as rounds
2 to 5 did.

    python bench/eval/views.py --dataset bench/eval/agent-store.yaml --idea synonyms
    python bench/eval/views.py --dataset bench/eval/heldout-5.yaml --idea relative

``synonyms``: the query's vector and that of the query with the synonym lexicon's entries
of its words appended (chitin/assets/synonyms.txt, the table text-only retrieval uses),
averaged or the better per insight. ``weight``: the blend's text weight as a function of
how much of the query the best text match holds. ``pool``: the size of the semantic
candidate pool. ``situation``: a type prior for queries that read as a situation told in
the first person. Round 8: ``floor``, a lower floor of meaning when the query's nearest
passes the fixed one; ``relative``, the floor that far under the nearest (kept, as
engine.meaning_floor); ``extra``, insights under the floor fused only where no text
match holds them; ``tier``, insights under the floor ranked after every match, before or
after the fillers; ``cond``, a trigger's condition counted below its cosine;
``nothing``, said_nothing only for insights near the empty query. The four floor ideas
are measured against the fixed floor (FIXED_FLOOR_IDEAS). Every variant is
compared with the default by run.py's paired bootstrap. ``--census`` counts the
paraphrase answers under the fixed floor of meaning."""

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

import chitin.retrieval.scoring as scoring
import chitin.search.engine as engine
from chitin.core import Chitin
from chitin.core import Query as Asked
from chitin.index.fulltext import STOPWORDS
from chitin.index.vector_files import matrix_rows
from chitin.index.vector_search import nearest_rows
from chitin.model.results import Ranked
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
        elif "cond" in variant:
            hits = _by_parts(sem, query, rows, variant["cond"])
        elif "pool" in variant:
            vector = sem.provider.embed([query], "query")[0]
            hits = sem.vectors.nearest(vector, rows, pool)
        if "prior" in variant and situation(query):
            boost = variant["prior"]
            hits = [(i, c * boost.get(TYPES.get(i, ""), 1.0)) for i, c in hits]
            hits.sort(key=lambda h: -h[1])
        return semantic.Nearest(hits, found.degraded, found.unembedded)

    return nearest


def _by_parts(sem: Any, query: str, rows: list[int], less: float) -> list[tuple[str, float]]:
    """The nearest insights by their best part, a trigger's condition (its part 1)
    counting ``less`` below its cosine."""
    vector = sem.provider.embed([query], "query")[0]
    folder, dims = sem.vectors.folder, sem.vectors.dimensions
    every = nearest_rows(folder, dims, vector, rows, len(rows), matrix_rows(folder, dims))
    where = dict(
        (
            (row, (i, part))
            for row, i, part in sem.vectors.db.execute("SELECT row, id, part FROM rows")
        )
    )
    best: dict[str, float] = {}
    for row, cosine in every:
        if row not in where:
            continue
        i, part = where[row]
        score = cosine - less if part == 1 and TYPES.get(i) == "trigger" else cosine
        best[i] = max(best.get(i, -2.0), score)
    return sorted(best.items(), key=lambda h: -h[1])[: semantic.NEIGHBOURS]


def fused(variant: Variant) -> Callable[..., Any]:
    """engine._fused with a text weight set by the best text match's share of the query."""
    original = engine._fused

    def blend(cache: Any, text: Any, meaning: Any, filters: Any, method: str, share: Any) -> Any:
        if "tier" in variant:
            low = variant["tier"][0]
            fused = original(cache, text, meaning, filters, method, share)
            TIER.clear()
            if max((c for _, c in meaning), default=0.0) >= engine.MIN_SIMILARITY:
                have = {insight.id for _, insight in fused}
                near = [i for i, c in meaning if low <= c < engine.MIN_SIMILARITY and i not in have]
                found = cache.by_ids(near, filters)
                TIER.extend(found[i] for i in near if i in found)
            return fused
        if "extra" in variant:
            return _extra(original, variant["extra"], cache, text, meaning, filters, method, share)
        if "floor" in variant:
            return _floored(
                original, variant["floor"], cache, text, meaning, filters, method, share
            )
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


def _floored(original: Callable[..., Any], floor: tuple[float, ...], *args: Any) -> Any:
    """engine._fused with the floor of meaning at ``floor[0]`` when the query's nearest
    insight is at least ``floor[1]`` near (a query that means something to the store),
    else at MIN_SIMILARITY; with a third number, the floor is that far under the
    nearest, between ``floor[0]`` and MIN_SIMILARITY (what round 8 kept, as
    engine.meaning_floor)."""
    low, gate, *within = floor
    meaning = args[2]
    best = max((c for _, c in meaning), default=0.0)
    if within:
        low = max(low, min(engine.MIN_SIMILARITY, best - within[0]))
    chosen = low if best >= gate else engine.MIN_SIMILARITY
    saved = engine.meaning_floor
    engine.meaning_floor = lambda _meaning: chosen
    try:
        return original(*args)
    finally:
        engine.meaning_floor = saved


TIER: list[Any] = []  # the insights near the query under the floor, nearest first


def tiered(variant: Variant) -> Callable[..., Any]:
    """engine.rank, with TIER's insights after the matches: before the fillers
    (variant["tier"][1] "before") or in their place only where they run short ("after")."""
    original = engine.rank

    def rank(matches: Any, strongest: Any, **kw: Any) -> Any:
        ranked = original(matches, strongest, **kw)
        if "tier" not in variant or not TIER:
            return ranked
        wanted = kw["max_results"]
        shown = {i for r in ranked for i in (r.insight.id, *r.also_covers, *r.outweighs)}
        extra = [i for i in TIER if i.id not in shown]
        TIER.clear()
        matched = [r for r in ranked if r.matched]
        filler = [r for r in ranked if not r.matched]
        at = (kw["category"], kw["now"], kw["settings"])
        fake = [Ranked(i, scoring.score(i, 0.0, *at), True) for i in extra]
        if variant["tier"][1] == "before":
            return (matched + fake + filler)[:wanted]
        return (matched + filler + fake)[:wanted]

    return rank


def _extra(original: Callable[..., Any], low: float, *args: Any) -> Any:
    """engine._fused, and the insights nearer than ``low`` in meaning (but under
    MIN_SIMILARITY) that no text match holds, at their blended cosine, when the query's
    nearest insight passes MIN_SIMILARITY."""
    cache, text, meaning, filters = args[:4]
    fused = original(*args)
    if max((c for _, c in meaning), default=0.0) < engine.MIN_SIMILARITY:
        return fused
    have = {insight.id for _, insight in fused} | {insight.id for _, insight in text}
    extra = [(i, c) for i, c in meaning if low <= c < engine.MIN_SIMILARITY and i not in have]
    found = cache.by_ids([i for i, _ in extra], filters)
    weight = 1 - engine.TEXT_WEIGHT
    return fused + [(weight * c, found[i]) for i, c in extra if i in found]


def _nothing(variant: Variant) -> Callable[..., dict[str, float]]:
    """engine.said_nothing, keeping only the insights at least variant["nothing"] near
    the empty query (the centre of the model's space, where "x" and "ok" are)."""
    original = engine.said_nothing

    def said_nothing(cache: Any, sem: Any, filters: Any) -> dict[str, float]:
        floors = original(cache, sem, filters)
        if "nothing" not in variant:
            return floors
        return {i: f for i, f in floors.items() if f >= variant["nothing"]}

    return said_nothing


def rankings(root: Path, queries: list[ev.Query], variant: Variant) -> Any:
    chitin = Chitin(root, now=ev.NOW, shape=ev.DEFAULT_SHAPE, fusion="blend")
    nearest, blend, ranking = engine.nearest, engine._fused, engine.rank
    engine.nearest, engine._fused = substitute(variant), fused(variant)  # type: ignore[assignment]
    engine.rank = tiered(variant)  # type: ignore[assignment]
    nothing = engine.said_nothing
    engine.said_nothing = _nothing(variant)
    try:
        asked = [Asked(q.text, max_results=ev.CUTOFF) for q in queries]
        return [[r.insight.id for r in chitin.retrieve(a, record=False).ranked] for a in asked]
    finally:
        engine.nearest, engine._fused, engine.rank = nearest, blend, ranking
        engine.said_nothing = nothing
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
    "floor": [
        (f"floor {low} when the best >= {gate}", {"floor": (low, gate)})
        for low, gate in (
            (0.2, 0.0),
            (0.15, 0.0),
            (0.1, 0.0),
            (0.15, 0.25),
            (0.1, 0.25),
            (0.0, 0.25),
        )
    ],
    "relative": [
        (f"floor {d} under the best, >= {low}", {"floor": (low, 0.25, d)})
        for d in (0.05, 0.1, 0.15)
        for low in (0.15, 0.2)
    ],
    "nothing": [(f"said_nothing from {x}", {"nothing": x}) for x in (0.25, 0.3, 0.4)],
    "cond": [(f"condition less {d}", {"cond": d}) for d in (0.0, 0.02, 0.04, 0.06)],
    "tier": [
        (f"nearest down to {low}, {where} the fillers", {"tier": (low, where)})
        for low in (0.2, 0.15, 0.1)
        for where in ("before", "after")
    ],
    "extra": [(f"meaning-only down to {low}", {"extra": low}) for low in (0.2, 0.15, 0.1)],
    "pool": [(f"pool {n}", {"pool": n}) for n in (30, 60, 100, 400)],
    "situation": [(name, {"prior": prior}) for name, prior in SITUATION_PRIORS.items()],
}


# Round 8's ideas about the floor of meaning are measured against the fixed floor (the
# default before it, a597950): NEAR_BEST 0 gives that floor back.
FIXED_FLOOR_IDEAS = {"floor", "relative", "extra", "tier"}


def measure(dataset: Path, ideas: list[str]) -> None:
    if FIXED_FLOOR_IDEAS.intersection(ideas):
        engine.NEAR_BEST = 0.0
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
                print(f"{name:42}" + " | ".join(cells), flush=True)


def census(dataset: Path) -> None:
    """How many paraphrase answers (grade 2) are under the fixed floor of meaning, and
    how far under the query's nearest insight each is (round 8's table)."""
    insights, queries = ev.load(dataset)
    seen: dict[str, Any] = {}
    original, near = engine._fused, engine.nearest

    def fused(*args: Any) -> Any:
        seen["meaning"] = args[2]  # after said_nothing, before the floor
        return original(*args)

    def nearest(*args: Any) -> Any:
        found = near(*args)
        seen["hits"] = found.hits  # before said_nothing
        return found

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        chitin = ev.embedded_chitin(insights, queries, root)
        engine._fused, engine.nearest = fused, nearest  # type: ignore[assignment]
        answers, gaps, bests, nothing = 0, [], [], 0
        try:
            for q in (q for q in queries if q.kind == "paraphrase"):
                seen.clear()
                chitin.retrieve(Asked(q.text, max_results=ev.CUTOFF), record=False)
                cosines = dict(seen.get("hits", []))
                kept = dict(seen.get("meaning", []))
                best = max(kept.values(), default=0.0)
                bests.append(best)
                for answer in (i for i, g in q.grades.items() if g == ev.ANSWER):
                    answers += 1
                    if answer in cosines and cosines[answer] < engine.MIN_SIMILARITY:
                        gaps.append(round(best - cosines[answer], 2))
                        nothing += answer not in kept
        finally:
            engine._fused, engine.nearest = original, near  # type: ignore[assignment]
            chitin.close()
    print(
        f"{dataset.name}: {len(gaps)} of {answers} paraphrase answers under "
        f"{engine.MIN_SIMILARITY} ({nothing} of them no nearer than the empty query, "
        f"said_nothing); under the query's nearest by {sorted(gaps)}; "
        f"the nearest's median {np.median(bests):.2f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=ev.AGENT_STORE)
    parser.add_argument("--idea", choices=sorted(IDEAS), action="append")
    parser.add_argument(
        "--census", action="store_true", help="paraphrase answers under the floor of meaning"
    )
    args = parser.parse_args()
    if args.census:
        census(args.dataset)
        return 0
    measure(args.dataset, args.idea or sorted(IDEAS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
