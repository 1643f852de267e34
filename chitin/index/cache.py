"""The derived metadata cache in ``.chitin/cache.sqlite3``.

Files are the truth; this cache only saves reading them. Every command first calls
``sync()``, which walks the insight folders and compares each folder's fingerprint
(a hash over its files' stat data) with the stored one. Only folders whose
fingerprint changed are compared file by file, and only changed files are parsed.
So a hand edit, ``git pull``, ``checkout`` or ``revert`` is seen by the next command,
and a store of 100,000 unchanged insights costs one walk and one small query.

The cache can be deleted at any time; a damaged one is deleted and rebuilt.
"""

from __future__ import annotations

import contextlib
import heapq
import os
import stat as stat_module
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from chitin.errors import ChitinError
from chitin.format.layout import clipped
from chitin.index import changes, fulltext
from chitin.index.db import open_database
from chitin.model.insight import Insight, embedding_text, text_hash
from chitin.model.terms import stemmed_tokens
from chitin.store import files
from chitin.store.files import RACY_WINDOW_NS, FileStat, Folder
from chitin.store.git import Git

# Column order equals Insight's field order, so a row becomes an insight in one step.
_INSIGHT_COLUMNS = (
    "id, type, claim, confidence, created, updated, tags, provenance, source, condition, "
    "avoid, reinforcements, last_reinforced, reasoning, context, limitations, archived, "
    "carapace_id"
)


_ROW_COLUMNS = [
    *["path", "dir", "mtime_ns", "ctime_ns", "size", "inode", "error"],
    *_INSIGHT_COLUMNS.split(", "),
    "strength",
    "text_hash",
]
_INSIGHT_VALUES = len(_ROW_COLUMNS) - 7  # the insight's columns, strength and text hash
_INSERT = (
    f"INSERT INTO entries ({', '.join(_ROW_COLUMNS)}) VALUES ({', '.join('?' * len(_ROW_COLUMNS))})"
)
_UPDATE = f"UPDATE entries SET {', '.join(f'{c} = ?' for c in _ROW_COLUMNS)} WHERE rowid = ?"
_TAG_SEPARATOR = "\n"
Progress = Callable[[int, int], None]  # tags never hold a newline: parse_tags folds white space
# Up to this many insight files, a sync stats them all (~6 µs each here) rather than ask
# `git status`, which costs ~14 ms to start at any size (measured at 1,000 and 10,000).
WALK_LIMIT = 2000


class Filters(NamedTuple):
    """Which insights a query looks at; the default is every live (unarchived) one."""

    archived: bool | None = False
    types: tuple[str, ...] = ()
    provenance: str | None = None
    min_confidence: float | None = None
    tags: tuple[str, ...] = ()  # any of them, whole tags, ignoring (ASCII) case

    def sql(self, prefix: str = "") -> tuple[str, list[Any]]:
        clauses = [f"{prefix}error IS NULL"]
        args: list[Any] = []
        if self.archived is not None:
            clauses.append(f"{prefix}archived = ?")
            args.append(int(self.archived))
        if self.types:
            clauses.append(f"{prefix}type IN ({', '.join('?' * len(self.types))})")
            args.extend(self.types)
        if self.provenance is not None:
            clauses.append(f"{prefix}provenance = ?")
            args.append(self.provenance)
        if self.min_confidence is not None:
            clauses.append(f"{prefix}confidence >= ?")
            args.append(self.min_confidence)
        if self.tags:
            held = f"lower(char(10) || {prefix}tags || char(10))"
            clauses.append("(" + " OR ".join(f"instr({held}, ?) > 0" for _ in self.tags) + ")")
            args.extend(f"\n{tag.lower()}\n" for tag in self.tags)
        return " AND ".join(clauses), args


LIVE = Filters()


class TextMatch(NamedTuple):
    """A full-text match: its BM25 relevance, the insight, and its row in the cache."""

    relevance: float
    insight: Insight
    rowid: int


# The full-text search looks this many times the rows it returns among the best in the
# index, before filters (archived, type, tags) are applied.
SEARCH_SLACK = 2


