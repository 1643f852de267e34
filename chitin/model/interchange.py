"""The JSON interchange format: what ``export`` writes and ``import`` reads.

One shape serves three sources: chitin 1.x's ``export`` (and its ``seed.json``), our
own export, and the rows of a 1.x database. It is the original's camelCase insight
(reference §1.2) plus our keys (``lastReinforcedAt``, ``archived``). Every item is
checked before anything is written, and an error names the item and the field, as
``items[3].confidence``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from chitin.errors import ValidationError
from chitin.model.fields import (
    BY_NAME,
    FREE_TEXTS,
    INTERCHANGE,
    SECTION_FIELDS,
)
from chitin.model.ids import check_id
from chitin.model.imported_text import imported_claim, imported_text
from chitin.model.insight import (
    Insight,
    canonical_timestamp,
    check_carapace_id,
    check_confidence,
    check_provenance,
    check_reinforcements,
    check_trigger_fields,
    check_type,
    optional_text,
    parse_tags,
    to_public_dict,
    validate,
)
from chitin.model.insight import _shown as shown_value  # a refused value as JSON writes it

# The original's import default for an item without a confidence (§2.17).
DEFAULT_CONFIDENCE = 0.5

# Every key an item may have, in the order export writes them (model/fields.py), then
# what a backup needs beside the fields: the file's evidence log and the insight's
# history, as 1.x history rows (issue 25: an export restores every insight whole).
# And the frontmatter keys a person added to the file by hand (chitin keeps them through
# every rewrite), each as the file has it: its key line and continuation lines. And,
# when a person added text of their own to the body, the order of the body's parts.
EVIDENCE_KEY, HISTORY_KEY, EXTRA_KEY = "evidence", "history", "extraFrontmatter"
BODY_KEY = "extraBody"
KNOWN_KEYS: tuple[str, ...] = (
    *(key for key, _ in INTERCHANGE), EVIDENCE_KEY, EXTRA_KEY, BODY_KEY, HISTORY_KEY
)  # fmt: skip
BODY_RULE = (
    f"{BODY_KEY} must list the body's parts in order, as the file has them: 'claim' first, "
    "then section names (reasoning, context, limitations) and {'text': …} for text of "
    "your own that reads back as it is, not as a section"
)
HISTORY_ROW_KEYS = ("field", "oldValue", "newValue", "changeType", "changedAt", "source")


# How a chitin 1.x database (SQLite's file format) begins.
SQLITE_MAGIC = b"SQLite format 3\x00"
# SQLite opens a file: a database read from a pipe can only be asked for again.
FROM_ITS_FILE = "which is migrated from its file, not read from a stream: give its path instead"


def not_an_export(name: str, head: str | bytes, why: str) -> str:
    """Why ``name``, whose text (or bytes) begins with ``head``, is no export: ``why``
    (its JSON's or UTF-8's fault), or that a 1.x database must be named by its path."""
    magic = SQLITE_MAGIC if isinstance(head, bytes) else SQLITE_MAGIC.decode()
    if head[: len(magic)] == magic:
        return f"{name} holds a chitin 1.x database, {FROM_ITS_FILE}: chitin import insights.db"
    return f"{name} is neither JSON nor a chitin 1.x database: {why}"


class Exported(NamedTuple):
    """One insight of an export, with what a backup keeps beside its fields."""

    insight: Insight
    last_retrieved: str | None
    evidence: tuple[str, ...] = ()
    history: tuple[Mapping[str, Any], ...] = ()
    extra_keys: tuple[str, ...] = ()  # hand-added frontmatter chunks (format/markdown.py)
    body: tuple[tuple[str, str], ...] = ()  # Layout.body, when it holds hand-added text


class Item(NamedTuple):
    """One imported insight, and when it was last retrieved (kept outside git), its
    evidence log and its history rows (each with ``insightId``)."""

    insight: Insight
    last_retrieved: str | None
    evidence: tuple[str, ...] = ()
    history: tuple[Mapping[str, Any], ...] = ()
    extra_keys: tuple[str, ...] = ()
    body: tuple[tuple[str, str], ...] = ()


def export_dict(
    insight: Insight,
    last_retrieved: str | None,
    evidence: Sequence[str] = (),
    history: Sequence[Mapping[str, Any]] = (),
    extra_keys: Sequence[str] = (),
    body: Sequence[tuple[str, str]] = (),
) -> dict[str, Any]:
    """The public shape, with ``lastRetrievedAt`` in the original's place when known,
    and the evidence log, hand-added frontmatter and history rows last, when there
    are any."""
    ordered = to_public_dict(insight, last_retrieved)
    if evidence:
        ordered[EVIDENCE_KEY] = list(evidence)
    if extra_keys:
        ordered[EXTRA_KEY] = list(extra_keys)
    if body:
        ordered[BODY_KEY] = [{"text": v} if k == "text" else v or k for k, v in body]
    if history:
        ordered[HISTORY_KEY] = [{k: row.get(k) for k in HISTORY_ROW_KEYS} for row in history]
    return ordered


def items_of(document: object) -> list[Mapping[str, Any]]:
    """The objects of an import document: an array of them, or a single one; the
    items of ``Chitin.export()`` (``Exported``) as the export's JSON has them."""
    if isinstance(document, Mapping):
        if not {"type", "claim"} & set(document):  # no insight: another tool's JSON
            keys = ", ".join(sorted(map(str, document))[:5])
            got = f"an object with other keys ({keys})" if keys else "an empty object"
            raise ValidationError(
                "items",
                "expected a JSON array of insights (`chitin export`) or one insight "
                f"object with type and claim, got {got}",
            )
        return [document]
    if not isinstance(document, list):
        raise ValidationError(
            "items",
            f"expected a JSON array of insights or one insight object, got {_kind(document)}",
        )
    document = [export_dict(*item) if isinstance(item, Exported) else item for item in document]
    for index, item in enumerate(document):
        if not isinstance(item, Mapping):
            raise ValidationError("items", f"items[{index}] must be an object, got {_kind(item)}")
    return document


