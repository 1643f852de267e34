"""Duplicate clusters and conflicts across a whole store, by ``judgement.judge``
(``check`` and ``dedupe``), without comparing every pair.

Insights that are the same insight (``exact_key``) are grouped by that key. Near
duplicates and conflicts need a share of topic words in common, so each insight is
compared only with candidates from an inverted index of its topic words: the rarest
ones (the prefix filter of set-similarity joins: two sets with Jaccard ≥ t share one
of the first ``|A| − ⌈t·|A|⌉ + 1`` of A's words, rarest first), and in each of those
posting lists at most CANDIDATES neighbours. Duplicates are joined with union-find, so
a cluster of 20,000 near-identical insights is found through chains of neighbours,
in time linear in the store, not quadratic. A conflict needs an opposing stance, so
only insights that take one (negated, "avoid", a pole of the antonym lexicon, "X over
Y") look for them, and a conflict is reported once per pair of clusters.

With ``meaning`` (the stored whole-text vectors, chitin.search.stored), a pair whose
two insights have one is judged with its cosine, as ``contribute`` judges it, and the
close pairs the vectors give are candidates too: duplicates by meaning that share few
words, and conflicts whose topic is the same in meaning. Where ``meaning`` also gives
the alignment of a pair's own words (chitin.search.aligned), a duplicate is judged
with it, as at the door.

The cap trades completeness for bounded time: a pair sharing only words that more
than CANDIDATES other insights hold may be missed (bench/check_scale.py).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from itertools import chain
from types import ModuleType
from typing import Any, NamedTuple

from chitin.retrieval.judgement import (
    CONFLICT,
    DUPLICATE,
    TOPIC_OVERLAP,
    WORDS_DUPLICATE,
    Side,
    exact_key,
    judge,
    judged_text,
    sentence_key,
)
from chitin.retrieval.leaning import Leaning, PoleIndex, leaning, may_oppose, takes_a_side
from chitin.retrieval.stance import stance

CANDIDATES = 32  # neighbours looked at in each posting list looked up
# From this many insights, candidates are read in numpy (chitin.retrieval.bulk): the
# same ones, fewer of them tested in Python; below, numpy's import costs more.
BULK = 5000
# A conflict needs a quarter of the topic words: looked for through the rarest few.
CONFLICT_WORDS = 4


class Cluster(NamedTuple):
    members: tuple[int, ...]  # positions, strongest first
    exact: bool  # every member is the same insight (exact_key)
    claim: bool = False  # every member says the very same claim (sentence_key)


class Clash(NamedTuple):
    first: int  # the strongest member of one cluster (or a single insight)
    second: int
    reason: str
    said: tuple[int, int]  # the members whose words ``reason`` quotes: first's, second's


def _no_cosine(i: int, j: int, cosine: float | None = None) -> None:
    return None


class Meaning(NamedTuple):
    """What the stored vectors say: close pairs of positions (i < j, cosine), the
    cosine of any two positions (None where one has no vector), and the alignment of
    the words each of two positions has of its own, given their cosine, where the
    verdict depends on it and it could be had (chitin.search.aligned; else None)."""

    pairs: Sequence[tuple[int, int, float]]
    cosine: Callable[[int, int], float | None]
    alignment: Callable[[int, int, float], float | None] = _no_cosine


WORDS_ONLY = Meaning((), _no_cosine)


class Grouping(NamedTuple):
    clusters: list[Cluster]  # strongest first
    clashes: list[Clash]


def group(
    sides: Sequence[Side], strength: Sequence[tuple[object, ...]], meaning: Meaning = WORDS_ONLY
) -> Grouping:
    """The duplicate clusters (two members or more) and the conflicts among ``sides``,
    judged by ``judge``: with the cosine ``meaning`` gives, by words where it gives
    none. ``strength[i]`` orders the insights, strongest (smallest) first."""
    leanings = [leaning(side) for side in sides]
    found = _Union(len(sides), _Apart(sides, leanings, meaning.cosine))
    topics = [stance(judged_text(side)).topic for side in sides]
    _join_exact(sides, found)
    index = _Index(topics)
    _join_near(sides, index, found, meaning)
    for i, j, cosine in meaning.pairs:
        if found.root(i) != found.root(j) and _duplicates(sides, i, j, cosine, meaning):
            found.join(i, j)
    clusters = _clusters(sides, found, strength)
    head = {m: c.members[0] for c in clusters for m in c.members}
    return Grouping(clusters, _clashes(sides, index, head, meaning, leanings))


def _duplicates(
    sides: Sequence[Side], i: int, j: int, cosine: float | None, meaning: Meaning
) -> bool:
    """judge()'s duplicate, with the alignment where the verdict depends on it."""
    aligned = None if cosine is None else meaning.alignment(i, j, cosine)
    return judge(sides[i], sides[j], cosine, None, aligned).kind == DUPLICATE


