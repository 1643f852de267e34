"""The insight's fields, each declared once with everything the other modules need.

Every list of fields elsewhere (the file's keys and sections, the JSON keys, what
``contribute`` and ``update`` accept, what is guarded for secrets, what the merge
driver merges as a plain value, what history and ``diff`` report, what the full-text
index searches, the 1.x columns, how ``check`` says to fix a field) is derived from
``FIELDS`` below. How a value is checked stays code (``model/insight.py``); this table
says *which* fields, under *which* names, in *which* order.

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

Adding a field: one row here, the attribute in ``Insight`` (docs/architecture.md says
why that one stays by hand), and its check where it is read. ``tests/test_fields.py``
fails until the row and ``Insight`` agree; tests/test_field_added.py adds a text field
to a copy of the package and follows it through every front end.
"""

from __future__ import annotations

TYPES: tuple[str, ...] = (
    "behavioral",
    "personality",
    "relational",
    "principle",
    "skill",
    "trigger",
)
PROVENANCES: tuple[str, ...] = (
    "directive",
    "observation",
    "social",
    "correction",
    "reflection",
    "external",
)

# How a value is written and read, in the file and in general:
TEXT = "text"  # one line of text, a YAML scalar in the frontmatter (omitted when None)
WORD = "word"  # one of ``choices``, written as it is
NUMBER = "number"  # a float (confidence)
COUNT = "count"  # a whole number, 0 or more
FLAG = "flag"  # true or false
TIME = "time"  # a canonical UTC timestamp
LIST = "list"  # a block list of texts (tags)
CLAIM = "claim"  # the body's first paragraph
SECTION = "section"  # a "## Title" section of the body
FOLDER = "folder"  # not in the file: known from the folder it is in (archived)

_TIME_FIX = "write a time such as 2026-11-29T12:00:00Z"


class Field:
    """One field of an insight.

    ``name`` is the ``Insight`` attribute, the frontmatter key, the cache column and
    the name an error gives (``ValidationError.field``). A plain class, not a
    NamedTuple: building a NamedTuple class costs ~0.3 ms, on every command's start.
    """

    __slots__ = (  # noqa: RUF023 (in the order of __init__)
        "name", "json", "form", "json_at", "file_at", "title", "choices", "edit_at",
        "guard_at", "merge_at", "history_at", "history_name", "compare_at", "search_at",
        "search_weight", "legacy", "fix", "required", "help", "update_help", "tool_help",
        "tool_update_help", "get_at", "full_at",
    )  # fmt: skip

    def __init__(
        self,
        name: str,
        json: str,  # the interchange (export, --format json) key
        form: str,  # TEXT, WORD, …
        *,
        json_at: int,  # its place in the JSON object (every field is in it)
        file_at: int | None = None,  # its frontmatter line; None: in the body, or not in the file
        title: str | None = None,  # the body section's title (form SECTION)
        choices: tuple[str, ...] = (),  # the values allowed (form WORD)
        edit_at: int | None = None,  # contribute and update may set it, in this order
        guard_at: int | None = None,  # scanned for likely secrets before a write
        merge_at: int | None = None,  # merged as a plain value by the merge driver
        history_at: int | None = None,  # reported by history, field by field
        history_name: str | None = None,  # its name there, when not ``name`` (the original's)
        compare_at: int | None = None,  # compared by ``chitin diff``
        search_at: int | None = None,  # a full-text column
        search_weight: float | None = None,  # its default BM25 weight (relevance_weights)
        legacy: str | None = None,  # its column in a chitin 1.x database
        fix: str | None = None,  # how ``chitin check`` tells a person to fix it
        required: bool = False,  # contribute needs it (update never does)
        # What the front ends say of an editable field (see flag_help and tool_help):
        help: str | None = None,  # contribute's --help, and its MCP description
        update_help: str | None = None,  # update's --help
        tool_help: str | None = None,  # the MCP contribute tool's, when not ``help``
        tool_update_help: str | None = None,  # the MCP update tool's
        # Where people read it, under its label (``label``: the section's title, or
        # the name): a line of get's text (the body's sections before the numbers,
        # the other fields after the tags, as 1.4.5 prints them), and a line under
        # the claim in retrieve's full format.
        get_at: int | None = None,
        full_at: int | None = None,
    ) -> None:
        self.name = name
        self.json = json
        self.form = form
        self.json_at = json_at
        self.file_at = file_at
        self.title = title
        self.choices = choices
        self.edit_at = edit_at
        self.guard_at = guard_at
        self.merge_at = merge_at
        self.history_at = history_at
        self.history_name = history_name
        self.compare_at = compare_at
        self.search_at = search_at
        self.search_weight = search_weight
        self.legacy = legacy
        self.fix = fix
        self.required = required
        self.help = help
        self.update_help = update_help
        self.tool_help = tool_help
        self.tool_update_help = tool_update_help
        self.get_at = get_at
        self.full_at = full_at

    def __repr__(self) -> str:
        return f"Field({self.name!r})"


