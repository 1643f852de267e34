"""Three-way merge of one insight, field by field: what the git merge driver decides.

Two machines that changed the same insight since their common version (the base)
are merged by what each field means, not by its lines:

- reinforcements: the base plus both sides' increments, so none is lost;
- confidence: recomputed from the base by both sides' reinforcements (a side that
  set it by hand keeps its value, reinforced by the other side's confirmations);
- tags: both sides' additions, without the tags either side removed;
- updated and last_reinforced: the later; created: the earlier;
- the evidence logs: united;
- anything else (claim, type, the texts, …): taken from the side that changed it; if
  both changed it differently, it is a conflict for a person to resolve.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from chitin.model.evidence import united
from chitin.model.fields import MERGED_AS_SCALAR
from chitin.model.insight import MAX_REINFORCEMENTS, Insight, reinforced_confidence, tag_key

# Fields merged as plain values: one side's change wins, two different changes conflict.
SCALAR_FIELDS: tuple[str, ...] = MERGED_AS_SCALAR  # model/fields.py


class Side(NamedTuple):
    insight: Insight
    evidence: tuple[str, ...] = ()


class Resolution(NamedTuple):
    """The merged values. For a field in ``conflicts`` the value is ours, as a
    placeholder: the caller shows both sides to the person who resolves it."""

    insight: Insight
    evidence: tuple[str, ...]
    conflicts: tuple[str, ...]


def merge(base: Side | None, ours: Side, theirs: Side) -> Resolution:
    """Merge ``ours`` and ``theirs``; ``base`` is None when both sides added the file."""
    b = base.insight if base else None
    o, t = ours.insight, theirs.insight
    values: dict[str, Any] = {}
    conflicts: list[str] = []
    for name in SCALAR_FIELDS:
        value, clash = _scalar(getattr(b, name) if b else None, getattr(o, name), getattr(t, name))
        values[name] = value
        if clash:  # without a base, every field counts as added by each side
            conflicts.append(name)
    values["reinforcements"] = _count(b, o, t)
    values["confidence"] = _confidence(b, o, t)
    values["tags"] = _tags(b.tags if b else None, o.tags, t.tags)
    values["created"] = min(o.created, t.created)
    values["updated"] = max(o.updated, t.updated)
    values["last_reinforced"] = _latest(o.last_reinforced, t.last_reinforced)
    logs = [ours.evidence, theirs.evidence] + ([base.evidence] if base else [])
    return Resolution(o.with_changes(**values), united(*logs), tuple(conflicts))


def _scalar(base: Any, ours: Any, theirs: Any) -> tuple[Any, bool]:
    """(value, whether both sides changed it differently)."""
    if ours == theirs or theirs == base:
        return ours, False
    if ours == base:
        return theirs, False
    return ours, True


def _count(base: Insight | None, ours: Insight, theirs: Insight) -> int:
    if base is None:  # both added it: the same insight, counted once
        return max(ours.reinforcements, theirs.reinforcements)
    gained = (ours.reinforcements - base.reinforcements) + (
        theirs.reinforcements - base.reinforcements
    )
    return min(MAX_REINFORCEMENTS, max(0, base.reinforcements + gained))


def _confidence(base: Insight | None, ours: Insight, theirs: Insight) -> float:
    """Both sides' reinforcements applied to the base's confidence.

    A side whose confidence is not what its reinforcements alone give was set by hand
    (``update --confidence``): that value stands, and the other side's reinforcements
    are applied to it. Set by hand on both sides, differently: the side updated later
    wins, as its ``updated`` says it is the newer decision.
    """
    if base is None:
        return max(ours.confidence, theirs.confidence)
    ours_steps = max(0, ours.reinforcements - base.reinforcements)
    theirs_steps = max(0, theirs.reinforcements - base.reinforcements)
    ours_by_hand = ours.confidence != _reinforce(base.confidence, ours_steps)
    theirs_by_hand = theirs.confidence != _reinforce(base.confidence, theirs_steps)
    if ours_by_hand and theirs_by_hand and ours.confidence != theirs.confidence:
        return ours.confidence if ours.updated >= theirs.updated else theirs.confidence
    if ours_by_hand:
        return _reinforce(ours.confidence, theirs_steps)
    if theirs_by_hand:
        return _reinforce(theirs.confidence, ours_steps)
    return _reinforce(base.confidence, ours_steps + theirs_steps)


def _reinforce(confidence: float, steps: int) -> float:
    for _ in range(steps):
        step = reinforced_confidence(confidence)
        if step == confidence:  # rounded, it reaches a fixed point (1 or just below)
            break
        confidence = step
    return confidence


def _tags(
    base: tuple[str, ...] | None, ours: tuple[str, ...], theirs: tuple[str, ...]
) -> tuple[str, ...]:
    """Ours in order, then theirs' additions; a tag either side removed stays removed.
    Tags compare by ``tag_key`` (ignoring case), as everywhere else."""
    before = {tag_key(tag) for tag in base} if base is not None else set()
    kept_ours = {tag_key(tag) for tag in ours}
    kept_theirs = {tag_key(tag) for tag in theirs}
    removed = (before - kept_ours) | (before - kept_theirs)
    merged: list[str] = []
    seen: set[str] = set()
    for tag in (*ours, *theirs):
        key = tag_key(tag)
        if key not in seen and key not in removed:
            seen.add(key)
            merged.append(tag)
    return tuple(merged)


def _latest(ours: str | None, theirs: str | None) -> str | None:
    return max((s for s in (ours, theirs) if s), default=None)
