"""Near-duplicates and conflicts among all the claims of a store, judged as ``contribute``
judges a new claim, without comparing every pair.

``contribute`` checks one new claim through the cache's term index
(``Chitin._conflict_candidates``). Its candidates are the stored insights that share
enough of its terms to reach OVERLAP_WITHOUT_TENSION (30 %), counting only the terms
not too common to look up (COMMON_TERM_SHARE); and the insights holding a term that
opposes one of its own (``opposite_terms``): all of them, or the CONFLICT_CANDIDATES of
them sharing the most words (``conflicts.choose_opposed``). ``conflicts.judge`` then
names every duplicate and the MAX_CONFLICTS strongest conflicts.

``check`` asks the same question of every live insight of a store, possibly a fresh
clone without a cache, so it makes the same choice in memory, counting as the cache
counts (the claim judged is not stored yet; archived insights are), and judges each
insight against its candidates with the same ``judge``. A pair is reported when either
of its two claims, contributed last, would be warned about the other. Two differences,
both towards finding more: ``contribute`` keeps at most CONFLICT_CANDIDATES of the
overlapping candidates too, a speed cut that ``check`` does not make; and claims equal
but for case and spacing are always duplicates, even when ``contribute`` cannot look
them up (no word of three letters, or only words too common to count).

The overlapping candidates are found by a similarity join, not by counting shared terms
with every other claim (which grows with the square of the store). Among them
``judge`` only reports a pair without opposing terms from an overlap of 0.5 (it scores
it 0.3 × overlap), and a pair with opposing terms involves two claims holding tension
terms (and is among the opposed candidates). Hence two joins: every claim at 0.5, and
the claims holding a tension term at 0.3. Each join uses the prefix filter of
set-similarity joins: with terms sorted rarest first, two sets with Jaccard ≥ t share a
term among the first ``|A| − ⌈t·|A|⌉ + 1`` of A, so only those are looked up, and a
candidate is verified only if those shared terms, plus all of A's other terms, could
reach the overlap it needs. A test compares the result with judging every claim, by
brute force, against the candidates ``contribute``'s rule gives it.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Collection, Iterator, Mapping, Sequence
from itertools import chain
from typing import NamedTuple

from chitin.index.fulltext import COMMON_TERM_FLOOR, COMMON_TERM_SHARE
from chitin.retrieval import conflicts
from chitin.retrieval.conflicts import Candidate, Features

RELATED_OVERLAP = conflicts.OVERLAP_WITHOUT_TENSION
# ``judge`` scores a pair without opposing terms 0.3 × overlap (see the module doc).
PLAIN_OVERLAP = round(max(RELATED_OVERLAP, conflicts.MIN_CONFLICT_SCORE / 0.3), 6)


class Related(NamedTuple):
    """Two claims (by position, first < second) that duplicate or contradict each other."""

    first: int
    second: int
    duplicate: bool
    similarity: float
    reason: str  # for a conflict: the opposing terms, or high word overlap


def related(
    claims: Sequence[str],
    focus: Collection[int] | None = None,
    archived: Collection[int] = (),
) -> list[Related]:
    """The related pairs among the live ``claims``, ordered by position; with
    ``focus``, only pairs with a claim at one of those positions. The ``archived``
    positions are never reported, but count where the cache counts them: in the
    words' frequencies, and among the opposed candidates before the cut."""
    features = [conflicts.features(claim) for claim in claims]
    gone = set(archived)
    live = [i for i in range(len(claims)) if i not in gone]
    pairs = _Pairs(features, live)
    index = _Index([f.terms for f in features])
    if focus is None:
        probes: Collection[int] = live
        partners = pairs.partners(None)
    else:
        # A pair with a focus claim is also found from its other claim, whose own
        # candidates (and so its strongest conflicts) need all of that claim's pairs.
        chosen = {i for i in focus if i not in gone}
        near = set(chosen)
        for position, others in pairs.partners(chosen).items():
            if position in chosen:
                near.update(others)
        for position in chosen:
            near.update(i for i in index.opposed(position) if i not in gone)
        probes = near
        partners = pairs.partners(near)
    entries = [(Candidate(str(i), "", claim), features[i]) for i, claim in enumerate(claims)]
    found: dict[tuple[int, int], Related] = {}
    for position in sorted(probes):
        near_words = partners.get(position, set())
        same = {i for i in near_words if features[i].normalized == features[position].normalized}
        pool = index.candidates(position, near_words) | same
        candidates = [entries[i] for i in sorted(pool - gone)]
        duplicates, clashes = conflicts.judge(features[position], candidates)
        for match, duplicate in chain(
            ((m, True) for m in duplicates), ((m, False) for m in clashes)
        ):
            other = int(match.id)
            key = (min(position, other), max(position, other))
            if key not in found and (focus is None or position in focus or other in focus):
                found[key] = Related(*key, duplicate, match.similarity, match.tension_reason)
    return [found[key] for key in sorted(found)]