def read_item(
    item: Mapping[str, Any], index: int, now: str, fresh_id: Callable[[str], str]
) -> Item:
    """A validated insight from one item; ``fresh_id(claim)`` names one that has no id."""
    try:
        return _read(item, now, fresh_id)
    except ValidationError as error:
        key = _JSON_KEY.get(error.field, error.field)  # the key the item holds
        raise ValidationError(f"items[{index}].{key}", f"items[{index}].{key}: {error}") from None


# An insight's fields whose JSON key is another (reinforcements: reinforcementCount).
_JSON_KEY = {name: field.json for name, field in BY_NAME.items() if field.json}


def _read(item: Mapping[str, Any], now: str, fresh_id: Callable[[str], str]) -> Item:
    for key in item:
        if key not in KNOWN_KEYS:
            raise ValidationError(key, f"unknown field (allowed: {', '.join(KNOWN_KEYS)})")
    for required in ("type", "claim"):
        if item.get(required) is None:
            raise ValidationError(required, f"{required} is required")
    kind = check_type(item["type"])
    claim = imported_claim(item["claim"])
    avoid = _flag("avoid", item.get("avoid"))
    condition = optional_text("condition", item.get("condition"))
    check_trigger_fields(kind, condition, avoid)
    created = _stamp("createdAt", item.get("createdAt")) or now
    confidence = item.get("confidence")
    last_reinforced, last_retrieved = _recall_times(item)
    insight = Insight(
        id=check_id(item["id"]) if item.get("id") is not None else fresh_id(claim),
        type=kind,
        claim=claim,
        confidence=check_confidence(DEFAULT_CONFIDENCE if confidence is None else confidence),
        created=created,
        updated=_stamp("updatedAt", item.get("updatedAt")) or created,
        tags=parse_tags(item.get("tags")),
        provenance=check_provenance(item.get("provenance")),
        avoid=avoid,
        reinforcements=check_reinforcements(_given(item.get("reinforcementCount"), 0)),
        last_reinforced=last_reinforced,
        **{field.name: imported_text(field.name, item.get(field.json)) for field in FREE_TEXTS},
        archived=_flag("archived", item.get("archived")),
        carapace_id=_carapace_id(item),
    )
    made = validate(insight)
    history = _history(item.get(HISTORY_KEY), made.id)
    extra = _extra_keys(item.get(EXTRA_KEY))  # checked as a file's when written (core)
    body = _body(item.get(BODY_KEY))  # and so is this: it must read back (format)
    return Item(made, last_retrieved, _evidence(item.get(EVIDENCE_KEY)), history, extra, body)


