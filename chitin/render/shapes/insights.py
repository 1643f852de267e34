"""The shapes of insights themselves and what is done with them: get, list, contribute,
similar, stats, init, history and changelog, retrieve, embed and the reflection queue."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from chitin.model.insight import Insight, to_public_dict
from chitin.model.quality import fixed
from chitin.render import budget

if TYPE_CHECKING:
    from chitin.model.history import Entry
    from chitin.model.reflection import Marker
    from chitin.model.results import Candidate, Match, Ranked, Retrieval


# ---------------------------------------------------------------- insights


# id → when a retrieval last gave the insight (``Chitin.last_retrieved``): 1.4.5's
# ``lastRetrievedAt``, which every insight object of a command carries when known.
Retrieved = Mapping[str, str]
NEVER: Retrieved = {}


def insight(value: Insight, retrieved: Retrieved = NEVER) -> dict[str, Any]:
    """One insight: get, update, reinforce, archive, unarchive, merge."""
    return to_public_dict(value, retrieved.get(value.id))


def changed(
    value: Insight,
    retrieved: Retrieved = NEVER,
    dropped: Sequence[str] = (),
    cleared: Sequence[str] = (),
    same: Sequence[Insight] = (),
) -> dict[str, Any]:
    """update, merge: the insight, then the fields the type it took has no place for
    (``dropped``: a trigger's condition and avoid), those an empty value cleared
    (``cleared``), and the live insights an update made it the same as (``duplicates``,
    in contribute's shape, similarity 1), each only when there are some."""
    data = insight(value, retrieved)
    if dropped:
        data["dropped"] = list(dropped)
    if cleared:
        data["cleared"] = list(cleared)
    if same:
        data["duplicates"] = [
            {"id": i.id, "type": i.type, "claim": i.claim, "similarity": 1.0} for i in same
        ]
    return data


def reinforced(
    value: Insight, before: Insight | None, retrieved: Retrieved = NEVER
) -> dict[str, Any]:
    """reinforce: the insight, and the confidence it had before (``previousConfidence``,
    after 1.4.5's keys), so a program sees what changed as the text's ``old → new`` shows."""
    data = insight(value, retrieved)
    if before is not None:
        data["previousConfidence"] = before.confidence
    return data


def insights(values: Iterable[Insight], retrieved: Retrieved = NEVER) -> list[dict[str, Any]]:
    """list."""
    return [to_public_dict(value, retrieved.get(value.id)) for value in values]


def score(value: float) -> float:
    """A similarity, conflict score or average, to the precision its text shows (a
    whole percent, or toFixed(2); JavaScript's rounding, exact ties up): 0.79 for 79%."""
    return float(fixed(value, 2))


def match(found: Match, full: bool) -> dict[str, Any]:
    """A stored insight close to a new one: a duplicate, or (``full``) a conflict."""
    data = {
        "id": found.id,
        "type": found.type,
        "claim": found.claim,
        "similarity": score(found.similarity),
    }
    if full:
        data.update(
            tensionScore=score(found.tension_score),
            tensionReason=found.tension_reason,
            conflictScore=score(found.conflict_score),
        )
    if found.basis:  # after 1.4.5's keys: what the similarity is, "meaning" or "words"
        data["basis"] = found.basis
    return data


def contribution(
    made: Insight,
    conflicts: Sequence[Match],
    duplicates: Sequence[Match],
    path: str,
    commit: str | None,
    degraded: str | None = None,
) -> dict[str, Any]:
    """contribute."""
    return {
        "insight": to_public_dict(made),
        "conflicts": [match(m, True) for m in conflicts],
        "duplicates": [match(m, False) for m in duplicates],
        "path": path,
        "commit": commit,
        "degraded": degraded,
    }


def similar(results: Iterable[tuple[Candidate, float]]) -> list[dict[str, Any]]:
    """similar (in words or in meaning)."""
    return [
        {"id": c.id, "type": c.type, "claim": c.claim, "similarity": score(value)}
        for c, value in results
    ]


def stats(total: int, by_type: Mapping[str, int], average: float, archived: int) -> dict[str, Any]:
    """stats: the original's shape, plus ``archived``; the average to two decimals, as
    its text shows it (toFixed(2))."""
    return {
        "total": total,
        "byType": by_type,
        "averageConfidence": score(average),
        "archived": archived,
    }


def initialised(
    path: str, created: bool, seeded: Iterable[Insight], vectors: Any, driver_set: bool = False
) -> dict[str, Any]:
    """init; ``mergeDriverSet``: git's merge driver was set in this clone's config."""
    return {
        "path": path,
        "created": created,
        "seeded": [value.id for value in seeded],
        "vectors": vectors,
        "mergeDriverSet": driver_set,
    }


# ---------------------------------------------------------------- history


def history_entry(number: int, entry: Entry) -> dict[str, Any]:
    """One change, numbered from 1: history and changelog. A change not committed yet
    adds ``uncommitted`` (its commit and author null); one by ``git revert``, ``reverts``."""
    if entry.uncommitted:
        return {"id": number, **entry.row(), "commit": None, "author": None, "uncommitted": True}
    shape = {"id": number, **entry.row(), "commit": entry.commit, "author": entry.author}
    return shape | ({"reverts": entry.reverts.shape()} if entry.reverts else {})


def changelog(entries: Iterable[Entry]) -> list[dict[str, Any]]:
    """changelog."""
    return [history_entry(n, e) for n, e in enumerate(entries, 1)]


def history(
    current: Insight, entries: Iterable[Entry], retrieved: Retrieved = NEVER
) -> dict[str, Any]:
    """history: the insight as it is, then its changes, oldest first."""
    return {"insight": insight(current, retrieved), "history": changelog(entries)}


# ---------------------------------------------------------------- retrieval


RANKING_FACTORS = ("relevance", "confidence", "reinforcement", "type_boost", "decay")


def retrieval(found: Retrieval, explain: bool, full: bool = False) -> dict[str, Any]:
    """retrieve: the ranked insights (with each factor, ``explain``) and the context
    (what fits the budget, compact, or with ``full`` as `retrieve --format full`)."""
    packed = budget.packed_of(found)
    context = budget.marshal(packed, full)
    ranked = []
    for item in found.ranked:
        data: dict[str, Any] = {
            "id": item.insight.id,
            "type": item.insight.type,
            "claim": item.insight.claim,
            "score": score_number(item.score),
            # false only for a filler (score 0): what a reader of the plain JSON checks
            "matched": item.matched,
        }
        if item.also_covers:
            data["alsoCovers"] = list(item.also_covers)
        if item.outweighs:
            data["outweighs"] = list(item.outweighs)
        if explain:
            data["factors"] = {
                name: score_number(getattr(item.factors, name)) for name in RANKING_FACTORS
            }
            data["basis"] = _basis(item)
        ranked.append(data)
    return {
        "category": found.category,
        "insights": ranked,
        "context": context,
        "tokenEstimate": budget.estimate_tokens(context),
        "omitted": packed.omitted,
        "degraded": found.degraded,
    }


def score_number(score: float) -> float:
    """A score (or a factor of one) to six decimals; a tiny one (a weak match) to
    three significant digits instead, so that no match reads as a score of 0."""
    rounded = round(score, 6)
    return rounded if rounded or not score else float(f"{score:.3g}")


def _basis(ranked: Ranked) -> dict[str, Any]:
    """What relevance and decay are made of: the match relative to the best, and the
    age against the provenance's half-life (None: it never decays)."""
    f = ranked.factors
    return {
        "match": round(f.match, 6),
        "ageDays": round(f.age_days, 3),
        "halfLifeDays": f.half_life,
    }


def session_start(text: str) -> dict[str, Any]:
    """hooks run claude-code session-start: the rendered insights as Claude Code's
    SessionStart context."""
    return {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}


# ---------------------------------------------------------------- embedding


def embedded(done: int, total: int, provider: str, model: str, dimensions: int) -> dict[str, Any]:
    """embed."""
    return {
        "embedded": done,
        "total": total,
        "provider": provider,
        "model": model,
        "dimensions": dimensions,
    }


def embed_status(
    total: int, fresh: int, provider: str | None, model: str | None, dimensions: int | None
) -> dict[str, Any]:
    """embed-status."""
    return {
        "total": total,
        "embedded": fresh,
        "missing": total - fresh,
        "provider": provider,
        "model": model,
        "dimensions": dimensions,
    }


# ---------------------------------------------------------------- reflection


def marker(value: Marker) -> dict[str, Any]:
    """A queued reflection: the queue file's own shape (model/reflection.py)."""
    from chitin.model.reflection import to_json

    return to_json(value)


def queued(value: Marker) -> dict[str, Any]:
    """reflect --queue."""
    return {"queued": marker(value)}


def pending(
    markers: Iterable[Marker],
    stats_shape: dict[str, Any],
    cleared: int | None,
    digests: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """reflect: the markers and the store's stats; ``digests`` (render/digest.py's
    shape, one per marker) after them; ``cleared`` with --clear only."""
    data: dict[str, Any] = {"pending": [marker(m) for m in markers], "stats": stats_shape}
    if digests is not None:
        data["digests"] = digests
    if cleared is not None:
        data["cleared"] = cleared
    return data


def reflected(session: str, removed: int) -> dict[str, Any]:
    """reflect --done: the session, and how many of its markers went."""
    return {"done": session, "removed": removed}
