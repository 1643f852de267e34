"""Session starts run in parallel (issue 10: "the session start never fails"): what one
command does to a damaged vector sidecar, the others may be reading or doing too. Each
test holds the state a race made, at the exact point it made it: a second sidecar open
as another command holds it, or the sidecar's lock held while the damage is put right.

bench/sidecar_race.py starts real session starts at once on a damaged sidecar.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import Run

from chitin.index.vector_files import (
    INDEX,
    LOCK,
    MATRIX,
    SCHEMA_VERSION,
    held_identity,
    open_index,
)
from chitin.index.vectors import DamagedVectors, VectorStore
from chitin.lockfile import WriteLock
from chitin.providers.local import LocalProvider

IDENTITY = "test:m:3"
ROWS = np.eye(3, dtype=np.float32)


def damage_matrix(chitin_dir: Path) -> None:
    """Every row NaN: no unit vector, found by the next search."""
    (chitin_dir / "vectors" / MATRIX).write_bytes(b"\xff" * 12)


def found_damaged(vectors: VectorStore) -> DamagedVectors:
    with pytest.raises(DamagedVectors) as found:
        vectors.nearest(ROWS[0], [0], 5)
    return found.value


def test_a_matrix_emptied_by_one_command_leaves_the_others_sidecar_usable(
    tmp_path: Path,
) -> None:
    """The command that finds the matrix damaged empties it in place: the index the
    others have open stays the sidecar's, and their writes go on (they were refused
    as "removed or replaced" when the files were deleted and made again)."""
    first, second = VectorStore(tmp_path, IDENTITY, 3), VectorStore(tmp_path, IDENTITY, 3)
    first.put([("a", "h1", 0)], ROWS[:1])
    damage_matrix(tmp_path)
    first.discard(found_damaged(first), said=False)
    second.put([("b", "h2", 0)], ROWS[1:2])
    assert first.fresh() == second.fresh() == {"b": "h2"}
    assert first.nearest(ROWS[1], [0], 5) == [("b", pytest.approx(1.0))]
    first.close()
    second.close()


def test_a_damage_two_commands_found_is_put_right_once(tmp_path: Path) -> None:
    """Both found the matrix damaged; the first emptied it and wrote new rows before
    the second got the lock: the second keeps them."""
    first, second = VectorStore(tmp_path, IDENTITY, 3), VectorStore(tmp_path, IDENTITY, 3)
    first.put([("a", "h1", 0)], ROWS[:1])
    damage_matrix(tmp_path)
    seen_first, seen_second = found_damaged(first), found_damaged(second)
    first.discard(seen_first, said=False)
    first.put([("b", "h2", 0)], ROWS[1:2])
    second.discard(seen_second, said=False)
    assert second.fresh() == {"b": "h2"}
    assert second.nearest(ROWS[1], [0], 5) == [("b", pytest.approx(1.0))]
    first.put([("c", "h3", 0)], ROWS[2:])
    assert second.fresh() == {"b": "h2", "c": "h3"}
    first.close()
    second.close()


def test_a_damaged_index_made_again_by_one_command_is_not_deleted_by_the_next(
    tmp_path: Path,
) -> None:
    """Both found the index damaged; the first made it again and wrote to it: the
    second opens that one, and deletes nothing."""
    first, second = VectorStore(tmp_path, IDENTITY, 3), VectorStore(tmp_path, IDENTITY, 3)
    damage = sqlite3.DatabaseError("database disk image is malformed")
    first.discard(damage, said=False)
    first.put([("a", "h1", 0)], ROWS[:1])
    second.discard(damage, said=False)
    assert second.fresh() == {"a": "h1"}
    first.put([("b", "h2", 0)], ROWS[1:2])  # its index is still the sidecar's
    assert second.fresh() == {"a": "h1", "b": "h2"}
    first.close()
    second.close()


def test_an_index_found_damaged_is_opened_again_under_the_lock_before_it_is_deleted(
    tmp_path: Path,
) -> None:
    """The command that found the index damaged waits for the lock another command
    holds while it makes the index again, then opens that one: it deleted it before,
    under the other's feet (a malformed index, or "table meta already exists")."""
    folder = tmp_path / "vectors"
    folder.mkdir()
    (folder / INDEX).write_bytes(b"not a database, at all" * 100)
    opened: list[sqlite3.Connection] = []
    with WriteLock(folder / LOCK):  # the other command, putting it right
        waiting = threading.Thread(target=lambda: opened.append(open_index(folder / INDEX)))
        waiting.start()
        waiting.join(0.5)
        sound = open_index(tmp_path / "made.sqlite3")
        sound.execute("INSERT INTO meta VALUES ('made by', 'the other')")
        sound.commit()
        sound.close()
        (tmp_path / "made.sqlite3").replace(folder / INDEX)
    waiting.join()
    [db] = opened
    assert db.execute("SELECT value FROM meta WHERE key = 'made by'").fetchone() == ("the other",)
    db.close()


