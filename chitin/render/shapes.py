"""The JSON contract: every shape ``--format json`` prints, built here and nowhere else.

Agents parse these shapes (chitin 1.4.5's, plus the keys docs/compatibility.md lists),
so each is one function, and tests/golden/ holds each still. The CLI passes the values
it has; a function returns plain data (dicts, lists, strings, numbers) for
``json.dumps``. An insight's shape is its interchange shape (``to_public_dict``), the
one export and import share; the reflection queue's markers are the queue file's.

This module imports model/ and format/ only (and, for type hints, the value types of
retrieval/), and nothing heavy: ``retrieve`` runs through it at session start.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from chitin.model.insight import Insight, to_public_dict

if TYPE_CHECKING:
    from chitin.format.lint import Finding
    from chitin.model.diff import Delta, Ends, Unreadable, ValueChange
    from chitin.model.history import Entry
    from chitin.model.interchange import Exported
    from chitin.model.reflection import Marker
    from chitin.render.budget import Packed
    from chitin.render.text import Cluster
    from chitin.retrieval.conflicts import Candidate, Match
    from chitin.retrieval.engine import Retrieval
    from chitin.retrieval.quality import QualityReport, QualityScore
    from chitin.retrieval.retrieve import Ranked

    # What shapes read of core's results (core is above render: never imported).
    class _Synced(Protocol):
        remote: str
        branch: str
        received: int
        sent: int
        merge_commit: str | None

    class _Skipped(Protocol):
        def _asdict(self) -> dict[str, Any]: ...

    class _Imported(Protocol):
        @property
        def insights(self) -> Sequence[Insight]: ...
        @property
        def skipped(self) -> Sequence[_Skipped]: ...
        @property
        def commit(self) -> str | None: ...
        @property
        def generation(self) -> str | None: ...
        @property
        def history_rows(self) -> int: ...


# ---------------------------------------------------------------- insights


def insight(value: Insight) -> dict[str, Any]:
    """One insight: get, update, reinforce, archive, unarchive, merge."""
    return to_public_dict(value)


def insights(values: Iterable[Insight]) -> list[dict[str, Any]]:
    """list."""
    return [to_public_dict(value) for value in values]


def score(value: float) -> float:
    """A similarity, conflict score or average, to the precision its text shows (a
    whole percent, or toFixed(2); JavaScript's rounding, exact ties up): 0.79 for 79%."""
    from decimal import ROUND_HALF_UP, Decimal

    return float(Decimal(value).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


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
    path: str, created: bool, seeded: Iterable[Insight], vectors: Any
) -> dict[str, Any]:
    """init."""
    return {
        "path": path,
        "created": created,
        "seeded": [value.id for value in seeded],
        "vectors": vectors,
    }


# ---------------------------------------------------------------- history


def history_entry(number: int, entry: Entry) -> dict[str, Any]:
    """One change, numbered from 1: history and changelog."""
    return {
        "id": number,
        "insightId": entry.insight_id,
        "field": entry.field,
        "oldValue": entry.old,
        "newValue": entry.new,
        "changeType": entry.change_type,
        "changedAt": entry.changed_at,
        "source": entry.source,
        "commit": entry.commit,
        "author": entry.author,
    }


def changelog(entries: Iterable[Entry]) -> list[dict[str, Any]]:
    """changelog."""
    return [history_entry(n, e) for n, e in enumerate(entries, 1)]


def history(current: Insight, entries: Iterable[Entry]) -> dict[str, Any]:
    """history: the insight as it is, then its changes, oldest first."""
    return {"insight": to_public_dict(current), "history": changelog(entries)}


# ---------------------------------------------------------------- retrieval


RANKING_FACTORS = ("relevance", "confidence", "reinforcement", "type_boost", "decay")


def retrieval(found: Retrieval, packed: Packed, explain: bool) -> dict[str, Any]:
    """retrieve: the ranked insights (with each factor, ``explain``) and the context."""
    from chitin.render import budget

    context = budget.marshal(packed)
    ranked = []
    for item in found.ranked:
        data: dict[str, Any] = {
            "id": item.insight.id,
            "type": item.insight.type,
            "claim": item.insight.claim,
            "score": score_number(item.score),
        }
        if item.also_covers:
            data["alsoCovers"] = list(item.also_covers)
        if item.outweighs:
            data["outweighs"] = list(item.outweighs)
        if explain:
            data["matched"] = item.matched
            data["factors"] = {
                name: round(getattr(item.factors, name), 6) for name in RANKING_FACTORS
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
    """A score to six decimals; a tiny one (a weak match) to three significant digits
    instead, so that no match reads as a score of 0."""
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


# ---------------------------------------------------------------- quality


def quality_score(score: QualityScore) -> dict[str, Any]:
    """quality score: the original's shape; ``lastRetrievedAt`` is ours, after the
    original's keys."""
    data: dict[str, Any] = {
        "insightId": score.insight_id,
        "claim": score.claim,
        "type": score.type,
        "quality": score.quality,
        "components": score.components._asdict(),
        "status": score.status,
    }
    if score.recommendation is not None:
        data["recommendation"] = score.recommendation
    data["daysSinceLastRecall"] = score.days_since_last_recall
    data["ageInDays"] = score.age_in_days
    data["lastRetrievedAt"] = score.last_retrieved
    return data


def quality_report(report: QualityReport) -> dict[str, Any]:
    """quality."""
    return {
        "totalInsights": report.total,
        "averageQuality": report.average_quality,
        "distribution": dict(report.distribution),
        "topInsights": [quality_score(s) for s in report.top],
        "staleInsights": [quality_score(s) for s in report.stale],
        "recommendations": list(report.recommendations),
    }


# ---------------------------------------------------------------- check


def finding(value: Finding) -> dict[str, Any]:
    """One problem ``check`` found: each of its fields, by its name."""
    return value._asdict()


def check_report(
    files: int, errors: Iterable[Finding], warnings: Iterable[Finding]
) -> dict[str, Any]:
    """check."""
    return {
        "files": files,
        "errors": [finding(f) for f in errors],
        "warnings": [finding(f) for f in warnings],
    }


# ---------------------------------------------------------------- diff


def diff_ends(ends: Ends) -> dict[str, Any]:
    """The two sides of a diff (diff, and diff --render)."""
    return {
        "from": ends.old_label,
        "to": ends.new_label,
        "fromCommit": ends.old_commit,
        "toCommit": ends.new_commit,
        "mergeBase": ends.merge_base,
    }


def diff(ends: Ends, deltas: Sequence[Delta], unreadable: Sequence[Unreadable]) -> dict[str, Any]:
    """diff: the sides, a count per category, then each category's entries."""
    from chitin.model.diff import CATEGORIES, counts

    data = diff_ends(ends)
    data["summary"] = counts(deltas)
    for category in CATEGORIES:
        data[category] = [diff_entry(d) for d in deltas if d.category == category]
    data["unreadable"] = [u._asdict() for u in unreadable]
    return data


def diff_entry(delta: Delta) -> dict[str, Any]:
    """``id``, ``type``, ``claim`` and ``path`` (on the new side, or the old side for
    removed and merged ones), and what the category adds."""
    shown = delta.new or delta.old
    assert shown is not None
    value = shown.insight
    entry: dict[str, Any] = {
        "id": delta.id,
        "type": value.type,
        "claim": value.claim,
        "path": shown.path,
    }
    if delta.category == "added":
        entry.update(confidence=value.confidence, tags=list(value.tags))
    if delta.category in ("added", "removed"):
        entry["archived"] = value.archived
    if delta.category == "merged":
        entry["into"] = delta.merged_into
    if delta.old is not None and delta.new is not None:
        entry["fromPath"] = delta.old.path
        entry["changes"] = [_value_change(c) for c in delta.changes]
        entry["evidence"] = list(delta.evidence)
    return entry


def _value_change(change: ValueChange) -> dict[str, Any]:
    def plain(value: object) -> object:
        return list(value) if isinstance(value, tuple) else value

    return {"field": change.field, "old": plain(change.old), "new": plain(change.new)}


def rendered_diff(ends: Ends, query: str, budget: int, patch: str) -> dict[str, Any]:
    """diff --render: the sides, what was rendered, and the unified diff."""
    return {
        **diff_ends(ends),
        "query": query,
        "budget": budget,
        "changed": bool(patch),
        "diff": patch,
    }


# ---------------------------------------------------------------- sync


def synced(result: _Synced) -> dict[str, Any]:
    """sync."""
    return {
        "remote": result.remote,
        "branch": result.branch,
        "received": result.received,
        "sent": result.sent,
        "mergeCommit": result.merge_commit,
    }


# ---------------------------------------------------------------- export, import


def export(rows: Iterable[Exported]) -> list[dict[str, Any]]:
    """export: each insight (with when it was last retrieved, its evidence and history)
    in the interchange shape that import reads back (model/interchange.py owns it)."""
    from chitin.model.interchange import export_dict

    return [export_dict(*row) for row in rows]


def imported(result: _Imported, vectors: Any) -> dict[str, Any]:
    """import."""
    return {
        "imported": len(result.insights),
        "skipped": len(result.skipped),
        "ids": [value.id for value in result.insights],
        "skippedItems": [s._asdict() for s in result.skipped],
        "commit": result.commit,
        "migratedFrom": result.generation,
        "historyRows": result.history_rows,
        "vectors": vectors,
    }


# ---------------------------------------------------------------- hooks


def where(store: str, source: str, exists: bool) -> dict[str, Any]:
    """where: the store, how it was found (option, environment, folder, default), and
    whether a store is there yet."""
    return {"store": store, "source": source, "exists": exists}


def hook_outcome(host: str, action: str, path: str) -> dict[str, Any]:
    """hooks uninstall (and what hooks install says beside the store)."""
    return {"host": host, "action": action, "path": path}


def hook_installed(host: str, action: str, path: str, store: str | None) -> dict[str, Any]:
    """hooks install: also the store it bound (None: the default one)."""
    return {**hook_outcome(host, action, path), "store": store}


# ---------------------------------------------------------------- Carapace


def carapace_registered(answer: Mapping[str, Any], credentials: str) -> dict[str, Any]:
    """carapace-register: the server's answer (never the key), and where it was saved."""
    return {**answer, "credentialsPath": credentials}


def carapace_answer(answer: Any) -> Any:
    """carapace-query: the server's answer, as it came."""
    return answer


def promoted(insight_id: str, answer: Any) -> dict[str, Any]:
    """promote."""
    return {"chitin": {"id": insight_id}, "carapace": answer}


def dedupe(found: Sequence[Cluster], applied: bool) -> dict[str, Any]:
    """dedupe: the clusters, strongest first; with --apply, each merge's commit."""
    return {
        "clusters": [
            {
                "keep": to_public_dict(c.keep),
                "duplicates": [to_public_dict(o) for o in c.others],
                "exact": c.exact,
                "command": c.command,
                "commit": c.change.commit if c.change is not None else None,
            }
            for c in found
        ],
        "applied": applied,
    }


def carapace_imported(
    made: Insight, conflicts: Sequence[Match], duplicates: Sequence[Match]
) -> dict[str, Any]:
    """import-carapace: 1.4.5's counts, then the stored insights they are (issue 25)."""
    return {
        "carapace": {"id": made.carapace_id},
        "chitin": to_public_dict(made),
        "conflicts": len(conflicts),
        "duplicates": len(duplicates),
        "conflictIds": [m.id for m in conflicts],
        "duplicateIds": [m.id for m in duplicates],
    }
