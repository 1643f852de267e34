"""Every list of the insight's fields, derived from its table.

The table is ``Insight``'s annotations (model/record.py): each attribute with its
``Field`` row (model/field_spec.py). Every list of fields elsewhere (the file's keys
and sections, the JSON keys, what ``contribute`` and ``update`` accept, what is
guarded for secrets, what the merge driver merges as a plain value, what history and
``diff`` report, what the full-text index searches, the 1.x columns, how ``check``
says to fix a field) is derived here. How a value is checked stays code
(``model/insight.py``); the table says *which* fields, under *which* names, in
*which* order.

Two lists that name the same fields may order them differently (JSON puts the texts
after the claim, the file puts them in the body), and output must not change. So each
purpose has its own position attribute (``*_at``, counting from 1): the list for that
purpose holds the fields that have a position, in position order; None leaves a
field out of it.

The front ends are derived from it too: contribute's and update's flags (cli/fields.py)
and the MCP tools' parameters (server/tools.py) are the editable fields (``edit_at``),
said in the words of ``help`` and its variants (``flag_help``, ``tool_help``); the
labelled lines of get's text and of retrieve's full format are ``get_at`` and
``full_at``; the cache's columns, and the version its file is stamped with, are the
table's fields (index/db.py, index/rows.py).

Adding a field: one attribute in ``Insight``, with its row, and its check where it is
read. tests/test_field_added.py adds a text field to a copy of the package that way
and follows it through every front end.
"""

from __future__ import annotations

# The table's vocabulary, imported from here by the modules that read the lists.
from chitin.model.field_spec import CLAIM as CLAIM
from chitin.model.field_spec import COUNT as COUNT
from chitin.model.field_spec import FLAG as FLAG
from chitin.model.field_spec import FOLDER as FOLDER
from chitin.model.field_spec import LIST as LIST
from chitin.model.field_spec import NUMBER as NUMBER
from chitin.model.field_spec import PROVENANCES as PROVENANCES
from chitin.model.field_spec import SECTION as SECTION
from chitin.model.field_spec import TEXT as TEXT
from chitin.model.field_spec import TIME as TIME
from chitin.model.field_spec import TYPES as TYPES
from chitin.model.field_spec import WORD as WORD
from chitin.model.field_spec import Field as Field
from chitin.model.record import FIELDS as FIELDS

BY_NAME: dict[str, Field] = {field.name: field for field in FIELDS}


def ordered(position: str) -> tuple[Field, ...]:
    """The fields that have a ``position`` (a ``*_at`` attribute), in its order."""
    placed = [field for field in FIELDS if getattr(field, position) is not None]
    return tuple(sorted(placed, key=lambda field: int(getattr(field, position))))


def names(position: str) -> tuple[str, ...]:
    return tuple(field.name for field in ordered(position))


JSON_FIELDS = ordered("json_at")
FILE_FIELDS = ordered("file_at")  # the frontmatter's keys, in line order
SECTION_FIELDS = tuple(field for field in FIELDS if field.form == SECTION)  # body order
EDITABLE_FIELDS = ordered("edit_at")
EDITABLE = tuple(field.name for field in EDITABLE_FIELDS)
REQUIRED = tuple(field.name for field in EDITABLE_FIELDS if field.required)
# The texts contribute may set, each optional and checked as text alone (the readers
# of a file and of an export read them alike), in the order of Insight's attributes.
FREE_TEXTS = tuple(field for field in FIELDS if field.edit_at and field.form in (TEXT, SECTION))
GUARDED = names("guard_at")
MERGED_AS_SCALAR = names("merge_at")
HISTORY = tuple(field.history_name or field.name for field in ordered("history_at"))
COMPARED = names("compare_at")
# The full-text columns and their default BM25 weights, in column order (index/ and
# retrieval/scoring.py use these).
SEARCHED = names("search_at")
SEARCH_WEIGHTS: dict[str, float] = {
    field.name: field.search_weight or 1.0 for field in ordered("search_at")
}

# Interchange carries one value that is not a field: when the insight was last
# retrieved (the cache keeps it, outside git). It follows the reinforcement count,
# in the JSON and in a 1.x database's columns.
LAST_RETRIEVED_KEY = "lastRetrievedAt"
LAST_RETRIEVED_COLUMN = "last_retrieved_at"
LAST_RETRIEVED_AFTER = BY_NAME["reinforcements"]


def _interchange() -> tuple[tuple[str, str | None], ...]:
    pairs: list[tuple[str, str | None]] = []
    for field in JSON_FIELDS:
        pairs.append((field.json, field.legacy))
        if field is LAST_RETRIEVED_AFTER:
            pairs.append((LAST_RETRIEVED_KEY, LAST_RETRIEVED_COLUMN))
    return tuple(pairs)


# (JSON key, 1.x column or None), in the interchange order.
INTERCHANGE: tuple[tuple[str, str | None], ...] = _interchange()


def label(field: Field) -> str:
    """What people read the field as, before its value: "Reasoning: …", "Source: …"."""
    return field.title or field.name.replace("_", " ").capitalize()


def flag_help(field: Field, updating: bool) -> str:
    """The --help line of the field's flag, for contribute or for update."""
    if updating:
        return field.update_help or f"New {field.name} ('' clears it)."
    return field.help or f"The {field.name}."


def tool_help(field: Field, updating: bool) -> str:
    """The description of the field's parameter, in the MCP contribute or update tool."""
    if updating:
        return field.tool_update_help or f"New {field.name}; '' clears it."
    return field.tool_help or flag_help(field, False)


def metavar(field: Field) -> str | None:
    """What a flag's value is, in --help: the choices of a word, a number's range."""
    if field.form == WORD:
        return "|".join(field.choices)
    return "0..1" if field.form == NUMBER else None