# In the order of Insight's attributes, which is also the cache's column order.
# fmt: off
FIELDS: tuple[Field, ...] = (
    Field(
        "id", "id", TEXT, json_at=1, file_at=1, guard_at=8, merge_at=1, legacy="id",
        fix="use only letters, digits, '-', '_' and '.', and name the file <id>.md",
    ),
    Field(
        "type", "type", WORD, json_at=2, file_at=2, choices=TYPES, edit_at=1, merge_at=2,
        history_at=12, compare_at=1, legacy="type", fix="set type to one of them",
        required=True, help="The kind of insight.",
        update_help="Change the type (moves the file).",
        tool_update_help="A new type (moves the file).",
    ),
    Field(
        "claim", "claim", CLAIM, json_at=3, edit_at=2, guard_at=1, merge_at=3, history_at=1,
        compare_at=2, search_at=1, search_weight=4.0, legacy="claim",
        fix="write the claim as the first paragraph after the closing '---'",
        required=True, help="The insight itself, one sentence.", update_help="New claim.",
        tool_help="The insight itself: one sentence of guidance.", tool_update_help="A new claim.",
    ),
    Field(
        "confidence", "confidence", NUMBER, json_at=7, file_at=3, edit_at=3, history_at=5,
        compare_at=3, legacy="confidence", fix="set confidence to a number from 0 to 1",
        required=True, help="How sure you are, from 0 to 1.",
        update_help="New confidence, from 0 to 1.",
        tool_update_help="A new confidence, from 0 to 1.",
    ),
    Field("created", "createdAt", TIME, json_at=14, file_at=11, legacy="created_at", fix=_TIME_FIX),
    Field("updated", "updatedAt", TIME, json_at=15, file_at=12, legacy="updated_at", fix=_TIME_FIX),
    Field(
        "tags", "tags", LIST, json_at=8, file_at=4, edit_at=7, guard_at=7, history_at=6,
        compare_at=5, search_at=3, search_weight=2.0, legacy="tags",
        fix="list the tags as text, one '- tag' line each",
        help="Comma-separated tags.", update_help="New comma-separated tags ('' clears them).",
        tool_help='Tags, such as ["testing", "git"].', tool_update_help="New tags; [] clears them.",
    ),
    Field(
        "provenance", "provenance", WORD, json_at=10, file_at=5, choices=PROVENANCES, edit_at=9,
        merge_at=4, history_at=9, compare_at=6, legacy="provenance",
        fix="set provenance to one of them, or remove the line", help="How it was learned.",
        get_at=4,
    ),
    Field(
        "source", "source", TEXT, json_at=9, file_at=6, edit_at=8, guard_at=6, merge_at=5,
        history_at=7, compare_at=7, legacy="source", fix="make source one line of text",
        help="The experience it came from.", get_at=5,
    ),
    # How to fix a condition depends on the error (model/insight.check_trigger_fields):
    # format/lint.py says it.
    Field(
        "condition", "condition", TEXT, json_at=11, file_at=8, edit_at=10, guard_at=2,
        merge_at=7, history_at=10, compare_at=9, search_at=2, search_weight=3.0,
        legacy="condition", help='Triggers: the situation ("when …").',
        update_help="Triggers: new condition.",
        tool_help='Triggers only: the situation ("when …").',
        tool_update_help="Triggers: a new condition.",
    ),
    Field(
        "avoid", "avoid", FLAG, json_at=13, file_at=9, edit_at=11, merge_at=8, history_at=11,
        compare_at=10, legacy="avoid", fix="set avoid to true or false",
        help="Triggers: avoid the claim's action.",
        update_help="Triggers: avoid, or do, the action.",
        tool_help="Triggers only: the claim is what not to do.",
        tool_update_help="Triggers: avoid (true) or do (false) the action.",
    ),
    Field(
        "reinforcements", "reinforcementCount", COUNT, json_at=16, file_at=10, history_at=13,
        history_name="reinforcement_count", compare_at=4, legacy="reinforcement_count",
        fix="set reinforcements to a whole number, 0 or more",
    ),
    Field("last_reinforced", "lastReinforcedAt", TIME, json_at=17, file_at=13, fix=_TIME_FIX),
    Field(
        "reasoning", "reasoning", SECTION, json_at=4, title="Reasoning", edit_at=4, guard_at=3,
        merge_at=9, history_at=2, compare_at=11, search_at=5, search_weight=1.0,
        legacy="reasoning", help="How you arrived at it.", get_at=1, full_at=2,
    ),
    Field(
        "context", "context", SECTION, json_at=5, title="Context", edit_at=5, guard_at=4,
        merge_at=10, history_at=3, compare_at=12, search_at=4, search_weight=1.5,
        legacy="context", help="When it applies.", get_at=2, full_at=1,
    ),
    Field(
        "limitations", "limitations", SECTION, json_at=6, title="Limitations", edit_at=6,
        guard_at=5, merge_at=11, history_at=4, compare_at=13, search_at=6, search_weight=0.5,
        legacy="limitations", help="When it breaks down.",
        tool_update_help="New limitations; '' clears them.", get_at=3, full_at=3,
    ),
    Field("archived", "archived", FOLDER, json_at=18),
    Field(
        "carapace_id", "carapaceId", TEXT, json_at=12, file_at=7, merge_at=6, history_at=8,
        compare_at=8,
        fix="write the contribution's id as Carapace gives it, or remove the line",
    ),
)
# fmt: on

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
