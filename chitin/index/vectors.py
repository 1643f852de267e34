"""The vector sidecar: float32 rows of the insights' texts, under ``.chitin/vectors/``.

Each insight has a row for its whole text (part 0), and one more for each of a
trigger's condition, the reasoning alone and the whole text with the tags, when it has
them (see ``model.search_text.embedding_texts``): an insight's cosine to a query is its
best part's.

- ``matrix.f32`` holds the rows, raw and row-major. It is memory-mapped, so a search
  over 100,000 rows reads no more than the dot products need.
- ``index.sqlite3`` says which insight and part each row belongs to, the content hash
  of the insight's text and tags (``vector_hash``, which holds every part), and the provider
  identity (``provider:model:dimensions``) of every row. Its schema and the files'
  names are in vector_files.py; its join with the cache in vector_join.py; its state
  put right under the sidecar's lock (another provider's rows, damage) in vector_state.py.

A row is stale when its insight's text changed, or when the provider or the model
changed; stale and missing rows are the only ones that get embedded again. A row is
written (and flushed) before the index names it, so a crash leaves at worst a row the
index does not trust, and it is embedded again. A matrix of the wrong size or of rows
no unit vector (zeros too), or an unreadable index, is discarded and rebuilt, never a
crash. Query vectors are kept here too, so a repeated query never loads the model.
"""

from __future__ import annotations

import array
import contextlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from chitin.errors import StoreError
from chitin.index import vector_state
from chitin.index.db import (
    check_schema,
    file_identity,
    is_damage,
    make_room,
    unsound,
)
from chitin.index.vector_files import (
    EXPECTED_SCHEMA,
    FOLDER,
    INDEX,
    INDEX_SIDE_FILES,
    LOCK,
    MATRIX,
    keep_newest,
    make_folder,
    matrix_is_file,
    matrix_rows,
    noted,
    off_unit,
    open_index,
    read_row,
    restore_kept,
    row_bytes,
    switch_under_way,
)
from chitin.index.vector_search import nearest_rows
from chitin.lockfile import WriteLock
from chitin.model.vector_math import float32_bytes, float32_row
from chitin.notices import notice

if TYPE_CHECKING:  # numpy loads only in the commands that use vectors (it takes ~50 ms)
    import numpy as np

Part = tuple[str, str, int]  # (insight id, hash of its embedding text, part)


class SidecarReplaced(StoreError):
    """The sidecar folder was removed (and perhaps made anew) while it was open."""


class SwitchUnderWay(StoreError):
    """The sidecar is another provider's, half made by a switch that is still running."""


class DamagedVectors(StoreError):
    """The matrix holds what no embedding can be (random bytes, a half-written file);
    ``emptied``: the index's mark of the last time the matrix was emptied, as it was
    before the matrix was read (vector_state.py)."""

    def __init__(self, message: str, emptied: str | None) -> None:
        super().__init__(message)
        self.emptied = emptied


