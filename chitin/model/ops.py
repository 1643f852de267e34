"""The insight life cycle as pure functions: create, update, reinforce, merge.

Time comes in as ``now`` (a canonical timestamp); nothing here reads a clock or a file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from chitin.errors import ValidationError
from chitin.model.fields import BY_NAME, CLAIM, EDITABLE, FIELDS, FLAG, LIST, NUMBER, REQUIRED
from chitin.model.insight import (
    MAX_REINFORCEMENTS,
    Insight,
    check_confidence,
    check_provenance,
    check_trigger_fields,
    check_type,
    normalize_claim,
    optional_text,
    parse_tags,
    reinforced_confidence,
    tag_key,
    validate,
)
from chitin.model.insight import _shown as shown_value  # a refused value as JSON writes it

# What contribute and update accept, in the order an error lists them (model/fields.py).
CONTRIBUTE_FIELDS: tuple[str, ...] = EDITABLE
UPDATE_FIELDS: tuple[str, ...] = CONTRIBUTE_FIELDS


def check_known_fields(fields: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
    if not isinstance(fields, Mapping):  # a text's letters would read as field names
        got = type(fields).__name__
        raise ValidationError("fields", f"the fields must be a mapping of name to value, got {got}")
    for name in fields:
        if name not in allowed:
            raise ValidationError(name, f"unknown field {name!r} (allowed: {', '.join(allowed)})")


# The claim of the `contribute` skeletons a reflection digest shows: the agent's to write.
PLACEHOLDER = "…"


def new_insight(fields: Mapping[str, Any], insight_id: str, now: str) -> Insight:
    """A validated new insight from contribute's fields (flags or a JSON object); a
    skeleton's placeholder claim, run as it was shown, is refused."""
    check_known_fields(fields, CONTRIBUTE_FIELDS)
    for required in REQUIRED:
        if fields.get(required) is None:
            raise ValidationError(required, f"{required} is required")
    kind = check_type(fields["type"])
    # null is absent, as for every other optional field (and in import and MCP)
    avoid = _check_bool("avoid", False if fields.get("avoid") is None else fields["avoid"])
    condition = optional_text("condition", fields.get("condition"))
    check_trigger_fields(kind, condition, avoid)
    # Every field contribute may set, checked in the order of Insight's attributes
    # (which decides the error of an insight with two bad fields).
    values: dict[str, Any] = {
        name: avoid if name == "avoid" else _updated_value(name, fields.get(name))
        for name in _SET_BY_CONTRIBUTE
    }
    if values["claim"] == PLACEHOLDER:
        raise ValidationError(
            "claim",
            f'claim is "{PLACEHOLDER}", the placeholder of a reflection digest\'s ready command: '
            "write the lesson in your own words",
        )
    return validate(Insight(id=insight_id, created=now, updated=now, **values))


def updated_insight(
    insight: Insight, changes: Mapping[str, Any], now: str
) -> tuple[Insight, list[str]]:
    """Apply ``update``'s changes; an empty text clears an optional field.

    Returns the new insight and notes about side effects the user should hear of.
    ``updated`` moves only when something really changed.
    """
    values = checked_changes(changes)
    notes: list[str] = []
    kind = values.get("type", insight.type)
    if insight.type == "trigger" and kind != "trigger":
        # Leaving the trigger type: its condition and avoid go (setting them is an error).
        check_trigger_fields(kind, values.get("condition"), values.get("avoid", False))
        notes += dropped_trigger_fields(insight, kind)
        values.update(condition=None, avoid=False)
    candidate = insight.with_changes(**values)
    check_trigger_fields(candidate.type, candidate.condition, candidate.avoid)
    if candidate == insight:
        return insight, notes
    return validate(candidate.with_changes(updated=now)), notes


def checked_changes(changes: Mapping[str, Any]) -> dict[str, Any]:
    """``update``'s changes, each checked on its own (no None among them): what needs
    no insight, so that a wrong value is named before the store is read."""
    check_known_fields(changes, UPDATE_FIELDS)
    return {name: _updated_value(name, raw) for name, raw in changes.items() if raw is not None}


_SET_BY_CONTRIBUTE = tuple(field.name for field in FIELDS if field.name in EDITABLE)

# A field's check, by its form in its row (model/record.py) (a word's by its name: its choices);
# a text field, of either form, is optional text.
_WORDS: dict[str, Callable[[Any], Any]] = {"type": check_type, "provenance": check_provenance}
_FORMS: dict[str, Callable[[Any], Any]] = {
    CLAIM: normalize_claim,
    NUMBER: check_confidence,
    LIST: parse_tags,
}


