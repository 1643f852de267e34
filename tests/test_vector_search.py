"""The nearest rows of the vector sidecar: read plainly for a small matrix and by numpy
for a large one (chitin/index/vector_search.py), with the same answer either way; and
the session start and the door of a small embedded store without numpy."""

from __future__ import annotations

import os
import subprocess
import sys
from array import array
from pathlib import Path

import numpy as np
import pytest
from conftest import Run

from chitin.index import vector_search
from chitin.index.vector_files import MATRIX
from chitin.index.vectors import DamagedVectors, VectorStore
from chitin.model.vector_math import dot, float32_bytes, float32_row

DIMENSIONS = 8


def unit_rows(count: int, seed: int) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((count, DIMENSIONS)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@pytest.fixture
def sidecar(tmp_path: Path) -> VectorStore:
    store = VectorStore(tmp_path / ".chitin", "test-identity", DIMENSIONS)
    items = [(f"insight-{n}", f"hash-{n}", 0) for n in range(60)]
    store.put(items, unit_rows(60, seed=1))
    return store


def both_ways(
    store: VectorStore, monkeypatch: pytest.MonkeyPatch, query: list[float], limit: int
) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    rows = list(range(0, 60, 2))  # the current rows: every other one
    monkeypatch.setattr(vector_search, "numpy_loaded", lambda: False)  # as in a fresh process
    plain = store.nearest(query, rows, limit)
    monkeypatch.setattr(vector_search, "numpy_loaded", lambda: True)  # as in a served one
    loaded = store.nearest(query, rows, limit)
    monkeypatch.setattr(vector_search, "SMALL_MATRIX", 0)  # any matrix is "large"
    monkeypatch.setattr(vector_search, "numpy_loaded", lambda: False)
    numpy = store.nearest(query, rows, limit)
    assert loaded == numpy  # the same path, whichever reason took it
    return plain, numpy


@pytest.mark.parametrize("limit", [1, 7, 30, 100])
def test_both_ways_find_the_same_rows_with_the_same_cosines(
    sidecar: VectorStore, monkeypatch: pytest.MonkeyPatch, limit: int
) -> None:
    query = [float(x) for x in unit_rows(1, seed=2)[0]]
    plain, numpy = both_ways(sidecar, monkeypatch, query, limit)
    assert [i for i, _ in plain] == [i for i, _ in numpy]
    assert len(plain) == min(limit, 30)
    assert all(abs(a - b) < 1e-5 for (_, a), (_, b) in zip(plain, numpy, strict=True))
    assert all(int(i.split("-")[1]) % 2 == 0 for i, _ in plain)  # only the rows asked for


def test_a_damaged_row_is_found_either_way(
    sidecar: VectorStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    matrix = sidecar.folder / MATRIX
    data = bytearray(matrix.read_bytes())
    data[0 : 4 * DIMENSIONS] = float32_bytes([1e30] * DIMENSIONS)  # no embedding is this
    matrix.write_bytes(bytes(data))
    query = [1.0] + [0.0] * (DIMENSIONS - 1)
    monkeypatch.setattr(vector_search, "numpy_loaded", lambda: False)
    with pytest.raises(DamagedVectors):
        sidecar.nearest(query, [0, 2, 4], 3)
    monkeypatch.setattr(vector_search, "numpy_loaded", lambda: True)
    with pytest.raises(DamagedVectors):
        sidecar.nearest(query, [0, 2, 4], 3)


def test_a_store_sized_matrix_gives_the_same_nearest_rows_either_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A thousand rows of 384 dimensions, as a served command (numpy loaded) and a fresh
    process (read plainly) search them: the same rows in the same order, for a query
    near a stored row (and its three copies) and for random ones, over every row and
    over some."""
    dimensions, count = 384, 1000
    generator = np.random.default_rng(7)
    matrix = generator.standard_normal((count, dimensions)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix[[900, 40, 611]] = matrix[5]  # duplicates: equal cosines, given in the rows' order
    folder = tmp_path / "vectors"
    folder.mkdir()
    (folder / MATRIX).write_bytes(matrix.tobytes())
    queries = [matrix[5] + 0.1 * generator.standard_normal(dimensions).astype(np.float32)]
    queries += list(generator.standard_normal((5, dimensions)).astype(np.float32))
    for query in queries:
        unit = [float(x) for x in query / np.linalg.norm(query)]
        for rows in (list(range(count)), list(range(3, count, 7)), [count + 1, 10, 2]):
            found = {}
            for loaded in (False, True):
                monkeypatch.setattr(vector_search, "numpy_loaded", lambda loaded=loaded: loaded)
                found[loaded] = vector_search.nearest_rows(
                    folder, dimensions, unit, rows, 20, count
                )
            assert [r for r, _ in found[False]] == [r for r, _ in found[True]]
            assert all(
                abs(a - b) < 1e-5 for (_, a), (_, b) in zip(found[False], found[True], strict=True)
            )
            assert count + 1 not in [r for r, _ in found[True]]  # past the end: left out


def test_rows_of_floats_are_stored_as_numpy_rows_are(tmp_path: Path) -> None:
    rows = unit_rows(3, seed=3)
    by_numpy = VectorStore(tmp_path / "a", "test-identity", DIMENSIONS)
    by_numpy.put([(f"i{n}", "h", 0) for n in range(3)], rows)
    plain = VectorStore(tmp_path / "b", "test-identity", DIMENSIONS)
    plain.put([(f"i{n}", "h", 0) for n in range(3)], [array("f", row) for row in rows])
    assert (by_numpy.folder / MATRIX).read_bytes() == (plain.folder / MATRIX).read_bytes()
    plain.cache_query("q", array("f", rows[0]), 1)
    assert plain.cached_query("q") == float32_row(rows[0].astype("<f4").tobytes())
    with pytest.raises(ValueError):
        plain.put([("i9", "h", 0)], [[0.5] * (DIMENSIONS - 1)])
    assert abs(dot(rows[0], rows[0]) - 1.0) < 1e-6


def loaded_modules(argv: list[str], env: dict[str, str]) -> tuple[set[str], str]:
    found = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "chitin", *argv],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert found.returncode == 0, found.stderr[-2000:]
    return {line.split("|")[-1].strip() for line in found.stderr.splitlines() if "|" in line}, (
        found.stdout
    )


def test_a_small_embedded_store_is_searched_without_numpy(
    run: Run, store: Path, tmp_path: Path, machine_cache: Path
) -> None:
    """With the resident embedder answering, a new query and a contribute's door in an
    embedded store of a few insights load neither numpy nor the model (§9h)."""
    from test_resident import _ready, _serve

    from chitin.providers import resident as client

    run("init", "--seed")
    run("embed")
    folder = tmp_path / "resident"
    folder.mkdir(mode=0o700)
    env = {**os.environ, "CHITIN_RESIDENT": "on", client.FOLDER: str(folder)}
    settings = client.settings(env, machine_cache)
    assert settings is not None
    server = _serve(settings)
    try:
        _ready(settings)
        base = ["--store", str(store)]
        loaded, out = loaded_modules([*base, "retrieve", "--query", "a never asked query"], env)
        assert "numpy" not in loaded and "onnxruntime" not in loaded and out.strip()
        contribute = ["contribute", "--type", "skill", "--confidence", "0.7", "--claim"]
        for claim in (
            "Read the deploy log before a rollback",
            "Read the deployment logs before rolling back",
        ):
            loaded, out = loaded_modules([*base, *contribute, claim], env)
            assert "numpy" not in loaded and "onnxruntime" not in loaded
        assert "duplicate" in out.lower()  # the door still judged by meaning
    finally:
        server.kill()
        server.wait()
