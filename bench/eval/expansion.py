"""Synonyms on the text side of retrieval, as a substitute for the real retrieval's text
search (``chitin.search.engine._text``): round 6 of issue 24 (docs/design.md §6b),
measured by bench/eval/synonyms.py. The setting kept ("or", absent words only, by
text alone) is the product's since (``chitin.search.synonymy``, ``engine.TEXT_SYNONYMS``).

A query's words also match the other words of their group in chitin's synonym table
(``chitin.retrieval.synonyms``, chitin/assets/synonyms.txt), so that "the bill is late"
can find an insight about an overdue invoice by text as well as by meaning.

- A word of the query, and a phrase of the table found in it ("get rid of", "covering
  up"), is a *unit*; a word inside such a phrase is read with the phrase, as
  ``synonyms.heads`` reads it. A word too common to look up is not expanded.
- A unit's expansions are its group's other entries, less those that stem like a word
  of the query (the index's Porter stemmer would match them as the word itself; for a
  phrase, its words that are not stopwords: "cover up" is the query's "covering up"),
  and less the words the store never holds or holds too often (the rule of
  ``fulltext.query_terms``). A phrase is always kept (the index counts no phrases).
- ``Expansion.mode`` "or": the expansions join the query's own words in one FTS5 query;
  "apart": a second FTS5 query of the expansions alone, each search's BM25 divided by
  its best and the second's added at ``weight``.
- In the blend's share of the query a match holds (``engine._coverage``: each word
  weighed by its rarity), a unit held by a synonym only counts ``weight`` of itself.
- ``Expansion.only`` picks the units expanded, given the unit and how many insights
  hold it (None: every one).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple

import chitin.search.engine as engine
from chitin.index import fulltext
from chitin.index.cache import Cache, Filters, TextMatch
from chitin.retrieval import synonyms

Only = Callable[[str, int], bool]


class Expansion(NamedTuple):
    mode: str = "off"  # "off", "or" or "apart"
    weight: float = 0.5  # what a synonym counts for against the unit itself
    only: Only | None = None  # which units are expanded (None: every one)


OFF = Expansion()


class Terms(NamedTuple):
    """A query's content words: those looked up (``fulltext.query_terms``), the weight
    of each, and how many insights hold each (by its commonest stem)."""

    words: list[str]
    weights: dict[str, float]
    holders: dict[str, int]


class Expanded(NamedTuple):
    """Each unit's FTS5 expression of its expansions, and the unit's weight."""

    units: dict[str, str]
    weights: dict[str, float]

    def expression(self) -> str | None:
        parts = dict.fromkeys(p for e in self.units.values() for p in e.split(" OR "))
        return " OR ".join(parts) or None


_WORD = re.compile(r"\w+")


def vocabulary(
    cache: Cache, words: Sequence[str]
) -> tuple[dict[str, set[str]], dict[str, int], int]:
    """Each word's index terms, each term's document count, and the count above which
    a term is too common to look up (``fulltext.query_terms``'s rule)."""
    found = fulltext._stems(cache.db, words)
    stems = {word: found.get(index, set()) for index, word in enumerate(words, 1)}
    wanted = sorted({stem for each in stems.values() for stem in each})
    marks = ", ".join("?" * len(wanted))
    rows = cache.db.execute(f"SELECT term, doc FROM search_vocab WHERE term IN ({marks})", wanted)
    frequency: dict[str, int] = dict(rows) if wanted else {}
    total = cache.db.execute("SELECT count(*) FROM entries WHERE error IS NULL").fetchone()[0]
    limit = max(fulltext.COMMON_TERM_FLOOR, int(total * fulltext.COMMON_TERM_SHARE))
    return stems, frequency, limit


def terms_of(cache: Cache, query: str) -> Terms:
    found = fulltext.query_terms(cache.db, query)
    stems, frequency, _ = vocabulary(cache, list(found.weights))
    held = {w: max((frequency.get(s, 0) for s in stems[w]), default=0) for w in found.weights}
    return Terms(found.words, found.weights, held)


def looked_up(cache: Cache, words: Sequence[str]) -> list[str]:
    """The words the store holds, not too often."""
    if not words:
        return []
    stems, frequency, limit = vocabulary(cache, words)
    return [
        w for w in words if stems[w] and all(0 < frequency.get(s, 0) <= limit for s in stems[w])
    ]


def rows_matching(cache: Cache, expression: str) -> set[int]:
    found = cache.db.execute("SELECT rowid FROM search WHERE search MATCH ?", (expression,))
    return {rowid for (rowid,) in found}


@functools.cache
def members() -> dict[str, tuple[str, ...]]:
    """Each group's head → the group's entries."""
    return {group[0]: group for group in synonyms.groups()}


def phrases_in(words: Sequence[str]) -> list[tuple[str, str]]:
    """The table's phrases in ``words``, and their heads."""
    table = synonyms.phrases()
    found = []
    for at in range(len(words)):
        for size in range(2, min(synonyms.LONGEST_PHRASE, len(words) - at) + 1):
            phrase = " ".join(words[at : at + size])
            if phrase in table:
                found.append((phrase, table[phrase]))
    return found


def expand(cache: Cache, text: str, terms: Terms, only: Only | None) -> Expanded:
    """The query's units and their expansions that the store holds."""
    table, groups = synonyms.canonical(), members()
    found: dict[str, tuple[str, ...]] = {}
    weights: dict[str, float] = {}
    for phrase, head in phrases_in(_WORD.findall(text.lower().replace("'", ""))):
        weight = max((terms.weights.get(w, 0.0) for w in phrase.split()), default=0.0)
        held = len(rows_matching(cache, f'"{phrase}"'))
        if weight > 0 and (only is None or only(phrase, held)):  # not stopwords alone
            found[phrase], weights[phrase] = groups[head], weight
    inside = {word for phrase in found for word in phrase.split()}
    for word, weight in terms.weights.items():
        held = terms.holders.get(word, 0)
        expandable = (word in terms.words or held == 0) and word not in inside
        if expandable and word in table and (only is None or only(word, held)):
            found[word], weights[word] = groups[table[word]], weight
    if not found:
        return Expanded({}, {})
    kept = _kept(cache, [*terms.weights], found)
    units = {u: " OR ".join(f'"{e}"' for e in es if e in kept) for u, es in found.items()}
    units = {u: e for u, e in units.items() if e}
    return Expanded(units, {u: weights[u] for u in units})


def _kept(cache: Cache, query: Sequence[str], found: Mapping[str, tuple[str, ...]]) -> set[str]:
    entries = {e for es in found.values() for e in es} - set(query) - set(found)
    single = sorted(e for e in entries if " " not in e)
    phrases = {e: fulltext.content_words(e) for e in entries if " " in e}
    words = sorted({*single, *(w for ws in phrases.values() for w in ws)} - set(query))
    stems = vocabulary(cache, [*query, *words])[0]
    own = {stem for word in query for stem in stems[word]}
    kept = {e for e, ws in phrases.items() if not {s for w in ws for s in stems[w]} <= own}
    distinct = [word for word in single if not stems[word] <= own]
    return kept | set(looked_up(cache, distinct))


def fused(
    first: list[TextMatch], second: list[TextMatch], weight: float, limit: int
) -> list[TextMatch]:
    """Two searches' matches as one list: each BM25 divided by its search's best, the
    second's at ``weight``."""
    top = max((m.relevance for m in first), default=1.0) or 1.0
    other = max((m.relevance for m in second), default=1.0) or 1.0
    merged = {m.insight.id: m._replace(relevance=m.relevance / top) for m in first}
    for match in second:
        known = merged.get(match.insight.id)
        relevance = weight * match.relevance / other + (known.relevance if known else 0.0)
        merged[match.insight.id] = match._replace(relevance=relevance)
    return sorted(merged.values(), key=lambda m: (-m.relevance, m.insight.id))[:limit]


def credit(
    cache: Cache, expanded: Expanded, terms: Terms, rowids: Sequence[int], weight: float
) -> dict[int, float]:
    """The weight of the units each row holds by a synonym only, at ``weight``."""
    wanted = set(rowids)
    credited: dict[int, float] = {}
    for unit, expression in expanded.units.items():
        by_synonym = rows_matching(cache, expression) & wanted
        if unit in terms.words or " " in unit:
            by_synonym -= rows_matching(cache, f'"{unit}"')
        for rowid in by_synonym:
            credited[rowid] = credited.get(rowid, 0.0) + weight * expanded.weights[unit]
    return credited


def coverage(
    cache: Cache, matches: list[TextMatch], terms: Terms, extra: dict[int, float]
) -> dict[str, float]:
    """``engine._coverage``, and the units held by a synonym only (``credit``)."""
    asked = sum(terms.weights.values())
    if not matches or asked <= 0:
        return {}
    words = {word: terms.weights[word] for word in terms.words}
    held = cache.coverage(words, [match.rowid for match in matches])
    for rowid, weight in extra.items():
        held[rowid] = held.get(rowid, 0.0) + weight
    least = min(words.values(), default=0.0)
    return {m.insight.id: held.get(m.rowid, least) / asked for m in matches}


def text_search(expansion: Expansion) -> Callable[..., Any]:
    """A substitute for ``engine._text`` with ``expansion``."""

    def text(
        cache: Cache,
        query: str,
        limit: int,
        weights: tuple[float, ...],
        filters: Filters,
        fusing: bool,
    ) -> Any:
        terms = terms_of(cache, query)
        found = expand(cache, query, terms, expansion.only)
        own, other = fulltext.expression(terms.words), found.expression()
        if expansion.mode == "or":
            either = " OR ".join(e for e in (own, other) if e)
            matches = cache.search(either, weights, limit, filters) if either else []
        else:
            first = cache.search(own, weights, limit, filters) if own else []
            second = cache.search(other, weights, limit, filters) if other else []
            matches = fused(first, second, expansion.weight, limit)
        if not fusing or not matches:
            return engine.TextFound(matches, {})
        extra = credit(cache, found, terms, [m.rowid for m in matches], expansion.weight)
        return engine.TextFound(matches, coverage(cache, matches, terms, extra))

    return text


@contextmanager
def substituted(expansion: Expansion) -> Iterator[None]:
    """The real retrieval with ``expansion`` on its text side; for OFF, as it was
    before round 6 (``engine.TEXT_SYNONYMS`` off: retrieval by text alone without
    the synonyms it kept)."""
    original, kept = engine._text, engine.TEXT_SYNONYMS
    engine.TEXT_SYNONYMS = False
    if expansion.mode != "off":
        engine._text = text_search(expansion)  # type: ignore[assignment]
    try:
        yield
    finally:
        engine._text, engine.TEXT_SYNONYMS = original, kept  # type: ignore[assignment]
