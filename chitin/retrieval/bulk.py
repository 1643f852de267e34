"""The candidate pairs of ``clusters.group`` for a large store, many at once (numpy).

The same candidates as ``clusters._Index.near`` (the same windows of the same posting
lists, in the same order), with those that cannot pass the tests that follow them in
``clusters`` dropped in bulk: the size test, and a bound on the Jaccard of the topic
words read from 64-bit signatures. A word sets bit ``rank % 64``; a bit set in one
signature and not the other comes from a word of one topic that the other lacks, so
``popcount(a ^ b) ≤ |A Δ B|``, and Jaccard ≥ t needs ``|A Δ B| ≤ (|A| + |B|)(1 − t)/(1 + t)``.
What passes is then tested exactly, in Python, as before: the verdicts are the same,
and the Python loop over ~100 candidates per insight (most of check's time at 100,000
insights) runs over the few that may pass. Imported only for a store of BULK insights
or more (numpy costs a linter on a small store ~100 ms).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Protocol

import numpy as np

from chitin.retrieval.leaning import Leaning

CHUNK = 1 << 20  # candidate pairs looked at together: ~30 MB of arrays at most
_SLACK = 1e-6  # the bound is a necessary condition: rounding must only let more through
_ROWS = 1 << 15  # pairs whose words are compared at once (24 × 24 each: ~20 MB)


class Indexed(Protocol):
    """What ``clusters._Index`` holds."""

    topics: Sequence[frozenset[str]]
    sizes: list[int]
    rank: dict[str, int]


class Windows:
    """Every (position, topic word) entry, in posting-list order (word rank, then
    position), and each position's words rarest first."""

    def __init__(self, index: Indexed, candidates: int) -> None:
        sizes = np.asarray(index.sizes, dtype=np.int64)
        rank = index.rank
        count = int(sizes.sum())
        self.candidates = candidates
        self.sizes = sizes
        position = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
        ranks = np.fromiter((rank[w] for t in index.topics for w in t), np.int64, count)
        posting = np.lexsort((position, ranks))  # entries in posting-list order
        self.flat = position[posting]  # the posting lists, one after another
        flat_rank = ranks[posting]
        self.first = np.searchsorted(flat_rank, flat_rank, "left")  # its list's start
        self.end = np.searchsorted(flat_rank, flat_rank, "right")
        # Each position's entries rarest first: where each sits in the posting lists.
        where = np.empty(count, dtype=np.int64)
        where[posting] = np.arange(count)
        self.by_position = where[np.lexsort((ranks, position))]
        self.starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
        bits = np.left_shift(np.uint64(1), (ranks % 64).astype(np.uint64))
        self.signature = np.zeros(len(sizes), dtype=np.uint64)
        # Each topic's word ranks in a row, padded: -1 on one side, -2 on the other.
        width = int(sizes.max()) if count else 0
        self.rows = np.full((len(sizes), width), -1, dtype=np.int32)
        self.rows[position, np.arange(count) - self.starts[position]] = ranks
        filled = sizes > 0  # entries are grouped by position: one OR per group
        if count:
            self.signature[filled] = np.bitwise_or.reduceat(bits, self.starts[filled])

    def slots(self, prefixes: Sequence[int], both_sides: bool) -> tuple[np.ndarray, ...]:
        """The windows ``near`` reads, in its order: for each position ascending, for each
        of its ``prefixes[i]`` rarest words, the CANDIDATES entries before it in that
        word's list (and, ``both_sides``, those after it). (owner, start, length)."""
        prefix = np.minimum(np.asarray(prefixes, dtype=np.int64), self.sizes)
        owner = np.repeat(np.arange(len(prefix), dtype=np.int64), prefix)
        within = np.arange(int(prefix.sum())) - np.repeat(np.cumsum(prefix) - prefix, prefix)
        at = self.by_position[self.starts[owner] + within]
        before = np.maximum(self.first[at], at - self.candidates)
        if not both_sides:
            return owner, before, at - before
        after_end = np.minimum(self.end[at], at + 1 + self.candidates)
        owners = np.repeat(owner, 2)
        starts = np.column_stack((before, at + 1)).ravel()
        lengths = np.column_stack((at - before, after_end - at - 1)).ravel()
        return owners, starts, lengths

    def pairs(self, slots: tuple[np.ndarray, ...]) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """The candidate pairs (i, j) of ``slots``, in order, a chunk at a time."""
        owner, start, length = slots
        ends = np.cumsum(length)
        cut, done = 0, 0
        while cut < len(owner):
            stop = int(np.searchsorted(ends, done + CHUNK, "right"))
            stop = max(stop, cut + 1)
            chosen = slice(cut, stop)
            lengths = length[chosen]
            total = int(lengths.sum())
            offsets = np.arange(total) - np.repeat(np.cumsum(lengths) - lengths, lengths)
            j = self.flat[np.repeat(start[chosen], lengths) + offsets]
            yield np.repeat(owner[chosen], lengths), j
            done, cut = int(ends[stop - 1]), stop

    def may_reach(self, i: np.ndarray, j: np.ndarray, threshold: float) -> np.ndarray:
        """False where the topics of i and j cannot have ``threshold`` of Jaccard."""
        apart = _popcount(self.signature[i] ^ self.signature[j])
        bound = (self.sizes[i] + self.sizes[j]) * ((1 - threshold) / (1 + threshold))
        passes: np.ndarray = apart <= bound + _SLACK
        return passes

    def reach(self, i: np.ndarray, j: np.ndarray, threshold: float) -> np.ndarray:
        """Whether the topics of i and j have ``threshold`` of Jaccard (counted in
        numpy, a few thousand pairs at a time; tested again exactly after)."""
        kept = np.zeros(len(i), dtype=bool)
        for at in range(0, len(i), _ROWS):
            first, second = i[at : at + _ROWS], j[at : at + _ROWS]
            mine, theirs = self.rows[first], self.rows[second]
            theirs = np.where(theirs < 0, -2, theirs)
            shared = (mine[:, :, None] == theirs[:, None, :]).sum(axis=(1, 2))
            union = self.sizes[first] + self.sizes[second] - shared
            kept[at : at + _ROWS] = shared >= (threshold - _SLACK) * np.maximum(union, 1)
        return kept


