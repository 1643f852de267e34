"""The vector sidecar's state put right, under the sidecar's lock: the rows of another
identity dropped, a matrix cut short or half written, and a damaged sidecar thrown
away (vectors.py holds the rows; vector_files.py the files).

Session starts run in parallel (an agent host starts several at once), and each may
find the same damage: what one command puts right, the others may be reading. So every
change to the sidecar's state holds its lock and is decided again there, on what the
files hold then, and a damaged matrix is emptied in place, its sound index kept: a
command that deleted the files another had just made again broke that one's reading
("table meta already exists", a matrix gone, a malformed index: issue 10).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from chitin.index.db import file_identity, make_room
from chitin.index.vector_files import (
    FOLDER,
    INDEX,
    LOCK,
    MATRIX,
    delete_files,
    open_index,
    row_bytes,
)
from chitin.lockfile import WriteLock
from chitin.notices import notice


class Sidecar(Protocol):
    """What this module uses of vectors.py's VectorStore (a protocol: vectors.py
    imports this module)."""

    folder: Path
    identity: str
    dimensions: int
    db: sqlite3.Connection
    opened: tuple[int, int] | None

    def note(self, key: str) -> str | None: ...


def adopt_identity(store: Sidecar, before_switch: Callable[[], object] | None = None) -> None:
    """Rows of another provider, model or dimension are all stale: drop them, once
    ``before_switch`` has run. So are all rows when the matrix is shorter than the
    rows its index names. A row half appended by a write that was killed is cut
    off: no index entry names it yet."""
    stored, rows = _held(store.db)
    if before_switch is not None and rows and stored is not None and stored != store.identity:
        before_switch()  # a provider that cannot embed must not cost the vectors held
    size = _matrix_size(store)
    expected = row_bytes(store.dimensions)
    if stored != store.identity or size < rows * expected or size % expected:
        with WriteLock(store.folder / LOCK):  # and asked again: another may have done it
            put_right(store)


def put_right(store: Sidecar) -> None:
    """``adopt_identity``'s changes, the sidecar's lock held (a writer appending a row
    is not cut short, nor are rows another command wrote meanwhile dropped)."""
    stored, rows = _held(store.db)
    matrix = store.folder / MATRIX
    size = _matrix_size(store)
    expected = row_bytes(store.dimensions)
    short = size < rows * expected
    if stored != store.identity or short:
        # Asked before the unlink: afterwards the matrix never exists, and a cut-short
        # matrix was rebuilt without a word (issue 10: one warning line per damage).
        cut_short = short and stored == store.identity and matrix.exists()
        with store.db:
            reset(store.db, store.identity)
        matrix.unlink(missing_ok=True)
        if cut_short:
            notice(f".chitin/{FOLDER}/{MATRIX} was cut short; its vectors are made again")
    elif size % expected:
        os.truncate(matrix, size - size % expected)


def discard(store: Sidecar, matrix_only: bool, emptied: str | None) -> None:
    """Throw every vector away, the sidecar's lock held. A sidecar another command made
    again meanwhile is opened, not thrown away too. A damaged matrix (``matrix_only``:
    the index read soundly) is emptied in place, so that the index other commands have
    open stays the sidecar's, unless another command emptied it since it was read
    (``emptied``: the index's mark then); a damaged index is deleted and made again."""
    index = store.folder / INDEX
    with WriteLock(store.folder / LOCK):
        if file_identity(index) != store.opened:  # made again meanwhile by another command
            store.db.close()
            store.db = open_index(index, locked=True)
        elif matrix_only:
            if store.note("emptied") == emptied:  # else: emptied, and perhaps filled, since
                with store.db:
                    reset(store.db, store.identity)
                make_room(store.folder / MATRIX)  # a folder or a link in its place
                (store.folder / MATRIX).unlink(missing_ok=True)
        else:
            store.db.close()
            delete_files(store.folder)
            store.db = open_index(index, locked=True)
        put_right(store)
        store.opened = file_identity(index)


def reset(db: sqlite3.Connection, identity: str) -> None:
    """No row, of ``identity``: in the caller's transaction, which empties the matrix
    then, and marks it (``discard``; an inode number is no mark: a new file takes the
    one freed)."""
    db.execute("DELETE FROM rows")
    db.execute("INSERT OR REPLACE INTO meta VALUES ('identity', ?)", (identity,))
    db.execute("INSERT OR REPLACE INTO meta VALUES ('emptied', ?)", (os.urandom(8).hex(),))
    changed(db)


def changed(db: sqlite3.Connection) -> None:
    """A new generation: answers remembered for the old rows no longer hold."""
    db.execute("INSERT OR REPLACE INTO meta VALUES ('generation', ?)", (os.urandom(8).hex(),))


def _held(db: sqlite3.Connection) -> tuple[str | None, int]:
    """The identity the index names, and how many rows it names."""
    stored = db.execute("SELECT value FROM meta WHERE key = 'identity'").fetchone()
    # max(row) reads one end of the primary key; count(*) scanned 100,000 rows.
    rows = db.execute("SELECT coalesce(max(row) + 1, 0) FROM rows").fetchone()[0]
    return (None if stored is None else str(stored[0])), int(rows)


def _matrix_size(store: Sidecar) -> int:
    try:
        return (store.folder / MATRIX).stat().st_size
    except FileNotFoundError:
        return 0
