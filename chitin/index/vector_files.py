"""The vector sidecar's files under ``.chitin/vectors/``: their names, the index's
schema, and the index opened, or made again when it is damaged or of an older schema
(vectors.py holds what is in them)."""

from __future__ import annotations

import array
import contextlib
import os
import sqlite3
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from chitin.index.db import check_schema, expected_schema, is_damage, is_unwritable, make_room
from chitin.lockfile import WriteLock, try_lock, unlock
from chitin.model.vector_math import dot, float32_row
from chitin.notices import notice

if TYPE_CHECKING:  # numpy loads only where a search maps the matrix
    import numpy as np

FOLDER = "vectors"
MATRIX = "matrix.f32"
INDEX = "index.sqlite3"
LOCK = "lock"
# 4: parts; 5: the reasoning is a part too. A sidecar of an older version is dropped
# and made again, once: its rows lack the parts of insights whose text did not change.
SCHEMA_VERSION = 5

_SCHEMA = f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE rows (row INTEGER PRIMARY KEY, id TEXT, part INTEGER, hash TEXT,
                   UNIQUE (id, part));
CREATE TABLE queries (identity TEXT, text TEXT, vector BLOB, used INTEGER,
                      PRIMARY KEY (identity, text));
-- The nearest rows found for a query, valid while the state they were found in holds.
CREATE TABLE hits (identity TEXT, text TEXT, state TEXT, found TEXT,
                   PRIMARY KEY (identity, text));
-- The rows current in a state (int32 little-endian): finding them takes a 150 ms join
-- at 100,000 insights, and they change only when the store or the sidecar does.
CREATE TABLE current (state TEXT PRIMARY KEY, rows BLOB);
PRAGMA user_version = {SCHEMA_VERSION};
"""


EXPECTED_SCHEMA = expected_schema(_SCHEMA)


def stored_identity(chitin_dir: Path) -> tuple[dict[str, str], str | None]:
    """(id → hash of every row, identity) as the sidecar holds them, without changing it."""
    path = chitin_dir / FOLDER / INDEX
    if not path.exists():
        return {}, None
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            rows = dict(db.execute("SELECT id, hash FROM rows WHERE id IS NOT NULL"))
            found = db.execute("SELECT value FROM meta WHERE key = 'identity'").fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return {}, None
    return rows, found[0] if found else None


KEPT = "vectors.kept"


class Kept(NamedTuple):
    """The sidecar set aside, and its lock (``LOCK``, moved with it), held while the
    switch that set it aside lives: a command that finds it unheld knows the switch
    was killed (``restore_kept``)."""

    folder: Path
    lock: WriteLock

    def release(self) -> None:
        self.lock.__exit__()


def set_aside(chitin_dir: Path) -> Kept | None:
    """Move the sidecar out of the way of another provider's, under its lock, and keep
    the lock until ``release`` (``put_back`` restores it, ``drop_kept`` drops it once the
    other's embedding is complete): None when it holds no vector."""
    folder, kept = chitin_dir / FOLDER, chitin_dir / KEPT
    restore_kept(chitin_dir)
    rows, _ = stored_identity(chitin_dir)
    if not rows:
        return None
    lock = WriteLock(folder / LOCK).__enter__()  # writers hold it for milliseconds
    try:
        folder.rename(kept)
    except BaseException:
        lock.__exit__()
        raise
    return Kept(kept, lock)


def restore_kept(chitin_dir: Path) -> None:
    """Put back a sidecar that a switch killed before it completed set aside: it
    holds the vectors of the provider chitin.yaml still names (a switch is recorded
    only once complete), and the half-made ones in its place are the ones to drop.
    Every opening of the sidecar asks first (vectors.py). A switch alive holds the
    kept sidecar's lock: its folder is left to it."""
    kept = chitin_dir / KEPT
    if not kept.is_dir() or kept.is_symlink():
        return
    try:
        handle = open(kept / LOCK, "a+b")  # noqa: SIM115 - released below, in finally
    except OSError:  # put back meanwhile by another command, or not ours to touch
        return
    try:
        if try_lock(handle):
            try:
                if kept.is_dir():
                    put_back(chitin_dir, kept)
            finally:
                unlock(handle)
    finally:
        handle.close()


def switch_under_way(chitin_dir: Path) -> str | None:
    """The identity of the vectors a switch of provider alive has set aside (once
    ``restore_kept`` has put back those of a switch killed): the sidecar in their
    place is the switch's, half made, for no other command to reset or fill."""
    kept = chitin_dir / KEPT
    return held_identity(kept) if kept.is_dir() else None


def put_back(chitin_dir: Path, kept: Path) -> None:
    """The sidecar set aside, in place again (the one made since is dropped)."""
    drop_kept(chitin_dir / FOLDER)
    kept.rename(chitin_dir / FOLDER)


def drop_kept(kept: Path) -> None:
    """Remove the folder and what it holds (shutil.rmtree would load bz2 and lzma)."""
    for root, folders, files in os.walk(kept, topdown=False):
        for name in files:
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(root, name))
        for name in folders:
            path = os.path.join(root, name)
            remove = os.unlink if os.path.islink(path) else os.rmdir  # a link: not followed
            with contextlib.suppress(OSError):
                remove(path)
    with contextlib.suppress(OSError):
        os.rmdir(kept)


