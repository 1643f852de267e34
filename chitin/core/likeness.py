"""The insights that say much the same as a claim: by its words, or by its meaning
(``chitin similar``). A use case of its own, loaded by that command only: it brings the
conflict rules, the word candidates and, by meaning, the embedding provider."""

from __future__ import annotations

from chitin.core.session import Session
from chitin.index.cache import Filters
from chitin.model import arguments
from chitin.model.search_text import well_formed
from chitin.providers import DEFAULT_PROVIDER, answering
from chitin.retrieval import conflicts
from chitin.retrieval.conflicts import Candidate
from chitin.search import semantic
from chitin.search.candidates import similar_candidates


def by_words(
    session: Session, claim: str, threshold: float | None
) -> list[tuple[Candidate, float]]:
    """Insights sharing at least ``threshold`` of ``claim``'s words (Jaccard)."""
    claim, threshold = arguments.text("claim", claim), arguments.threshold(threshold, False)
    if session.missing:
        return []
    return conflicts.similar(claim, similar_candidates(session.cache, claim, threshold), threshold)


def by_meaning(
    session: Session, claim: str, threshold: float | None
) -> list[tuple[Candidate, float]]:
    """Insights whose meaning is close to ``claim`` (cosine similarity ≥ threshold),
    through the configured embedding provider; catches paraphrases words miss."""
    claim, threshold = arguments.text("claim", claim), arguments.threshold(threshold, True)
    claim = well_formed(claim)  # a byte that is not UTF-8 failed the embedding (exit 3)
    if session.missing:
        return []
    picked = semantic.choice(session.store.config())
    if picked.provider == semantic.NO_PROVIDER:
        picked = semantic.Choice(DEFAULT_PROVIDER, None)
    with answering():  # a probe of the dimensions, for one
        meaning = session.semantic(picked)
    found = semantic.nearest(session.cache, meaning, claim, Filters(), strict=True)
    insights = session.cache.by_ids(i for i, _ in found.hits)
    return [
        (Candidate(i, insights[i].type, insights[i].claim), score)
        for i, score in found.hits
        if i in insights and score >= threshold
    ]
