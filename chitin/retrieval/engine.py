"""Retrieval over the cache: full-text candidates, then the ranking of ``retrieve``."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from chitin.index import fulltext
from chitin.index.cache import Cache, Filters
from chitin.model.insight import TYPES
from chitin.retrieval.context import detect_category
from chitin.retrieval.retrieve import Ranked, rank
from chitin.retrieval.scoring import Settings, shaped_boost

# How many full-text matches are scored: far more than are shown, so that the
# damped factors can re-rank among them, and few enough to stay fast at 100,000.
MIN_CANDIDATES = 200
CANDIDATES_PER_RESULT = 10


class Retrieval(NamedTuple):
    category: str
    ranked: list[Ranked]
    degraded: str | None  # why retrieval fell back to something weaker, if it did


def retrieve(cache: Cache, query: str, *, now: datetime, settings: Settings,
             max_results: int, filters: Filters) -> Retrieval:  # fmt: skip
    category = detect_category(query)
    expression = fulltext.match_expression(cache.db, query)
    limit = max(MIN_CANDIDATES, CANDIDATES_PER_RESULT * max_results)
    weights = fulltext.weights(settings.relevance_weights)
    matches = cache.search(expression, weights, limit, filters) if expression else []
    boosts = {kind: shaped_boost(category, kind, settings) for kind in TYPES}
    ranked = rank(matches, cache.strongest(boosts, filters), category=category, now=now,
                  settings=settings, max_results=max_results)  # fmt: skip
    return Retrieval(category, ranked, None)
