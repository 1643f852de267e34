"""An insight as a row of the cache's ``entries`` table, and back.

The insight's columns are named as its fields, in their order (``Insight._fields``),
so that a row becomes an insight in one step (``to_insight``). A row also holds the
file's path, folder, stat and read error before them, and the insight's strength and
text hash after.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from chitin.model.insight import Insight

INSIGHT_COLUMNS = ", ".join(Insight._fields)
ROW_COLUMNS = [
    *["path", "dir", "mtime_ns", "ctime_ns", "size", "inode", "error"],
    *Insight._fields,
    "strength",
    "text_hash",
]
INSIGHT_VALUES = len(ROW_COLUMNS) - 7  # the insight's columns, strength and text hash
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
    tags: tuple[str, ...] = ()  # any of them, whole tags, ignoring (ASCII) case

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
            held = f"lower(char(10) || {prefix}tags || char(10))"
            clauses.append("(" + " OR ".join(f"instr({held}, ?) > 0" for _ in self.tags) + ")")
            args.extend(f"\n{tag.lower()}\n" for tag in self.tags)
        return " AND ".join(clauses), args


LIVE = Filters()


def row_values(insight: Insight) -> tuple[Any, ...]:
    """The insight's columns, in INSIGHT_COLUMNS order."""
    return (
        insight.id,
        insight.type,
        insight.claim,
        insight.confidence,
        insight.created,
        insight.updated,
        TAG_SEPARATOR.join(insight.tags),
        insight.provenance,
        insight.source,
        insight.condition,
        int(insight.avoid),
        insight.reinforcements,
        insight.last_reinforced,
        insight.reasoning,
        insight.context,
        insight.limitations,
        int(insight.archived),
        insight.carapace_id,
    )


_new_tuple = tuple.__new__


def to_insight(row: tuple[Any, ...]) -> Insight:
    """The insight of a row's INSIGHT_COLUMNS (``row_values`` undone)."""
    # Positional and without a Python-level __new__: `list` runs this 100,000 times.
    tags = row[6]
    return _new_tuple(
        Insight,
        (
            row[0],
            row[1],
            row[2],
            row[3],
            row[4],
            row[5],
            tuple(tags.split(TAG_SEPARATOR)) if tags else (),
            row[7],
            row[8],
            row[9],
            row[10] == 1,
            row[11],
            row[12],
            row[13],
            row[14],
            row[15],
            row[16] == 1,
            row[17],
        ),
    )