def _updated_value(name: str, raw: Any) -> Any:
    form = BY_NAME[name].form
    check = _WORDS.get(name) or _FORMS.get(form)
    if check is not None:
        return check(raw)
    if form == FLAG:
        return _check_bool(name, raw)
    return optional_text(name, raw)


def _check_bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValidationError(name, f"{name} must be true or false, got {shown_value(value)}")
    return value


def reinforced(insight: Insight, now: str) -> Insight:
    """One more confirmation: confidence moves 5% towards 1 and the count goes up (it
    stays at MAX_REINFORCEMENTS once there, so the file stays readable)."""
    return insight.with_changes(
        confidence=reinforced_confidence(insight.confidence),
        reinforcements=min(MAX_REINFORCEMENTS, insight.reinforcements + 1),
        last_reinforced=now,
        updated=now,
    )


def dropped_trigger_fields(insight: Insight, kind: str) -> list[str]:
    """The note for a trigger's condition and avoid lost to an insight of type ``kind``
    (update's ``--type``, and a merge into another type, say it alike)."""
    if insight.type == "trigger" and kind != "trigger" and (insight.condition or insight.avoid):
        return [f"condition and avoid dropped: a {kind} insight has neither"]
    return []


def dropped_fields(insight: Insight, kind: str) -> tuple[str, ...]:
    """The fields ``dropped_trigger_fields`` speaks of, by their JSON keys (the JSON of
    update and merge names them in ``dropped``)."""
    return ("condition", "avoid") if dropped_trigger_fields(insight, kind) else ()


def cleared_fields(before: Insight, after: Insight, changes: Mapping[str, Any]) -> tuple[str, ...]:
    """The fields an update's empty value cleared: those that held a value before (the
    JSON of update names them in ``cleared``, and its text says so in a note). A value
    is empty as its field reads it: ``""``, blanks, or tags that are all empty pieces
    (``","``, ``[""]``)."""
    return tuple(
        name
        for name, raw in changes.items()
        if raw is not None
        and _updated_value(name, raw) in _EMPTY
        and getattr(before, name)
        and not getattr(after, name)
    )


_EMPTY = (None, "", ())  # what an update's empty value reads as, by its field


def merged(source: Insight, target: Insight, claim: str | None, now: str) -> Insight:
    """The original's merge rules (§5.3): the target absorbs the source.

    Highest confidence, tags united (target's first), counts added, reasonings joined.
    Unlike 1.4.5, the source's context, limitations and source are kept too (``joined``:
    the folded copy's knowledge must not be lost). The target keeps its other fields; it
    takes the source's Carapace id if it has none, so that the merged insight still knows
    it was shared (or where it came from).
    """
    if source.id == target.id:
        raise ValidationError("source", "Cannot merge an insight with itself")
    tags = list(target.tags)
    known = {tag_key(tag) for tag in tags}
    tags.extend(tag for tag in source.tags if tag_key(tag) not in known)
    last = max((s for s in (source.last_reinforced, target.last_reinforced) if s), default=None)
    return target.with_changes(
        claim=normalize_claim(claim) if claim else target.claim,
        confidence=max(source.confidence, target.confidence),
        tags=tuple(tags),
        reinforcements=min(MAX_REINFORCEMENTS, source.reinforcements + target.reinforcements),
        reasoning=joined(target.reasoning, source.reasoning, "; "),
        context=joined(target.context, source.context, SECTION_BREAK),
        limitations=joined(target.limitations, source.limitations, SECTION_BREAK),
        source=joined(target.source, source.source, "; "),
        provenance=target.provenance or source.provenance,
        last_reinforced=last,
        carapace_id=target.carapace_id or source.carapace_id,
        updated=now,
    )


SECTION_BREAK = "\n\n"  # a section's texts joined by a merge: paragraphs


def joined(target: str | None, source: str | None, separator: str) -> str | None:
    """The target's text, then the source's after ``separator``; the source's alone when
    the target has none. Text already there as a whole piece (a second merge of the
    same copy, or a copy that said the same) is not added again."""
    if not source:
        return target
    if not target:
        return source
    if f"{separator}{source}{separator}" in f"{separator}{target}{separator}":
        return target
    return f"{target}{separator}{source}"
