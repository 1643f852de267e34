"""The SQLite file behind the cache: where it lives, its schema, and how a damaged or
outdated one is replaced. Everything in it is derived from the insight files."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
from pathlib import Path

from chitin.lockfile import clear_in_the_way, derived_folder
from chitin.model.fields import (
    CLAIM,
    COUNT,
    FIELDS,
    FLAG,
    FOLDER,
    LIST,
    NUMBER,
    SEARCHED,
    SECTION,
    TEXT,
    TIME,
    WORD,
)
from chitin.notices import notice, shown

# Bumped by hand for a change the schema's text does not show (9: files with conflict
# markers are errors, and errors carry a fix; 10: claim terms of the NFKC form; 11:
# text_hash holds the tags too, so the vectors of a tagged insight are made again with
# the part of its tags; its rebuild also gives back the rows that a removed folder's
# LIKE pattern forgot in similarly named folders). A change of the text, such as a
# column that model/fields.py's table adds, changes the file's version by itself
# (USER_VERSION).
SCHEMA_VERSION = 11
CACHE_DIR = ".chitin"
CACHE_FILE = "cache.sqlite3"

# The column type of each form of field (the values rows.py writes).
_SQL_TYPES = {
    TEXT: "TEXT", WORD: "TEXT", CLAIM: "TEXT", SECTION: "TEXT", TIME: "TEXT", LIST: "TEXT",
    NUMBER: "REAL", COUNT: "INTEGER", FLAG: "INTEGER", FOLDER: "INTEGER",
}  # fmt: skip
_INSIGHT_COLUMNS = ",\n    ".join(f"{field.name} {_SQL_TYPES[field.form]}" for field in FIELDS)

_TABLES = f"""
-- Folders: a fingerprint of their files' stats (for walks) and their mtime (for git).
CREATE TABLE dirs (path TEXT PRIMARY KEY, fingerprint INTEGER, mtime_ns INTEGER);
-- What git-assisted syncs remember (index/changes.py): the commit last seen, and the
-- files git does not vouch for.
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE watch (path TEXT PRIMARY KEY, untracked INTEGER NOT NULL);
CREATE TABLE entries (
    rowid INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    dir TEXT NOT NULL,
    mtime_ns INTEGER, ctime_ns INTEGER, size INTEGER, inode INTEGER,
    error TEXT,
    -- The insight: model/fields.py's fields, in its order (index/rows.py).
    {_INSIGHT_COLUMNS},
    strength REAL,  -- confidence and reinforcements, shaped (retrieval.scoring.base_strength)
    text_hash TEXT,  -- model.search_text.vector_hash: what a vector must match to be fresh
    tag_keys TEXT  -- the tags by model.insight.tag_key, one a line: what tag filters match
);
CREATE INDEX entries_dir ON entries (dir);
CREATE INDEX entries_id ON entries (id);
CREATE INDEX entries_order ON entries (archived, created DESC, id);
-- Covering indexes: stats and problem reports read these, never the wide rows.
CREATE INDEX entries_live ON entries (archived, error, type, confidence);
CREATE INDEX entries_errors ON entries (path, error) WHERE error IS NOT NULL;
CREATE INDEX entries_strength ON entries (archived, type, strength DESC);
-- Conflict and similarity candidates: each insight's claim terms (tokens and stems).
CREATE VIRTUAL TABLE claim_terms USING fts5 (
    terms, detail = none, tokenize = "unicode61 tokenchars '_'"
);
CREATE VIRTUAL TABLE claim_vocab USING fts5vocab (claim_terms, row);
-- Retrieval: BM25 over the text fields, weighted per column at query time.
CREATE VIRTUAL TABLE search USING fts5 (
    {", ".join(SEARCHED)},
    tokenize = "porter unicode61 remove_diacritics 2"
);
CREATE VIRTUAL TABLE search_vocab USING fts5vocab (search, row);
"""


def schema_version(version: int, tables: str) -> int:
    """The number a cache file is stamped with (``PRAGMA user_version``, a signed
    32-bit integer): ``version`` and the text of ``tables`` read as one number, modulo
    the largest 31-bit prime. So a cache made by a chitin with another field table, or
    any other schema, has another number and is rebuilt, quietly, as an outdated one
    (a few µs: no hash module to load on every command's start)."""
    text = f"{version}\n{tables}".encode()
    return int.from_bytes(text, "little") % 2_147_483_647


USER_VERSION = schema_version(SCHEMA_VERSION, _TABLES)
_SCHEMA = f"{_TABLES}PRAGMA user_version = {USER_VERSION};\n"


def open_database(root: Path, memory: bool = False) -> sqlite3.Connection:
    """Open (creating or rebuilding as needed) the cache; in memory if it cannot be
    written (or with ``memory``: a read-only store, whose cache turned out unwritable).

    Opening checks the file's tables, indexes and columns against the schema (one
    read of the schema, not an integrity check): a dropped table or column, or a file
    of other tables, is damage, and the file is rebuilt. When opening fails for a
    reason that is neither damage nor an unwritable or busy file, ``PRAGMA
    quick_check`` decides. A file found damaged later, by the query that reads the
    page, is rebuilt by the use case that met it (core.facade.Chitin.repairing)."""
    path = derived_folder(root) / CACHE_FILE
    if memory:
        return _connect(None)
    try:
        _prepare_dir(root / CACHE_DIR)
        for suffix in SIDE_FILES:
            make_room(Path(f"{path}{suffix}"))
        return _connect(path)
    except sqlite3.DatabaseError as error:
        if is_damage(error) or damage_found(path, error):
            discard(root, error)
            with contextlib.suppress(sqlite3.DatabaseError, OSError):
                return _connect(path)
        elif is_unwritable(error):
            not_writable(root, error)
        return _connect(None)  # unwritable or locked: this command keeps it in memory
    except OSError as error:
        not_writable(root, error)
        return _connect(None)


# SQLite's own files beside a database: its write-ahead log and shared memory index.
SIDE_FILES = ("", "-wal", "-shm")


def make_room(path: Path) -> None:
    """Make ``path`` fit for a file of chitin's own under ``.chitin/``: a folder there is
    removed, and so is a symlink (SQLite would write through it, out of the store), a
    FIFO, socket or device (it would block, or never be a database), and said so. One
    ``lstat`` when a regular file or nothing is there, as almost always."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return
    if stat.S_ISREG(mode) or (stat.S_ISDIR(mode) and clear_in_the_way(path)):
        return

    with contextlib.suppress(OSError):
        os.unlink(path)
        notice(f"{shown(path)} was not a regular file (a symlink, FIFO or device); removed it")


class DamagedSchema(sqlite3.DatabaseError):
    """The file is a sound database, but not with the tables chitin made in it."""


# What SQLite says when a statement meets a schema without the table, column or index
# it names: in chitin's own files, a dropped table (or a file of other tables).
_MISSING = ("no such table", "no such column", "no such index")
# Result codes (the low byte of an extended code) of a file that cannot be written:
# read-only, cannot be opened, no permission, disk full.
_UNWRITABLE_CODES = (8, 14, 3, 13)  # SQLITE_READONLY, _CANTOPEN, _PERM, _FULL
# errno values of the same: permission, operation not permitted, read-only file system,
# no space left.
_UNWRITABLE_ERRNOS = (13, 1, 30, 28)


def is_damage(error: BaseException) -> bool:
    """Whether ``error`` says the file is not a sound database (corrupt, not a database,
    malformed, or without chitin's tables), as opposed to a busy, locked or unwritable
    one, which a rebuild would not cure."""
    if type(error) is sqlite3.DatabaseError or isinstance(error, DamagedSchema):
        return True
    return isinstance(error, sqlite3.OperationalError) and str(error).startswith(_MISSING)


def is_unwritable(error: BaseException) -> bool:
    """Whether ``error`` says the file (or its folder, or the disk) cannot be written:
    a read-only store is still read, through a cache kept in memory."""
    if isinstance(error, sqlite3.Error):
        code = getattr(error, "sqlite_errorcode", None)
        return code is not None and code & 0xFF in _UNWRITABLE_CODES
    return isinstance(error, OSError) and error.errno in _UNWRITABLE_ERRNOS


def damage_found(path: Path | sqlite3.Connection, error: BaseException) -> bool:
    """After an error that does not say what it is (neither damage nor a busy or
    unwritable file): whether ``PRAGMA quick_check`` finds the database unsound. Only
    on such an error: on a healthy cache, opening never pays for a check."""
    if not isinstance(error, sqlite3.Error) or is_damage(error) or is_unwritable(error):
        return False
    if getattr(error, "sqlite_errorcode", 0) & 0xFF in (5, 6):  # SQLITE_BUSY, _LOCKED
        return False
    return unsound(path)


def unsound(path: Path | sqlite3.Connection) -> bool:
    """Whether ``PRAGMA quick_check`` finds the database at ``path`` damaged (read by a
    connection of its own, which sees the file as it is on disk now), or ``path`` is a
    connection whose database it finds damaged. False when it cannot tell."""
    try:
        if isinstance(path, sqlite3.Connection):
            return not _sound(path)
        if not path.is_file():
            return False
        check = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True, timeout=5)
        try:
            return not _sound(check)
        finally:
            check.close()
    except sqlite3.DatabaseError as found:
        return is_damage(found)
    except (sqlite3.Error, OSError):
        return False


def _sound(db: sqlite3.Connection) -> bool:
    rows = db.execute("PRAGMA quick_check").fetchall()
    return rows == [("ok",)]


def discard(root: Path, error: BaseException) -> None:
    """Delete a damaged cache (it is rebuilt from the files), and say so."""
    _delete_cache(root / CACHE_DIR / CACHE_FILE)
    notice(f"{CACHE_DIR}/{CACHE_FILE} was damaged ({error}); rebuilt it from the insight files")


def not_writable(root: Path, error: BaseException) -> None:
    """Say that the cache is kept in memory for this command (a read-only store)."""
    reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
    notice(
        f"{root / CACHE_DIR} cannot be written ({reason}); read the insight files without the cache"
    )


def _prepare_dir(directory: Path) -> None:
    directory.mkdir(exist_ok=True)
    ignore = directory / ".gitignore"
    clear_in_the_way(ignore)
    if not ignore.is_file():
        # The folder ignores itself, even in a repository whose .gitignore forgot it.
        ignore.write_text("*\n", encoding="utf-8")


def _connect(path: Path | None) -> sqlite3.Connection:
    db = sqlite3.connect(
        ":memory:" if path is None else str(path),
        timeout=30,
        uri=True,  # a read-only sidecar is attached by URI (vector_join); a path is a path
        isolation_level=None,
        check_same_thread=False,
    )
    try:
        if path is not None:
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version != USER_VERSION:
            _reset_schema(db)
        else:
            check_schema(db, _EXPECTED)
    except BaseException:
        db.close()
        raise
    return db


def _reset_schema(db: sqlite3.Connection) -> None:
    db.execute("BEGIN IMMEDIATE")
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version == USER_VERSION:  # another process built it while we waited
        db.execute("COMMIT")
        return
    tables = [
        row[0]
        for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "AND name NOT LIKE '%_data' AND name NOT LIKE '%_idx' AND name NOT LIKE '%_config' "
            "AND name NOT LIKE '%_docsize' AND name NOT LIKE '%_content'"
        )
    ]
    for table in tables:
        db.execute(f'DROP TABLE IF EXISTS "{table}"')
    for statement in _SCHEMA.split(";"):
        if statement.strip():
            db.execute(statement)
    db.execute("COMMIT")


# What a sound file holds: each table, index and virtual table of the schema with its
# definition as SQLite keeps it (the statement's text from CREATE on), and the
# tables FTS5 keeps behind each full-text table.
_FTS5_SHADOWS = ("data", "idx", "content", "docsize", "config")


def expected_schema(schema: str) -> dict[str, str]:
    """name → definition of every object the ``CREATE`` statements of ``schema`` make
    (the FTS5 tables' own tables as "", whose definitions SQLite writes itself)."""
    expected: dict[str, str] = {}
    for statement in schema.split(";"):
        lines = [line for line in statement.strip().splitlines() if not line.startswith("--")]
        text = "\n".join(lines).strip().replace(" IF NOT EXISTS ", " ", 1)  # not kept
        if not text.startswith("CREATE "):
            continue
        words = text.split()
        name = words[3] if words[1] == "VIRTUAL" else words[2]
        expected[name] = text
        if words[1] == "VIRTUAL" and words[5] == "fts5":
            expected.update((f"{name}_{shadow}", "") for shadow in _FTS5_SHADOWS)
    return expected


def check_schema(db: sqlite3.Connection, expected: dict[str, str]) -> None:
    """Raise DamagedSchema unless ``db`` holds every object of ``expected``, as defined
    there: a dropped table, index or column is damage. One read of the schema SQLite
    parsed anyway (~30 µs), not an integrity check."""
    held = dict(db.execute("SELECT name, coalesce(sql, '') FROM sqlite_master"))
    for name, definition in expected.items():
        found = held.get(name)
        if found is None or (definition and found != definition):
            what = "missing" if found is None else "not as chitin made it"
            raise DamagedSchema(f"{name} is {what}")


_EXPECTED = expected_schema(_SCHEMA)


def _delete_cache(path: Path) -> None:
    for suffix in SIDE_FILES:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")


def file_identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of ``path``, None if it is gone: tells a file that was removed
    (or replaced) while open from the one that was opened."""
    try:
        found = path.stat()
    except OSError:
        return None
    return found.st_dev, found.st_ino