def _join_near(sides: Sequence[Side], index: _Index, found: _Union, meaning: Meaning) -> None:
    """Join each insight to the near duplicates among its candidates by words."""
    topics, sizes, need, cosine = index.topics, index.sizes, WORDS_DUPLICATE, meaning.cosine
    if index.bulk is not None:
        # The order does not matter: union-find joins the same clusters.
        for i, j in index.bulk.near_duplicates(index.windows(), need):
            if found.root(i) == found.root(j) or _overlap(topics[i], topics[j]) < need:
                continue
            if _duplicates(sides, i, j, cosine(i, j), meaning):
                found.join(i, j)
        return
    for i in range(len(sides)):
        mine, size = topics[i], sizes[i]
        # Jaccard ≤ the smaller size over the larger (most candidates stop there),
        # then the Jaccard itself; one comprehension, as this runs millions of times.
        close = [
            j
            for j in index.near(i, need, earlier_only=True)
            if not (sizes[j] < need * size or size < need * sizes[j])
            and (shared := len(mine & topics[j])) / (size + sizes[j] - shared) >= need
        ]
        for j in close:
            if found.root(j) == found.root(i):
                continue
            if _duplicates(sides, i, j, cosine(i, j), meaning):
                found.join(i, j)


def _join_exact(sides: Sequence[Side], found: _Union) -> None:
    """Join the same insight (``exact_key``), and the same claim kept under two types
    (not a trigger's: its claim is half of what it says), which retrieval shows as one
    line (selection.py) however far apart their whole texts are in meaning."""
    first: dict[tuple[str, ...], int] = {}
    for i, side in enumerate(sides):
        for key in (exact_key(side), sentence_key(side)):
            if key is None:
                continue
            if key in first:
                found.join(first[key], i)
            else:
                first[key] = i


def _clusters(
    sides: Sequence[Side], found: _Union, strength: Sequence[tuple[object, ...]]
) -> list[Cluster]:
    members: dict[int, list[int]] = defaultdict(list)
    for i in range(len(sides)):
        members[found.root(i)].append(i)
    made = []
    for chosen in members.values():
        if len(chosen) < 2:
            continue
        chosen.sort(key=lambda i: strength[i])
        same = len({exact_key(sides[i]) for i in chosen}) == 1
        said = {sentence_key(sides[i]) for i in chosen}
        made.append(Cluster(tuple(chosen), same, same or (len(said) == 1 and None not in said)))
    made.sort(key=lambda c: (strength[c.members[0]], -len(c.members)))
    return made