class VectorStore:
    """The sidecar for one store, holding vectors of one provider identity at a time."""

    def __init__(
        self,
        chitin_dir: Path,
        identity: str,
        dimensions: int,
        before_switch: Callable[[], object] | None = None,
    ) -> None:
        """``before_switch`` runs before the vectors of another identity are dropped
        (a provider's trial embedding): if it raises, they are kept, and so it raises."""
        self.folder = chitin_dir / FOLDER
        self.identity = identity
        self.dimensions = dimensions
        try:
            # A switch of provider killed halfway left the store's vectors aside, and
            # half another provider's here: the store's are put back first.
            restore_kept(chitin_dir)
            if switch_under_way(chitin_dir) == identity:  # the provider being left
                raise SwitchUnderWay(
                    "a switch of embedding provider is under way (chitin embed --provider): "
                    "the vectors are left to it until it completes"
                )
            make_folder(self.folder)
            for name in (MATRIX, LOCK, *(INDEX + suffix for suffix in INDEX_SIDE_FILES)):
                make_room(self.folder / name)
            self.db = open_index(self.folder / INDEX)
            self.opened = file_identity(self.folder / INDEX)
            try:
                vector_state.adopt_identity(self, before_switch)
            except sqlite3.DatabaseError as error:  # a corrupt page, found when read
                if not is_damage(error):
                    self.db.close()
                    raise
                self.discard(error)
            except BaseException:
                self.db.close()
                raise
        except (OSError, sqlite3.Error) as error:
            raise StoreError(
                f"the vector sidecar in {self.folder} cannot be used: {error}"
            ) from None

    def close(self) -> None:
        self.db.close()

    def discard(self, error: BaseException, said: bool = True) -> None:
        """Throw every vector away (a damaged index or matrix; they are embedded again),
        and say so (unless ``said`` is False: the caller's own line says it)."""
        if isinstance(error, DamagedVectors):  # the matrix alone
            vector_state.discard(self, True, error.emptied)
        else:
            vector_state.discard(self, False, None)
        if said:
            notice(f".chitin/{FOLDER} was damaged ({error}); its vectors are made again")

    def replaced(self) -> bool:
        """Whether the index is no longer the file opened: another command (or a user
        removing ``.chitin/``) made the sidecar again meanwhile."""
        return file_identity(self.folder / INDEX) != self.opened

    def unsound(self) -> bool:
        """Whether the index is damaged (PRAGMA quick_check, and its tables): asked when
        an error says "damaged" and it is not known which file it came from."""
        try:
            check_schema(self.db, EXPECTED_SCHEMA)
        except sqlite3.DatabaseError:
            return True
        return unsound(self.folder / INDEX)

    # -------------------------------------------------------------- state

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
            if file_identity(self.folder / INDEX) != self.opened:
                raise SidecarReplaced(
                    f"the vector sidecar in {self.folder} was removed or replaced while "
                    "this command used it; nothing was written to the new one"
                )
            yield

    def put(self, items: Sequence[Part], vectors: Sequence[Sequence[float]] | np.ndarray) -> None:
        """Store ``vectors`` (a numpy matrix, or rows of floats) for ``items`` (id,
        content hash, part), replacing their old rows. Every part of an insight is given
        at once: the parts it had before and is not given now are freed."""
        if len(vectors) != len(items) or any(len(v) != self.dimensions for v in vectors):
            raise ValueError(f"{len(vectors)} vectors for {len(items)} items")
        with self.writing():
            self._put(items, vectors)

    def _put(self, items: Sequence[Part], vectors: Sequence[Sequence[float]] | np.ndarray) -> None:
        slots = self._slots([(insight_id, part) for insight_id, _, part in items])
        matrix = self.folder / MATRIX
        with open(matrix, "r+b" if matrix.exists() else "w+b") as handle:
            for row, vector in zip(slots, vectors, strict=True):
                handle.seek(row * row_bytes(self.dimensions))
                handle.write(float32_bytes(vector))
            handle.flush()
            os.fsync(handle.fileno())
        parts = {insight_id: 0 for insight_id, _, _ in items}
        for insight_id, _, part in items:
            parts[insight_id] = max(parts[insight_id], part + 1)
        with self.db:
            vector_state.changed(self.db)
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
            vector_state.changed(self.db)
            self.db.executemany(
                "UPDATE rows SET id = NULL, part = NULL, hash = NULL WHERE id = ?",
                [(i,) for i in ids],
            )

    # -------------------------------------------------------------- reading

    @property
    def index_path(self) -> Path:
        return self.folder / INDEX

    def nearest(
        self, query: Sequence[float], rows: Sequence[int], limit: int
    ) -> list[tuple[str, float]]:
        """The insights of the ``limit`` rows among ``rows`` most similar to ``query``,
        as (id, cosine of its best part), best first.

        ``rows`` are the rows still current for the insights a query may return
        (``Cache.current_vector_rows``), so stale rows are never used.
        """
        held = matrix_rows(self.folder, self.dimensions)
        if not rows or not held:
            return []
        seen = self.note("emptied")  # another command may empty it meanwhile
        if not matrix_is_file(self.folder):
            raise DamagedVectors(f"{MATRIX} is not a regular file", seen)
        best = nearest_rows(self.folder, self.dimensions, query, rows, limit, held)
        unit = all(abs(score) <= 1.001 for _, score in best)  # unit rows; NaN fails too
        if not unit or off_unit(self.folder, self.dimensions, (r for r, s in best if s == 0)):
            raise DamagedVectors(f"{MATRIX} holds rows that are not unit vectors", seen)
        chosen = [row for row, _ in best]
        ids = dict(
            self.db.execute(
                f"SELECT row, id FROM rows WHERE row IN ({', '.join('?' * len(chosen))}) "
                "AND id IS NOT NULL",
                chosen,
            )
        )
        found: dict[str, float] = {}  # best first: an insight's first row is its best part
        for row, score in best:
            if row in ids:
                found.setdefault(ids[row], score)
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
        return read_row(self.folder, self.dimensions, found[0])

    # -------------------------------------------------------------- remembered answers

    def note(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else None

    def remember(self, **notes: str) -> None:
        """Keep ``notes`` (key → value) in one transaction."""
        with noted(), self.db:
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
        with noted(), self.db:
            self.db.execute("DELETE FROM current")  # one state at a time is enough
            self.db.execute(
                "INSERT INTO current VALUES (?, ?)", (state, array.array("i", rows).tobytes())
            )

    def keep_hits(self, text: str, state: str, found: list[tuple[str, float]]) -> None:
        with noted(), self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO hits VALUES (?, ?, ?, ?)",
                (self.identity, text, state, json.dumps(found)),
            )
            keep_newest(self.db, "hits")

    # -------------------------------------------------------------- query vectors

    def cached_query(self, text: str) -> array.array[float] | None:
        row = self.db.execute(
            "SELECT vector FROM queries WHERE identity = ? AND text = ?", (self.identity, text)
        ).fetchone()
        if row is None or len(row[0]) != row_bytes(self.dimensions):
            return None
        return float32_row(row[0])

    def cache_query(self, text: str, vector: Sequence[float], stamp: int) -> None:
        with noted(), self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO queries VALUES (?, ?, ?, ?)",
                (self.identity, text, float32_bytes(vector), stamp),
            )
            keep_newest(self.db, "queries")