class _Pairs:
    """Pairs of live claims that may overlap enough to be reported, by similarity joins."""

    def __init__(self, features: Sequence[Features], live: Sequence[int]) -> None:
        self.features = features
        self.term_sets = [f.terms for f in features]
        self.live = live
        self.tense = [i for i in live if any(features[i].polarity)]  # affirmed or negated

    def partners(self, probes: Collection[int] | None) -> dict[int, set[int]]:
        """Each claim's partners; with ``probes``, complete for those claims."""
        found: dict[int, set[int]] = defaultdict(set)
        for first, second in chain(
            _join(self.term_sets, self.live, PLAIN_OVERLAP, probes),
            _join(self.term_sets, self.tense, RELATED_OVERLAP, probes),
            _same_text(self.features, self.live, probes),
        ):
            found[first].add(second)
            found[second].add(first)
        return found


class _Index:
    """What the cache's term index tells ``contribute`` about a claim not yet stored,
    for each claim of the store in turn (so: counted without that claim)."""

    def __init__(self, term_sets: Sequence[frozenset[str]]) -> None:
        self.term_sets = term_sets
        self.frequency = Counter(chain.from_iterable(term_sets))
        others = len(term_sets) - 1
        self.common = max(COMMON_TERM_FLOOR, int(others * COMMON_TERM_SHARE))
        self.holding: dict[str, list[int]] = defaultdict(list)  # for the tension terms
        for position, terms in enumerate(term_sets):
            for term in terms & conflicts.TENSION_TERMS:
                self.holding[term].append(position)

    def opposed(self, position: int) -> set[int]:
        """The other claims holding a term opposed to this claim's."""
        opposite = conflicts.opposite_of(self.term_sets[position])
        found = set(chain.from_iterable(self.holding.get(term, ()) for term in opposite))
        found.discard(position)
        return found

    def candidates(self, position: int, partners: Collection[int]) -> set[int]:
        """``contribute``'s candidates for this claim (without the cut of overlapping
        ones), among ``partners`` (which hold every overlapping candidate it could
        report) and the opposed claims."""
        terms = self.term_sets[position]
        counted = frozenset(t for t in terms if self.frequency[t] - 1 <= self.common)
        skipped = len(terms) - len(counted)
        # Chitin._overlapping: Jaccard ≥ s needs |A ∩ B| ≥ s·|A|, less a term per skipped one.
        need = max(1, math.ceil(RELATED_OVERLAP * len(terms) - 1e-9) - skipped)

        def shared(rows: Collection[int]) -> Mapping[int, int]:
            return {row: len(counted & self.term_sets[row]) for row in rows}

        opposed = self.opposed(position)
        chosen = conflicts.choose_opposed(opposed, shared)
        looked_up = set(partners) | (opposed - chosen)
        overlapping = {row for row, count in shared(looked_up).items() if count >= need}
        return (overlapping | chosen) - {position}


def _same_text(
    features: Sequence[Features], members: Sequence[int], probes: Collection[int] | None
) -> Iterator[tuple[int, int]]:
    """Claims equal but for case and spacing: duplicates even when they have no terms."""
    groups: dict[str, list[int]] = defaultdict(list)
    for index in members:
        groups[features[index].normalized].append(index)
    for group in groups.values():
        for position, first in enumerate(group):
            for second in group[position + 1 :]:
                if probes is None or first in probes or second in probes:
                    yield first, second


def _join(
    term_sets: Sequence[frozenset[str]],
    members: Sequence[int],
    threshold: float,
    probes: Collection[int] | None,
) -> Iterator[tuple[int, int]]:
    """Pairs (i < j) of ``members`` whose terms overlap by at least ``threshold``: all
    of them, or those with a claim among ``probes``."""
    frequency: dict[str, int] = defaultdict(int)
    for index in members:
        for term in term_sets[index]:
            frequency[term] += 1
    postings: dict[str, list[int]] = defaultdict(list)
    for index in members:  # ascending, so each posting list is sorted
        for term in term_sets[index]:
            postings[term].append(index)
    looked_up = members if probes is None else [i for i in members if i in probes]
    for index in looked_up:
        rarest = sorted(term_sets[index], key=lambda term: (frequency[term], term))
        # Without probes each pair is found once, from its later claim.
        for other in _matches(term_sets, index, rarest, postings, threshold, probes is None):
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
