"""When insights were last retrieved: kept in ``.chitin/usage.sqlite3``, never in git.

Retrieval happens at the start of every session on every machine; committing it would
flood the history and make every sync conflict. Unlike the cache this cannot be
rebuilt from the files, so it lives in its own small file that cache rebuilds leave alone.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from chitin.index.db import (
    SIDE_FILES,
    check_schema,
    expected_schema,
    file_identity,
    is_damage,
    make_room,
)
from chitin.lockfile import derived_folder
from chitin.notices import notice

USAGE_FILE = "usage.sqlite3"
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS retrieved (id TEXT PRIMARY KEY, last TEXT NOT NULL, "
    "times INTEGER NOT NULL)"
)
_EXPECTED = expected_schema(_SCHEMA)


def _connect(root: Path) -> sqlite3.Connection:
    """The usage database. A damaged one is set aside (it cannot be rebuilt from the
    files, so it is kept for whoever wants to rescue it) and a new one begun."""
    path = derived_folder(root) / USAGE_FILE
    for suffix in SIDE_FILES:
        make_room(Path(f"{path}{suffix}"))
    try:
        return _open(path)
    except sqlite3.DatabaseError as error:
        if not is_damage(error):
            raise
        _set_aside(path, error)
    return _open(path)


def _open(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(str(path), timeout=10, isolation_level=None, check_same_thread=False)
    try:
        # Durable against a crash of chitin, not of the machine: no fsync at all, so a
        # session start never waits on the disk for a retrieval time. NORMAL still
        # synced four times per command (the new WAL, its folder, and the WAL and the
        # file at the closing checkpoint): 1-15 ms of a retrieve (design.md §9f, round
        # 3). The price: a machine that loses power just after a retrieval may lose the
        # last times or leave the file damaged, which is then set aside (``_connect``).
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = OFF")
        db.execute(_SCHEMA)
        check_schema(db, _EXPECTED)  # a table of the same name, with other columns
    except BaseException:
        db.close()
        raise
    return db


def _set_aside(path: Path, error: sqlite3.DatabaseError) -> None:
    kept = path.with_name(f"{path.name}.damaged")
    for suffix in SIDE_FILES:
        with contextlib.suppress(OSError):
            os.replace(f"{path}{suffix}", f"{kept}{suffix}")
    notice(
        f".chitin/{USAGE_FILE} was damaged ({error}); kept it as {kept.name} and began "
        "a new one (retrieval times are counted again from now)"
    )


class Recorder:
    """Retrieval times, written through one connection that stays open until
    ``close``. A command records once and closes; a process that retrieves many times
    (the MCP server) pays the opening, and the checkpoint of the WAL that the last
    connection's close makes, once rather than at every retrieval."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._db: sqlite3.Connection | None = None
        self._opened: tuple[int, int] | None = None

    def record(self, ids: Iterable[str], when: str) -> bool:
        """Note that ``ids`` were retrieved at ``when``. False if it could not be written."""
        return self.record_times((insight_id, when) for insight_id in ids)

    def record_times(self, times: Iterable[tuple[str, str]]) -> bool:
        """Note each (id, time) retrieval; an earlier time never replaces a later one."""
        rows = list(times)
        if not rows:
            return True
        try:
            try:
                self._write(rows)
            except sqlite3.DatabaseError as error:  # a corrupt page, found only when read
                if not is_damage(error):
                    raise
                self.close()
                _set_aside(self._path(), error)
                self._write(rows)
        except (sqlite3.Error, OSError):
            self.close()
            return False
        return True

    def close(self) -> None:
        if self._db is not None:
            db, self._db = self._db, None
            db.close()

    def _write(self, rows: list[tuple[str, str]]) -> None:
        db = self._connection()
        with db:  # one transaction for all the rows
            db.execute("BEGIN")
            db.executemany(
                "INSERT INTO retrieved (id, last, times) VALUES (?, ?, 1) ON CONFLICT (id) "
                "DO UPDATE SET last = max(last, excluded.last), times = times + 1",
                rows,
            )

    def _connection(self) -> sqlite3.Connection:
        """The open connection; a new one if the file was removed or replaced since
        (``.chitin/`` is safe to delete, even under a running server)."""
        if self._db is not None and file_identity(self._path()) != self._opened:
            self.close()
        if self._db is None:
            self._db = _connect(self.root)
            self._opened = file_identity(self._path())
        return self._db

    def _path(self) -> Path:
        return derived_folder(self.root) / USAGE_FILE


def record(root: Path, ids: Iterable[str], when: str) -> bool:
    """Note that ``ids`` were retrieved at ``when``. False if it could not be written."""
    return record_times(root, ((insight_id, when) for insight_id in ids))


def record_times(root: Path, times: Iterable[tuple[str, str]]) -> bool:
    """Note each (id, time) retrieval, through a connection of its own."""
    recorder = Recorder(root)
    try:
        return recorder.record_times(times)
    finally:
        recorder.close()


def last_retrieved(root: Path, insight_id: str) -> str | None:
    return _read(root, "SELECT id, last FROM retrieved WHERE id = ?", (insight_id,)).get(insight_id)


def all_last_retrieved(root: Path) -> dict[str, str]:
    """id → the last time it was retrieved, for every insight ever retrieved here."""
    return _read(root, "SELECT id, last FROM retrieved", ())


def _read(root: Path, sql: str, args: tuple[str, ...]) -> dict[str, str]:
    if not (derived_folder(root) / USAGE_FILE).exists():
        return {}
    try:
        db = _connect(root)
        try:
            return dict(db.execute(sql, args).fetchall())
        finally:
            db.close()
    except (sqlite3.Error, OSError):
        return {}
