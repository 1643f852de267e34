"""chitin 1.x's store: one SQLite database, read (never written) for migration.

Every schema generation of 1.x (reference §1.4) is read: the first one had five
types and no condition, avoid or provenance columns, later ones added the history
table, triggers, embedding metadata and provenance. The rows come out in the
interchange shape (camelCase, as 1.x exported them), so the same validation as a
JSON import applies. Embeddings are left behind: they are made again.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from chitin.errors import StoreError
from chitin.model.fields import INTERCHANGE
from chitin.model.interchange import SQLITE_MAGIC
from chitin.model.original_items import settle_original

# insights column → interchange key, in the original's JSON key order (§1.2).
_COLUMNS: dict[str, str] = {column: key for key, column in INTERCHANGE if column is not None}
_HISTORY_COLUMNS: dict[str, str] = {
    "id": "id",
    "insight_id": "insightId",
    "field": "field",
    "old_value": "oldValue",
    "new_value": "newValue",
    "change_type": "changeType",
    "changed_at": "changedAt",
    "source": "source",
}


class LegacyStore(NamedTuple):
    generation: str  # the release that introduced this schema, e.g. "1.2 (provenance)"
    items: list[dict[str, Any]]
    history: list[dict[str, Any]]
    embeddings: int  # vectors left behind


def is_database(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def read_database(path: Path) -> LegacyStore:
    """Every insight and history row of a chitin 1.x database, opened read-only."""
    try:
        db = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise StoreError(f"cannot open {path}: {error}") from None
    try:
        return _read(db, path)
    except sqlite3.Error as error:
        raise StoreError(f"cannot read {path} as a chitin 1.x database: {error}") from None
    finally:
        db.close()


def _read(db: sqlite3.Connection, path: Path) -> LegacyStore:
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "insights" not in tables:
        raise StoreError(f"{path} is not a chitin 1.x database: it has no insights table")
    columns = _columns(db, "insights")
    items = [_item(row) for row in _rows(db, "insights", columns, _COLUMNS, "created_at, rowid")]
    history: list[dict[str, Any]] = []
    if "insight_history" in tables:
        history = _rows(
            db,
            "insight_history",
            _columns(db, "insight_history"),
            _HISTORY_COLUMNS,
            "changed_at, id",
        )
    embeddings = 0
    if "insight_embeddings" in tables:
        embeddings = db.execute("SELECT count(*) FROM insight_embeddings").fetchone()[0]
    return LegacyStore(_generation(db, tables, columns), items, history, embeddings)


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


def _rows(
    db: sqlite3.Connection,
    table: str,
    present: set[str],
    names: Mapping[str, str],
    order: str,
) -> list[dict[str, Any]]:
    chosen = [column for column in names if column in present]
    sql = f"SELECT {', '.join(chosen)} FROM {table} ORDER BY {order}"
    return [
        {names[column]: value for column, value in zip(chosen, row, strict=True)}
        for row in db.execute(sql)
    ]


def _item(row: dict[str, Any]) -> dict[str, Any]:
    """A row as 1.x exported it: tags parsed, NULL fields left out, avoid a boolean."""
    item = {key: value for key, value in row.items() if value is not None}
    tags = item.get("tags")
    if isinstance(tags, str):
        try:
            item["tags"] = json.loads(tags)
        except json.JSONDecodeError:
            item["tags"] = [tags]  # not JSON: keep the text rather than lose it
    return settle_original(item)


def _generation(db: sqlite3.Connection, tables: set[str], columns: set[str]) -> str:
    """The 1.x release whose schema this is (§1.4's generations)."""
    if "provenance" in columns:
        return "1.2 (provenance)"
    if "embedding_metadata" in tables:
        return "0.2 (embedding metadata)"
    row = db.execute("SELECT sql FROM sqlite_master WHERE name='insights'").fetchone()
    if row and "'trigger'" in (row[0] or "") and "condition" in columns:
        return "0.1.2 (triggers)"
    if "insight_history" in tables:
        return "0.1 (history)"
    return "0.1.0 (five types)"
