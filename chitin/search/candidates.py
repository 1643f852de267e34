"""Which stored insights a claim is compared with: the candidate selection behind
``similar`` and the duplicate and conflict check of ``contribute``.

A ranking rule over the cache's term index: only rows that could reach the wanted
overlap are fetched, so a check over 100,000 insights reads a few hundred.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from chitin.index.fulltext import COMMON_TERM_FLOOR, COMMON_TERM_SHARE
from chitin.model.terms import claim_terms, stemmed_tokens, tokens
from chitin.retrieval import conflicts
from chitin.retrieval.conflicts import Candidate, most_shared

if TYPE_CHECKING:
    from chitin.index.cache import Cache


def overlapping(cache: Cache, terms: set[str], share: float, limit: int | None = None) -> set[int]:
    """Rows that can reach a Jaccard overlap of ``share`` with ``terms``.

    Jaccard(A, B) ≥ s needs |A ∩ B| ≥ s·|A|, so a row sharing fewer terms cannot
    qualify. Terms too common to look up might be shared too: each one lowers the
    bar by one, so nothing that could qualify on the indexed terms is missed.
    With ``limit``, only that many rows sharing the most terms are kept.
    """
    counts, skipped = cache.term_matches(terms, COMMON_TERM_SHARE, COMMON_TERM_FLOOR)
    need = max(1, math.ceil(share * len(terms) - 1e-9) - skipped)
    return most_shared(counts, need, limit)


def candidates(cache: Cache, rowids: set[int] | None) -> list[Candidate]:
    """Live insights with these cache rows (all of them for None)."""
    if rowids is not None and not rowids:
        return []
    found = cache.select(rowids=rowids)
    return [Candidate(i.id, i.type, i.claim) for i in found]


def similar_candidates(cache: Cache, claim: str, threshold: float) -> list[Candidate]:
    """The insights that may share ``threshold`` of ``claim``'s words (all for 0)."""
    if threshold <= 0:
        return candidates(cache, None)
    return candidates(cache, overlapping(cache, tokens(claim), threshold))


def same_claim_candidates(cache: Cache, claim: str) -> list[Candidate]:
    """Live insights whose claim has the very words of ``claim``: an exact duplicate,
    even of words too common for ``conflict_candidates`` to look up, or of no ASCII
    term at all (another script, or short words only)."""
    terms = claim_terms(claim)
    if not terms:
        return candidates(cache, set(cache.same_words(claim)))
    return candidates(cache, set(cache.same_terms(terms)))


def conflict_candidates(cache: Cache, claim: str) -> list[Candidate]:
    """Insights close enough in words to duplicate ``claim``, or using a term that
    pulls against one of its own: the word candidates of ``contribute``'s check
    (chitin.search.door)."""
    terms = stemmed_tokens(claim)
    limit = conflicts.CONFLICT_CANDIDATES
    rows = overlapping(cache, terms, conflicts.OVERLAP_WITHOUT_TENSION, limit)
    opposed, _ = cache.term_matches(conflicts.opposite_of(terms), 1.0, 0)

    def shared(_: object) -> dict[int, int]:
        return cache.term_matches(terms, COMMON_TERM_SHARE, COMMON_TERM_FLOOR)[0]

    return candidates(cache, rows | conflicts.choose_opposed(opposed, shared))
