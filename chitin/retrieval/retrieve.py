"""Ranking for retrieval (pure): matches by relevance first, the strongest others after.

The query's matches (full text, fused with meaning) are scored with the formula in
``scoring``; ``selection`` then folds into one line the insights that say the same
thing or contradict each other. When fewer than ``max_results`` lines match, the
room left goes to the strongest insights of the types that hold whatever the task
(FILLING: principle, personality, then behavioral), ranked below every match, and
never to skills or triggers that have nothing to do with it, unless a filter asked
for them: the original's fallback filled it with the strongest insights of any type.
Without a query no insight is unrelated: every type fills, the FILLING ones first.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Collection, Iterable, Sequence
from datetime import datetime

from chitin.model.field_spec import TYPES
from chitin.model.insight import Insight
from chitin.model.results import Ranked as Ranked
from chitin.retrieval.scoring import Settings, matches_at_all, score, strength
from chitin.retrieval.selection import Cosine, select

# The types whose strongest insights fill a result the query matches little of, in
# this order: how to judge and how to be hold whatever the task; a skill or a trigger
# that the query does not touch is noise in the agent's context.
FILLING = ("principle", "personality", "behavioral")
# How many matches per line of the result are weighed for it: a stronger insight that
# says the same as a line, or contradicts it, may rank this far below it.
CONSIDERED = 3


def rank(
    matches: Sequence[tuple[float, Insight]],
    strongest: Callable[[str], Iterable[tuple[float, Insight]]],
    *,
    category: str,
    now: datetime,
    settings: Settings,
    max_results: int,
    cosine: Cosine = lambda _a, _b: None,
    allowed: Sequence[str] = FILLING,
    queried: bool = True,
) -> list[Ranked]:
    """``matches`` are (relevance before shaping, insight); ``strongest(type)`` yields
    (upper bound of strength, insight) of one type in descending bound order, as
    ``Cache.strongest`` does; ``cosine`` compares two insights in meaning, when it can;
    ``allowed``: the types the result may hold (a filter), which fill it in order;
    ``queried``: whether a query was given (without one, every allowed type fills)."""
    top = max((raw for raw, _ in matches), default=0.0)
    ranked = [
        Ranked(insight, score(insight, raw / top, category, now, settings), True)
        for raw, insight in matches
        # a relevance of 0 matches nothing (and top > 0), nor one 0 up to float error
        if raw > 0 and matches_at_all(raw / top)
    ]
    ranked.sort(key=_order)
    chosen = select(ranked[: max_results * CONSIDERED], max_results, cosine)
    for kind in _filling(allowed, queried):
        if len(chosen) >= max_results:
            break
        taken = {i for r in chosen for i in (r.insight.id, *r.also_covers, *r.outweighs)}
        fillers = _fill(
            strongest(kind),
            max_results - len(chosen),
            category,
            now,
            settings,
            taken,
        )
        chosen = select([*chosen, *fillers], max_results, cosine)
    return chosen


def _filling(allowed: Sequence[str], queried: bool) -> list[str]:
    """The types that fill a result, in order: those of FILLING it may hold; after them,
    where a filter chose types, the others it asked for (the person chose them: with
    `--type skill,principle` and no principle stored, the skills), and every other type
    when there is no query (nothing is unrelated to no task: a store of skills alone
    renders its skills)."""
    kept = [kind for kind in FILLING if kind in allowed]
    if queried and set(TYPES) <= set(allowed):
        return kept
    return kept + [kind for kind in allowed if kind not in FILLING]


def _fill(
    strongest: Iterable[tuple[float, Insight]],
    wanted: int,
    category: str,
    now: datetime,
    settings: Settings,
    taken: Collection[str],
) -> list[Ranked]:
    """The ``wanted`` strongest insights not ``taken``, stopping as soon as no later one can make it
    (decay only lowers a score below its bound)."""
    best: list[Ranked] = []
    keys: list[tuple[float, str]] = []
    for bound, insight in strongest:
        if len(best) >= wanted and bound < best[-1].factors.score:
            break
        if insight.id in taken:
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
