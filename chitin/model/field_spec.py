"""What a row of the insight's field table says, and the words its values may take.

The table itself is ``Insight``'s annotations (model/record.py): each attribute is
declared once, with its Python type and its ``Field``. model/fields.py derives every
list of fields from it.
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

TIME_FIX = "write a time such as 2026-11-29T12:00:00Z"


class Field:
    """One field of an insight: a row of the table that ``Insight``'s annotations are.

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
        form: str,  # TEXT, WORD, …
        *,
        json: str | None = None,  # the interchange (export, --format json) key, if not the name
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
        self.name = ""  # the attribute's, given by ``named``
        self.json = json or ""
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

    def named(self, name: str) -> Field:
        """The row, given the name of the ``Insight`` attribute it annotates (once,
        when model/record.py builds the table)."""
        self.name = name
        self.json = self.json or name
        return self

    def __repr__(self) -> str:
        return f"Field({self.name!r})"
