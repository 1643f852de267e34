"""The rows of the vector matrix nearest to a query: read plainly for a small matrix,
by numpy for a large one, or whenever numpy is already loaded.

numpy's import (~60-90 ms) is more than the cosines of a few thousand rows cost in
Python (~10 µs a row on Python 3.12, with ``math.sumprod``), and a contribute's door
or a new query in a store of that size would pay it for one product. docs/design.md
§9h has the figures that chose SMALL_MATRIX. A command served by the resident front
runs in a fork of a process that holds numpy already (front/server.py): there numpy's
product is free of the import, and a thousand rows cost ~1 ms against ~12 (§9o).
"""

from __future__ import annotations

import heapq
import sys
from collections.abc import Sequence
from pathlib import Path

from chitin.index.vector_files import MATRIX, mapped_matrix
from chitin.model.vector_math import dot, float32_row

# Up to this many rows, the matrix is read and its cosines computed without numpy.
SMALL_MATRIX = 3000

Best = list[tuple[int, float]]  # (row, cosine), best first


def nearest_rows(
    folder: Path,
    dimensions: int,
    query: Sequence[float],
    rows: Sequence[int],
    limit: int,
    held: int,
) -> Best:
    """The ``limit`` rows of ``rows`` most similar to ``query`` in a matrix of ``held``
    unit rows; rows past the matrix's end are left out."""
    # numpy when it costs no import (a served command: the front loaded it, §9o; or this
    # process needed it already), or when the matrix is past what Python scores faster
    # than numpy imports (§9h). Both give the same rows; cosines agree within 1e-5.
    if held <= SMALL_MATRIX and not numpy_loaded():
        return _plain(folder, dimensions, query, rows, limit)
    return _by_numpy(folder, dimensions, query, rows, limit)


def numpy_loaded() -> bool:
    """Whether this process imported numpy already (the front's workers: always)."""
    return "numpy" in sys.modules


def _plain(
    folder: Path, dimensions: int, query: Sequence[float], rows: Sequence[int], limit: int
) -> Best:
    matrix = float32_row((folder / MATRIX).read_bytes())
    held = len(matrix) // dimensions
    numbers = [row for row in rows if row < held]
    scores = [dot(query, matrix[row * dimensions : (row + 1) * dimensions]) for row in numbers]
    best = heapq.nlargest(limit, range(len(scores)), key=scores.__getitem__)
    return [(numbers[i], scores[i]) for i in best]


def _by_numpy(
    folder: Path, dimensions: int, query: Sequence[float], rows: Sequence[int], limit: int
) -> Best:
    import numpy as np

    matrix = mapped_matrix(folder, dimensions)
    if matrix is None:
        return []
    numbers = np.asarray(rows, dtype=np.int64)
    numbers = numbers[numbers < matrix.shape[0]]
    vector = np.asarray(query, dtype=np.float32)
    # Damaged rows (random bytes) overflow: the caller's check says so, once, in
    # chitin's words; numpy's own warning would print its source line first.
    with np.errstate(all="ignore"):
        if len(numbers) * 2 > matrix.shape[0]:  # most rows: one pass, no 150 MB copy
            scores = (matrix @ vector)[numbers]
        else:
            scores = matrix[numbers] @ vector
    if len(scores) > limit:  # the best `limit` in O(n), then only those sorted
        top = np.argpartition(-scores, limit)[:limit]
        best = top[np.lexsort((top, -scores[top]))]  # equal cosines: in the rows' order
    else:
        best = np.argsort(-scores, kind="stable")
    return [(int(numbers[i]), float(scores[i])) for i in best]
