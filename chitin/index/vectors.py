"""The vector sidecar: float32 rows of the insights' texts, under ``.chitin/vectors/``.

Each insight has a row for its whole text (part 0), and one more for each of a
trigger's condition and the reasoning alone, when it has them (parts 1, 2, see
``model.search_text.embedding_texts``): an insight's cosine to a query is its best part's.

- ``matrix.f32`` holds the rows, raw and row-major. It is memory-mapped, so a search
  over 100,000 rows reads no more than the dot products need.
- ``index.sqlite3`` says which insight and part each row belongs to, the content hash
  of the insight's text (``embedding_text``, which holds every part), and the provider
  identity (``provider:model:dimensions``) of every
  row.

A row is stale when its insight's text changed, or when the provider or the model
changed; stale and missing rows are the only ones that get embedded again. A row is
written (and flushed) before the index names it, so a crash leaves at worst a row the
index does not trust, and it is embedded again. A matrix of the wrong size, or an
unreadable index, is discarded and rebuilt, never a crash. Query vectors are kept here
too, so a repeated query never loads the model.
"""

from __future__ import annotations

import array
import contextlib
import json
import os
import sqlite3
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from chitin.errors import StoreError
from chitin.index.db import (
    check_schema,
    expected_schema,
    file_identity,
    is_damage,
    is_unwritable,
    make_room,
    unsound,
)
from chitin.index.rows import LIVE, Filters
from chitin.lockfile import WriteLock

if TYPE_CHECKING:  # numpy loads only in the commands that use vectors (it takes ~50 ms)
    import numpy as np

Part = tuple[str, str, int]  # (insight id, hash of its embedding text, part)

FOLDER = "vectors"
MATRIX = "matrix.f32"
INDEX = "index.sqlite3"
LOCK = "lock"
# 4: parts; 5: the reasoning is a part too. A sidecar of an older version is dropped
# and made again, once: its rows lack the parts of insights whose text did not change.
SCHEMA_VERSION = 5
QUERY_CACHE_LIMIT = 2000

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


_EXPECTED = expected_schema(_SCHEMA)


class SidecarReplaced(StoreError):
    """The sidecar folder was removed (and perhaps made anew) while it was open."""


class DamagedVectors(StoreError):
    """The matrix holds what no embedding can be (random bytes, a half-written file)."""