class Problem(NamedTuple):
    """An insight file that could not be read, and why."""

    path: str
    error: str


class Cache:
    """Queries over the store's insights, kept in step with the files by ``sync``.

    Lookups by id say ``INDEXED BY entries_id``: there are no planner statistics, and
    with the archived/error filters SQLite otherwise prefers a scan of entries_live."""

    def __init__(
        self,
        root: Path,
        strength: Callable[[Insight], float],
        git: Git | None = None,
        memory: bool = False,
    ) -> None:
        """``strength`` rates an insight apart from any query; it is kept per row so that
        the strongest insights can be found without computing it for every one. With
        ``git``, syncs ask git what changed instead of statting every file. With
        ``memory``, the cache lives in memory for this command only (``.chitin/``
        cannot be written)."""
        self.root = root
        self.strength = strength
        self.git = git
        self._content_changed = False
        self._folders: dict[str, bool] = {}
        self.db = open_database(root, memory)
        self.memory = memory
        # The paths that git said differ from HEAD (or are untracked) at the last sync,
        # when it was asked; None when the sync statted the files instead.
        self.differing: set[str] | None = None

    def close(self) -> None:
        self.db.close()

    # -------------------------------------------------------------- keeping in step

    def sync(self, progress: Progress | None = None) -> None:
        """Bring the cache in step with the files. ``progress(done, total)`` hears of
        the files being compared, which matters when a large store is rebuilt.

        In a large git store, git says which files may have changed (index/changes.py);
        in a small one, or without git, or when git cannot tell, every file is statted:
        below WALK_LIMIT files that is quicker than starting git.
        """
        plan = None
        self.differing = None
        by_git = self.git is not None and not self._small()
        changes.mark_by_git(self.root, by_git)
        if by_git:
            assert self.git is not None
            plan = changes.plan(self.db, self.root, self.git)
        if plan is None:
            self._walk_all(progress)
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

    def _small(self) -> bool:
        """Whether the store holds at most WALK_LIMIT files, as far as the cache knows
        (the highest row id: never fewer than the rows, and read in one step)."""
        row = self.db.execute("SELECT max(rowid) FROM entries").fetchone()
        return int(row[0] or 0) <= WALK_LIMIT

    def _check(self, path: str, now_ns: int) -> None:
        """Compare one file with its cached row; read it again if it changed."""
        row = self.db.execute(
            "SELECT rowid, mtime_ns, ctime_ns, size, inode FROM entries WHERE path = ?", (path,)
        ).fetchone()
        try:
            # The path itself, a link not followed, and only below real folders: the
            # walk's rule (files.walk), for a path that git or the watch list names.
            stat, mode = files.lstat_of(self.root / path)
            listed = not stat_module.S_ISDIR(mode)
            listed = listed and not files.through_link(self.root, path, self._folders)
            if listed and not files.is_insight_path(path):
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

    def _walk_all(self, progress: Progress | None) -> None:
        walked = files.walk(self.root)
        fingerprints = {d: _fingerprint(folder) for d, folder in walked.items()}
        stored = dict(self.db.execute("SELECT path, fingerprint FROM dirs"))
        changed = [d for d, fp in fingerprints.items() if stored.get(d) != fp]  # NULL: unknown
        removed = [d for d in stored if d not in walked]
        # What git-assisted syncs start from, in a store large enough for them; a small
        # store forgets it, so that growing past the limit starts from a full walk.
        large = sum(len(folder.names) for folder in walked.values()) > WALK_LIMIT
        state = changes.initial_state(self.root, self.git) if large and self.git else None
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
                folders = {d: changes.folder_mtime(self.root / d, now_ns) for d in walked}
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
        from chitin.store.repository import load_insight  # the parser, only for a change

        try:
            insight = load_insight(self.root, path, stat)
        except (ChitinError, OSError, UnicodeDecodeError) as error:
            self._store(path, stat, _describe(error), None, rowid)
            return False
        return self._store_insight(path, insight, stat, now_ns, rowid)

    def record(self, path: str, insight: Insight, stat: FileStat) -> bool:
        """Store what chitin just wrote to ``path``. Returns True when it is racily recent."""
        row = self.db.execute("SELECT rowid FROM entries WHERE path = ?", (path,)).fetchone()
        return self._store_insight(path, insight, stat, time.time_ns(), row[0] if row else None)

    def _store_insight(
        self, path: str, insight: Insight, stat: FileStat, now_ns: int, rowid: int | None
    ) -> bool:
        racy = stat[0] >= now_ns - RACY_WINDOW_NS
        if racy:
            stat = (stat[0], stat[1], -1, stat[3])  # never equals a real stat: re-read next time
        rowid = self._store(path, stat, None, insight, rowid)
        self.db.execute(
            "INSERT INTO claim_terms (rowid, terms) VALUES (?, ?)",
            (rowid, " ".join(sorted(stemmed_tokens(insight.claim)))),
        )
        self.db.execute(fulltext.INSERT, (rowid, *fulltext.document(insight)))
        return racy

    def _store(
        self,
        path: str,
        stat: FileStat,
        error: str | None,
        insight: Insight | None,
        rowid: int | None,
    ) -> int:
        """Insert (``rowid`` None) or replace the row for ``path``; its terms are dropped."""
        values: tuple[Any, ...] = (None,) * _INSIGHT_VALUES
        if insight is not None:
            values = (
                *_row_values(insight),
                self.strength(insight),
                text_hash(embedding_text(insight)),
            )
        params = (path, path.rsplit("/", 1)[0], *stat, error, *values)
        if rowid is None:
            self._content_changed = True
            cursor = self.db.execute(_INSERT, params)
            return int(cursor.lastrowid or 0)
        before = self.db.execute(
            f"SELECT error, {_INSIGHT_COLUMNS}, strength, text_hash FROM entries WHERE rowid = ?",
            (rowid,),
        ).fetchone()
        if before != (error, *values):
            self._content_changed = True
        self.db.execute(_UPDATE, (*params, rowid))
        self._drop_terms(rowid)
        return rowid

    def _drop_terms(self, rowid: int) -> None:
        self.db.execute("DELETE FROM claim_terms WHERE rowid = ?", (rowid,))
        self.db.execute("DELETE FROM search WHERE rowid = ?", (rowid,))

    def forget(self, path: str) -> None:
        row = self.db.execute("SELECT rowid FROM entries WHERE path = ?", (path,)).fetchone()
        if row is not None:
            self._delete(row[0])

    def _delete(self, rowid: int) -> None:
        self._content_changed = True
        self.db.execute("DELETE FROM entries WHERE rowid = ?", (rowid,))
        self._drop_terms(rowid)

    def _forget_tree(self, folder: str) -> None:
        for (rowid,) in self.db.execute(
            "SELECT rowid FROM entries WHERE dir = ? OR dir LIKE ?", (folder, f"{folder}/%")
        ).fetchall():
            self._delete(rowid)

    def _forget_dir(self, directory: str) -> None:
        for (rowid,) in self.db.execute(
            "SELECT rowid FROM entries WHERE dir = ?", (directory,)
        ).fetchall():
            self._delete(rowid)
        self.db.execute("DELETE FROM dirs WHERE path = ?", (directory,))

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        self.db.execute("BEGIN IMMEDIATE")
        self._content_changed = False
        try:
            yield
            if self._content_changed or not self.generation():
                # A fresh random token, not a counter: a rebuilt cache never repeats one.
                self.db.execute(
                    "INSERT OR REPLACE INTO meta VALUES ('generation', ?)", (os.urandom(8).hex(),)
                )
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def generation(self) -> str:
        """A token that changes whenever the cache's content may have changed."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        return str(row[0]) if row else ""

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Group several ``record``/``forget`` calls into one transaction."""
        with self._transaction():
            yield

    # -------------------------------------------------------------- queries

    def problems(self) -> list[Problem]:
        rows = self.db.execute(
            "SELECT path, error FROM entries WHERE error IS NOT NULL ORDER BY path"
        )
        return [Problem(*row) for row in rows]

    def ids_matching(self, prefix: str, archived: bool | None) -> list[tuple[str, bool]]:
        """(id, archived) of insights whose id is ``prefix``, or else starts with it."""
        scope, params = Filters(archived=archived).sql()
        exact = self.db.execute(
            f"SELECT id, archived FROM entries INDEXED BY entries_id WHERE id = ? AND {scope}",
            (prefix, *params),
        ).fetchall()
        if exact:
            return [(row[0], bool(row[1])) for row in exact]
        rows = self.db.execute(
            f"SELECT id, archived FROM entries INDEXED BY entries_id "
            f"WHERE id >= ? AND id < ? AND {scope} ORDER BY id",
            (prefix, prefix + "\U0010ffff", *params),
        ).fetchall()
        return [(row[0], bool(row[1])) for row in rows]

    def id_exists(self, insight_id: str) -> bool:
        row = self.db.execute("SELECT 1 FROM entries WHERE id = ? LIMIT 1", (insight_id,))
        return row.fetchone() is not None

    def paths_of(self, insight_id: str) -> list[str]:
        rows = self.db.execute(
            "SELECT path FROM entries INDEXED BY entries_id "
            "WHERE id = ? AND error IS NULL ORDER BY path",
            (insight_id,),
        )
        return [row[0] for row in rows]

    def get(self, insight_id: str) -> Insight | None:
        row = self.db.execute(
            f"SELECT {_INSIGHT_COLUMNS} FROM entries INDEXED BY entries_id "
            "WHERE id = ? AND error IS NULL ORDER BY archived LIMIT 1",
            (insight_id,),
        ).fetchone()
        return _to_insight(row) if row else None

    def shared_as(self, carapace_id: str) -> list[Insight]:
        """The insights, live or archived, promoted to or imported from that Carapace
        contribution (a scan: asked once per import, not worth an index)."""
        rows = self.db.execute(
            f"SELECT {_INSIGHT_COLUMNS} FROM entries "
            "WHERE carapace_id = ? AND error IS NULL ORDER BY archived, id",
            (carapace_id,),
        )
        return [_to_insight(row) for row in rows]

    def select(self, filters: Filters = LIVE, rowids: Iterable[int] | None = None) -> list[Insight]:
        """Insights newest first (ties by id), filtered in SQL."""
        where, args = filters.sql()
        if rowids is not None:
            where += " AND rowid IN (SELECT value FROM json_each(?))"
            args.append("[" + ",".join(str(r) for r in rowids) + "]")
        rows = self.db.execute(
            f"SELECT {_INSIGHT_COLUMNS} FROM entries WHERE {where} ORDER BY created DESC, id", args
        )
        return [_to_insight(row) for row in rows]

    def search(
        self, expression: str, weights: tuple[float, ...], limit: int, filters: Filters = LIVE
    ) -> list[TextMatch]:
        """The ``limit`` best BM25 matches of an FTS5 ``expression``, best first; scores
        are positive.

        The best rows are found in the index alone, with room to spare, and only those
        are joined to their insights: joining every match first cost 6 ms of 9 at 10,000
        insights. When the filters leave fewer than ``limit`` of them, every match is
        joined, so nothing is missed."""
        rows = self._search(expression, weights, limit, filters, SEARCH_SLACK * limit)
        if len(rows) < limit:
            rows = self._search(expression, weights, limit, filters, None)
        return [TextMatch(row[0], _to_insight(row[2:]), row[1]) for row in rows]

    def _search(
        self,
        expression: str,
        weights: tuple[float, ...],
        limit: int,
        filters: Filters,
        best: int | None,
    ) -> list[tuple[Any, ...]]:
        where, args = filters.sql("entries.")
        columns = ", ".join(f"entries.{c}" for c in _INSIGHT_COLUMNS.split(", "))
        bm25 = f"-bm25(search, {', '.join('?' * len(weights))})"
        found = f"SELECT rowid, {bm25} AS relevance FROM search WHERE search MATCH ?"
        if best is not None:
            found += " ORDER BY relevance DESC LIMIT ?"
        return self.db.execute(
            f"SELECT s.relevance, entries.rowid, {columns} FROM ({found}) s "
            f"JOIN entries ON entries.rowid = s.rowid "
            f"WHERE {where} ORDER BY s.relevance DESC, entries.id LIMIT ?",
            (*weights, expression, *([best] if best is not None else []), *args, limit),
        ).fetchall()

    def coverage(self, words: Sequence[str], rowids: Iterable[int]) -> dict[int, int]:
        """How many of the query ``words`` each of the rows ``rowids`` holds (in any
        indexed field), one index lookup per word."""
        wanted = set(rowids)
        held: dict[int, int] = {}
        for word in words:
            for (rowid,) in self.db.execute(
                "SELECT rowid FROM search WHERE search MATCH ?", (f'"{word}"',)
            ):
                if rowid in wanted:
                    held[rowid] = held.get(rowid, 0) + 1
        return held

    def strongest(
        self, type_factors: Mapping[str, float], filters: Filters = LIVE
    ) -> Iterator[tuple[float, Insight]]:
        """Insights by stored strength × their type's factor, strongest first, lazily:
        a caller that knows decay only lowers a score can stop early. One indexed scan
        per type, merged, so a large store is never sorted as a whole."""
        where, args = filters.sql()
        streams = []
        for kind, factor in type_factors.items():
            if filters.types and kind not in filters.types:
                continue
            rows = self.db.execute(
                f"SELECT strength, id, {_INSIGHT_COLUMNS} FROM entries "
                f"WHERE {where} AND type = ? ORDER BY strength DESC, id",
                (*args, kind),
            )
            streams.append(_scaled(rows, factor))
        for bound, _, row in heapq.merge(*streams):
            yield -bound, _to_insight(row)

    def current_vector_rows(self, index: Path, filters: Filters = LIVE) -> list[int]:
        """Rows of the vector sidecar (at ``index``) whose insight passes ``filters`` and
        whose text is still the one embedded: one join, however large the store."""
        where, args = filters.sql("entries.")
        self.db.execute("ATTACH DATABASE ? AS vectors", (str(index),))
        try:
            rows = self.db.execute(
                f"SELECT r.row FROM vectors.rows r CROSS JOIN entries INDEXED BY entries_id "
                f"ON entries.id = r.id AND entries.text_hash = r.hash WHERE {where}",
                args,
            )
            return [row for (row,) in rows]
        finally:
            self.db.execute("DETACH DATABASE vectors")

    def unembedded(self, index: Path) -> int:
        """How many insights (archived ones too, as ``refresh`` embeds them) have no row
        in the vector sidecar at ``index`` for their current text."""
        where, args = Filters(archived=None).sql("entries.")
        self.db.execute("ATTACH DATABASE ? AS vectors", (str(index),))
        try:
            row = self.db.execute(
                f"SELECT count(*) FROM entries LEFT JOIN vectors.rows r "
                f"ON r.id = entries.id AND r.hash = entries.text_hash "
                f"WHERE {where} AND r.row IS NULL",
                args,
            ).fetchone()
            return int(row[0])
        finally:
            self.db.execute("DETACH DATABASE vectors")

    def text_hashes(self, filters: Filters = LIVE) -> dict[str, str]:
        """id → hash of the text a vector of it must have embedded."""
        where, args = filters.sql()
        return dict(self.db.execute(f"SELECT id, text_hash FROM entries WHERE {where}", args))

    def by_ids(self, ids: Iterable[str], filters: Filters = LIVE) -> dict[str, Insight]:
        where, args = filters.sql()
        wanted = list(ids)
        found: dict[str, Insight] = {}
        # INDEXED BY: with the archived/error filters the planner preferred entries_live,
        # and scanned every live insight per query (85 ms, or seconds, at 100,000).
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            rows = self.db.execute(
                f"SELECT {_INSIGHT_COLUMNS} FROM entries INDEXED BY entries_id WHERE id IN "
                f"({', '.join('?' * len(chunk))}) AND {where}",
                (*chunk, *args),
            )
            found.update((row[0], _to_insight(row)) for row in rows)
        return found

    def counts(self) -> tuple[dict[str, int], float, int]:
        """(count by type, mean confidence, archived count) of live insights: one scan
        of the covering index for the live ones, one count of the archived."""
        rows = self.db.execute(
            "SELECT type, count(*), total(confidence) FROM entries "
            "WHERE error IS NULL AND archived = 0 GROUP BY type"
        ).fetchall()
        live = sum(count for _, count, _ in rows)
        mean = sum(confidence for _, _, confidence in rows) / live if live else 0.0
        archived = self.db.execute(
            "SELECT count(*) FROM entries WHERE error IS NULL AND archived = 1"
        ).fetchone()[0]
        return {kind: count for kind, count, _ in rows}, float(mean), int(archived)

    def term_matches(
        self, terms: Iterable[str], max_share: float, floor: int
    ) -> tuple[dict[int, int], int]:
        """How many of ``terms`` each insight's claim holds, counted through the index.

        Returns ({rowid: shared terms}, number of terms left out). A term found in
        more than ``max(floor, max_share × insights)`` claims is left out: it would
        touch most of the store (the FTS5 trap of 65 ms at 100,000 insights) while
        telling almost nothing about similarity. Rows include archived insights.
        """
        wanted = sorted({t for t in terms if t})
        if not wanted:
            return {}, 0
        total = self.db.execute("SELECT count(*) FROM entries WHERE error IS NULL").fetchone()[0]
        limit = max(floor, int(total * max_share))
        placeholders = ", ".join("?" * len(wanted))
        frequency = dict(
            self.db.execute(
                f"SELECT term, doc FROM claim_vocab WHERE term IN ({placeholders})", wanted
            )
        )
        counts: dict[int, int] = {}
        skipped = 0
        for term in wanted:
            found = frequency.get(term, 0)
            if found > limit:
                skipped += 1
            elif found:
                for (rowid,) in self.db.execute(
                    "SELECT rowid FROM claim_terms WHERE claim_terms MATCH ?", (f'"{term}"',)
                ):
                    counts[rowid] = counts.get(rowid, 0) + 1
        return counts, skipped


