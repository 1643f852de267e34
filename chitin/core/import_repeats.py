"""Which imported items repeat a live insight: what ``import --merge`` skips, and what
a plain import writes anyway (every item is restored, issue 25) but counts, so that
the copies do not come in without a word."""

from __future__ import annotations

from collections.abc import Sequence

from chitin.index.cache import Cache, Filters
from chitin.model.interchange import Item
from chitin.retrieval.judgement import exact_key, side_of


def live_keys(cache: Cache) -> dict[tuple[str, ...], str]:
    """The id of the store's live insight of each key (as contribute judges a copy:
    type and claim, and a trigger's condition and side; an archived one is none)."""
    known: dict[tuple[str, ...], str] = {}
    for stored in cache.select(Filters(archived=False)):
        known.setdefault(exact_key(side_of(stored)), stored.id)
    return known


def repeats(cache: Cache, items: Sequence[Item]) -> int:
    """How many live ``items`` repeat a live stored insight or an earlier live item."""
    seen = set(live_keys(cache))
    count = 0
    for item in items:
        if item.insight.archived:
            continue  # an archived copy takes nothing out of retrieval, nor doubles it
        key = exact_key(side_of(item.insight))
        count += key in seen
        seen.add(key)
    return count
