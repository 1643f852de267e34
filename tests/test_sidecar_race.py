"""Session starts run in parallel (issue 10: "the session start never fails"): what one
command does to a damaged vector sidecar, the others may be reading or doing too. Each
test holds the state a race made, at the exact point it made it: a second sidecar open
as another command holds it, or the sidecar's lock held while the damage is put right.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from chitin.index.vector_files import INDEX, SCHEMA_VERSION, open_index


def test_tables_another_command_is_making_are_not_made_twice(tmp_path: Path) -> None:
    """Two commands open a new index at once: the second waits for the first's
    tables, and keeps them (it dropped them, or failed as "table meta already exists",
    when both made them statement by statement)."""
    path = tmp_path / INDEX
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("PRAGMA journal_mode = WAL")
    other.execute("BEGIN IMMEDIATE")
    other.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    opened: list[sqlite3.Connection] = []
    waiting = threading.Thread(target=lambda: opened.append(open_index(path)))
    waiting.start()
    waiting.join(0.5)  # it reads version 0, and waits for the other's transaction
    fresh = open_index(tmp_path / "schema.sqlite3")
    for (statement,) in fresh.execute("SELECT sql FROM sqlite_master WHERE name != 'meta'"):
        if statement:
            other.execute(statement)
    fresh.close()
    other.execute("INSERT INTO meta VALUES ('identity', 'the other''s')")
    other.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    other.execute("COMMIT")
    waiting.join()
    [db] = opened
    found = db.execute("SELECT value FROM meta WHERE key = 'identity'").fetchone()
    assert found == ("the other's",)
    db.close()
    other.close()
