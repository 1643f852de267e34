"""What a new insight duplicates or opposes among the stored ones: ``contribute``'s
check, before anything is written.

Candidates come from words (the cache's term index: those sharing enough terms, and
those holding a term of the conflict lexicon) and, when the store's vectors are
ready, from meaning (the nearest stored insights). At most JUDGED of them, the most
alike first, are embedded with the new one and judged by ``judgement.judge``. With no
embedding provider, or none that works, every word candidate is judged by words
alone, and ``degraded`` says why.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from chitin.model.insight import Insight
from chitin.retrieval.conflicts import MAX_CONFLICTS, Match
from chitin.retrieval.judgement import (
    CONFLICT,
    DUPLICATE,
    Side,
    Verdict,
    exact_key,
    judge,
    judged_text,
    side_of,
)
from chitin.retrieval.stance import stance

if TYPE_CHECKING:
    from chitin.index.cache import Cache
    from chitin.search.semantic import Semantic

JUDGED = 16  # candidates embedded with the new insight, at most
FAR = 0.3  # below this cosine of stored vectors and share of topic words: not judged
NEIGHBOURS = 20  # nearest stored insights by meaning added to the word candidates


class Found(NamedTuple):
    duplicates: list[Match]
    conflicts: list[Match]
    degraded: str | None  # why the judgement read words alone, or missed some vectors


def strength(insight: Insight) -> tuple[int, float, str]:
    """The order of "strongest first": most reinforced, most confident, oldest id."""
    return (-insight.reinforcements, -insight.confidence, insight.id)


def word_candidates(cache: Cache, side: Side) -> list[Insight]:
    from chitin.search.candidates import conflict_candidates

    found = conflict_candidates(cache, judged_text(side))
    return list(cache.by_ids(c.id for c in found).values())


def exact_duplicates(cache: Cache, side: Side) -> list[Insight]:
    """Stored insights that are the same insight as ``side``, strongest first."""
    key = exact_key(side)
    same = [i for i in word_candidates(cache, side) if exact_key(side_of(i)) == key]
    return sorted(same, key=strength)


def examine(cache: Cache, side: Side, semantic: Semantic | None, why_not: str | None) -> Found:
    """The duplicates (most similar first) and the MAX_CONFLICTS closest conflicts."""
    pool = {i.id: i for i in word_candidates(cache, side)}
    if semantic is None:
        verdicts = [(i, judge(side, side_of(i), None)) for i in pool.values()]
        return _found(verdicts, why_not)
    from chitin.providers import ProviderError

    try:
        near, degraded = _neighbours(cache, semantic, side, pool)
        chosen = _closest(side, pool.values(), near)[:JUDGED]
        texts = [judged_text(side)] + [judged_text(side_of(i)) for i in chosen]
        triggers = [i for i in chosen if side.type == i.type == "trigger"]
        if triggers:  # their responses too: see judgement.TRIGGER_RESPONSE
            texts += [side.claim] + [i.claim for i in triggers]
        vectors = _embedded(semantic, texts)
    except ProviderError as error:
        why = f"no vectors ({error}): duplicates and conflicts judged by words alone"
        return _found([(i, judge(side, side_of(i), None)) for i in pool.values()], why)
    cosines = vectors[1 : 1 + len(chosen)] @ vectors[0]
    responses = _responses(vectors[1 + len(chosen) :], triggers)
    verdicts = [
        (i, judge(side, side_of(i), float(c), responses.get(i.id)))
        for i, c in zip(chosen, cosines, strict=True)
    ]
    return _found(verdicts, degraded)


def _responses(vectors: Any, triggers: Sequence[Insight]) -> dict[str, float]:
    """The cosine of each trigger's response with the new one's (``vectors``: the new
    response's, then theirs)."""
    if not triggers:
        return {}
    return {i.id: float(v @ vectors[0]) for i, v in zip(triggers, vectors[1:], strict=True)}


def _embedded(semantic: Semantic, texts: list[str]) -> Any:
    """The texts' vectors, a few at a time: more than LIGHT_LOAD_TEXTS at once would
    have the local model load again, optimised (~300 ms), for a few dozen texts."""
    import numpy as np

    from chitin.providers.local import LIGHT_LOAD_TEXTS

    parts = [
        semantic.provider.embed(texts[at : at + LIGHT_LOAD_TEXTS], "document")
        for at in range(0, len(texts), LIGHT_LOAD_TEXTS)
    ]
    return np.vstack(parts)


def _neighbours(
    cache: Cache, semantic: Semantic, side: Side, pool: dict[str, Insight]
) -> tuple[dict[str, float], str | None]:
    """Add the nearest stored insights by meaning to ``pool``; their cosine (of the
    stored vectors, a first guess), and why meaning was not complete, if it was not."""
    from chitin.index.cache import Filters
    from chitin.search.semantic import nearest

    near = nearest(cache, semantic, judged_text(side), Filters())
    ids = [i for i, _ in near.hits[:NEIGHBOURS] if i not in pool]
    pool.update(cache.by_ids(ids))
    if near.degraded:
        return {}, near.degraded
    if near.unembedded:
        return {}, (
            f"{near.unembedded} insight(s) have no vector yet (`chitin embed`): "
            "duplicates among them are found by words only"
        )
    return dict(near.hits), None


def _closest(side: Side, insights: Iterable[Insight], near: dict[str, float]) -> list[Insight]:
    """The candidates worth embedding, most alike first: by the stored vectors' cosine
    or the share of topic words, whichever says more; those far by both are left out
    (a verdict needs a cosine of 0.5, or a quarter of the topic words)."""
    mine = stance(judged_text(side)).topic

    def alike(insight: Insight) -> float:
        theirs = stance(judged_text(side_of(insight))).topic
        union = mine | theirs
        shared = len(mine & theirs) / len(union) if union else 1.0
        return max(shared, near.get(insight.id, 0.0))

    scored = [(alike(i), i) for i in insights]
    kept = [(score, i) for score, i in scored if score >= FAR or not near]
    kept.sort(key=lambda pair: (-pair[0], strength(pair[1])))
    return [i for _, i in kept]


def _found(verdicts: Sequence[tuple[Insight, Verdict]], degraded: str | None) -> Found:
    duplicates = [match(i, v) for i, v in verdicts if v.kind == DUPLICATE]
    conflicts = [match(i, v) for i, v in verdicts if v.kind == CONFLICT]
    duplicates.sort(key=lambda m: -m.similarity)
    conflicts.sort(key=lambda m: -m.conflict_score)
    return Found(duplicates, conflicts[:MAX_CONFLICTS], degraded)


def match(insight: Insight, verdict: Verdict) -> Match:
    """A verdict in the shape of 1.4.5's report: a conflict's tension is 1 (an opposing
    stance was found), and its score weighs the topic's closeness as 1.4.5 did."""
    if verdict.kind != CONFLICT:
        return Match(
            insight.id, insight.type, insight.claim, verdict.similarity, 0.0, "", 0.0, verdict.basis
        )
    score = 0.3 * verdict.similarity + 0.7
    return Match(
        insight.id,
        insight.type,
        insight.claim,
        verdict.similarity,
        1.0,
        verdict.reason,
        score,
        verdict.basis,
    )
