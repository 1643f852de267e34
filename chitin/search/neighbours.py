"""Close pairs among many unit vectors, without the n² products (chitin.search.stored).

The rows are put in buckets by their nearest of √n sampled rows (each in its
BUCKETS_PER_ROW nearest, so a pair near a bucket's edge meets in one), and a bucket
larger than WINDOW is compared in overlapping windows along a random direction; each
row keeps its NEAREST closest rows above the floor. Union-find over the duplicates
then joins chains, so a cluster of 20,000 near-identical insights needs no more.
Imported only where there are vectors: numpy costs a linter ~100 ms.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from chitin.index.vector_files import mapped_matrix

BRUTE = 4096  # up to this many rows, every pair is compared (in windows of WINDOW)
WINDOW = 2048  # rows compared with each other at once: a 16 MB block of cosines
BUCKETS_PER_ROW = 3
NEAREST = 8  # close rows kept per row and window
SEED = 25


def unit_rows(
    folder: Path, dimensions: int, positions: Sequence[int], numbers: Sequence[int]
) -> tuple[list[int], np.ndarray] | None:
    """The rows ``numbers`` of the sidecar's matrix that are sound unit vectors, and
    the ``positions`` they stand for (None without a matrix)."""
    matrix = mapped_matrix(folder, dimensions)
    if matrix is None:
        return None
    kept = [(p, n) for p, n in zip(positions, numbers, strict=True) if n < matrix.shape[0]]
    rows = np.asarray(matrix[[n for _, n in kept]], dtype=np.float32)
    # The norms without a temporary of the matrix's size (norm's x*x: ~1 s of page
    # faults at 100,000 rows).
    norms = np.sqrt(np.einsum("ij,ij->i", rows, rows))
    sound = np.all(np.isfinite(rows), axis=1) & (np.abs(norms - 1) < 1e-3)
    return [p for (p, _), ok in zip(kept, sound, strict=True) if ok], rows[sound]


def close_pairs(matrix: np.ndarray, floor: float) -> list[tuple[int, int, float]]:
    """Pairs of rows (i < j) whose cosine reaches ``floor``, each row's NEAREST closest
    per window compared, best first per row; not every pair of a large cluster, but
    enough to chain it."""
    n = matrix.shape[0]
    found: dict[tuple[int, int], float] = {}
    if n < 2:
        return []
    rng = np.random.default_rng(SEED)
    buckets = [np.arange(n)] if n <= BRUTE else _buckets(matrix, rng)
    for members in buckets:
        for window in _windows(matrix, members, rng):
            _close_in(matrix, window, floor, found)
    return [(i, j, c) for (i, j), c in found.items()]


def _buckets(matrix: np.ndarray, rng: np.random.Generator) -> list[np.ndarray]:
    """Each row in the buckets of its BUCKETS_PER_ROW nearest of √n sampled rows."""
    n = matrix.shape[0]
    centres = matrix[rng.choice(n, size=math.isqrt(n), replace=False)]
    owners = np.empty((n, BUCKETS_PER_ROW), dtype=np.int64)
    for start in range(0, n, WINDOW):
        scores = matrix[start : start + WINDOW] @ centres.T
        owners[start : start + WINDOW] = np.argpartition(-scores, BUCKETS_PER_ROW - 1, axis=1)[
            :, :BUCKETS_PER_ROW
        ]
    flat = owners.ravel()
    rows = np.repeat(np.arange(n), BUCKETS_PER_ROW)
    order = np.argsort(flat, kind="stable")
    bounds = np.flatnonzero(np.diff(flat[order])) + 1
    return [part for part in np.split(rows[order], bounds) if len(part) > 1]


def _windows(matrix: np.ndarray, members: np.ndarray, rng: np.random.Generator) -> list[np.ndarray]:
    """A bucket, or overlapping windows of it along a random direction (a near pair
    falls in one window with high odds; a near cluster is chained across them)."""
    if len(members) <= WINDOW:
        return [members]
    direction = np.asarray(rng.standard_normal(matrix.shape[1]), dtype=matrix.dtype)
    ordered = members[(matrix[members] @ direction).argsort(kind="stable")]
    step = WINDOW // 2
    return [ordered[at : at + WINDOW] for at in range(0, len(ordered) - step, step)]


def _close_in(
    matrix: np.ndarray, rows: np.ndarray, floor: float, found: dict[tuple[int, int], float]
) -> None:
    block = matrix[rows]
    scores = block @ block.T
    np.fill_diagonal(scores, -1.0)
    keep = min(NEAREST, len(rows) - 1)
    # Only rows with a close row give pairs: the others are not partitioned (each row
    # is partitioned on its own, so the rest get the same nearest, in the same order).
    near = np.flatnonzero((scores >= floor).any(axis=1))
    scores = scores[near]
    best = np.argpartition(-scores, keep - 1, axis=1)[:, :keep]
    cosines = np.take_along_axis(scores, best, axis=1)
    for a, b in zip(*np.nonzero(cosines >= floor), strict=True):
        i, j = int(rows[near[a]]), int(rows[best[a, b]])
        found[(i, j) if i < j else (j, i)] = float(cosines[a, b])