class VectorStore:
    """The sidecar for one store, holding vectors of one provider identity at a time."""

    def __init__(self, chitin_dir: Path, identity: str, dimensions: int) -> None:
        self.folder = chitin_dir / FOLDER
        self.identity = identity
        self.dimensions = dimensions
        try:
            _make_folder(self.folder)
            for name in (MATRIX, LOCK, *(INDEX + suffix for suffix in INDEX_SIDE_FILES)):
                make_room(self.folder / name)
            self.db = _open_index(self.folder / INDEX)
            try:
                self._adopt_identity()
            except sqlite3.DatabaseError as error:  # a corrupt page, found when read
                if not is_damage(error):
                    raise
                self.discard(error)
            self._opened = file_identity(self.folder / INDEX)
        except (OSError, sqlite3.Error) as error:
            raise StoreError(
                f"the vector sidecar in {self.folder} cannot be used: {error}"
            ) from None

    def close(self) -> None:
        self.db.close()

    def discard(self, error: BaseException) -> None:
        """Throw every vector away (a damaged index or matrix; they are embedded again),
        and say so."""
        from chitin.notices import notice

        self.db.close()
        _delete_files(self.folder)
        self.db = _open_index(self.folder / INDEX)
        self._adopt_identity()
        self._opened = file_identity(self.folder / INDEX)
        notice(f".chitin/{FOLDER} was damaged ({error}); its vectors are made again")

    def unsound(self) -> bool:
        """Whether the index is damaged (PRAGMA quick_check, and its tables): asked when
        an error says "damaged" and it is not known which file it came from."""
        try:
            check_schema(self.db, _EXPECTED)
        except sqlite3.DatabaseError:
            return True
        return unsound(self.folder / INDEX)

    # -------------------------------------------------------------- state

    def _adopt_identity(self) -> None:
        """Rows of another provider, model or dimension are all stale: drop them. So are
        all rows when the matrix is shorter than the rows its index names. A row half
        appended by a write that was killed is cut off: no index entry names it yet."""
        stored = self.db.execute("SELECT value FROM meta WHERE key = 'identity'").fetchone()
        # max(row) reads one end of the primary key; count(*) scanned 100,000 rows.
        rows = self.db.execute("SELECT coalesce(max(row) + 1, 0) FROM rows").fetchone()[0]
        matrix = self.folder / MATRIX
        size = matrix.stat().st_size if matrix.exists() else 0
        expected = _row_bytes(self.dimensions)
        short = size < rows * expected
        if stored is None or stored[0] != self.identity or short:
            with self.db:
                self._reset()
            matrix.unlink(missing_ok=True)
            if short and matrix.exists() and stored is not None and stored[0] == self.identity:
                from chitin.notices import notice

                notice(f".chitin/{FOLDER}/{MATRIX} was cut short; its vectors are made again")
        elif size % expected:
            os.truncate(matrix, size - size % expected)

    def _reset(self) -> None:
        self.db.execute("DELETE FROM rows")
        self.db.execute("INSERT OR REPLACE INTO meta VALUES ('identity', ?)", (self.identity,))
        self._changed()

    def _changed(self) -> None:
        """A new generation: answers remembered for the old rows no longer hold."""
        self.db.execute(
            "INSERT OR REPLACE INTO meta VALUES ('generation', ?)", (os.urandom(8).hex(),)
        )

    def fresh(self) -> dict[str, str]:
        """id → content hash of every insight embedded (its parts are written together)."""
        return dict(self.db.execute("SELECT id, hash FROM rows WHERE id IS NOT NULL AND part = 0"))

    def count(self) -> int:
        """How many insights have vectors."""
        found = self.db.execute("SELECT count(*) FROM rows WHERE id IS NOT NULL AND part = 0")
        return int(found.fetchone()[0])

    def empty(self) -> bool:
        """No vector at all (cheaper than ``count() == 0`` on a large sidecar)."""
        row = self.db.execute("SELECT 1 FROM rows WHERE id IS NOT NULL LIMIT 1").fetchone()
        return row is None

    # -------------------------------------------------------------- writing

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """The sidecar's own lock: a write picks free rows, fills them and names them in
        the index, and two writers (a session start and the background embedding) must
        not pick the same row. It is held for milliseconds, never while embedding.

        A writer that opened the sidecar before someone removed it (``.chitin/`` is safe
        to delete) would pick rows by its old index and write them into the new matrix;
        so a write first checks that the index is still the file it opened."""
        with WriteLock(self.folder / LOCK):
            if file_identity(self.folder / INDEX) != self._opened:
                raise SidecarReplaced(
                    f"the vector sidecar in {self.folder} was removed or replaced while "
                    "this command used it; nothing was written to the new one"
                )
            yield

    def put(self, items: Sequence[Part], vectors: np.ndarray) -> None:
        """Store ``vectors`` for ``items`` (id, content hash, part), replacing their old
        rows. Every part of an insight is given at once: the parts it had before and is
        not given now are freed."""
        if vectors.shape != (len(items), self.dimensions):
            raise ValueError(f"vectors of shape {vectors.shape} for {len(items)} items")
        with self.writing():
            self._put(items, vectors)

    def _put(self, items: Sequence[Part], vectors: np.ndarray) -> None:
        slots = self._slots([(insight_id, part) for insight_id, _, part in items])
        matrix = self.folder / MATRIX
        with open(matrix, "r+b" if matrix.exists() else "w+b") as handle:
            for row, vector in zip(slots, vectors, strict=True):
                handle.seek(row * _row_bytes(self.dimensions))
                handle.write(vector.astype("<f4").tobytes())
            handle.flush()
            os.fsync(handle.fileno())
        parts = {insight_id: 0 for insight_id, _, _ in items}
        for insight_id, _, part in items:
            parts[insight_id] = max(parts[insight_id], part + 1)
        with self.db:
            self._changed()
            self.db.executemany(
                "UPDATE rows SET id = NULL, part = NULL, hash = NULL WHERE id = ? AND part >= ?",
                parts.items(),
            )
            self.db.executemany(
                "INSERT OR REPLACE INTO rows (row, id, part, hash) VALUES (?, ?, ?, ?)",
                [
                    (row, insight_id, part, digest)
                    for row, (insight_id, digest, part) in zip(slots, items, strict=True)
                ],
            )

    def _slots(self, keys: Sequence[tuple[str, int]]) -> list[int]:
        """A row for each (id, part): its own, a freed one, or a new one at the end."""
        ids = sorted({insight_id for insight_id, _ in keys})
        own = {
            (insight_id, part): row
            for insight_id, part, row in self.db.execute(
                f"SELECT id, part, row FROM rows WHERE id IN ({', '.join('?' * len(ids))})", ids
            )
        }
        free = [r for (r,) in self.db.execute("SELECT row FROM rows WHERE id IS NULL ORDER BY row")]
        end = self.db.execute("SELECT coalesce(max(row) + 1, 0) FROM rows").fetchone()[0]
        slots = []
        for key in keys:
            if key in own:
                slots.append(own[key])
            elif free:
                slots.append(free.pop(0))
            else:
                slots.append(end)
                end += 1
        return slots

    def forget(self, ids: Iterable[str]) -> None:
        """Free the rows of insights that are gone."""
        with self.writing(), self.db:
            self._changed()
            self.db.executemany(
                "UPDATE rows SET id = NULL, part = NULL, hash = NULL WHERE id = ?",
                [(i,) for i in ids],
            )

    # -------------------------------------------------------------- reading

    @property
    def index_path(self) -> Path:
        return self.folder / INDEX

    def nearest(
        self, query: np.ndarray, rows: Sequence[int], limit: int
    ) -> list[tuple[str, float]]:
        """The insights of the ``limit`` rows among ``rows`` most similar to ``query``,
        as (id, cosine of its best part), best first.

        ``rows`` are the rows still current for the insights a query may return
        (``Cache.current_vector_rows``), so stale rows are never used.
        """
        matrix = self._matrix()
        if not rows or matrix is None:
            return []
        import numpy as np

        numbers = np.asarray(rows, dtype=np.int64)
        numbers = numbers[numbers < matrix.shape[0]]
        # Damaged rows (random bytes) overflow: the check below says so, once, in
        # chitin's words; numpy's own warning would print its source line first.
        with np.errstate(all="ignore"):
            if len(numbers) * 2 > matrix.shape[0]:  # most rows: one pass, no 150 MB copy
                scores = (matrix @ query.astype(np.float32))[numbers]
            else:
                scores = matrix[numbers] @ query.astype(np.float32)
        if len(scores) > limit:  # the best `limit` in O(n), then only those sorted
            top = np.argpartition(-scores, limit)[:limit]
            best = top[np.argsort(-scores[top], kind="stable")]
        else:
            best = np.argsort(-scores, kind="stable")
        if not np.all(np.abs(scores[best]) <= 1.001):  # unit rows; NaN fails too
            raise DamagedVectors(f"{MATRIX} holds rows that are not unit vectors")
        chosen = [int(numbers[i]) for i in best]
        ids = dict(
            self.db.execute(
                f"SELECT row, id FROM rows WHERE row IN ({', '.join('?' * len(chosen))}) "
                "AND id IS NOT NULL",
                chosen,
            )
        )
        found: dict[str, float] = {}  # best first: an insight's first row is its best part
        for row, i in zip(chosen, best, strict=True):
            if row in ids:
                found.setdefault(ids[row], float(scores[i]))
        return list(found.items())

    def whole_vector(self, insight_id: str, digest: str) -> array.array[float] | None:
        """The row of an insight's whole text (part 0), if it is current (``digest``:
        the hash of its embedding text), read without numpy: a session start that
        compares a few insights with each other need not load it (retrieval's
        ``selection``)."""
        found = self.db.execute(
            "SELECT row FROM rows WHERE id = ? AND part = 0 AND hash = ?", (insight_id, digest)
        ).fetchone()
        if found is None:
            return None
        size = _row_bytes(self.dimensions)
        try:
            with open(self.folder / MATRIX, "rb") as handle:
                handle.seek(found[0] * size)
                data = handle.read(size)
        except OSError:
            return None
        if len(data) != size:
            return None
        vector = array.array("f")
        vector.frombytes(data)
        if sys.byteorder == "big":  # the matrix is little-endian float32
            vector.byteswap()
        return vector

    def _matrix(self) -> np.ndarray | None:
        path = self.folder / MATRIX
        if not path.exists() or path.stat().st_size == 0:
            return None
        rows = path.stat().st_size // _row_bytes(self.dimensions)
        import numpy as np

        return np.memmap(path, dtype="<f4", mode="r", shape=(rows, self.dimensions))

    # -------------------------------------------------------------- remembered answers

    def note(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else None

    def remember(self, **notes: str) -> None:
        """Keep ``notes`` (key → value) in one transaction."""
        with _noted(), self.db:
            self.db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", notes.items())

    def known_hits(self, text: str, state: str) -> list[tuple[str, float]] | None:
        """The nearest rows found for ``text`` when the state was ``state``, if it was."""
        row = self.db.execute(
            "SELECT state, found FROM hits WHERE identity = ? AND text = ?", (self.identity, text)
        ).fetchone()
        if row is None or row[0] != state:
            return None
        return [(str(i), float(s)) for i, s in json.loads(row[1])]

    def known_rows(self, state: str) -> list[int] | None:
        row = self.db.execute("SELECT rows FROM current WHERE state = ?", (state,)).fetchone()
        if row is None:
            return None
        numbers = array.array("i")
        numbers.frombytes(row[0])
        return numbers.tolist()

    def keep_rows(self, state: str, rows: Sequence[int]) -> None:
        with _noted(), self.db:
            self.db.execute("DELETE FROM current")  # one state at a time is enough
            self.db.execute(
                "INSERT INTO current VALUES (?, ?)", (state, array.array("i", rows).tobytes())
            )

    def keep_hits(self, text: str, state: str, found: list[tuple[str, float]]) -> None:
        with _noted(), self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO hits VALUES (?, ?, ?, ?)",
                (self.identity, text, state, json.dumps(found)),
            )
            _keep_newest(self.db, "hits")

    # -------------------------------------------------------------- query vectors

    def cached_query(self, text: str) -> np.ndarray | None:
        row = self.db.execute(
            "SELECT vector FROM queries WHERE identity = ? AND text = ?", (self.identity, text)
        ).fetchone()
        if row is None or len(row[0]) != _row_bytes(self.dimensions):
            return None
        import numpy as np

        return np.frombuffer(row[0], dtype="<f4")

    def cache_query(self, text: str, vector: np.ndarray, stamp: int) -> None:
        with _noted(), self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO queries VALUES (?, ?, ?, ?)",
                (self.identity, text, vector.astype("<f4").tobytes(), stamp),
            )
            _keep_newest(self.db, "queries")