def held_size(chitin_dir: Path, provider: str, model: str) -> int | None:
    """The vectors' size the sidecar's identity (``provider:model:dimensions``) holds
    for that provider and model, without reading its rows; None for another. The
    vectors a switch alive has set aside are the store's provider's: asked too."""
    for folder in (FOLDER, KEPT):
        held, _, size = (held_identity(chitin_dir / folder) or "").rpartition(":")
        if held == f"{provider}:{model}" and size.isdigit():
            return int(size)
    return None


def held_identity(folder: Path) -> str | None:
    """The identity a sidecar's index names (``folder``: the sidecar's or the kept one)."""
    path = folder / INDEX
    if not path.exists():
        return None
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            found = db.execute("SELECT value FROM meta WHERE key = 'identity'").fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return None
    return str(found[0]) if found else None


def row_bytes(dimensions: int) -> int:
    return 4 * dimensions


# SQLite's files beside the index: its rollback journal (the default mode) or a log.
INDEX_SIDE_FILES = ("", "-journal", "-wal", "-shm")


def open_index(path: Path, locked: bool = False) -> sqlite3.Connection:
    """The index, with the tables of this schema. A file that is not a sound database
    is replaced by a new one, and the matrix with it (its rows are unknown now).

    The replacing holds the sidecar's lock, and first opens the index again: commands
    started together all find the damage, and one that deleted the files another had
    just made again broke that one's reading (issue 10). ``locked``: the caller holds
    the lock already."""
    try:
        return _connect_index(path)
    except sqlite3.DatabaseError as error:
        if path.exists() and not os.access(path.parent, os.W_OK):
            return _read_only_index(path, error)
        if not is_damage(error):
            raise
        found = error
    with contextlib.nullcontext() if locked else WriteLock(path.parent / LOCK):
        try:
            return _connect_index(path)  # made again meanwhile by another command
        except sqlite3.DatabaseError as error:
            if not is_damage(error):
                raise
        delete_files(path.parent)
        notice(f".chitin/{FOLDER}/{INDEX} was damaged ({found}); its vectors are made again")
        return _connect_index(path)


def _read_only_index(path: Path, error: sqlite3.DatabaseError) -> sqlite3.Connection:
    """The index of a store that cannot be written (a read-only mount, a folder of
    another user), opened only to be read, so that a search by meaning still works;
    its notes are not kept (``noted``). In WAL mode SQLite must make the ``-shm`` file
    even to read, which the folder refuses: ``immutable`` reads without it, and nobody
    who can write is expected to change it under a reader who cannot. ``error``, the
    read-write open's, is raised for an index of another schema (it is made again
    only where it can be written)."""
    db = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro&immutable=1", uri=True,
                         check_same_thread=False)  # fmt: skip
    try:
        if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            raise error
        check_schema(db, EXPECTED_SCHEMA)
    except BaseException:
        db.close()
        raise
    return db


