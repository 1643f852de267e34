"""The shapes of what reviews the store: quality, check, diff and dedupe."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from chitin.model.insight import to_public_dict

if TYPE_CHECKING:
    from chitin.format.lint import Finding
    from chitin.model.diff import Delta, Ends, Unreadable, ValueChange
    from chitin.model.quality import QualityReport, QualityScore
    from chitin.render.text import Cluster


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
    files: int,
    errors: Iterable[Finding],
    warnings: Iterable[Finding],
    by_words: int = 0,
    without_alignment: int = 0,
) -> dict[str, Any]:
    """check. ``judgedByWords``: live insights with no current stored vector, whose
    duplicates and conflicts were judged by words alone. ``judgedWithoutAlignment``:
    pairs whose verdict depends on the alignment of their own words, judged by the
    cosine alone (past the budget of token vectors, or no model)."""
    return {
        "files": files,
        "errors": [finding(f) for f in errors],
        "warnings": [finding(f) for f in warnings],
        "judgedByWords": by_words,
        "judgedWithoutAlignment": without_alignment,
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
    from chitin.model import diff as deltas_of

    data = diff_ends(ends)
    data["summary"] = deltas_of.counts(deltas)
    for category in deltas_of.CATEGORIES:
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


# ---------------------------------------------------------------- dedupe


def dedupe(found: Sequence[Cluster], applied: bool, without_alignment: int = 0) -> dict[str, Any]:
    """dedupe: the clusters, strongest first; with --apply, each merge's commit.
    ``judgedWithoutAlignment``: as check's."""
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
        "judgedWithoutAlignment": without_alignment,
    }
