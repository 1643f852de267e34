"""When insights were last retrieved: kept in ``.chitin/usage.sqlite3``, never in git.

Retrieval happens at the start of every session on every machine; committing it would
flood the history and make every sync conflict. Unlike the cache this cannot be
rebuilt from the files, so it lives in its own small file that cache rebuilds leave alone.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path

USAGE_FILE = "usage.sqlite3"
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS retrieved (id TEXT PRIMARY KEY, last TEXT NOT NULL, "
    "times INTEGER NOT NULL)"
)


def _connect(root: Path) -> sqlite3.Connection:
    db = sqlite3.connect(str(root / ".chitin" / USAGE_FILE), timeout=10, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute(_SCHEMA)
    return db


def record(root: Path, ids: Iterable[str], when: str) -> bool:
    """Note that ``ids`` were retrieved at ``when``. False if it could not be written."""
    return record_times(root, ((insight_id, when) for insight_id in ids))


def record_times(root: Path, times: Iterable[tuple[str, str]]) -> bool:
    """Note each (id, time) retrieval; an earlier time never replaces a later one."""
    rows = list(times)
    if not rows:
        return True
    try:
        db = _connect(root)
        try:
            db.executemany(
                "INSERT INTO retrieved (id, last, times) VALUES (?, ?, 1) ON CONFLICT (id) "
                "DO UPDATE SET last = max(last, excluded.last), times = times + 1",
                rows,
            )
        finally:
            db.close()
    except (sqlite3.Error, OSError):
        return False
    return True


def last_retrieved(root: Path, insight_id: str) -> str | None:
    return _read(root, "SELECT id, last FROM retrieved WHERE id = ?", (insight_id,)).get(insight_id)


def all_last_retrieved(root: Path) -> dict[str, str]:
    """id → the last time it was retrieved, for every insight ever retrieved here."""
    return _read(root, "SELECT id, last FROM retrieved", ())


def _read(root: Path, sql: str, args: tuple[str, ...]) -> dict[str, str]:
    if not (root / ".chitin" / USAGE_FILE).exists():
        return {}
    try:
        db = _connect(root)
        try:
            return dict(db.execute(sql, args).fetchall())
        finally:
            db.close()
    except (sqlite3.Error, OSError):
        return {}
