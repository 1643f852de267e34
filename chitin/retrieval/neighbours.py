"""Near-duplicates and conflicts among many claims at once, without comparing every pair.

``contribute`` checks one new claim through the cache's term index. ``check`` asks
the question of a whole store, possibly a fresh clone with no cache, so it joins the
claims in memory. It reports the pairs of claims that share at least
OVERLAP_WITHOUT_TENSION (30 %) of their terms and that ``conflicts.compare`` calls a
duplicate or a conflict. (``contribute`` also names claims with an opposing term and
fewer words in common; across a whole store those are mostly claims about different
things, and would bury the warnings worth reading.)

A pair without opposing terms scores 0.3 × its overlap, so it needs an overlap of 0.5
to reach MIN_CONFLICT_SCORE. Hence two joins: every claim at 0.5, and the claims
holding a tension term at 0.3. Each join uses the prefix filter of set-similarity
joins: with terms sorted rarest first, two sets with Jaccard ≥ t share a term among
the first ``|A| − ⌈t·|A|⌉ + 1`` of A, so only those are looked up, and a candidate
is verified only if those shared terms, plus all of A's other terms, could reach the
overlap it needs. A test compares the result with a scan of every pair.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Collection, Iterator, Sequence
from itertools import chain
from typing import NamedTuple

from chitin.model.terms import stemmed_tokens
from chitin.retrieval import conflicts
from chitin.retrieval.conflicts import Candidate

RELATED_OVERLAP = conflicts.OVERLAP_WITHOUT_TENSION
# ``compare`` scores a pair without opposing terms 0.3 × overlap (see the module doc).
PLAIN_OVERLAP = round(max(RELATED_OVERLAP, conflicts.MIN_CONFLICT_SCORE / 0.3), 6)


class Related(NamedTuple):
    """Two claims (by position, first < second) that duplicate or contradict each other."""

    first: int
    second: int
    duplicate: bool
    similarity: float
    reason: str  # for a conflict: the opposing terms, or high word overlap


def related(claims: Sequence[str], focus: Collection[int] | None = None) -> list[Related]:
    """The related pairs among ``claims``, ordered by position; with ``focus``, only
    pairs with a claim at one of those positions."""
    term_sets = [frozenset(stemmed_tokens(claim)) for claim in claims]
    tense = [i for i, terms in enumerate(term_sets) if terms & conflicts.TENSION_TERMS]
    pairs = set(_join(term_sets, range(len(claims)), PLAIN_OVERLAP, focus))
    pairs.update(_join(term_sets, tense, RELATED_OVERLAP, focus))
    pairs.update(_same_text(claims, focus))
    found = []
    for first, second in sorted(pairs):
        duplicates, clashes = conflicts.compare(
            claims[first], [Candidate(str(second), "", claims[second])]
        )
        for match in duplicates or clashes:
            found.append(
                Related(first, second, bool(duplicates), match.similarity, match.tension_reason)
            )
    return found


def _same_text(claims: Sequence[str], focus: Collection[int] | None) -> Iterator[tuple[int, int]]:
    """Claims equal but for case and spacing: duplicates even when they have no terms."""
    groups: dict[str, list[int]] = defaultdict(list)
    for index, claim in enumerate(claims):
        groups[" ".join(claim.lower().split())].append(index)
    for group in groups.values():
        for position, first in enumerate(group):
            for second in group[position + 1 :]:
                if focus is None or first in focus or second in focus:
                    yield first, second


def _join(
    term_sets: Sequence[frozenset[str]],
    members: Sequence[int],
    threshold: float,
    focus: Collection[int] | None,
) -> Iterator[tuple[int, int]]:
    """Pairs (i < j) of ``members`` whose terms overlap by at least ``threshold``."""
    frequency: dict[str, int] = defaultdict(int)
    for index in members:
        for term in term_sets[index]:
            frequency[term] += 1
    postings: dict[str, list[int]] = defaultdict(list)
    for index in members:  # ascending, so each posting list is sorted
        for term in term_sets[index]:
            postings[term].append(index)
    probes = members if focus is None else [i for i in members if i in focus]
    for index in probes:
        rarest = sorted(term_sets[index], key=lambda term: (frequency[term], term))
        # Without focus each pair is found once, from its later claim.
        for other in _matches(term_sets, index, rarest, postings, threshold, focus is None):
            yield min(index, other), max(index, other)


def _matches(
    term_sets: Sequence[frozenset[str]],
    index: int,
    rarest: list[str],
    postings: dict[str, list[int]],
    threshold: float,
    earlier_only: bool,
) -> Iterator[int]:
    """The other claims overlapping claim ``index`` by ``threshold`` or more (with
    ``earlier_only``, those before it)."""
    size = len(rarest)
    if not size:
        return
    prefix = size - math.ceil(threshold * size) + 1
    lists = (postings[term] for term in rarest[:prefix])
    if earlier_only:
        lists = (posting[: bisect_left(posting, index)] for posting in lists)
    shared = Counter(chain.from_iterable(lists))  # counted in C
    shared.pop(index, None)
    rest = size - prefix
    mine = term_sets[index]
    ratio = threshold / (1 + threshold)  # Jaccard ≥ t ⟺ |A ∩ B| ≥ t/(1+t)·(|A| + |B|)
    for other, count in shared.items():
        theirs = term_sets[other]
        needed = ratio * (size + len(theirs)) - 1e-9
        if count + rest >= needed and len(mine & theirs) >= needed:
            yield other
