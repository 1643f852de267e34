"""Which insight files may have changed since the cache last looked, asked of git.

Statting every file costs ~280 ms at 100,000 insights, most of a retrieve's budget.
In a git store most of that work is already done by git itself. At each sync the
cache keeps the commit it saw, the folders' mtimes, and a *watch list* of files that
git does not vouch for. The watch list holds tracked files that differed from that
commit, and untracked files. Every other file was equal to the commit's version.

Such a file can only have changed in one of three ways:
- git now reports it as differing from HEAD (`git status`, about 90 ms at 100,000);
- HEAD moved and the move touched it (`git diff --name-only old new`);
- its folder's mtime changed, which is how files are added, removed or renamed.

So a sync checks only those paths plus the watch list. When git cannot answer, or the
cache has no state yet, the caller walks every file instead.
"""

from __future__ import annotations

import sqlite3
import stat as stat_module
import time
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from chitin.format import layout
from chitin.format.layout import racily_recent
from chitin.index.sources import ChangeSource, InsightFiles
from chitin.lockfile import clear_in_the_way, derived_folder


class Plan(NamedTuple):
    """What a sync must look at, and the state to remember once it has."""

    head: str | None
    check: set[str]  # files to stat and compare with the cache
    watch: dict[str, bool]  # the next watch list: path → untracked?
    folders: dict[str, int | None]  # folder → mtime to remember (None: look again)
    gone_folders: set[str]


def plan(db: sqlite3.Connection, files: InsightFiles, git: ChangeSource) -> Plan | None:
    """The paths to check, or None when only a full walk can tell."""
    state = db.execute("SELECT value FROM meta WHERE key = 'head'").fetchone()
    status = git.status(layout.SCANNED_DIRS) if state is not None else None
    if state is None or status is None:
        return None
    head, dirty = status
    before = state[0] or None
    committed: set[str] = set()
    if head != before:
        if head is None or before is None:
            return None
        changed = git.changed_between(before, head, layout.SCANNED_DIRS)
        if changed is None:
            return None
        committed = changed
    watched = dict(db.execute("SELECT path, untracked FROM watch"))
    listing = _folder_changes(db, files)
    added = listing.added - committed - dirty
    untracked = {p for p, flag in watched.items() if flag} | added
    watch = {p: False for p in dirty} | {p: True for p in untracked - committed - dirty}
    check = set(watched) | dirty | committed | listing.added | listing.removed
    # A path the cache may hold a row for is checked even when it is no longer listed,
    # so that its row goes (a removed symbolic link to a folder, say).
    known = listing.removed | set(watched)
    check = {p for p in check if p in known or files.is_listed(p)}
    return Plan(head, check, watch, listing.folders, listing.gone)


def initial_state(git: ChangeSource) -> tuple[str | None, dict[str, bool]] | None:
    """After a full walk: the commit, and the files git does not vouch for."""
    status = git.status(layout.SCANNED_DIRS)
    if status is None:
        return None
    head, dirty = status
    untracked = {p for p in git.untracked(layout.SCANNED_DIRS) if layout.is_insight_path(p)}
    return head, {p: False for p in dirty} | {p: True for p in untracked - dirty}


def remember(
    db: sqlite3.Connection,
    head: str | None,
    watch: dict[str, bool],
    folders: dict[str, int | None],
    gone: Iterable[str] = (),
) -> None:
    db.execute("INSERT OR REPLACE INTO meta VALUES ('head', ?)", (head or "",))
    db.execute("DELETE FROM watch")
    db.executemany("INSERT INTO watch VALUES (?, ?)", [(p, int(u)) for p, u in watch.items()])
    for folder in gone:
        db.execute("DELETE FROM dirs WHERE path = ? OR instr(path, ?) = 1", (folder, f"{folder}/"))
    db.executemany(
        "INSERT INTO dirs (path, mtime_ns) VALUES (?, ?) "
        "ON CONFLICT (path) DO UPDATE SET mtime_ns = excluded.mtime_ns",
        list(folders.items()),
    )


