"""The stored whole-text vectors of a store's insights, read as they are: ``check`` and
``dedupe`` judge by meaning from them, as ``contribute`` does, without the model and
without writing anything (check is a linter: it never makes ``.chitin/``).

A vector is used only where it is current: its row in the sidecar's index names the
insight, part 0 (the whole text, ``embedding_text``) and the hash of the insight's
text as the file says it now. The others are judged by words, and ``Stored.why`` says
how many.

Close pairs among up to 100,000 vectors are found without the n² products: the rows
are put in buckets by their nearest of √n sampled rows (each in its BUCKETS_PER_ROW
nearest, so a pair near a bucket's edge meets in one), and a bucket larger than
WINDOW is compared in overlapping windows along a random direction; each row keeps
its NEAREST closest rows above the floor. Union-find over the duplicates then joins
chains, so a cluster of 20,000 near-identical insights needs no more.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from chitin.model.insight import Insight
from chitin.model.search_text import embedding_text, text_hash
from chitin.retrieval.clusters import WORDS_ONLY, Meaning
from chitin.retrieval.judgement import WEAK_TOPIC_COSINE

if TYPE_CHECKING:
    import numpy as np

BRUTE = 4096  # up to this many rows, every pair is compared (in windows of WINDOW)
WINDOW = 2048  # rows compared with each other at once: a 16 MB block of cosines
BUCKETS_PER_ROW = 3
NEAREST = 8  # close rows kept per row and window
SEED = 25


# The lowest cosine a verdict by meaning uses in check: a conflict's topic with two
# opposing cues (a duplicate needs 0.65). A stance alone (judgement.STANCE_COSINE, 0.4)
# is left to contribute: at 0.4 most pairs of a topical store would be candidates.
FLOOR = WEAK_TOPIC_COSINE


def meaning(
    chitin_dir: Path, insights: Sequence[Insight], provider: str
) -> tuple[Meaning, str | None]:
    """What the stored vectors say of ``insights`` for ``clusters.group``, and why some
    or all were judged by words alone (None if none were)."""
    stored = read(chitin_dir, insights, provider)
    if stored is None:
        return WORDS_ONLY, without(len(insights), stored)
    at = {position: row for row, position in enumerate(stored.positions)}
    vectors = stored.matrix
    pairs = [
        (stored.positions[a], stored.positions[b], cosine)
        for a, b, cosine in close_pairs(vectors, FLOOR)
    ]

    def cosine(i: int, j: int) -> float | None:
        first, second = at.get(i), at.get(j)
        if first is None or second is None:
            return None
        return float(vectors[first] @ vectors[second])

    return Meaning(pairs, cosine), stored.why


class Stored(NamedTuple):
    positions: list[int]  # positions in the insights given that have a current vector
    matrix: np.ndarray  # their whole-text vectors, unit rows, in that order
    why: str | None  # how many were judged by words alone, and why; None: none


def read(chitin_dir: Path, insights: Sequence[Insight], provider: str) -> Stored | None:
    """The current stored vectors of ``insights`` made by ``provider`` (None if there
    is none: then ``without`` says why)."""
    from chitin.index.stored_rows import Unreadable, whole_text_rows

    try:
        held = whole_text_rows(chitin_dir)
    except Unreadable:
        return None  # a damaged or locked sidecar: words alone; a command repairs it
    if held is None:
        return None
    rows, identity = held
    name, _, dimensions = identity.rpartition(":")
    if not name.startswith(f"{provider}:") or not dimensions.isdigit():
        return None
    positions: list[int] = []
    numbers: list[int] = []
    for k, insight in enumerate(insights):
        row = rows.get(insight.id)
        if row is not None and row[0] == text_hash(embedding_text(insight)):
            positions.append(k)
            numbers.append(row[1])
    folder = chitin_dir / "vectors"
    return _matrix(folder, int(dimensions), positions, numbers, len(insights))


def without(total: int, stored: Stored | None) -> str | None:
    """Why meaning was not used for some of ``total`` insights, if it was not."""
    if stored is None:
        return (
            f"no current vectors in .chitin/vectors for the {total} insight(s) "
            "(`chitin embed` makes them): duplicates and conflicts judged by words alone"
        )
    return stored.why


def _matrix(
    folder: Path, dimensions: int, positions: list[int], numbers: list[int], total: int
) -> Stored | None:
    if not positions:
        return None
    from chitin.index.vector_files import mapped_matrix

    matrix = mapped_matrix(folder, dimensions)
    if matrix is None:
        return None
    import numpy as np

    kept = [(p, n) for p, n in zip(positions, numbers, strict=True) if n < matrix.shape[0]]
    rows = np.asarray(matrix[[n for _, n in kept]], dtype=np.float32)
    sound = np.all(np.isfinite(rows), axis=1) & (np.abs(np.linalg.norm(rows, axis=1) - 1) < 1e-3)
    chosen = [p for (p, _), ok in zip(kept, sound, strict=True) if ok]
    left = total - len(chosen)
    why = None
    if left:
        why = (
            f"{left} of {total} insight(s) have no current vector (`chitin embed`): "
            "duplicates and conflicts among them judged by words alone"
        )
    return Stored(chosen, rows[sound], why)


def close_pairs(matrix: np.ndarray, floor: float) -> list[tuple[int, int, float]]:
    """Pairs of rows (i < j) whose cosine reaches ``floor``, each row's NEAREST closest
    per window compared, best first per row; not every pair of a large cluster, but
    enough to chain it."""
    import numpy as np

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
    import numpy as np

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
    import numpy as np

    if len(members) <= WINDOW:
        return [members]
    direction = np.asarray(rng.standard_normal(matrix.shape[1]), dtype=matrix.dtype)
    ordered = members[(matrix[members] @ direction).argsort(kind="stable")]
    step = WINDOW // 2
    return [ordered[at : at + WINDOW] for at in range(0, len(ordered) - step, step)]


def _close_in(
    matrix: np.ndarray, rows: np.ndarray, floor: float, found: dict[tuple[int, int], float]
) -> None:
    import numpy as np

    block = matrix[rows]
    scores = block @ block.T
    np.fill_diagonal(scores, -1.0)
    keep = min(NEAREST, len(rows) - 1)
    best = np.argpartition(-scores, keep - 1, axis=1)[:, :keep]
    cosines = np.take_along_axis(scores, best, axis=1)
    for a, b in zip(*np.nonzero(cosines >= floor), strict=True):
        i, j = int(rows[a]), int(rows[best[a, b]])
        found[(i, j) if i < j else (j, i)] = float(cosines[a, b])
