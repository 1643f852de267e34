"""The join of the vector sidecar with the cache: which rows are current for the
insights a filter passes, and how many insights have no row yet. Plain SQL over the
attached index, without numpy."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from chitin.index.rows import LIVE, Filters


def current_rows(db: sqlite3.Connection, index: Path, filters: Filters = LIVE) -> list[int]:
    """Rows of the vector sidecar (at ``index``) whose insight in the cache ``db``
    passes ``filters`` and whose text is still the one embedded: one join, however
    large the store."""
    where, args = filters.sql("entries.")
    db.execute("ATTACH DATABASE ? AS vectors", (_attached(index),))
    try:
        rows = db.execute(
            f"SELECT r.row FROM vectors.rows r CROSS JOIN entries INDEXED BY entries_id "
            f"ON entries.id = r.id AND entries.text_hash = r.hash WHERE {where}",
            args,
        )
        return [row for (row,) in rows]
    finally:
        db.execute("DETACH DATABASE vectors")


def unembedded(db: sqlite3.Connection, index: Path) -> int:
    """How many insights in the cache ``db`` (archived ones too, as ``refresh`` embeds
    them) have no row in the vector sidecar at ``index`` for their current text."""
    where, args = Filters(archived=None).sql("entries.")
    db.execute("ATTACH DATABASE ? AS vectors", (_attached(index),))
    try:
        row = db.execute(
            f"SELECT count(*) FROM entries LEFT JOIN vectors.rows r "
            f"ON r.id = entries.id AND r.part = 0 AND r.hash = entries.text_hash "
            f"WHERE {where} AND r.row IS NULL",
            args,
        ).fetchone()
        return int(row[0])
    finally:
        db.execute("DETACH DATABASE vectors")


def _attached(index: Path) -> str:
    """The index as ATTACH names it: in a folder that cannot be written (a read-only
    store), only to be read, as vector_files opens it (the WAL's ``-shm`` file cannot
    be made there)."""
    if os.access(index.parent, os.W_OK) or not index.exists():
        return str(index)
    return f"{index.absolute().as_uri()}?mode=ro&immutable=1"