# Present while syncs ask git: a reading command then starts `git status` before it
# loads its modules (store.git.prefetch_status), so that git runs meanwhile.
BY_GIT_MARK = "sync-by-git"


def mark_by_git(root: Path, by_git: bool) -> None:
    """Say whether syncs of this store ask git (one stat when nothing changes)."""
    mark = derived_folder(root) / BY_GIT_MARK
    try:
        if by_git and not mark.is_file():
            clear_in_the_way(mark)
            mark.write_bytes(b"")
        elif not by_git and mark.exists() and not clear_in_the_way(mark):
            mark.unlink()
    except OSError:
        pass  # an unwritable .chitin/: no prefetch, no harm


def syncs_by_git(root: Path) -> bool:
    """Whether the store's cache syncs by git. A folder that cannot be looked into
    (permission denied, an I/O error) does not: the command that opens the store says
    why, in one line; asked by the console's look ahead, this must not raise."""
    try:
        return (root / ".chitin" / BY_GIT_MARK).is_file()
    except OSError:
        return False


def forget(db: sqlite3.Connection) -> None:
    """Drop what git-assisted syncs remember: the next one starts from a full walk."""
    db.execute("DELETE FROM meta WHERE key = 'head'")
    db.execute("DELETE FROM watch")


def folder_mtime(files: InsightFiles, folder: str, now_ns: int) -> int | None:
    """A folder's mtime to remember, or None when it is too recent to trust."""
    mtime = files.lstat(folder)[0][0]
    return None if racily_recent(mtime, now_ns) else mtime


class _Listing(NamedTuple):
    added: set[str]
    removed: set[str]
    folders: dict[str, int | None]
    gone: set[str]


def _folder_changes(db: sqlite3.Connection, files: InsightFiles) -> _Listing:
    """Files added to or removed from folders whose mtime moved, and new folders."""
    known = dict(db.execute("SELECT path, mtime_ns FROM dirs"))
    now_ns = time.time_ns()
    listing = _Listing(set(), set(), {}, set())
    for top in layout.SCANNED_DIRS:
        try:
            mode = files.lstat(top)[1]
        except OSError:
            continue
        if stat_module.S_ISLNK(mode):
            files.linked_top(top)  # not followed, as in the walk
        elif top not in known and stat_module.S_ISDIR(mode):
            _add_tree(files, top, listing, now_ns)
    for folder, mtime in known.items():
        try:
            stat, mode = files.lstat(folder)  # a folder replaced by a link is gone
        except (FileNotFoundError, NotADirectoryError):
            listing.gone.add(folder)
            continue
        if not stat_module.S_ISDIR(mode):
            listing.gone.add(folder)
        elif stat[0] != mtime:
            _relist(db, files, folder, known, listing, now_ns)
    return listing


def _relist(
    db: sqlite3.Connection,
    files: InsightFiles,
    folder: str,
    known: dict[str, int | None],
    listing: _Listing,
    now_ns: int,
) -> None:
    names, subfolders = files.entries(folder)
    present = {f"{folder}/{name}" for name in names}
    cached = {row[0] for row in db.execute("SELECT path FROM entries WHERE dir = ?", (folder,))}
    listing.added.update(present - cached)
    listing.removed.update(cached - present)
    listing.folders[folder] = folder_mtime(files, folder, now_ns)
    for sub in subfolders:
        if f"{folder}/{sub}" not in known:
            _add_tree(files, f"{folder}/{sub}", listing, now_ns)


def _add_tree(files: InsightFiles, folder: str, listing: _Listing, now_ns: int) -> None:
    names, subfolders = files.entries(folder)
    listing.added.update(f"{folder}/{name}" for name in names)
    listing.folders[folder] = folder_mtime(files, folder, now_ns)
    for sub in subfolders:
        _add_tree(files, f"{folder}/{sub}", listing, now_ns)
