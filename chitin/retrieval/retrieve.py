"""Ranking for retrieval (pure): matches by relevance first, the strongest others after.

The query's full-text matches are scored with the formula in ``scoring``. When fewer
than ``max_results`` match, the result is filled with the strongest remaining insights
(as the original's fallback does), ranked below every match.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import NamedTuple

from chitin.model.insight import Insight
from chitin.retrieval.scoring import Factors, Settings, score, strength


class Ranked(NamedTuple):
    """An insight in the result. A match's score is its factors' product; an insight
    that fills the result without matching the query scores 0 (its factors still say
    how strong it is, which decides its place among the fillers)."""

    insight: Insight
    factors: Factors
    matched: bool

    @property
    def score(self) -> float:
        return self.factors.score if self.matched else 0.0


Keep = Callable[[Insight], bool]


def rank(
    matches: Sequence[tuple[float, Insight]],
    strongest: Iterable[tuple[float, Insight]],
    *,
    category: str,
    now: datetime,
    settings: Settings,
    max_results: int,
    keep: Keep = lambda _: True,
) -> list[Ranked]:
    """``matches`` are (BM25 score, insight); ``strongest`` yields (upper bound of
    strength, insight) in descending bound order, as ``Cache.strongest`` does."""
    top = max((raw for raw, _ in matches), default=0.0)
    ranked = [
        Ranked(insight, score(insight, raw / top, category, now, settings), True)
        for raw, insight in matches
        if raw > 0 and keep(insight)  # a relevance of 0 matches nothing (and top > 0)
    ]
    ranked.sort(key=_order)
    ranked = ranked[:max_results]
    if len(ranked) < max_results:
        taken = {r.insight.id for r in ranked}
        ranked += _fill(
            strongest,
            max_results - len(ranked),
            category,
            now,
            settings,
            lambda i: i.id not in taken and keep(i),
        )
    return ranked


def _fill(
    strongest: Iterable[tuple[float, Insight]],
    wanted: int,
    category: str,
    now: datetime,
    settings: Settings,
    keep: Keep,
) -> list[Ranked]:
    """The ``wanted`` strongest insights, stopping as soon as no later one can make it
    (decay only lowers a score below its bound)."""
    best: list[Ranked] = []
    keys: list[tuple[float, str]] = []
    for bound, insight in strongest:
        if len(best) >= wanted and bound < best[-1].factors.score:
            break
        if not keep(insight):
            continue
        factors = strength(insight, category, now, settings)
        entry = Ranked(insight, factors._replace(relevance=0.0, match=0.0), False)
        position = bisect.bisect(keys, _order(entry))
        keys.insert(position, _order(entry))
        best.insert(position, entry)
        del keys[wanted:], best[wanted:]
    return best


def _order(ranked: Ranked) -> tuple[float, str]:
    return -ranked.factors.score, ranked.insight.id