_PARTS = {"claim": ("claim", ""), **{f.name: ("section", f.name) for f in SECTION_FIELDS}}


def _body(value: object) -> tuple[tuple[str, str], ...]:
    """Layout.body from an export's ``extraBody`` (what each part is; not yet whether the
    file reads back so)."""
    if value is None:
        return ()
    parts = []
    for part in value if isinstance(value, list) else [None]:
        if isinstance(part, str) and part in _PARTS:
            parts.append(_PARTS[part])
        elif isinstance(part, Mapping) and set(part) == {"text"} and isinstance(part["text"], str):
            parts.append(("text", part["text"]))
        else:
            parts.append(("", ""))
    if not parts or parts[0] != _PARTS["claim"] or ("", "") in parts or ("text", "") in parts:
        raise ValidationError(BODY_KEY, BODY_RULE)
    return tuple(parts)


def _extra_keys(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ValidationError(
            EXTRA_KEY,
            f"{EXTRA_KEY} must be a list of frontmatter keys, each as the file has it "
            "(its key line, then any continuation lines: 'team: platform')",
        )
    return tuple(value)


def _evidence(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValidationError(
            EVIDENCE_KEY, "evidence must be a list of lines, one per reinforcement"
        )
    return tuple(optional_text(EVIDENCE_KEY, v) or "" for v in value)


def _history(value: object, insight_id: str) -> tuple[Mapping[str, Any], ...]:
    """History rows, each for this insight, with only the keys a row has (text or null)."""
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
        raise ValidationError(HISTORY_KEY, "history must be a list of objects (history rows)")
    rows = []
    for row in value:
        for key, field in row.items():
            if key not in HISTORY_ROW_KEYS or not (field is None or isinstance(field, str)):
                raise ValidationError(
                    HISTORY_KEY,
                    f"history rows hold text or null under {', '.join(HISTORY_ROW_KEYS)}; "
                    f"got {key!r}",
                )
        rows.append({"insightId": insight_id, **{k: row.get(k) for k in HISTORY_ROW_KEYS}})
    return tuple(rows)


def _carapace_id(item: Mapping[str, Any]) -> str | None:
    """The contribution the item was shared as. chitin 1.x kept no such field: its
    ``promote`` overwrote ``source`` with ``carapace:<id>``, and ``import-carapace`` set
    that source too, so an item from 1.x is known by its source."""
    given = check_carapace_id(item.get("carapaceId"))
    source = item.get("source")
    if given is not None or not isinstance(source, str) or not source.startswith("carapace:"):
        return given
    try:
        return check_carapace_id(source.removeprefix("carapace:").strip())
    except ValidationError:
        return None


def _recall_times(item: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """(last reinforced, last retrieved).

    chitin 1.x set ``lastRetrievedAt`` only when reinforcing (§11.11), and wrote its
    times as ``YYYY-MM-DD HH:MM:SS``; we write ISO 8601. So a 1.x-style value without a
    ``lastReinforcedAt`` beside it is really the last reinforcement.
    """
    reinforced = _stamp("lastReinforcedAt", item.get("lastReinforcedAt"))
    retrieved_raw = item.get("lastRetrievedAt")
    retrieved = _stamp("lastRetrievedAt", retrieved_raw)
    if reinforced is None and isinstance(retrieved_raw, str) and "T" not in retrieved_raw:
        return retrieved, None
    return reinforced, retrieved


def _stamp(name: str, value: object) -> str | None:
    return None if value is None or value == "" else canonical_timestamp(name, value)


def _given(value: object, default: object) -> object:
    """``value``, or ``default`` for null: false, [] and {} are refused, not taken for it."""
    return default if value is None else value


def _flag(name: str, value: object) -> bool:
    """JSON booleans; 1.x databases hold 0 and 1."""
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise ValidationError(name, f"{name} must be true or false, got {shown_value(value)}")


def _kind(value: object) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    return names.get(type(value), "a number" if isinstance(value, int | float) else "a value")


def duplicate_ids(items: Sequence[Item]) -> list[tuple[int, str]]:
    """(index, id) of every item repeating an id used earlier in the same document."""
    seen: set[str] = set()
    repeated: list[tuple[int, str]] = []
    for index, item in enumerate(items):
        if item.insight.id in seen:
            repeated.append((index, item.insight.id))
        seen.add(item.insight.id)
    return repeated
