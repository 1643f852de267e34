"""The SQLite file behind the cache: where it lives, its schema, and how a damaged or
outdated one is replaced. Everything in it is derived from the insight files."""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from chitin.store.files import clear_in_the_way

SCHEMA_VERSION = 7
CACHE_DIR = ".chitin"
CACHE_FILE = "cache.sqlite3"

_SCHEMA = f"""
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
    id TEXT, type TEXT, claim TEXT, confidence REAL, created TEXT, updated TEXT,
    tags TEXT, provenance TEXT, source TEXT, condition TEXT, avoid INTEGER,
    reinforcements INTEGER, last_reinforced TEXT, reasoning TEXT, context TEXT,
    limitations TEXT, archived INTEGER,
    strength REAL,  -- confidence and reinforcements, shaped (retrieval.scoring.base_strength)
    text_hash TEXT  -- of model.insight.embedding_text: what a vector must match to be fresh
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
    claim, condition, tags, context, reasoning, limitations,
    tokenize = "porter unicode61 remove_diacritics 2"
);
CREATE VIRTUAL TABLE search_vocab USING fts5vocab (search, row);
PRAGMA user_version = {SCHEMA_VERSION};
"""


def open_database(root: Path) -> sqlite3.Connection:
    """Open (creating or rebuilding as needed) the cache; in memory if it cannot be written."""
    path = root / CACHE_DIR / CACHE_FILE
    try:
        _prepare_dir(root / CACHE_DIR)
        for suffix in SIDE_FILES:
            clear_in_the_way(Path(f"{path}{suffix}"))
        return _connect(path)
    except sqlite3.DatabaseError as error:
        if is_damage(error):
            discard(root, error)
            with contextlib.suppress(sqlite3.DatabaseError, OSError):
                return _connect(path)
        return _connect(None)  # unwritable or locked: this command keeps it in memory
    except OSError:
        return _connect(None)


# SQLite's own files beside a database: its write-ahead log and shared memory index.
SIDE_FILES = ("", "-wal", "-shm")


def is_damage(error: BaseException) -> bool:
    """Whether ``error`` says the file is not a sound database (corrupt, not a database,
    malformed), as opposed to a busy, locked or unwritable one (OperationalError and
    the others), which a rebuild would not cure."""
    return type(error) is sqlite3.DatabaseError


def discard(root: Path, error: BaseException) -> None:
    """Delete a damaged cache (it is rebuilt from the files), and say so."""
    from chitin.notices import notice

    _delete_cache(root / CACHE_DIR / CACHE_FILE)
    notice(f"{CACHE_DIR}/{CACHE_FILE} was damaged ({error}); rebuilt it from the insight files")


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
        isolation_level=None,
        check_same_thread=False,
    )
    try:
        if path is not None:
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA_VERSION:
            _reset_schema(db)
    except BaseException:
        db.close()
        raise
    return db


def _reset_schema(db: sqlite3.Connection) -> None:
    db.execute("BEGIN IMMEDIATE")
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version == SCHEMA_VERSION:  # another process built it while we waited
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


def _delete_cache(path: Path) -> None:
    for suffix in SIDE_FILES:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")
