"""An insight as a row of the cache's ``entries`` table, and back.

The insight's columns are model/fields.py's fields, named and ordered as the table
(and ``Insight``) has them, so that a row becomes an insight in one step
(``to_insight``). A row also holds the file's path, folder, stat and read error before
them, and the insight's strength and text hash after. Most values are kept as Python
holds them; the tags (a newline-separated text) and the flags (0 or 1) are converted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from chitin.model.fields import FIELDS, FLAG, FOLDER, LIST
from chitin.model.insight import Insight, tag_key

INSIGHT_FIELDS = tuple(field.name for field in FIELDS)
INSIGHT_COLUMNS = ", ".join(INSIGHT_FIELDS)
ROW_COLUMNS = [
    *["path", "dir", "mtime_ns", "ctime_ns", "size", "inode", "error"],
    *INSIGHT_FIELDS,
    "strength",
    "text_hash",
    "tag_keys",
]
INSIGHT_VALUES = len(ROW_COLUMNS) - 7  # the insight's columns, strength, hash, tag keys
INSERT = (
    f"INSERT INTO entries ({', '.join(ROW_COLUMNS)}) VALUES ({', '.join('?' * len(ROW_COLUMNS))})"
)
UPDATE = f"UPDATE entries SET {', '.join(f'{c} = ?' for c in ROW_COLUMNS)} WHERE rowid = ?"
TAG_SEPARATOR = "\n"  # tags never hold a newline: parse_tags folds white space


class Filters(NamedTuple):
    """Which insights a query looks at; the default is every live (unarchived) one."""

    archived: bool | None = False
    types: tuple[str, ...] = ()
    provenance: str | None = None
    min_confidence: float | None = None
    tags: tuple[str, ...] = ()  # any of them, whole tags, compared by tag_key

    def sql(self, prefix: str = "") -> tuple[str, list[Any]]:
        clauses = [f"{prefix}error IS NULL"]
        args: list[Any] = []
        if self.archived is not None:
            clauses.append(f"{prefix}archived = ?")
            args.append(int(self.archived))
        if self.types:
            clauses.append(f"{prefix}type IN ({', '.join('?' * len(self.types))})")
            args.extend(self.types)
        if self.provenance is not None:
            clauses.append(f"{prefix}provenance = ?")
            args.append(self.provenance)
        if self.min_confidence is not None:
            clauses.append(f"{prefix}confidence >= ?")
            args.append(self.min_confidence)
        if self.tags:
            # Each row's tags as tag_key made them when it was written (tag_keys): SQLite's
            # lower() folds ASCII alone, and "über" never matched a stored "Über".
            held = f"(char(10) || {prefix}tag_keys || char(10))"
            clauses.append("(" + " OR ".join(f"instr({held}, ?) > 0" for _ in self.tags) + ")")
            args.extend(f"\n{tag_key(tag)}\n" for tag in self.tags)
        return " AND ".join(clauses), args


LIVE = Filters()


# Where the converted values are, among the insight's columns (the table's forms).
_WIDTH = len(FIELDS)
_LIST_AT = tuple(at for at, field in enumerate(FIELDS) if field.form == LIST)
_FLAG_AT = tuple(at for at, field in enumerate(FIELDS) if field.form in (FLAG, FOLDER))


def row_values(insight: Insight) -> tuple[Any, ...]:
    """The insight's columns, in INSIGHT_COLUMNS order."""
    values: list[Any] = list(insight)
    for at in _LIST_AT:
        values[at] = TAG_SEPARATOR.join(values[at])
    for at in _FLAG_AT:
        values[at] = int(values[at])
    return tuple(values)


def tag_keys(insight: Insight) -> str:
    """The ``tag_keys`` column: the insight's tags by ``tag_key``, one a line."""
    return TAG_SEPARATOR.join(tag_key(tag) for tag in insight.tags)


def _column_value(at: int) -> str:
    """The expression of the insight's value at ``at`` in ``row``, in to_insight's code."""
    if at in _LIST_AT:
        return f"(tuple(row[{at}].split(SEPARATOR)) if row[{at}] else ())"
    return f"row[{at}] == 1" if at in _FLAG_AT else f"row[{at}]"


def _row_reader() -> Callable[[tuple[Any, ...]], Insight]:
    """to_insight, written out from the table as plain positional code (as
    ``collections.namedtuple`` writes its ``__new__``): ``list`` runs it 100,000
    times, and a loop over the converted columns made each call ~40% dearer (0.4 to
    0.6 µs). Compiling it costs ~80 µs, once per process that reads the cache."""
    values = ", ".join(_column_value(at) for at in range(_WIDTH))
    # Without a Python-level __new__: tuple.__new__ builds the Insight directly.
    source = f"def to_insight(row):\n    return new(Insight, ({values}))\n"
    scope: dict[str, Any] = {"new": tuple.__new__, "Insight": Insight, "SEPARATOR": TAG_SEPARATOR}
    exec(compile(source, "<chitin.index.rows: to_insight>", "exec"), scope)
    reader: Callable[[tuple[Any, ...]], Insight] = scope["to_insight"]
    reader.__doc__ = "The insight of a row's INSIGHT_COLUMNS (``row_values`` undone)."
    return reader


to_insight = _row_reader()
