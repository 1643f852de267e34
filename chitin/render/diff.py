"""``chitin diff`` as text for people and as JSON for programs (strings and dicts only)."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from chitin.model.diff import (
    CATEGORIES,
    WORKING_TREE,
    Delta,
    Ends,
    Unreadable,
    ValueChange,
    counts,
    value_changes,
)
from chitin.model.insight import Insight, js_number
from chitin.render.text import SHORT_TEXT, confidence_change, quoted_change, shortened

NO_CHANGES = "No changes to the personality."
NO_RENDER_CHANGES = "No changes to PERSONALITY.md."
SHORT_CLAIM = 72
_TITLES = {
    "added": "Added",
    "removed": "Removed",
    "archived": "Archived",
    "unarchived": "Unarchived",
    "merged": "Merged",
    "changed": "Changed",
}


# ---------------------------------------------------------------- people


def human(ends: Ends, deltas: Sequence[Delta]) -> str:
    """The changes grouped by category, then a summary line."""
    if not deltas:
        return NO_CHANGES
    lines = [f"From {side_name(ends, old=True)} to {side_name(ends, old=False)}:"]
    for category in CATEGORIES:
        group = [d for d in deltas if d.category == category]
        if group:
            lines.extend(["", f"{_TITLES[category]} ({len(group)}):"])
            for delta in group:
                lines.extend(_entry_lines(delta))
    lines.extend(["", summary(deltas)])
    return "\n".join(lines)


def summary(deltas: Sequence[Delta]) -> str:
    """``2 added, 1 changed, 1 archived``: the categories that have any, in order."""
    found = counts(deltas)
    parts = [f"{found[c]} {c}" for c in CATEGORIES if found[c]]
    return ", ".join(parts) if parts else NO_CHANGES


def side_name(ends: Ends, old: bool) -> str:
    """A side as people read it: ``HEAD~1 (3234fbe1a2b3)``, ``the working tree``."""
    label, commit = (ends.old_label, ends.old_commit) if old else (ends.new_label, ends.new_commit)
    if commit is None:
        return "the working tree" if not old else "an empty store"
    if old and ends.merge_base:
        return f"the merge base of {label} and {ends.new_label} ({commit[:12]})"
    if label is None or commit.startswith(label):  # a sha needs no second spelling
        return commit[:12]
    return f"{label} ({commit[:12]})"


def _entry_lines(delta: Delta) -> list[str]:
    shown = delta.new or delta.old
    assert shown is not None
    insight = shown.insight
    claim = shortened(insight.claim, SHORT_CLAIM)
    if delta.category == "merged":
        head = f"  {delta.id} → {delta.merged_into}: {claim}"
    else:
        head = f"  {delta.id} [{insight.type}]: {claim}"
    if delta.category in ("added", "removed") and insight.archived:
        head += " (archived)"
    return [head, *(f"    {line}" for line in change_lines(delta))]


def change_lines(delta: Delta) -> list[str]:
    """One line per changed field (``field: …``); confidence and reinforcements share
    one, ``confidence: 0.8 → 0.81, +1 reinforcement``."""
    by_field = {change.field: change for change in delta.changes}
    lines: list[str] = []
    strength = _strength(by_field.get("confidence"), by_field.get("reinforcements"))
    for change in delta.changes:
        if change.field in ("confidence", "reinforcements"):
            if strength:
                lines.append(strength)
                strength = ""
            continue
        lines.append(field_line(change))
    lines.extend(f"evidence: + {line}" for line in delta.evidence)
    return lines


def update_lines(old: Insight, new: Insight) -> list[str]:
    """What an ``update`` changed, one line per field, as ``chitin diff`` says it."""
    changes = value_changes(old, new)
    return change_lines(Delta("changed", new.id, None, None, changes))


def _strength(confidence: ValueChange | None, reinforcements: ValueChange | None) -> str:
    parts = []
    if confidence is not None:
        old, new = confidence.old, confidence.new
        if isinstance(old, float | int) and isinstance(new, float | int):
            # as reinforce says it: three decimals, more when it takes more to show the
            # move, not the stored six (0.954875)
            parts.append(f"confidence: {confidence_change(float(old), float(new))}")
        else:
            parts.append(f"confidence: {_value(old)} → {_value(new)}")
    if reinforcements is not None:
        assert isinstance(reinforcements.old, int) and isinstance(reinforcements.new, int)
        more = reinforcements.new - reinforcements.old
        sign = "+" if more > 0 else "−"
        parts.append(f"{sign}{abs(more)} reinforcement{'' if abs(more) == 1 else 's'}")
    return ", ".join(parts)


def field_line(change: ValueChange) -> str:
    """``tags: +testing −old``, ``type: skill → trigger``, ``claim: "…" → "…"``."""
    if change.field == "tags":
        before, after = _tags(change.old), _tags(change.new)
        added = [f"+{t}" for t in after if t not in before]
        removed = [f"−{t}" for t in before if t not in after]
        return f"tags: {' '.join(added + removed) or '(reordered)'}"
    old, new = _value(change.old), _value(change.new)
    if old == new and isinstance(change.old, str) and isinstance(change.new, str):
        old, new = quoted_change(change.old, change.new)
    return f"{change.field}: {old} → {new}"


def _tags(value: object) -> tuple[str, ...]:
    return value if isinstance(value, tuple) else ()


def _value(value: object) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return js_number(value)
    if isinstance(value, str) and " " not in value.strip():
        return value
    return f'"{shortened(str(value), SHORT_TEXT)}"'


def problem_lines(unreadable: Sequence[Unreadable], ends: Ends) -> list[str]:
    """Warnings for the files that could not be read on either side."""
    return [
        f"warning: skipped {u.path} in {side_name(ends, old=u.side == 'from')}: {u.error}"
        + (f"; fix: {u.fix}" if u.fix else "")
        for u in unreadable
    ]


# ---------------------------------------------------------------- PERSONALITY.md


def unified(old_text: str, new_text: str, ends: Ends) -> str:
    """A unified diff of the two renderings, as ``git diff`` shows a file ("" if equal)."""
    name = "PERSONALITY.md"
    lines = difflib.unified_diff(
        old_text.splitlines(keepends=True),
        new_text.splitlines(keepends=True),
        fromfile=f"a/{name}\t{_at(ends, old=True)}",
        tofile=f"b/{name}\t{_at(ends, old=False)}",
    )
    return "".join(lines)


def _at(ends: Ends, old: bool) -> str:
    name = side_name(ends, old)
    return name if name != f"the {WORKING_TREE}" else WORKING_TREE
