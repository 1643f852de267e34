"""The cache's queries over its rows: lookups by id, listings, the strongest, counts.
(Full-text queries are in ``fulltext.py``, the join with the vector sidecar in
``vectors.py``.)"""

from __future__ import annotations

import bisect
import heapq
import itertools
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, NamedTuple

from chitin.index.rows import INSIGHT_COLUMNS, LIVE, Filters, to_insight
from chitin.model.insight import Insight

# What a listing shows of an insight (render/text.py, list_entry); the other columns
# are selected as NULL, so that the rows keep INSIGHT_COLUMNS' places.
LISTED = frozenset(
    {"id", "type", "claim", "confidence", "created", "updated", "tags", "provenance"}
    | {"condition", "avoid", "reinforcements", "archived"}
)
LISTED_COLUMNS = ", ".join(
    name if name in LISTED else "NULL" for name in INSIGHT_COLUMNS.split(", ")
)


class Problem(NamedTuple):
    """An insight file that could not be read, and why."""

    path: str
    error: str


class Queries:
    """The queries of ``Cache`` (index/cache.py) that read its rows alone.

    Lookups by id say ``INDEXED BY entries_id``: there are no planner statistics, and
    with the archived/error filters SQLite otherwise prefers a scan of entries_live."""

    db: sqlite3.Connection

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

    def short_ids(self, ids: Iterable[str], shortest: int) -> dict[str, str]:
        """Each id's shortest prefix, of at least ``shortest`` characters, that starts
        no other id of the store (live, archived or unreadable), so that any command
        taking an id resolves it whatever its scope. Only an id's two neighbours in
        sorted order can share a longer prefix with it: two lookups of the id index.
        A file that does not read has no id in its row; it counts by its name, as
        ``Reading.resolve`` counts it (a prefix it shares with a readable id is ambiguous)."""
        unreadable = sorted(_named(problem.path) for problem in self.problems())
        short = {}
        for insight_id in ids:
            neighbours = [
                self.db.execute(
                    f"SELECT id FROM entries INDEXED BY entries_id WHERE id {op} ? "
                    f"ORDER BY id {order} LIMIT 1",
                    (insight_id,),
                ).fetchone()
                for op, order in (("<", "DESC"), (">", "ASC"))
            ]
            shared = max(
                (_shared_prefix(insight_id, row[0]) for row in neighbours if row),
                default=0,
            )
            shared = max(shared, _shared_with_sorted(insight_id, unreadable))
            length = max(shortest, shared + 1)
            while insight_id[length - 1 : length] == "-":  # "run-c" reads better than "run-"
                length += 1
            short[insight_id] = insight_id[:length]
        return short

    def text_hash_of(self, insight_id: str) -> str | None:
        """The hash of the text an insight's vector must have embedded (as stored, so
        that a session start need not import hashlib to work it out)."""
        row = self.db.execute(
            "SELECT text_hash FROM entries INDEXED BY entries_id WHERE id = ? LIMIT 1",
            (insight_id,),
        ).fetchone()
        return str(row[0]) if row and row[0] else None

    def id_exists(self, insight_id: str) -> bool:
        row = self.db.execute("SELECT 1 FROM entries WHERE id = ? LIMIT 1", (insight_id,))
        return row.fetchone() is not None

    def id_ignoring_case(self, insight_id: str) -> str | None:
        """The id the store holds that equals ``insight_id`` ignoring case (itself
        first): on a case-insensitive file system (macOS, Windows) the two are one file,
        and writing the second would overwrite the first. Ids are ASCII, as NOCASE."""
        row = self.db.execute(
            "SELECT id FROM entries WHERE id = ? COLLATE NOCASE ORDER BY id <> ? LIMIT 1",
            (insight_id, insight_id),
        ).fetchone()
        return str(row[0]) if row else None

    def named_like(self, prefix: str) -> list[tuple[str, str]]:
        """(path, id) of the readable files whose name starts with ``prefix``, whatever
        id they declare (a scan: asked only when no id matches)."""
        rows = self.db.execute(
            "SELECT path, id FROM entries WHERE error IS NULL AND instr(path, ?) > 0 ORDER BY path",
            ("/" + prefix,),
        )
        return [(row[0], row[1]) for row in rows]

    def paths_of(self, insight_id: str) -> list[str]:
        rows = self.db.execute(
            "SELECT path FROM entries INDEXED BY entries_id "
            "WHERE id = ? AND error IS NULL ORDER BY path",
            (insight_id,),
        )
        return [row[0] for row in rows]

    def get(self, insight_id: str) -> Insight | None:
        row = self.db.execute(
            f"SELECT {INSIGHT_COLUMNS} FROM entries INDEXED BY entries_id "
            "WHERE id = ? AND error IS NULL ORDER BY archived LIMIT 1",
            (insight_id,),
        ).fetchone()
        return to_insight(row) if row else None

    def shared_as(self, carapace_id: str) -> list[Insight]:
        """The insights, live or archived, promoted to or imported from that Carapace
        contribution (a scan: asked once per import, not worth an index)."""
        rows = self.db.execute(
            f"SELECT {INSIGHT_COLUMNS} FROM entries "
            "WHERE carapace_id = ? AND error IS NULL ORDER BY archived, id",
            (carapace_id,),
        )
        return [to_insight(row) for row in rows]

    def select(
        self, filters: Filters = LIVE, rowids: Iterable[int] | None = None, listed: bool = False
    ) -> list[Insight]:
        """Insights newest first (ties by id), filtered in SQL. ``listed``: only the
        fields a listing shows (the rest None), so that `list` at 10,000 does not read
        every reasoning and context (~20 ms)."""
        where, args = filters.sql()
        if rowids is not None:
            where += " AND rowid IN (SELECT value FROM json_each(?))"
            args.append("[" + ",".join(str(r) for r in rowids) + "]")
        columns = LISTED_COLUMNS if listed else INSIGHT_COLUMNS
        rows = self.db.execute(
            f"SELECT {columns} FROM entries WHERE {where} ORDER BY created DESC, id", args
        )
        return [to_insight(row) for row in rows]

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
                f"SELECT strength, id, {INSIGHT_COLUMNS} FROM entries "
                f"WHERE {where} AND type = ? ORDER BY strength DESC, id",
                (*args, kind),
            )
            streams.append(_scaled(rows, factor))
        for bound, _, row in heapq.merge(*streams):
            yield -bound, to_insight(row)

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
                f"SELECT {INSIGHT_COLUMNS} FROM entries INDEXED BY entries_id WHERE id IN "
                f"({', '.join('?' * len(chunk))}) AND {where}",
                (*chunk, *args),
            )
            found.update((row[0], to_insight(row)) for row in rows)
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


def _scaled(
    rows: Iterable[tuple[Any, ...]], factor: float
) -> Iterator[tuple[float, str, tuple[Any, ...]]]:
    """(−bound, id, insight columns): ascending order is strongest first, ties by id."""
    for row in rows:
        yield -row[0] * factor, row[1], row[2:]


def _shared_prefix(first: str, second: str) -> int:
    """How many leading characters two ids share."""
    same = itertools.takewhile(lambda pair: pair[0] == pair[1], zip(first, second, strict=False))
    return sum(1 for _ in same)


def _shared_with_sorted(name: str, names: list[str]) -> int:
    """The longest prefix ``name`` shares with any of ``names`` (sorted): only its
    two neighbours in that order can share the longest."""
    at = bisect.bisect_left(names, name)
    return max((_shared_prefix(name, other) for other in names[max(0, at - 1) : at + 1]), default=0)


def _named(path: str) -> str:
    """The id a file is named after (``insights/skill/<id>.md``)."""
    return path.rsplit("/", 1)[-1].removesuffix(".md")
