"""Synonyms on the text side of retrieval: a query's words also match the other words
of their group in the synonym table (``chitin.retrieval.synonyms``), so that "the bill
is late" finds an insight about an overdue invoice by text as well as by meaning.

A word of the query and a phrase of the table found in it ("get rid of") are each a
*unit*; a unit's expansions are its group's other entries, less those that stem like a
word of the query (the index's Porter stemmer would match them as the word itself) and
those the store never holds or holds too often (``fulltext.terms_of``). A match on an
expansion counts ``Expansion.weight`` of a match on the word itself, both in BM25 and in
the share of the query a match holds (docs/design.md §6b, round 6).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from functools import cache

from chitin.index import fulltext
from chitin.index.cache import Cache
from chitin.index.fulltext import QueryTerms, TextMatch
from chitin.retrieval import synonyms


class Expansion:
    """How synonyms take part in a text search. ``mode``: "off"; "or" (the expansions
    join the query's own words in one FTS5 query); or "apart" (a second FTS5 query of
    the expansions alone, its BM25 ratio fused at ``weight``). ``weight``: what a
    synonym counts for against the word itself. ``only``: which query words are
    expanded, given the word and how many insights hold it (None: every one).
    (Plain classes, not NamedTuples: each NamedTuple class costs a retrieve's import
    ~0.4 ms.)"""

    __slots__ = ("mode", "only", "weight")

    def __init__(
        self,
        mode: str = "off",
        weight: float = 0.5,
        only: Callable[[str, int], bool] | None = None,
    ) -> None:
        self.mode, self.weight, self.only = mode, weight, only


OFF = Expansion()


class Expanded:
    """A query's synonyms: each unit's FTS5 expression of its expansions, and the
    weight of the unit (its inverse document frequency, as ``QueryTerms.weights``)."""

    __slots__ = ("units", "weights")

    def __init__(self, units: dict[str, str], weights: dict[str, float]) -> None:
        self.units, self.weights = units, weights

    def expression(self) -> str | None:
        """One FTS5 query OR-ing every expansion; None for none."""
        parts = dict.fromkeys(p for e in self.units.values() for p in e.split(" OR "))
        return " OR ".join(parts) or None


_WORD = re.compile(r"\w+")


def expand(
    cache: Cache, text: str, terms: QueryTerms, only: Callable[[str, int], bool] | None = None
) -> Expanded:
    """The synonyms of ``text``'s units that the store holds (see the module's doc). A
    word inside a phrase of the table is read as part of the phrase, as
    ``synonyms.heads`` reads it."""
    table, members = synonyms.canonical(), _members()
    found: dict[str, tuple[str, ...]] = {}
    weights: dict[str, float] = {}
    for phrase, head in _phrases(_WORD.findall(text.lower().replace("'", ""))):
        weight = max((terms.weights.get(w, 0.0) for w in phrase.split()), default=0.0)
        held = len(fulltext.rows_matching(cache.db, f'"{phrase}"'))
        if weight > 0 and (only is None or only(phrase, held)):  # not stopwords alone
            found[phrase], weights[phrase] = members[head], weight
    inside = {word for phrase in found for word in phrase.split()}
    for word, weight in terms.weights.items():
        held = terms.holders.get(word, 0)
        # not a word too common to look up, nor one a phrase holds
        expandable = (word in terms.words or held == 0) and word not in inside
        if expandable and word in table and (only is None or only(word, held)):
            found[word], weights[word] = members[table[word]], weight
    if not found:
        return Expanded({}, {})
    kept = _kept(cache, [*terms.weights], found)
    units = {u: " OR ".join(f'"{e}"' for e in es if e in kept) for u, es in found.items()}
    units = {u: e for u, e in units.items() if e}
    return Expanded(units, {u: weights[u] for u in units})


def _kept(cache: Cache, query: Sequence[str], found: Mapping[str, tuple[str, ...]]) -> set[str]:
    """The expansions worth looking up: none that stems like the query's own words
    (for a phrase, its words that are not stopwords: "cover up" is the query's
    "covering up"); a word only if the store holds it, not too often; a phrase always
    (the index keeps no count of phrases, and a phrase is rare)."""
    entries = {e for es in found.values() for e in es} - set(query) - set(found)
    single = sorted(e for e in entries if " " not in e)
    phrases = {e: fulltext.content_words(e) for e in entries if " " in e}
    words = sorted({*single, *(w for ws in phrases.values() for w in ws)} - set(query))
    stems = fulltext.stems(cache.db, [*query, *words])
    own = {stem for word in query for stem in stems[word]}
    kept = {e for e, ws in phrases.items() if not {s for w in ws for s in stems[w]} <= own}
    distinct = [word for word in single if not stems[word] <= own]
    return kept | set(fulltext.terms_of(cache.db, distinct).words)


def _phrases(words: Sequence[str]) -> list[tuple[str, str]]:
    """The table's phrases in ``words`` ("get rid of", "setting up"), and their heads."""
    table = synonyms.phrases()
    found = []
    for at in range(len(words)):
        for size in range(2, min(synonyms.LONGEST_PHRASE, len(words) - at) + 1):
            phrase = " ".join(words[at : at + size])
            if phrase in table:
                found.append((phrase, table[phrase]))
    return found


@cache
def _members() -> dict[str, tuple[str, ...]]:
    """Each group's head → the group's entries."""
    return {group[0]: group for group in synonyms.groups()}


def fused(
    first: list[TextMatch], second: list[TextMatch], weight: float, limit: int
) -> list[TextMatch]:
    """The matches of the query's own words and of its synonyms as one list: each
    relevance a BM25 ratio to its search's best, the synonyms' at ``weight``."""
    top = max((m.relevance for m in first), default=1.0) or 1.0
    other = max((m.relevance for m in second), default=1.0) or 1.0
    merged = {m.insight.id: m._replace(relevance=m.relevance / top) for m in first}
    for match in second:
        extra = weight * match.relevance / other
        known = merged.get(match.insight.id)
        relevance = extra + (known.relevance if known else 0.0)
        merged[match.insight.id] = match._replace(relevance=relevance)
    ordered = sorted(merged.values(), key=lambda m: (-m.relevance, m.insight.id))
    return ordered[:limit]


def credit(
    cache: Cache,
    expanded: Expanded,
    terms: QueryTerms,
    rowids: Sequence[int],
    weight: float,
) -> dict[int, float]:
    """The weight of the query's units each row holds by a synonym only (not by the
    unit itself), at ``weight``: the part of the query a synonym match covers."""
    wanted = set(rowids)
    credited: dict[int, float] = {}
    for unit, expression in expanded.units.items():
        by_synonym = fulltext.rows_matching(cache.db, expression) & wanted
        if unit in terms.words or " " in unit:
            by_synonym -= fulltext.rows_matching(cache.db, f'"{unit}"')
        for rowid in by_synonym:
            credited[rowid] = credited.get(rowid, 0.0) + weight * expanded.weights[unit]
    return credited