def _clashes(
    sides: Sequence[Side],
    index: _Index,
    head: dict[int, int],
    meaning: Meaning,
    leanings: Sequence[Leaning],
) -> list[Clash]:
    """Conflicts, once per pair of clusters, in their strongest members' words."""
    found: dict[tuple[int, int], Clash] = {}

    def consider(i: int, j: int, cosine: float | None) -> None:
        first, second = sorted((head.get(i, i), head.get(j, j)))
        if first == second or (first, second) in found:
            return
        verdict = judge(sides[i], sides[j], cosine)
        if verdict.kind != CONFLICT:
            return
        said = (i, j) if head.get(i, i) == first else (j, i)
        if said != (first, second):  # the strongest members' own words, if they conflict
            strongest = judge(sides[first], sides[second], meaning.cosine(first, second))
            if strongest.kind == CONFLICT:
                said, verdict = (first, second), strongest
        found[(first, second)] = Clash(first, second, verdict.reason, said)

    poles = PoleIndex([stance(judged_text(s)).poles for s in sides], 2 * CANDIDATES)
    topics = index.topics
    need = TOPIC_OVERLAP / 2  # the lowest topic overlap judge accepts for a conflict
    takers = [i for i, side in enumerate(sides) if takes_a_side(side)]
    candidates = _by_words(index, takers, leanings, need)
    for i in takers:
        mine = leanings[i]
        # judge() by words finds a conflict only with an opposition and ``need`` of the
        # topic words: the rest is left out unjudged. A claim that is its stance and
        # little else ("Be verbose and explain every step" / "Speak plainly and
        # briefly, …") shares no word with the other and is judged by its cosine, as
        # contribute judges it: of the holders of an opposite pole (a bounded few),
        # those with a stored vector are judged whatever words they share.
        for j in candidates(i):
            if may_oppose(mine, leanings[j]) and _overlap(topics[i], topics[j]) >= need:
                consider(i, j, meaning.cosine(i, j))
        for j in poles.opposed(i):
            if not may_oppose(mine, leanings[j]):
                continue
            cosine = meaning.cosine(i, j)
            if cosine is not None or _overlap(topics[i], topics[j]) >= need:
                consider(i, j, cosine)
    for i, j, cosine in meaning.pairs:  # the same topic in meaning, few words shared
        if may_oppose(leanings[i], leanings[j]):
            consider(i, j, cosine)
    return [found[key] for key in sorted(found)]


def _by_words(
    index: _Index, takers: Sequence[int], leanings: Sequence[Leaning], need: float
) -> Callable[[int], Iterable[int]]:
    """Each taker's conflict candidates by words (``near``'s, in its order); in bulk,
    without those that can neither oppose it nor share ``need`` of its topic."""
    if index.bulk is None:
        return lambda i: index.near(i, need, earlier_only=False, words=CONFLICT_WORDS)
    found = index.bulk.opposing(index.windows(), need, CONFLICT_WORDS, takers, leanings)
    return lambda i: dict.fromkeys(found.get(i, ()))


def _overlap(first: frozenset[str], second: frozenset[str]) -> float:
    """Jaccard, without building the union (this runs millions of times)."""
    small, large = sorted((len(first), len(second)))
    if not large:
        return 1.0
    shared = len(first & second) if small else 0
    return shared / (small + large - shared)


class _Apart:
    """Keeps two opposed insights out of one cluster. Near duplicates join through
    chains ("Write brief commit messages" ~ "Write commit messages" ~ "Write thorough
    commit messages"), and ``dedupe --apply`` folds a cluster into one insight: a chain
    must not carry a contradiction into it, which a person should settle. Each cluster
    keeps up to KEEP members of each leaning; a join is refused where two of them, one
    from each side, may oppose and ``judge`` calls them a conflict. Clusters of one
    leaning (a templated import) never call ``judge`` here."""

    KEEP = 4

    def __init__(
        self,
        sides: Sequence[Side],
        leanings: Sequence[Leaning],
        cosine: Callable[[int, int], float | None],
    ) -> None:
        self.sides, self.leanings, self.cosine = sides, leanings, cosine
        self.held: dict[int, dict[Leaning, list[int]]] = {}

    def _held(self, root: int) -> dict[Leaning, list[int]]:
        held = self.held.get(root)
        return held if held is not None else {self.leanings[root]: [root]}

    def allows(self, a: int, b: int) -> bool:
        theirs = self._held(b).items()
        for first, mine in self._held(a).items():
            for second, others in theirs:
                if not (may_oppose(first, second) or may_oppose(second, first)):
                    continue
                for i in mine:
                    for j in others:
                        if judge(self.sides[i], self.sides[j], self.cosine(i, j)).kind == CONFLICT:
                            return False
        return True

    def joined(self, a: int, b: int) -> None:
        """Root b's cluster now belongs to root a's."""
        held = self.held.setdefault(a, self._held(a))
        for key, members in self._held(b).items():
            kept = held.setdefault(key, [])
            kept.extend(members[: self.KEEP - len(kept)])
        self.held.pop(b, None)


