"""The stored whole-text vectors of a store's insights, read as they are: ``check`` and
``dedupe`` judge by meaning from them, as ``contribute`` does, without the model and
without writing anything (check is a linter: it never makes ``.chitin/``).

A vector is used only where it is current: its row in the sidecar's index names the
insight, part 0 (the whole text, ``embedding_text``) and the hash of the insight's
text and tags as the file says them now (``vector_hash``). The others are judged by
words, and ``meaning`` says which.

Close pairs among up to 100,000 vectors are found without the n² products
(chitin.search.neighbours).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, NamedTuple

from chitin.index.stored_rows import Unreadable, whole_text_rows
from chitin.model.insight import Insight
from chitin.model.search_text import vector_hash
from chitin.retrieval.clusters import WORDS_ONLY, Meaning
from chitin.retrieval.judgement import WEAK_TOPIC_COSINE

if TYPE_CHECKING:
    import numpy as np


# The lowest cosine of the close pairs check looks through: a conflict's topic with two
# opposing cues (a duplicate needs 0.65). A stance alone (judgement.STANCE_COSINE, 0.4)
# is not looked for among close pairs (at 0.4 most pairs of a topical store would be
# candidates), but among the few holders of an opposite pole (clusters._clashes).
FLOOR = WEAK_TOPIC_COSINE


def meaning(
    chitin_dir: Path, insights: Sequence[Insight], provider: str
) -> tuple[Meaning, list[int]]:
    """What the stored vectors say of ``insights`` for ``clusters.group``, and the
    positions of those that have no current vector (judged by words alone)."""
    stored = read(chitin_dir, insights, provider)
    if stored is None:
        return WORDS_ONLY, list(range(len(insights)))
    at = {position: row for row, position in enumerate(stored.positions)}
    vectors = stored.matrix
    pairs = [
        (stored.positions[a], stored.positions[b], cosine) for a, b, cosine in _close_pairs(vectors)
    ]

    def cosine(i: int, j: int) -> float | None:
        first, second = at.get(i), at.get(j)
        if first is None or second is None:
            return None
        return float(vectors[first] @ vectors[second])

    return Meaning(pairs, cosine), [k for k in range(len(insights)) if k not in at]


class Stored(NamedTuple):
    positions: list[int]  # positions in the insights given that have a current vector
    matrix: np.ndarray  # their whole-text vectors, unit rows, in that order


def read(chitin_dir: Path, insights: Sequence[Insight], provider: str) -> Stored | None:
    """The current stored vectors of ``insights`` made by ``provider`` (None if there
    is none)."""
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
        if row is not None and row[0] == vector_hash(insight):
            positions.append(k)
            numbers.append(row[1])
    folder = chitin_dir / "vectors"
    return _matrix(folder, int(dimensions), positions, numbers)


def _matrix(
    folder: Path, dimensions: int, positions: list[int], numbers: list[int]
) -> Stored | None:
    if not positions:
        return None
    found = _neighbours().unit_rows(folder, dimensions, positions, numbers)
    if found is None:
        return None
    chosen, rows = found
    return Stored(chosen, rows)


def _close_pairs(vectors: np.ndarray) -> list[tuple[int, int, float]]:
    found: list[tuple[int, int, float]] = _neighbours().close_pairs(vectors, FLOOR)
    return found


def _neighbours() -> ModuleType:
    """chitin.search.neighbours, and numpy with it: only where there are vectors (a
    linter on a fresh clone has none, and numpy costs it ~100 ms)."""
    from chitin.search import neighbours

    return neighbours