def _keep_newest(db: sqlite3.Connection, table: str) -> None:
    """Keep at most QUERY_CACHE_LIMIT answers in ``table``: those written last, which
    hold the last rowids given out (a row written again, by INSERT OR REPLACE, takes
    the next one). A range of the rowid's own index: sorting the table, as this did
    before at every new query, cost ~4 ms per write at 2,000 answers."""
    db.execute(
        f"DELETE FROM {table} WHERE rowid <= (SELECT max(rowid) FROM {table}) - ?",
        (QUERY_CACHE_LIMIT,),
    )


@contextlib.contextmanager
def _noted() -> Iterator[None]:
    """A note that only saves work next time (a query's vector, its nearest rows): in
    a sidecar that cannot be written (a read-only store), it is not kept."""
    try:
        yield
    except sqlite3.Error as error:
        if not is_unwritable(error):
            raise


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


def _row_bytes(dimensions: int) -> int:
    return 4 * dimensions


# SQLite's files beside the index: its rollback journal (the default mode) or a log.
INDEX_SIDE_FILES = ("", "-journal", "-wal", "-shm")


def _open_index(path: Path) -> sqlite3.Connection:
    """The index, with the tables of this schema. A file that is not a sound database
    is replaced by a new one, and the matrix with it (its rows are unknown now)."""
    try:
        return _connect_index(path)
    except sqlite3.DatabaseError as error:
        if not is_damage(error):
            raise
        from chitin.notices import notice

        _delete_files(path.parent)
        notice(f".chitin/{FOLDER}/{INDEX} was damaged ({error}); its vectors are made again")
    return _connect_index(path)


