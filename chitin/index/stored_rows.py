"""The sidecar's rows of whole texts, read without opening it for writing: ``check``
is a linter and never makes or repairs ``.chitin/`` (chitin.search.stored)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from chitin.index.vector_files import FOLDER, INDEX


class Unreadable(Exception):
    """The sidecar's index cannot be read (damaged, locked): judge by words."""


def whole_text_rows(chitin_dir: Path) -> tuple[dict[str, tuple[str, int]], str] | None:
    """id → (hash of its embedding text, row) of every part-0 row, and the provider
    identity of the rows; None if there is no sidecar."""
    index = chitin_dir / FOLDER / INDEX
    if not index.is_file():
        return None
    try:
        db = sqlite3.connect(f"file:{index}?mode=ro", uri=True)
        try:
            found = db.execute("SELECT value FROM meta WHERE key = 'identity'").fetchone()
            rows = db.execute("SELECT id, hash, row FROM rows WHERE part = 0 AND id IS NOT NULL")
            return {i: (h, r) for i, h, r in rows}, str(found[0]) if found else ""
        finally:
            db.close()
    except sqlite3.Error as error:
        raise Unreadable(str(error)) from None
