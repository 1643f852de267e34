"""Field-by-field differences between two versions of an insight (pure)."""

from __future__ import annotations

import json
from typing import NamedTuple

from chitin.model.insight import Insight, js_number

# The order in which changed fields are reported (the original's, plus type).
DIFF_FIELDS: tuple[str, ...] = (
    "claim",
    "reasoning",
    "context",
    "limitations",
    "confidence",
    "tags",
    "source",
    "provenance",
    "condition",
    "avoid",
    "type",
    "reinforcement_count",
)


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