def _connect_index(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(str(path), timeout=30, check_same_thread=False)
    try:
        # A new query notes its vector and its nearest rows: with a rollback journal each
        # note was fsynced, ~3 ms apiece here. A crash now may lose the last notes (they
        # are found again), never the matrix rows, which are flushed before being named.
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            _make_schema(db)
        else:
            check_schema(db, EXPECTED_SCHEMA)
    except BaseException:
        db.close()
        raise
    return db


_REMAKE = [
    *(f"DROP TABLE IF EXISTS {table}" for table in ("meta", "rows", "queries", "hits", "current")),
    *(statement for statement in _SCHEMA.split(";") if statement.strip()),
]


def _make_schema(db: sqlite3.Connection) -> None:
    """The tables of this schema, made in one write transaction: two commands that
    open a new sidecar at once made them statement by statement, interleaved ("table
    meta already exists"). The second finds them made when its turn comes."""
    db.execute("BEGIN IMMEDIATE")
    try:
        if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            for statement in _REMAKE:
                db.execute(statement)
        db.execute("COMMIT")
    except BaseException:
        db.rollback()
        raise


def make_folder(folder: Path) -> None:
    """``.chitin/vectors/``, made; a file standing in its place is removed first."""
    if folder.exists() and not folder.is_dir():
        folder.unlink()
        notice(f".chitin/{FOLDER} was a file, not chitin's folder; removed it")
    folder.mkdir(parents=True, exist_ok=True)


def delete_files(folder: Path) -> None:
    for name in (MATRIX, *(INDEX + suffix for suffix in INDEX_SIDE_FILES)):
        make_room(folder / name)  # a folder put there while a server held the sidecar
        with contextlib.suppress(FileNotFoundError):
            (folder / name).unlink()


QUERY_CACHE_LIMIT = 2000


def keep_newest(db: sqlite3.Connection, table: str) -> None:
    """Keep at most QUERY_CACHE_LIMIT answers in ``table``: those written last, which
    hold the last rowids given out (a row written again, by INSERT OR REPLACE, takes
    the next one). A range of the rowid's own index: sorting the table, as this did
    before at every new query, cost ~4 ms per write at 2,000 answers."""
    db.execute(
        f"DELETE FROM {table} WHERE rowid <= (SELECT max(rowid) FROM {table}) - ?",
        (QUERY_CACHE_LIMIT,),
    )


@contextlib.contextmanager
def noted() -> Iterator[None]:
    """A note that only saves work next time (a query's vector, its nearest rows): in
    a sidecar that cannot be written (a read-only store), it is not kept."""
    try:
        yield
    except sqlite3.Error as error:
        if not is_unwritable(error):
            raise


def read_row(folder: Path, dimensions: int, row: int) -> array.array[float] | None:
    """One row of the matrix, read without numpy; None if the file does not hold it."""
    size = row_bytes(dimensions)
    try:
        with open(folder / MATRIX, "rb") as handle:
            handle.seek(row * size)
            data = handle.read(size)
    except OSError:
        return None
    return float32_row(data) if len(data) == size else None


def off_unit(folder: Path, dimensions: int, rows: Iterable[int]) -> bool:
    """Whether any of ``rows`` of the matrix is not a unit vector, as every row written
    is: a matrix of zeros keeps its size and scores 0 with every query, which no
    cosine's bound tells (a crash on some filesystems zeroes what it did not flush).
    The bound is check's (search/neighbours.py: the norm within 1e-3 of 1). A search
    asks it of the rows that scored exactly 0 alone: a zeroed row always does, a unit
    row all but never, and reading all 200 again cost a new query ~4 ms."""
    size = row_bytes(dimensions)
    with open(folder / MATRIX, "rb") as handle:
        for row in rows:
            handle.seek(row * size)
            vector = float32_row(handle.read(size))
            if not abs(dot(vector, vector) - 1) < 2e-3:  # the norm's square; NaN fails
                return True
    return False


def matrix_is_file(folder: Path) -> bool:
    """Whether the matrix is a regular file: a folder or link put in its place after the
    sidecar was opened (under a server; opening makes room) must not be read."""
    try:
        return stat.S_ISREG(os.lstat(folder / MATRIX).st_mode)
    except OSError:
        return False


def matrix_rows(folder: Path, dimensions: int) -> int:
    """How many rows the matrix file holds (0 when there is none)."""
    try:
        return (folder / MATRIX).stat().st_size // row_bytes(dimensions)
    except OSError:
        return 0


def mapped_matrix(folder: Path, dimensions: int) -> np.ndarray | None:
    """The matrix, memory-mapped (None while it holds no row)."""
    path = folder / MATRIX
    if not path.exists() or path.stat().st_size == 0:
        return None
    rows = path.stat().st_size // row_bytes(dimensions)
    import numpy as np

    return np.memmap(path, dtype="<f4", mode="r", shape=(rows, dimensions))