def test_tables_another_command_is_making_are_not_made_twice(tmp_path: Path) -> None:
    """Two commands open a new index at once: the second waits for the first's
    tables, and keeps them (it dropped them, or failed as "table meta already exists",
    when both made them statement by statement)."""
    path = tmp_path / INDEX
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("PRAGMA journal_mode = WAL")
    other.execute("BEGIN IMMEDIATE")
    other.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    opened: list[sqlite3.Connection] = []
    waiting = threading.Thread(target=lambda: opened.append(open_index(path)))
    waiting.start()
    waiting.join(0.5)  # it reads version 0, and waits for the other's transaction
    fresh = open_index(tmp_path / "schema.sqlite3")
    for (statement,) in fresh.execute("SELECT sql FROM sqlite_master WHERE name != 'meta'"):
        if statement:
            other.execute(statement)
    fresh.close()
    other.execute("INSERT INTO meta VALUES ('identity', 'the other''s')")
    other.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    other.execute("COMMIT")
    waiting.join()
    [db] = opened
    found = db.execute("SELECT value FROM meta WHERE key = 'identity'").fetchone()
    assert found == ("the other's",)
    db.close()
    other.close()


def test_a_retrieve_that_empties_a_damaged_matrix_leaves_another_command_writing(
    run: Run, store: Path
) -> None:
    """A session start found the matrix damaged while another command (a session start
    too, or the background embedding) had the sidecar open."""
    run("init", "--seed")
    run("retrieve", "--query", "a first query, every vector made")
    identity = held_identity(store / ".chitin" / "vectors")
    assert identity is not None
    held = VectorStore(store / ".chitin", identity, 384)
    matrix = store / ".chitin" / "vectors" / MATRIX
    matrix.write_bytes(b"\xff" * matrix.stat().st_size)  # no row a unit vector
    result = run("retrieve", "--query", "a query never asked, of a damaged matrix")
    [said] = [line for line in result.stderr.splitlines() if line]
    assert "matrix.f32" in said and "not unit vectors" in said, said
    vector = np.zeros((1, 384), dtype=np.float32)
    vector[0, 0] = 1
    held.put([("another's", "h", 0)], vector)  # refused as "removed or replaced" before
    assert "another's" in held.fresh()
    held.close()


def test_a_sidecar_made_again_while_a_retrieve_embeds_is_ranked_by_text(
    run: Run, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another command removed the sidecar and made it again while this one embedded
    its stale rows: this session start is ranked by text, says so in one line, exit 0
    (it failed as "removed or replaced")."""
    run("init", "--seed")
    shutil.rmtree(store / ".chitin" / "vectors")  # every insight waits for its vectors
    real = LocalProvider.rows

    def remade_meanwhile(self: LocalProvider, texts: Sequence[str], kind: str = "document") -> Any:
        if kind == "document" and (store / ".chitin" / "vectors").exists():
            shutil.rmtree(store / ".chitin" / "vectors")
            VectorStore(store / ".chitin", "another", 3).close()
        return real(self, texts, kind)

    monkeypatch.setattr(LocalProvider, "rows", remade_meanwhile)
    result = run("retrieve", "--query", "fix the failing test", "--format", "json")
    found = json.loads(result.stdout)
    assert "ranked by text alone" in found["degraded"], found["degraded"]
    assert found["insights"]
    assert len([line for line in result.stderr.splitlines() if line]) == 1, result.stderr
    monkeypatch.setattr(LocalProvider, "rows", real)
    assert json.loads(run("retrieve", "--query", "fix it", "--format", "json").stdout)["insights"]