class _Union:
    """Union-find over positions, by size, with path halving; a join that ``apart``
    refuses is not made."""

    def __init__(self, size: int, apart: _Apart) -> None:
        self.parent = list(range(size))
        self.size = [1] * size
        self.apart = apart

    def root(self, i: int) -> int:
        parent = self.parent
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(self, i: int, j: int) -> None:
        a, b = self.root(i), self.root(j)
        if a == b or not self.apart.allows(a, b):
            return
        if self.size[a] < self.size[b]:
            a, b = b, a
        self.parent[b] = a
        self.size[a] += self.size[b]
        self.apart.joined(a, b)


class _Index:
    """Posting lists of topic words, ascending positions; words rarest first. For a
    store of BULK insights or more, also ``bulk``, which reads the same lists in numpy."""

    def __init__(self, topics: Sequence[frozenset[str]]) -> None:
        self.topics = topics
        self.bulk: ModuleType | None = None
        self._windows: Any = None
        if len(topics) >= BULK:
            from chitin.retrieval import bulk

            self.bulk = bulk
        self.sizes = [len(topic) for topic in topics]
        frequency = Counter(chain.from_iterable(topics))
        # Each word's place in (frequency, word) order, to sort a topic rarest first.
        ordered = sorted(frequency, key=lambda word: (frequency[word], word))
        self.rank = {word: place for place, word in enumerate(ordered)}
        self.rarest: dict[int, list[str]] = {}
        self.postings: dict[str, list[int]] = defaultdict(list)
        for position, topic in enumerate(topics):
            for word in topic:
                self.postings[word].append(position)

    def windows(self) -> Any:
        """``bulk.Windows`` over these lists, made once."""
        if self._windows is None and self.bulk is not None:
            self._windows = self.bulk.Windows(self, CANDIDATES)
        return self._windows

    def _rarest(self, i: int) -> list[str]:
        rarest = self.rarest.get(i)
        if rarest is None:
            rarest = self.rarest[i] = sorted(self.topics[i], key=self.rank.__getitem__)
        return rarest

    def near(
        self, i: int, threshold: float, earlier_only: bool, words: int | None = None
    ) -> list[int]:
        """Candidates that may share ``threshold`` of insight i's topic words: up to
        CANDIDATES neighbours (before it, or on both sides) in each posting list of
        its rarest words, each once, in the order found."""
        rarest = self._rarest(i)
        if not rarest:
            return []
        prefix = _prefix(len(rarest), threshold)
        if words is not None:
            prefix = min(prefix, words)
        windows = []
        for word in rarest[:prefix]:
            posting = self.postings[word]
            at = bisect_left(posting, i)
            windows.append(posting[max(0, at - CANDIDATES) : at])
            if not earlier_only:
                windows.append(posting[at + 1 : at + 1 + CANDIDATES])
        return list(dict.fromkeys(chain.from_iterable(windows)))


def _prefix(size: int, threshold: float) -> int:
    """How many of a set's rarest words another set reaching ``threshold`` of Jaccard
    must share one of (the prefix filter)."""
    return size - math.ceil(threshold * size - 1e-9) + 1
