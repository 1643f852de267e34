"""The derived metadata cache in ``.chitin/cache.sqlite3``: the one entry point that
``core`` and ``retrieval`` use.

Files are the truth; this cache only saves reading them. ``sync()`` brings it in step
with the files (``sync.py``); the cache is handed what it reads them with: a file
loader and, in a git store, a change source (``sources.py``), and never reads a file
or runs git itself. A row is an insight's fields (``rows.py``); the queries are in
``queries.py``, the full-text ones in ``fulltext.py`` and the join with the vector
sidecar in ``vectors.py``.

The cache can be deleted at any time; a damaged one is deleted and rebuilt.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar, cast

from chitin.format.layout import RACY_SIZE, FileStat, racily_recent
from chitin.index import fulltext
from chitin.index.db import open_database
from chitin.index.fulltext import TextMatch
from chitin.index.queries import Problem, Queries
from chitin.index.rows import (
    INSERT,
    INSIGHT_COLUMNS,
    INSIGHT_VALUES,
    LIVE,
    UPDATE,
    Filters,
    row_values,
    tag_keys,
)
from chitin.index.sources import ChangeSource, InsightFiles
from chitin.index.sync import Progress, Reconciler
from chitin.index.vector_join import current_rows, unembedded
from chitin.model.insight import Insight
from chitin.model.search_text import vector_hash
from chitin.model.terms import claim_terms

__all__ = ["LIVE", "Cache", "Filters", "Problem", "Progress", "TextMatch"]

# Up to this many insight files, a sync stats them all (~6 µs each here) rather than ask
# `git status`, which costs ~14 ms to start at any size (measured at 1,000 and 10,000).
WALK_LIMIT = 2000
# Answers a Cache keeps for repeated queries (Cache.remembered): each holds up to a few
# hundred insights, ~1 MB at most, and an agent's session repeats few queries.
REMEMBERED_ANSWERS = 16

T = TypeVar("T")


class Cache(Reconciler, Queries):
    """Queries over the store's insights, kept in step with the files by ``sync``."""

    def __init__(
        self,
        root: Path,
        strength: Callable[[Insight], float],
        files: InsightFiles,
        git: ChangeSource | None = None,
        memory: bool = False,
    ) -> None:
        """``strength`` rates an insight apart from any query; it is kept per row so that
        the strongest insights can be found without computing it for every one.
        ``files`` lists, stats and reads the insight files below ``root``. With ``git``,
        syncs ask it what changed instead of statting every file. With ``memory``, the
        cache lives in memory for this command only (``.chitin/`` cannot be written)."""
        self.root = root
        self.strength = strength
        self.files = files
        self.git = git
        self._content_changed = False
        self._folders: dict[str, bool] = {}
        self.db = open_database(root, memory)
        self.memory = memory
        self.differing: set[str] | None = None
        self.synced = False  # until the first sync; see Reconciler.vouch
        self.vouched: set[str] = set()
        self._remembered: OrderedDict[Hashable, Any] = OrderedDict()
        self._remembered_in = ""  # the generation those answers were found in

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
        self._reconcile(progress, WALK_LIMIT)
        self.synced = True

    def record(self, path: str, insight: Insight, stat: FileStat) -> bool:
        """Store what chitin just wrote to ``path``. Returns True when it is racily recent."""
        row = self.db.execute("SELECT rowid FROM entries WHERE path = ?", (path,)).fetchone()
        self._unsettle(path)
        return self._store_insight(path, insight, stat, time.time_ns(), row[0] if row else None)

    def _unsettle(self, path: str) -> None:
        """The folder of a file chitin wrote or removed is compared file by file at the
        next walk: its fingerprint is of the files before, and a `rm` or checkout that
        takes the file away again gives that fingerprint back (docs/design.md §9l). A
        folder chitin just made gets its row here: a walk looks only for folders it has
        rows for, so a file in a folder gone before any walk (the revert of the first
        archive) would keep its row."""
        self.db.execute(
            "INSERT INTO dirs (path, fingerprint) VALUES (?, NULL) "
            "ON CONFLICT (path) DO UPDATE SET fingerprint = NULL",
            (path.rpartition("/")[0],),
        )

    def _store_insight(
        self, path: str, insight: Insight, stat: FileStat, now_ns: int, rowid: int | None
    ) -> bool:
        racy = racily_recent(stat[0], now_ns)
        if racy:
            stat = (stat[0], stat[1], RACY_SIZE, stat[3])  # never a real stat: re-read next time
        rowid = self._store(path, stat, None, insight, rowid)
        self.db.execute(
            "INSERT INTO claim_terms (rowid, terms) VALUES (?, ?)",
            (rowid, " ".join(sorted(claim_terms(insight.claim)))),
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
        values: tuple[Any, ...] = (None,) * INSIGHT_VALUES
        if insight is not None:
            values = (
                *row_values(insight),
                self.strength(insight),
                vector_hash(insight),
                tag_keys(insight),
            )
        params = (path, path.rsplit("/", 1)[0], *stat, error, *values)
        if rowid is None:
            self._content_changed = True
            cursor = self.db.execute(INSERT, params)
            return int(cursor.lastrowid or 0)
        before = self.db.execute(
            f"SELECT error, {INSIGHT_COLUMNS}, strength, text_hash, tag_keys FROM entries "
            "WHERE rowid = ?",
            (rowid,),
        ).fetchone()
        if before != (error, *values):
            self._content_changed = True
        self.db.execute(UPDATE, (*params, rowid))
        self._drop_terms(rowid)
        return rowid

    def _drop_terms(self, rowid: int) -> None:
        self.db.execute("DELETE FROM claim_terms WHERE rowid = ?", (rowid,))
        self.db.execute("DELETE FROM search WHERE rowid = ?", (rowid,))

    def forget(self, path: str) -> None:
        row = self.db.execute("SELECT rowid FROM entries WHERE path = ?", (path,)).fetchone()
        self._unsettle(path)
        if row is not None:
            self._delete(row[0])

    def _delete(self, rowid: int) -> None:
        self._content_changed = True
        self.db.execute("DELETE FROM entries WHERE rowid = ?", (rowid,))
        self._drop_terms(rowid)

    def _forget_tree(self, folder: str) -> None:
        # instr, not LIKE: LIKE reads "_" and "%" in a folder's name as wildcards and
        # ignores case, so team_a's rows took teamBa/sub's and TEAM_A/sub's with them.
        for (rowid,) in self.db.execute(
            "SELECT rowid FROM entries WHERE dir = ? OR instr(dir, ?) = 1", (folder, f"{folder}/")
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

    def remembered(self, key: Hashable, find: Callable[[], T]) -> T:
        """``find()``, or what it gave for ``key`` while the cache's content has not
        changed since (by any process: the generation is read each time). A process
        that answers many queries, the MCP server, then answers a repeated one without
        searching again. Within a transaction the content may differ from what the
        generation says, so nothing is remembered there."""
        generation = self.generation()
        if not generation or self.db.in_transaction:
            return find()
        if generation != self._remembered_in:
            self._remembered.clear()
            self._remembered_in = generation
        if key in self._remembered:
            self._remembered.move_to_end(key)
            return cast(T, self._remembered[key])
        value = self._remembered[key] = find()
        if len(self._remembered) > REMEMBERED_ANSWERS:
            self._remembered.popitem(last=False)
        return value

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Group several ``record``/``forget`` calls into one transaction."""
        with self._transaction():
            yield

    # -------------------------------------------------------------- full text

    def search(
        self, expression: str, weights: tuple[float, ...], limit: int, filters: Filters = LIVE
    ) -> list[TextMatch]:
        """The ``limit`` best BM25 matches of an FTS5 ``expression`` (fulltext.search)."""
        return fulltext.search(self.db, expression, weights, limit, filters)

    def coverage(self, words: Mapping[str, float], rowids: Iterable[int]) -> dict[int, float]:
        """The summed weights of the query ``words`` each of the rows ``rowids`` holds."""
        return fulltext.coverage(self.db, words, rowids)

    def same_terms(self, terms: Iterable[str]) -> list[int]:
        """Rows whose claim holds exactly ``terms`` (fulltext.same_terms)."""
        return fulltext.same_terms(self.db, terms)

    def same_words(self, claim: str) -> list[int]:
        """Rows whose claim holds every word of ``claim``, any script (fulltext.same_words)."""
        return fulltext.same_words(self.db, claim)

    def term_matches(
        self, terms: Iterable[str], max_share: float, floor: int
    ) -> tuple[dict[int, int], int]:
        """How many of ``terms`` each insight's claim holds (fulltext.term_matches)."""
        return fulltext.term_matches(self.db, terms, max_share, floor)

    # -------------------------------------------------------------- vectors

    def current_vector_rows(self, index: Path, filters: Filters = LIVE) -> list[int]:
        """Rows of the vector sidecar (at ``index``) current for insights that pass
        ``filters`` (vector_join.current_rows)."""
        return current_rows(self.db, index, filters)

    def unembedded(self, index: Path) -> int:
        """How many insights have no current row in the sidecar at ``index``."""
        return unembedded(self.db, index)
