"""Keeping the cache in step with the files: a walk over every file, or git's word on
which files may have changed (``changes.py``), and each file compared by its stat.

Every command first calls ``Cache.sync()``, which walks the insight folders and
compares each folder's fingerprint (a hash over its files' stat data) with the stored
one. Only folders whose fingerprint changed are compared file by file, and only
changed files are parsed. So a hand edit, ``git pull``, ``checkout`` or ``revert`` is
seen by the next command, and a store of 100,000 unchanged insights costs one walk and
one small query. The files are listed and read by the loader the cache is handed
(``sources.InsightFiles``), and git is asked through its change source.
"""

from __future__ import annotations

import contextlib
import stat as stat_module
import time
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from chitin.errors import ChitinError, ValidationError
from chitin.format.layout import SCANNED_DIRS, FileStat, Folder, clipped, is_insight_path
from chitin.index import changes
from chitin.index.sources import ChangeSource, InsightFiles
from chitin.model.insight import Insight

if TYPE_CHECKING:
    import sqlite3

Progress = Callable[[int, int], None]


class Reconciler:
    """The part of ``Cache`` (index/cache.py) that compares the files with the rows;
    the rows themselves are written by the cache."""

    root: Path
    db: sqlite3.Connection
    files: InsightFiles
    git: ChangeSource | None
    # The paths that git said differ from HEAD (or are untracked) at the last sync,
    # when it was asked; None when the sync statted the files instead.
    differing: set[str] | None
    _folders: dict[str, bool]
    synced: bool  # set by Cache.sync
    vouched: set[str]  # the paths ``vouch`` found in step, while the cache is not synced

    def _reconcile(self, progress: Progress | None, walk_limit: int) -> None:
        """``Cache.sync``: git's plan above ``walk_limit`` files, else a full walk."""
        plan = None
        self.differing = None
        by_git = self.git is not None and not self._small(walk_limit)
        changes.mark_by_git(self.root, by_git)
        if by_git:
            assert self.git is not None
            plan = changes.plan(self.db, self.files, self.git)
        if plan is None:
            self._walk_all(progress, walk_limit)
            return
        watched = dict(self.db.execute("SELECT path, untracked FROM watch"))
        head = self.db.execute("SELECT value FROM meta WHERE key = 'head'").fetchone()[0]
        self.differing = set(plan.watch)
        if not (plan.check or plan.folders or plan.gone_folders) and (
            (plan.head or "") == head and plan.watch == {p: bool(u) for p, u in watched.items()}
        ):
            return
        now_ns = time.time_ns()
        self._folders.clear()  # what files.through_link found, for this sync only
        with self._transaction():
            for folder in plan.gone_folders:
                self._forget_tree(folder)
            for path in sorted(plan.check):
                self._check(path, now_ns)
            changes.remember(self.db, plan.head, plan.watch, plan.folders, plan.gone_folders)

    def may_differ_from_head(self, paths: Iterable[str]) -> list[str] | None:
        """Those of ``paths`` that may hold uncommitted changes, as the last sync's git
        status said; None when the sync did not ask git (a small store)."""
        if self.differing is None:
            return None
        return [path for path in paths if path in self.differing]

    def vouch(self, paths: Collection[str]) -> bool:
        """Whether the rows of ``paths`` may be read without a sync, by a command that
        reads those files and nothing else (``get``): the store syncs by git (so the last
        sync remembered every folder's mtime), no folder's mtime moved since (no file
        was added, removed or renamed), and each file's stat is its row's. One stat per
        folder and per file, no git: ~30 ms less CPU at 10,000 insights than the `git
        status` a sync asks, which stats every file (docs/design.md §9f). A hand edit
        of another file is seen by the next sync, which every other read makes."""
        if self.synced:
            return True
        if not paths or self.git is None or not self._has_git_state():
            return False
        if not self.vouched and not self._folders_unmoved():
            return False
        if not all(self._row_in_step(path) for path in set(paths) - self.vouched):
            return False
        self.vouched.update(paths)
        return True

    def _folders_unmoved(self) -> bool:
        known = dict(self.db.execute("SELECT path, mtime_ns FROM dirs"))
        for top in SCANNED_DIRS:
            if top not in known:
                with contextlib.suppress(OSError):
                    self.files.lstat(top)
                    return False  # a new top folder (or a link): the sync says what it is
        for folder, mtime in known.items():
            try:
                stat, mode = self.files.lstat(folder)
            except OSError:
                return False
            if mtime is None or stat[0] != mtime or not stat_module.S_ISDIR(mode):
                return False
        return True

    def _row_in_step(self, path: str) -> bool:
        query = "SELECT mtime_ns, ctime_ns, size, inode FROM entries WHERE path = ?"
        row = self.db.execute(query, (path,)).fetchone()
        try:
            stat = self.files.lstat(path)[0]
        except OSError:
            return False
        if row is None or tuple(row) == stat:
            return row is not None
        # Edited, touched, or recorded racily (RACY_SIZE): read again, as a walk would.
        # (A sync by git never does while git vouches for the content, so a touched
        # file's row would otherwise never match again.)
        with self._transaction():
            self._check(path, time.time_ns())
        return tuple(self.db.execute(query, (path,)).fetchone() or ()) == stat

    def _small(self, walk_limit: int) -> bool:
        """Whether the store holds at most ``walk_limit`` files, as far as the cache
        knows (the highest row id: never fewer than the rows, and read in one step)."""
        row = self.db.execute("SELECT max(rowid) FROM entries").fetchone()
        return int(row[0] or 0) <= walk_limit

    def _check(self, path: str, now_ns: int) -> None:
        """Compare one file with its cached row; read it again if it changed."""
        row = self.db.execute(
            "SELECT rowid, mtime_ns, ctime_ns, size, inode FROM entries WHERE path = ?", (path,)
        ).fetchone()
        try:
            # The path itself, a link not followed, and only below real folders: the
            # walk's rule (files.walk), for a path that git or the watch list names.
            stat, mode = self.files.lstat(path)
            listed = not stat_module.S_ISDIR(mode)
            listed = listed and not self.files.through_link(path, self._folders)
            if listed and not is_insight_path(path):
                listed = stat_module.S_ISLNK(mode)
        except (FileNotFoundError, NotADirectoryError):
            listed = False
        if not listed:
            if row is not None:
                self._delete(row[0])
            return
        if row is None:
            self._load(path, stat, now_ns, None)
        elif tuple(row[1:]) != stat:
            self._load(path, stat, now_ns, row[0])

    def _walk_all(self, progress: Progress | None, walk_limit: int) -> None:
        walked = self.files.walk()
        fingerprints = {d: _fingerprint(folder) for d, folder in walked.items()}
        stored = dict(self.db.execute("SELECT path, fingerprint FROM dirs"))
        changed = [d for d, fp in fingerprints.items() if stored.get(d) != fp]  # NULL: unknown
        removed = [d for d in stored if d not in walked]
        # What git-assisted syncs start from, in a store large enough for them; a small
        # store forgets it, so that growing past the limit starts from a full walk.
        large = sum(len(folder.names) for folder in walked.values()) > walk_limit
        state = changes.initial_state(self.git) if large and self.git else None
        if state is not None:
            self.differing = set(state[1])
        stale_state = state is None and self._has_git_state()
        if not (changed or removed or state or stale_state):
            return  # nothing to write: no transaction, no commit
        now_ns = time.time_ns()
        total = sum(len(walked[d].names) for d in changed)
        done = 0
        with self._transaction():
            for directory in removed:
                self._forget_dir(directory)
            for directory in changed:
                racy = self._sync_dir(directory, walked[directory], now_ns)
                done += len(walked[directory].names)
                if progress is not None:
                    progress(done, total)
                fingerprint = None if racy else fingerprints[directory]
                self.db.execute(
                    "INSERT INTO dirs (path, fingerprint) VALUES (?, ?) ON CONFLICT (path) "
                    "DO UPDATE SET fingerprint = excluded.fingerprint",
                    (directory, fingerprint),
                )
            if state is not None:
                folders = {d: changes.folder_mtime(self.files, d, now_ns) for d in walked}
                changes.remember(self.db, state[0], state[1], folders)
            elif stale_state:
                changes.forget(self.db)

    def _has_git_state(self) -> bool:
        return self.db.execute("SELECT 1 FROM meta WHERE key = 'head'").fetchone() is not None

    def _sync_dir(self, directory: str, folder: Folder, now_ns: int) -> bool:
        known = {
            row[0]: (row[1], tuple(row[2:]))
            for row in self.db.execute(
                "SELECT path, rowid, mtime_ns, ctime_ns, size, inode FROM entries WHERE dir = ?",
                (directory,),
            )
        }
        racy = False
        seen = set()
        for name, stat in zip(folder.names, folder.stats, strict=True):
            path = f"{directory}/{name}"
            seen.add(path)
            previous = known.get(path)
            if previous is None:
                racy |= self._load(path, stat, now_ns, None)
            elif previous[1] != stat:
                racy |= self._load(path, stat, now_ns, previous[0])
        for path, (rowid, _) in known.items():
            if path not in seen:
                self._delete(rowid)
        return racy

    def _load(self, path: str, stat: FileStat, now_ns: int, rowid: int | None) -> bool:
        try:
            insight = self.files.load(path, stat)
        except (ChitinError, OSError, UnicodeDecodeError) as error:
            self._store(path, stat, _describe(error), None, rowid)
            return False
        return self._store_insight(path, insight, stat, now_ns, rowid)

    # The rows, as the cache (index/cache.py) writes them.
    _store_insight: Callable[[str, Insight, FileStat, int, int | None], bool]
    _store: Callable[[str, FileStat, str | None, Insight | None, int | None], int]
    _delete: Callable[[int], None]
    _forget_tree: Callable[[str], None]
    _forget_dir: Callable[[str], None]
    _transaction: Callable[[], contextlib.AbstractContextManager[None]]


def _fingerprint(folder: Folder) -> int:
    # Integers hash the same in every process (unlike str), so this is a stable value.
    # A rename changes a file's ctime, so names need not take part.
    return hash(tuple(folder.stats)) & 0x7FFF_FFFF_FFFF_FFFF


def _describe(error: BaseException) -> str:
    """What is wrong with a file and what to do about it, as every read's warning says
    it (and ``chitin check`` says the same fix)."""
    if isinstance(error, UnicodeDecodeError):
        return "file is not UTF-8 text; fix: save it as UTF-8"
    if isinstance(error, OSError):
        return f"{error.strerror or error}; fix: check its permissions"
    fix = getattr(error, "fix", None)  # an unsafe file (store/files.py) says its own
    if fix is None and isinstance(error, ValidationError):
        from chitin.format.lint import fix_for  # only when a file does not read

        fix = fix_for(error)
    reason = clipped(str(error))
    return f"{reason}; fix: {fix}" if fix else reason
