"""Word similarity between claims, and the candidates of the duplicate and conflict
check (pure functions).

The judgement itself (duplicate, conflict, neither) is chitin.retrieval.judgement;
this module keeps what selects the stored insights it looks at (the tension lexicon of
the term index's opposed candidates, the cut), the value it reports (``Match``) and
the original's ``similar``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping

from chitin.model.results import Candidate as Candidate
from chitin.model.results import Match as Match
from chitin.model.terms import jaccard, tokens

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
MAX_CONFLICTS = 5  # conflicts contribute reports, the closest first
OVERLAP_WITHOUT_TENSION = 0.3  # the word candidates share this much of a claim's terms
# A claim is judged against at most this many stored insights of each kind
# (overlapping in words, or holding an opposing term), those sharing the most words
# first (contribute's cut, through the cache).
CONFLICT_CANDIDATES = 200


def opposite_of(terms: Collection[str]) -> set[str]:
    """The opposites of the tension terms among ``terms`` (stemmed), and those terms
    themselves: a stored claim holding any of them may conflict with the claim however
    few other words they share."""
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