def _connect_index(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(str(path), timeout=30)
    try:
        # A new query notes its vector and its nearest rows: with a rollback journal each
        # note was fsynced, ~3 ms apiece here. A crash now may lose the last notes (they
        # are found again), never the matrix rows, which are flushed before being named.
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            db.executescript(
                "DROP TABLE IF EXISTS meta; DROP TABLE IF EXISTS rows; "
                "DROP TABLE IF EXISTS queries; DROP TABLE IF EXISTS hits; "
                "DROP TABLE IF EXISTS current;" + _SCHEMA
            )
        else:
            check_schema(db, _EXPECTED)
    except BaseException:
        db.close()
        raise
    return db


def _make_folder(folder: Path) -> None:
    """``.chitin/vectors/``, made; a file standing in its place is removed first."""
    if folder.exists() and not folder.is_dir():
        from chitin.notices import notice

        folder.unlink()
        notice(f".chitin/{FOLDER} was a file, not chitin's folder; removed it")
    folder.mkdir(parents=True, exist_ok=True)


def _delete_files(folder: Path) -> None:
    for name in (MATRIX, *(INDEX + suffix for suffix in INDEX_SIDE_FILES)):
        with contextlib.suppress(FileNotFoundError):
            (folder / name).unlink()


# ------------------------------------------------------------------ the join with the cache


def current_rows(db: sqlite3.Connection, index: Path, filters: Filters = LIVE) -> list[int]:
    """Rows of the vector sidecar (at ``index``) whose insight in the cache ``db``
    passes ``filters`` and whose text is still the one embedded: one join, however
    large the store."""
    where, args = filters.sql("entries.")
    db.execute("ATTACH DATABASE ? AS vectors", (str(index),))
    try:
        rows = db.execute(
            f"SELECT r.row FROM vectors.rows r CROSS JOIN entries INDEXED BY entries_id "
            f"ON entries.id = r.id AND entries.text_hash = r.hash WHERE {where}",
            args,
        )
        return [row for (row,) in rows]
    finally:
        db.execute("DETACH DATABASE vectors")


def unembedded(db: sqlite3.Connection, index: Path) -> int:
    """How many insights in the cache ``db`` (archived ones too, as ``refresh`` embeds
    them) have no row in the vector sidecar at ``index`` for their current text."""
    where, args = Filters(archived=None).sql("entries.")
    db.execute("ATTACH DATABASE ? AS vectors", (str(index),))
    try:
        row = db.execute(
            f"SELECT count(*) FROM entries LEFT JOIN vectors.rows r "
            f"ON r.id = entries.id AND r.part = 0 AND r.hash = entries.text_hash "
            f"WHERE {where} AND r.row IS NULL",
            args,
        ).fetchone()
        return int(row[0])
    finally:
        db.execute("DETACH DATABASE vectors")
