"""The ``Insight`` record, whose annotations are the insight's field table.

Each attribute is declared once, here: its Python type (what mypy checks at every one
of the ~280 places that read it) and, in the same annotation, its ``Field`` (the row
that says under which names, in which order and for which purposes the other modules
handle it: model/field_spec.py says what each of its words means). model/fields.py
derives every list of fields from ``FIELDS`` below. Adding a field is one attribute
here and its check where it is read (tests/test_field_added.py adds one and follows
it through every front end).

This module deliberately has no ``from __future__ import annotations``: the
annotations must be objects when the class is made, so that the rows can be read
from them without evaluating strings (``typing.get_type_hints`` would cost a
millisecond on every start).
"""

from typing import Annotated, Any, NamedTuple

from chitin.model.field_spec import (
    CLAIM,
    COUNT,
    FLAG,
    FOLDER,
    LIST,
    NUMBER,
    PROVENANCES,
    SECTION,
    TEXT,
    TIME,
    TIME_FIX,
    TYPES,
    WORD,
    Field,
)


class Insight(NamedTuple):
    """One learned insight. Timestamps are canonical ISO 8601 UTC strings.

    A NamedTuple rather than a frozen dataclass: ``list`` builds 100,000 of these
    from cache rows, and tuple construction is several times cheaper. The order of
    the attributes is the cache's column order.
    """

    # fmt: off
    id: Annotated[str, Field(
        TEXT, json_at=1, file_at=1, guard_at=8, merge_at=1, legacy="id",
        fix="use only letters, digits, '-', '_' and '.', and name the file <id>.md",
    )]
    type: Annotated[str, Field(
        WORD, json_at=2, file_at=2, choices=TYPES, edit_at=1, merge_at=2, history_at=12,
        compare_at=1, legacy="type", fix="set type to one of them", required=True,
        help="The kind of insight.", update_help="Change the type (moves the file).",
        tool_update_help="A new type (moves the file).",
    )]
    claim: Annotated[str, Field(
        CLAIM, json_at=3, edit_at=2, guard_at=1, merge_at=3, history_at=1, compare_at=2,
        search_at=1, search_weight=4.0, legacy="claim",
        fix="write the claim as the first paragraph after the closing '---'",
        required=True, help="The insight itself, one sentence.", update_help="New claim.",
        tool_help="The insight itself: one sentence of guidance.", tool_update_help="A new claim.",
    )]
    confidence: Annotated[float, Field(
        NUMBER, json_at=7, file_at=3, edit_at=3, history_at=5, compare_at=3,
        legacy="confidence", fix="set confidence to a number from 0 to 1", required=True,
        help="How sure you are, from 0 to 1.", update_help="New confidence, from 0 to 1.",
        tool_update_help="A new confidence, from 0 to 1.",
    )]
    created: Annotated[str, Field(
        TIME, json="createdAt", json_at=14, file_at=11, legacy="created_at", fix=TIME_FIX,
    )]
    updated: Annotated[str, Field(
        TIME, json="updatedAt", json_at=15, file_at=12, legacy="updated_at", fix=TIME_FIX,
    )]
    tags: Annotated[tuple[str, ...], Field(
        LIST, json_at=8, file_at=4, edit_at=7, guard_at=7, history_at=6, compare_at=5,
        search_at=3, search_weight=2.0, legacy="tags",
        fix="list the tags as text, one '- tag' line each",
        help="Comma-separated tags.", update_help="New comma-separated tags ('' clears them).",
        tool_help='Tags, such as ["testing", "git"].', tool_update_help="New tags; [] clears them.",
    )] = ()
    provenance: Annotated[str | None, Field(
        WORD, json_at=10, file_at=5, choices=PROVENANCES, edit_at=9, merge_at=4,
        history_at=9, compare_at=6, legacy="provenance",
        fix="set provenance to one of them, or remove the line", help="How it was learned.",
        get_at=4,
    )] = None
    source: Annotated[str | None, Field(
        TEXT, json_at=9, file_at=6, edit_at=8, guard_at=6, merge_at=5, history_at=7,
        compare_at=7, legacy="source", fix="make source one line of text",
        help="The experience it came from.", get_at=5,
    )] = None
    # How to fix a condition depends on the error (model/insight.check_trigger_fields):
    # format/lint.py says it.
    condition: Annotated[str | None, Field(
        TEXT, json_at=11, file_at=8, edit_at=10, guard_at=2, merge_at=7, history_at=10,
        compare_at=9, search_at=2, search_weight=3.0, legacy="condition",
        help='Triggers: the situation ("when …").', update_help="Triggers: new condition.",
        tool_help='Triggers only: the situation ("when …").',
        tool_update_help="Triggers: a new condition.",
    )] = None
    avoid: Annotated[bool, Field(
        FLAG, json_at=13, file_at=9, edit_at=11, merge_at=8, history_at=11, compare_at=10,
        legacy="avoid", fix="set avoid to true or false",
        help="Triggers: avoid the claim's action.",
        update_help="Triggers: avoid, or do, the action.",
        tool_help="Triggers only: the claim is what not to do.",
        tool_update_help="Triggers: avoid (true) or do (false) the action.",
    )] = False
    reinforcements: Annotated[int, Field(
        COUNT, json="reinforcementCount", json_at=16, file_at=10, history_at=13,
        history_name="reinforcement_count", compare_at=4, legacy="reinforcement_count",
        fix="set reinforcements to a whole number, 0 or more",
    )] = 0
    last_reinforced: Annotated[str | None, Field(
        TIME, json="lastReinforcedAt", json_at=17, file_at=13, fix=TIME_FIX,
    )] = None
    reasoning: Annotated[str | None, Field(
        SECTION, json_at=4, title="Reasoning", edit_at=4, guard_at=3, merge_at=9,
        history_at=2, compare_at=11, search_at=5, search_weight=1.0, legacy="reasoning",
        help="How you arrived at it.", get_at=1, full_at=2,
    )] = None
    context: Annotated[str | None, Field(
        SECTION, json_at=5, title="Context", edit_at=5, guard_at=4, merge_at=10,
        history_at=3, compare_at=12, search_at=4, search_weight=1.5, legacy="context",
        help="When it applies.", get_at=2, full_at=1,
    )] = None
    limitations: Annotated[str | None, Field(
        SECTION, json_at=6, title="Limitations", edit_at=6, guard_at=5, merge_at=11,
        history_at=4, compare_at=13, search_at=6, search_weight=0.5, legacy="limitations",
        help="When it breaks down.", tool_update_help="New limitations; '' clears them.",
        get_at=3, full_at=3,
    )] = None
    archived: Annotated[bool, Field(FOLDER, json_at=18)] = False
    # The contribution on Carapace this insight was promoted to or imported from.
    carapace_id: Annotated[str | None, Field(
        TEXT, json="carapaceId", json_at=12, file_at=7, merge_at=6, history_at=8,
        compare_at=8,
        fix="write the contribution's id as Carapace gives it, or remove the line",
    )] = None
    # fmt: on

    def with_changes(self, **changes: Any) -> "Insight":
        return self._replace(**changes)


def rows_of(record: type[tuple[Any, ...]]) -> tuple[Field, ...]:
    """The table: each attribute's ``Field``, named after it, in attribute order."""
    rows = []
    for name, annotation in record.__annotations__.items():
        found = [
            extra for extra in getattr(annotation, "__metadata__", ()) if isinstance(extra, Field)
        ]
        if len(found) != 1:
            raise TypeError(f"Insight.{name} needs one Field in its annotation, not {len(found)}")
        rows.append(found[0].named(name))
    return tuple(rows)


FIELDS: tuple[Field, ...] = rows_of(Insight)
