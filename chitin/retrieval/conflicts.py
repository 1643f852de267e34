"""Similarity, duplicates and conflicts between claims (pure functions).

The original's rules (reference §4) with its defects fixed (§11.1–4):
- the stemmer applies the first suffix rule that matches (see chitin.model.terms);
- the tension score follows the documented curve: 1 pair 0.4, 2 pairs 0.6, 3 pairs 0.73;
- an exact or near duplicate is a *duplicate* ("reinforce it instead?"), not a conflict;
- a negated term ("don't be verbose") agrees with its opposite ("be concise") instead
  of clashing with it, and clashes with the same term affirmed ("be verbose");
- a claim that names both terms of a pair ("balance detail and brevity") is a
  balanced statement, and that pair is not counted against it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import NamedTuple

from chitin.model.terms import jaccard, stem, stemmed_tokens, tokens, words

TENSION_PAIRS: tuple[tuple[str, str], ...] = (
    # communication style
    ("verbose", "concise"),
    ("verbose", "brief"),
    ("verbose", "direct"),
    ("verbose", "efficient"),
    ("detailed", "concise"),
    ("detailed", "brief"),
    ("detailed", "direct"),
    ("detailed", "efficient"),
    ("thorough", "concise"),
    ("thorough", "brief"),
    ("elaborate", "concise"),
    ("elaborate", "brief"),
    ("lengthy", "short"),
    ("wordy", "terse"),
    ("wordy", "direct"),
    # action orientation
    ("ask", "act"),
    ("cautious", "bold"),
    ("careful", "fast"),
    ("slow", "fast"),
    ("deliberate", "quick"),
    ("wait", "proceed"),
    ("hesitate", "decisive"),
    ("passive", "proactive"),
    # formality
    ("formal", "casual"),
    ("formal", "informal"),
    ("professional", "casual"),
    ("polite", "blunt"),
    ("diplomatic", "direct"),
    # approach
    ("strict", "flexible"),
    ("rigid", "adaptive"),
    ("conservative", "aggressive"),
    ("minimal", "comprehensive"),
    ("simple", "complex"),
    ("silent", "vocal"),
    ("quiet", "loud"),
    # knowledge sharing
    ("explain", "execute"),
    ("narrate", "silent"),
    ("transparent", "opaque"),
    # risk
    ("safe", "risky"),
    ("cautious", "adventurous"),
    ("careful", "reckless"),
    # independence
    ("independent", "dependent"),
    ("autonomous", "supervised"),
    ("initiative", "permission"),
)
TENSION_TERMS: frozenset[str] = frozenset(t for pair in TENSION_PAIRS for t in pair)
# The positions in TENSION_PAIRS of the pairs each term belongs to, and each pair's reason.
_PAIRS_OF: dict[str, tuple[int, ...]] = {
    term: tuple(i for i, pair in enumerate(TENSION_PAIRS) if term in pair) for term in TENSION_TERMS
}
_PAIR_REASONS = tuple(f'"{first}" ↔ "{second}"' for first, second in TENSION_PAIRS)

MIN_CONFLICT_SCORE = 0.15
MAX_CONFLICTS = 5
OVERLAP_WITHOUT_TENSION = 0.3  # below this word overlap, a claim without tension is unrelated
DUPLICATE_SIMILARITY = 0.7  # at or above this overlap, with no tension, it is the same insight
OVERLAP_REASON = "high word overlap with different emphasis"
# A claim is judged against at most this many stored insights of each kind
# (overlapping in words, or holding an opposing term), those sharing the most words
# first: it reports a handful of duplicates and at most five conflicts, and the best
# are among these. (contribute's cut, through the cache; check makes the same one.)
CONFLICT_CANDIDATES = 200

_NEGATORS = frozenset(
    {
        "not",
        "no",
        "never",
        "without",
        "avoid",
        "avoiding",
        "avoids",
        "stop",
        "nor",
        "cannot",
        "neither",
        "instead",
    }
)
_NEGATION_REACH = 3  # a negator governs this many following words
_CONTRACTION = re.compile(r"n't\b|n’t\b", re.IGNORECASE)


class Candidate(NamedTuple):
    id: str
    type: str
    claim: str


class Match(NamedTuple):
    """A stored insight close to a new claim: a duplicate or a conflict."""

    id: str
    type: str
    claim: str
    similarity: float
    tension_score: float
    tension_reason: str
    conflict_score: float
    basis: str = ""  # judged by "meaning" (with vectors) or "words" (judgement.py)


class Polarity(NamedTuple):
    """The tension terms a claim affirms, and those it negates."""

    affirmed: frozenset[str]
    negated: frozenset[str]


class Features(NamedTuple):
    """What judging a claim reads of it, worked out once per claim."""

    terms: frozenset[str]
    polarity: Polarity
    normalized: str


_NO_POLARITY = Polarity(frozenset(), frozenset())


def tension_value(pairs_found: int) -> float:
    """0.4 for one opposing pair, 0.6 for two, 0.73 for three, approaching 1."""
    return 0.0 if pairs_found == 0 else 1.0 - 0.9 * (2.0 / 3.0) ** pairs_found


def polarity(claim: str) -> Polarity:
    sequence = words(_CONTRACTION.sub(" not", claim))
    affirmed: set[str] = set()
    negated: set[str] = set()
    for index, word in enumerate(sequence):
        for term in {word, stem(word)} & TENSION_TERMS:
            window = sequence[max(0, index - _NEGATION_REACH) : index]
            (negated if _NEGATORS.intersection(window) else affirmed).add(term)
    return Polarity(frozenset(affirmed), frozenset(negated))


def tension(new: Polarity, old: Polarity) -> list[str]:
    """Reasons (``"a" ↔ "b"``) why two claims pull in opposite directions: the opposed
    pairs in TENSION_PAIRS order, then the terms one affirms and the other negates."""
    return _tension(_pairs_touched(new), new, old)


def _pairs_touched(claim: Polarity) -> list[int]:
    """The pairs (positions in TENSION_PAIRS) of the terms a claim affirms: only those
    can oppose it to another claim."""
    return sorted({i for term in claim.affirmed for i in _PAIRS_OF[term]})


def _tension(touched: list[int], new: Polarity, old: Polarity) -> list[str]:
    reasons = []
    mine, theirs = new.affirmed, old.affirmed
    if theirs:
        for index in touched:
            first, second = TENSION_PAIRS[index]
            if (first in mine and second in theirs) or (second in mine and first in theirs):
                balanced = (first in mine and second in mine) or (
                    first in theirs and second in theirs
                )
                if not balanced:
                    reasons.append(_PAIR_REASONS[index])
    if new.negated or old.negated:
        for term in sorted((mine & old.negated) | (new.negated & theirs)):
            reasons.append(f'"{term}" ↔ "not {term}"')
    return reasons


def features(claim: str) -> Features:
    terms = frozenset(stemmed_tokens(claim))
    # A tension word is one of the claim's terms (all are 3 letters or more), unless a
    # contraction ("actn't") splits one out of a longer word: only then is polarity
    # worth working out.
    tense = not terms.isdisjoint(TENSION_TERMS) or _CONTRACTION.search(claim) is not None
    return Features(terms, polarity(claim) if tense else _NO_POLARITY, _normalize(claim))


def compare(claim: str, candidates: Iterable[Candidate]) -> tuple[list[Match], list[Match]]:
    """Split the candidates close to ``claim`` into (duplicates, conflicts), best first."""
    return judge(features(claim), ((c, features(c.claim)) for c in candidates))


def judge(
    mine: Features, candidates: Iterable[tuple[Candidate, Features]]
) -> tuple[list[Match], list[Match]]:
    """``compare`` with the features of each claim already worked out: all the
    duplicates, most similar first, and the MAX_CONFLICTS strongest conflicts."""
    duplicates: list[Match] = []
    conflicts: list[Match] = []
    touched = _pairs_touched(mine.polarity)
    affirmed, negated = mine.polarity
    # A claim opposes this one only if it affirms the other term of one of its pairs,
    # or negates a term it affirms, or affirms a term it negates.
    against = {term for i in touched for term in TENSION_PAIRS[i]} | negated
    for candidate, theirs in candidates:
        similarity = jaccard(mine.terms, theirs.terms)
        other = theirs.polarity
        if against.isdisjoint(other.affirmed) and affirmed.isdisjoint(other.negated):
            reasons = []
        else:
            reasons = _tension(touched, mine.polarity, other)
        strain = tension_value(len(reasons))
        if not reasons and (
            similarity >= DUPLICATE_SIMILARITY or theirs.normalized == mine.normalized
        ):
            duplicates.append(Match(*candidate, similarity, 0.0, "", 0.0))
            continue
        if not reasons and similarity < OVERLAP_WITHOUT_TENSION:
            continue
        score = 0.3 * similarity + 0.7 * strain
        if score >= MIN_CONFLICT_SCORE:
            reason = ", ".join(reasons) if reasons else OVERLAP_REASON
            conflicts.append(Match(*candidate, similarity, strain, reason, score))
    duplicates.sort(key=lambda m: -m.similarity)
    conflicts.sort(key=lambda m: -m.conflict_score)
    return duplicates, conflicts[:MAX_CONFLICTS]


def opposite_terms(claim: str) -> set[str]:
    """The opposites of the tension terms ``claim`` uses, and those terms themselves
    (which clash with their own negation): a stored claim holding any of them may
    conflict with ``claim`` however few other words they share."""
    return opposite_of(stemmed_tokens(claim))


def opposite_of(terms: Collection[str]) -> set[str]:
    """``opposite_terms`` of a claim with these (stemmed) terms."""
    found: set[str] = set()
    if TENSION_TERMS.isdisjoint(terms):
        return found
    for first, second in TENSION_PAIRS:
        if first in terms or second in terms:
            found.update((first, second))
    return found


def most_shared(counts: Mapping[int, int], need: int, limit: int | None) -> set[int]:
    """The rows sharing at least ``need`` terms; with ``limit``, only that many of
    them, those sharing the most first."""
    kept = [(shared, row) for row, shared in counts.items() if shared >= need]
    if limit is not None and len(kept) > limit:
        kept.sort(reverse=True)
        kept = kept[:limit]
    return {row for _, row in kept}


def choose_opposed(
    opposed: Collection[int], shared: Callable[[Collection[int]], Mapping[int, int]]
) -> set[int]:
    """Which of the insights holding a term opposed to a claim's (``opposite_terms``)
    are judged against it: all of them, or if there are more than CONFLICT_CANDIDATES,
    those sharing the most words with it (``shared`` counts them, for these rows)."""
    if len(opposed) <= CONFLICT_CANDIDATES:
        return set(opposed)
    counts = shared(opposed)
    return most_shared({row: counts.get(row, 0) for row in opposed}, 0, CONFLICT_CANDIDATES)


def similar(
    claim: str, candidates: Iterable[Candidate], threshold: float
) -> list[tuple[Candidate, float]]:
    """The original's ``similar``: plain Jaccard over unstemmed tokens, best first."""
    query = tokens(claim)
    if not query:
        return []
    scored = [(c, jaccard(query, tokens(c.claim))) for c in candidates]
    kept = [(c, s) for c, s in scored if s >= threshold]
    kept.sort(key=lambda pair: -pair[1])
    return kept


def _normalize(claim: str) -> str:
    return " ".join(claim.lower().split())