# ------------------------------------------------------------------ helpers


def _fingerprint(folder: Folder) -> int:
    # Integers hash the same in every process (unlike str), so this is a stable value.
    # A rename changes a file's ctime, so names need not take part.
    return hash(tuple(folder.stats)) & 0x7FFF_FFFF_FFFF_FFFF


def _describe(error: BaseException) -> str:
    if isinstance(error, UnicodeDecodeError):
        return "file is not UTF-8 text"
    if isinstance(error, OSError):
        return error.strerror or str(error)
    return clipped(str(error))


def _row_values(insight: Insight) -> tuple[Any, ...]:
    return (
        insight.id,
        insight.type,
        insight.claim,
        insight.confidence,
        insight.created,
        insight.updated,
        _TAG_SEPARATOR.join(insight.tags),
        insight.provenance,
        insight.source,
        insight.condition,
        int(insight.avoid),
        insight.reinforcements,
        insight.last_reinforced,
        insight.reasoning,
        insight.context,
        insight.limitations,
        int(insight.archived),
        insight.carapace_id,
    )


def _scaled(
    rows: Iterable[tuple[Any, ...]], factor: float
) -> Iterator[tuple[float, str, tuple[Any, ...]]]:
    """(−bound, id, insight columns): ascending order is strongest first, ties by id."""
    for row in rows:
        yield -row[0] * factor, row[1], row[2:]


_new_tuple = tuple.__new__


def _to_insight(row: tuple[Any, ...]) -> Insight:
    # Positional and without a Python-level __new__: `list` runs this 100,000 times.
    tags = row[6]
    return _new_tuple(
        Insight,
        (
            row[0],
            row[1],
            row[2],
            row[3],
            row[4],
            row[5],
            tuple(tags.split(_TAG_SEPARATOR)) if tags else (),
            row[7],
            row[8],
            row[9],
            row[10] == 1,
            row[11],
            row[12],
            row[13],
            row[14],
            row[15],
            row[16] == 1,
            row[17],
        ),
    )
