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
from collections.abc import Iterable
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

MIN_CONFLICT_SCORE = 0.15
MAX_CONFLICTS = 5
OVERLAP_WITHOUT_TENSION = 0.3  # below this word overlap, a claim without tension is unrelated
DUPLICATE_SIMILARITY = 0.7  # at or above this overlap, with no tension, it is the same insight
OVERLAP_REASON = "high word overlap with different emphasis"

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


class Polarity(NamedTuple):
    """The tension terms a claim affirms, and those it negates."""

    affirmed: frozenset[str]
    negated: frozenset[str]


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
    """Reasons (``"a" ↔ "b"``) why two claims pull in opposite directions."""
    reasons = []
    for first, second in TENSION_PAIRS:
        balanced = {first, second} <= new.affirmed or {first, second} <= old.affirmed
        opposed = (first in new.affirmed and second in old.affirmed) or (
            second in new.affirmed and first in old.affirmed
        )
        if opposed and not balanced:
            reasons.append(f'"{first}" ↔ "{second}"')
    for term in sorted(TENSION_TERMS):
        if (term in new.affirmed and term in old.negated) or (
            term in new.negated and term in old.affirmed
        ):
            reasons.append(f'"{term}" ↔ "not {term}"')
    return reasons


def compare(claim: str, candidates: Iterable[Candidate]) -> tuple[list[Match], list[Match]]:
    """Split the candidates close to ``claim`` into (duplicates, conflicts), best first."""
    terms = stemmed_tokens(claim)
    mine = polarity(claim)
    normalized = _normalize(claim)
    duplicates: list[Match] = []
    conflicts: list[Match] = []
    for candidate in candidates:
        similarity = jaccard(terms, stemmed_tokens(candidate.claim))
        reasons = tension(mine, polarity(candidate.claim))
        strain = tension_value(len(reasons))
        if not reasons and (
            similarity >= DUPLICATE_SIMILARITY or _normalize(candidate.claim) == normalized
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
    terms = stemmed_tokens(claim)
    found: set[str] = set()
    for first, second in TENSION_PAIRS:
        if first in terms or second in terms:
            found.update((first, second))
    return found


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
