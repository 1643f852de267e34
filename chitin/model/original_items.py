"""chitin 1.x's items made to fit ours with nothing lost: what it stored unchecked (a
trigger with no condition, any text as provenance, a condition on any type) is
settled, never refused, for an export of 1.x (``import``) as for its database's rows
(``store/legacy.py``). The reference's sections are cited as §."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from chitin.model.insight import PROVENANCES

# chitin 1.x's times (§1.2): what marks an item of its export, with no ``archived`` key.
_ORIGINAL_TIME = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")


def from_original(item: Mapping[str, Any]) -> Mapping[str, Any]:
    """An item of 1.x's export settled as a migration settles a row's (see
    ``settle_original``); any other item as it is."""
    stamp = item.get("createdAt")
    if "archived" in item or not isinstance(stamp, str) or not _ORIGINAL_TIME.fullmatch(stamp):
        return item
    return settle_original(dict(item))


def settle_original(item: dict[str, Any]) -> dict[str, Any]:
    """What 1.x stored unchecked, made to fit ours with nothing lost."""
    return provenance_in_context(situation_in_context(trigger_as_behavior(item)))


def trigger_as_behavior(item: dict[str, Any]) -> dict[str, Any]:
    """1.x let a trigger go without a condition and showed it as a plain line (§3.5).
    Ours needs a trigger's situation, and inventing one would put words in the user's
    mouth: such an item comes in as behavioral, with its 1.x type noted at the end of
    its context (an avoid flag is then settled as on any other type)."""
    condition, context = item.get("condition"), item.get("context")
    if item.get("type") != "trigger" or not isinstance(context, str | None):
        return item
    if not isinstance(condition, str | None) or (condition and condition.strip()):
        return item  # a trigger as ours, or the wrong kind: left for validation to name
    item["type"] = "behavioral"
    item.pop("condition", None)
    note = "A trigger in chitin 1.x, with no condition"
    item["context"] = f"{context}\n\n{note}" if context else note
    return item


def provenance_in_context(item: dict[str, Any]) -> dict[str, Any]:
    """1.x checked provenance only on ``contribute --provenance``; ``update
    --provenance`` and stdin JSON stored any text (§1.2). One of ours in other case or
    spacing is read as it; blank is none; any other text goes at the end of the
    context (``Provenance: <text>``) rather than refusing the whole database."""
    value, context = item.get("provenance"), item.get("context")
    if not isinstance(value, str) or not isinstance(context, str | None):
        return item  # the wrong kind: left for validation to name
    if value.strip().lower() in PROVENANCES:
        item["provenance"] = value.strip().lower()
        return item
    del item["provenance"]
    if value.strip():
        note = f"Provenance: {value.strip()}"
        item["context"] = f"{context}\n\n{note}" if context else note
    return item


def situation_in_context(item: dict[str, Any]) -> dict[str, Any]:
    """1.x took a condition and avoid on any type and showed them for triggers only;
    ours keeps them for triggers. On another type they are written into the context
    (``When: <condition> → avoid``), so the item comes in with nothing lost. Values
    of the wrong kind are left for validation to name."""
    condition, avoid = item.get("condition"), item.get("avoid", False)
    texts = (condition, item.get("context"))
    if item.get("type") == "trigger" or not all(isinstance(t, str | None) for t in texts):
        return item
    if not isinstance(avoid, bool | int) or not (condition or avoid):
        return item
    item.pop("condition", None)
    item.pop("avoid", None)
    note = (f"When: {condition}" if condition else "When it applies") + (
        " → avoid" if avoid else ""
    )
    context = item.get("context")
    item["context"] = f"{context}\n\n{note}" if context else note
    return item