def prefix(size: int, threshold: float) -> int:
    """How many of a set's rarest words another set reaching ``threshold`` of Jaccard
    must share one of (the prefix filter)."""
    return size - math.ceil(threshold * size - 1e-9) + 1


def near_duplicates(windows: Windows, threshold: float) -> Iterator[tuple[int, int]]:
    """The pairs of ``near(i, threshold, earlier_only=True)`` for every i that pass
    the size test and may reach ``threshold`` (each to be tested exactly)."""
    sizes = windows.sizes
    slots = windows.slots([prefix(int(s), threshold) if s else 0 for s in sizes], False)
    for i, j in windows.pairs(slots):
        first, second = sizes[i], sizes[j]
        kept = (second >= threshold * first) & (first >= threshold * second)
        i, j = i[kept], j[kept]
        kept = windows.may_reach(i, j, threshold)
        yield from zip(i[kept].tolist(), j[kept].tolist(), strict=True)


def opposing(
    windows: Windows,
    threshold: float,
    words: int,
    takers: Sequence[int],
    leanings: Sequence[Leaning],
) -> dict[int, list[int]]:
    """For each of ``takers``, the candidates of ``near(i, threshold, False, words)``
    that may oppose it (``leaning.may_oppose``) and reach ``threshold`` of Jaccard,
    in ``near``'s order (repeats kept)."""
    sizes = windows.sizes
    wanted = np.zeros(len(sizes), dtype=bool)
    wanted[np.asarray(takers, dtype=np.int64)] = True
    counts = [
        min(prefix(int(s), threshold), words) if s and wanted[k] else 0 for k, s in enumerate(sizes)
    ]
    negated = np.asarray([lean.negated for lean in leanings], dtype=bool)
    compares = np.asarray([lean.compares for lean in leanings], dtype=bool)
    rejects = np.asarray([lean.rejects or lean.turns for lean in leanings], dtype=bool)
    poles, against = _pole_masks(leanings)
    found: dict[int, list[int]] = {}
    for i, j in windows.pairs(windows.slots(counts, True)):
        kept = (negated[i] != negated[j]) | (compares[i] & compares[j]) | rejects[i] | rejects[j]
        kept |= ((against[i] & poles[j]) != 0).any(axis=1)
        i, j = i[kept], j[kept]
        kept = windows.may_reach(i, j, threshold)
        i, j = i[kept], j[kept]
        kept = windows.reach(i, j, threshold)
        i, j = i[kept], j[kept]
        if not len(i):
            continue
        # Pairs come ordered by i: one list per run of the same i.
        cuts = np.flatnonzero(np.diff(i)) + 1
        for first, seconds in zip(i[np.r_[0, cuts]].tolist(), np.split(j, cuts), strict=True):
            found.setdefault(first, []).extend(seconds.tolist())
    return found


def _pole_masks(leanings: Sequence[Leaning]) -> tuple[np.ndarray, np.ndarray]:
    """The poles each insight takes and those opposite to them, as bit masks over the
    poles the store's insights take (64 a column)."""
    bit = {pole: k for k, pole in enumerate(sorted({p for lean in leanings for p in lean.poles}))}
    columns = max(1, -(-len(bit) // 64))
    poles = np.zeros((len(leanings), columns), dtype=np.uint64)
    against = np.zeros((len(leanings), columns), dtype=np.uint64)
    for row, lean in enumerate(leanings):
        for mask, held in ((poles, lean.poles), (against, lean.against)):
            for pole in held:
                k = bit.get(pole)
                if k is not None:  # an opposite no insight takes matches nothing
                    mask[row, k // 64] |= np.uint64(1 << (k % 64))
    return poles, against


def _popcount(values: np.ndarray) -> np.ndarray:
    if hasattr(np, "bitwise_count"):  # numpy 2
        counted: np.ndarray = np.bitwise_count(values)
        return counted
    table = np.array([bin(b).count("1") for b in range(256)], dtype=np.uint8)
    per_byte = table[values.view(np.uint8)].reshape(-1, 8)
    summed: np.ndarray = per_byte.sum(axis=1)
    return summed
