"""Differences between versions of insights (pure): field by field for history, and
insight by insight for a whole personality (``chitin diff``)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from chitin.model.fields import COMPARED, HISTORY
from chitin.model.insight import Insight, js_number

# The order in which changed fields are reported (the original's, plus type).
DIFF_FIELDS: tuple[str, ...] = HISTORY  # model/fields.py


class FieldChange(NamedTuple):
    field: str
    old: str | None
    new: str | None


def field_text(insight: Insight, name: str) -> str:
    """A field as history text: as the original recorded it (absent text is "")."""
    if name == "reinforcement_count":
        return str(insight.reinforcements)
    value = getattr(insight, name)
    if name == "confidence":
        return js_number(value)
    if name == "tags":
        return json.dumps(list(value), ensure_ascii=False, separators=(",", ":"))
    if name == "avoid":
        return "true" if value else "false"
    return "" if value is None else str(value)


def field_changes(old: Insight, new: Insight) -> list[FieldChange]:
    changes = []
    for name in DIFF_FIELDS:
        before, after = field_text(old, name), field_text(new, name)
        if before != after:
            changes.append(FieldChange(name, before, after))
    return changes


# ---------------------------------------------------------------- personality diff
#
# ``chitin diff`` compares two whole personalities (two revisions of a store, or a
# revision and the working tree). Insights are matched by id, whatever file they are
# in: archive, unarchive and a change of type move the file, and a hand edit may too.

# The categories of a personality diff, in the order they are reported.
CATEGORIES: tuple[str, ...] = ("added", "removed", "archived", "unarchived", "merged", "changed")

# The fields compared, under their names in the file format, in the order reported.
# Timestamps are left out: every operation moves ``updated``, and ``last_reinforced``
# moves with ``reinforcements``, which is reported.
COMPARED_FIELDS: tuple[str, ...] = COMPARED  # model/fields.py

FieldValue = str | float | int | bool | tuple[str, ...] | None
WORKING_TREE = "working tree"


class Ends(NamedTuple):
    """The two sides of a diff as resolved: the revision as the user named it and its
    commit. The new side's commit is None for the working tree; the old side's, for the
    store before its first commit. With ``merge_base``, the old commit is the merge
    base of the two named revisions (``A...B``)."""

    old_label: str | None
    old_commit: str | None
    new_label: str
    new_commit: str | None
    merge_base: bool = False


class Version(NamedTuple):
    """One side's copy of an insight: the values, the file, and its evidence log."""

    insight: Insight
    path: str
    evidence: tuple[str, ...] = ()


class ValueChange(NamedTuple):
    """A field's value on each side, as typed values (numbers, lists, booleans)."""

    field: str
    old: FieldValue
    new: FieldValue


class Delta(NamedTuple):
    """How one insight differs between the two sides.

    ``old`` is None for an added insight, ``new`` for a removed or merged one.
    ``merged_into`` names the target of a merged one; ``evidence`` holds the
    evidence lines the new side logs that the old one does not.
    """

    category: str
    id: str
    old: Version | None
    new: Version | None
    changes: tuple[ValueChange, ...] = ()
    merged_into: str | None = None
    evidence: tuple[str, ...] = ()


def value_changes(old: Insight, new: Insight) -> tuple[ValueChange, ...]:
    """The compared fields whose values differ, in report order."""
    return tuple(
        ValueChange(name, getattr(old, name), getattr(new, name))
        for name in COMPARED_FIELDS
        if getattr(old, name) != getattr(new, name)
    )


def compare(
    old: Mapping[str, Version], new: Mapping[str, Version], merged: Mapping[str, str]
) -> list[Delta]:
    """Every insight that differs between ``old`` and ``new`` (each keyed by id), in
    category order, then by id. ``merged`` maps a merge's source id to its target: a
    source that is gone from the new side is reported as merged, not removed."""
    deltas = [
        delta
        for insight_id in sorted(old.keys() | new.keys())
        if (delta := _delta(insight_id, old.get(insight_id), new.get(insight_id), merged))
    ]
    deltas.sort(key=lambda d: CATEGORIES.index(d.category))  # stable: ids stay sorted
    return deltas


def _delta(
    insight_id: str, old: Version | None, new: Version | None, merged: Mapping[str, str]
) -> Delta | None:
    if old is None and new is None:
        return None
    if old is None:
        return Delta("added", insight_id, None, new)
    if new is None:
        target = merged.get(insight_id)
        if target is not None:
            return Delta("merged", insight_id, old, None, merged_into=target)
        return Delta("removed", insight_id, old, None)
    changes = value_changes(old.insight, new.insight)
    seen = set(old.evidence)
    logged = tuple(line for line in new.evidence if line not in seen)
    if old.insight.archived != new.insight.archived:
        category = "archived" if new.insight.archived else "unarchived"
    elif changes or logged:
        category = "changed"
    else:
        return None  # only timestamps, the file's place or hand-added text differ
    return Delta(category, insight_id, old, new, changes, evidence=logged)


def counts(deltas: Sequence[Delta]) -> dict[str, int]:
    """How many insights fall in each category (every category, zeros included)."""
    found = dict.fromkeys(CATEGORIES, 0)
    for delta in deltas:
        found[delta.category] += 1
    return found


class Unreadable(NamedTuple):
    """A file on one side (``"from"`` or ``"to"``) that is not a valid insight, and what
    to do about it (as every read's warning and ``chitin check`` say), when known."""

    path: str
    side: str
    error: str
    fix: str | None = None
