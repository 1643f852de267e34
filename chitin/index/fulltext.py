"""The full-text index for retrieval: SQLite FTS5 with BM25, inside the cache; and
the cache's full-text queries (``Cache.search``, ``coverage``, ``term_matches``).

Each insight is one row with six columns, stemmed by FTS5's Porter tokenizer. A query
is matched against all of them, and BM25 weighs each column by the store's relevance
weights: the claim and a trigger's condition count most, because a query describes
the situation an insight is for.
"""

from __future__ import annotations

import math
import re
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, NamedTuple

from chitin.index.rows import LIVE, Filters, to_insight
from chitin.model.fields import SEARCHED
from chitin.model.insight import Insight

# The insight's full-text fields, as model/fields.py names them (its `search_at`).
COLUMNS: tuple[str, ...] = SEARCHED
INSERT = (
    f"INSERT INTO search (rowid, {', '.join(COLUMNS)}) "
    f"VALUES ({', '.join('?' * (len(COLUMNS) + 1))})"
)
TOKENIZER = "porter unicode61 remove_diacritics 2"
MAX_QUERY_WORDS = 48
# A term found in more than max(COMMON_TERM_FLOOR, COMMON_TERM_SHARE × insights) of them
# is not looked up: it says little and would touch most of the store.
COMMON_TERM_SHARE = 0.10
COMMON_TERM_FLOOR = 1000

_WORD = re.compile(r"\w+")
# Words that say nothing about a situation. In a large store the frequency rule below
# drops them anyway; in a small one they would make every insight a faint "match".
_STOPWORD_TEXT = """
a about above after again against all am an and any are as at be because been before
being below between both but by can could did do does doing down during each few for from
further had has have having he her here hers him his how i if in into is it its itself
just me more most my myself no nor not now of off on once only or other our ours out over
own same she should so some such than that the their theirs them then there these they
this those through to too under until up very was we were what when where which while who
whom why will with would you your yours yourself let lets need needs want wants going
get got im ive id ill dont doesnt cant wont
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def document(insight: Insight) -> tuple[str, ...]:
    """The text of each indexed column, in COLUMNS order (a list, such as the tags,
    as its items joined by spaces; an absent text as empty)."""
    return tuple(_text(getattr(insight, column)) for column in COLUMNS)


def _text(value: str | tuple[str, ...] | None) -> str:
    if isinstance(value, tuple):
        return " ".join(value)
    return value or ""


def weights(relevance_weights: Mapping[str, float]) -> tuple[float, ...]:
    return tuple(float(relevance_weights.get(column, 1.0)) for column in COLUMNS)


def expression(words: Sequence[str]) -> str | None:
    """An FTS5 query OR-ing ``words``; None for no words."""
    return " OR ".join(f'"{word}"' for word in words) or None


def content_words(text: str) -> list[str]:
    """The distinct words of ``text`` that are not stopwords, in order."""
    found = dict.fromkeys(_WORD.findall(text.lower().replace("'", "")))
    return [word for word in found if word not in STOPWORDS][:MAX_QUERY_WORDS]


def query_words(db: sqlite3.Connection, text: str) -> list[str]:
    """The words of ``text`` worth looking up (``query_terms``)."""
    return query_terms(db, text).words


class QueryTerms(NamedTuple):
    """A query's words worth looking up, and what each of its content words says."""

    words: list[str]
    # Each content word's inverse document frequency, log((insights + 1) / (holders + 0.5)):
    # a match on "invoice" says more than one on "asked" or "someone".
    weights: dict[str, float]
    # How many insights hold each content word (by its commonest stem): 0 for a word
    # no insight uses.
    holders: Mapping[str, int] = MappingProxyType({})


def query_terms(db: sqlite3.Connection, text: str) -> QueryTerms:
    """The words of ``text`` worth looking up: no stopwords, and none whose stem is too
    common (COMMON_TERM_SHARE): an OR over those would rank most of the store (the FTS5
    trap measured at 65 ms for 100,000 insights) while telling little. And the weight
    of every content word, from the same look-up of the index's vocabulary."""
    return terms_of(db, content_words(text))


def terms_of(db: sqlite3.Connection, words: Sequence[str]) -> QueryTerms:
    """``query_terms`` of content words already found (distinct, lower case)."""
    if not words:
        return QueryTerms([], {})
    stems = _stems(db, words)
    # Counting the FTS table itself reads all of it (5 ms at 10,000): the rows it holds
    # are the readable files', which the entries' index counts at once.
    total = db.execute("SELECT count(*) FROM entries WHERE error IS NULL").fetchone()[0]
    limit = max(COMMON_TERM_FLOOR, int(total * COMMON_TERM_SHARE))
    wanted = sorted({stem for found in stems.values() for stem in found})
    marks = ", ".join("?" * len(wanted))
    rows = db.execute(f"SELECT term, doc FROM search_vocab WHERE term IN ({marks})", wanted)
    frequency: dict[str, int] = dict(rows) if wanted else {}
    looked_up = [
        word
        for index, word in enumerate(words, 1)
        if stems.get(index) and all(0 < frequency.get(s, 0) <= limit for s in stems[index])
    ]
    holders = {
        word: max((frequency.get(s, 0) for s in stems.get(index, ())), default=0)
        for index, word in enumerate(words, 1)
    }
    weights = {word: math.log((total + 1) / (held + 0.5)) for word, held in holders.items()}
    return QueryTerms(looked_up, weights, holders)


def stems(db: sqlite3.Connection, words: Sequence[str]) -> dict[str, frozenset[str]]:
    """Each of ``words``' index terms, by the index's own tokenizer."""
    found = _stems(db, words)
    return {word: frozenset(found.get(index, ())) for index, word in enumerate(words, 1)}


def _stems(db: sqlite3.Connection, words: Sequence[str]) -> dict[int, set[str]]:
    """Each word's index terms, from the index's own tokenizer (a temporary table)."""
    db.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_words USING fts5 "
        f"(word, tokenize = '{TOKENIZER}')"
    )
    db.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_terms USING fts5vocab "
        "(temp, query_words, instance)"
    )
    db.execute("DELETE FROM temp.query_words")
    db.executemany(
        "INSERT INTO temp.query_words (rowid, word) VALUES (?, ?)", list(enumerate(words, 1))
    )
    found: dict[int, set[str]] = {}
    for term, doc in db.execute("SELECT term, doc FROM temp.query_terms"):
        found.setdefault(doc, set()).add(term)
    return found


# ------------------------------------------------------------------ queries


class TextMatch(NamedTuple):
    """A full-text match: its BM25 relevance, the insight, and its row in the cache."""

    relevance: float
    insight: Insight
    rowid: int


# The full-text search looks this many times the rows it returns among the best in the
# index, before filters (archived, type, tags) are applied.
SEARCH_SLACK = 2


def search(
    db: sqlite3.Connection,
    expression: str,
    weights: tuple[float, ...],
    limit: int,
    filters: Filters = LIVE,
) -> list[TextMatch]:
    """The ``limit`` best BM25 matches of an FTS5 ``expression``, best first; scores
    are positive.

    The best rows are found in the index alone, with room to spare, and only those
    are joined to their insights: joining every match first cost 6 ms of 9 at 10,000
    insights. When the filters leave fewer than ``limit`` of them, every match is
    joined, so nothing is missed."""
    rows = _search(db, expression, weights, limit, filters, SEARCH_SLACK * limit)
    if len(rows) < limit:
        rows = _search(db, expression, weights, limit, filters, None)
    return [TextMatch(row[0], to_insight(row[2:]), row[1]) for row in rows]


def _search(
    db: sqlite3.Connection,
    expression: str,
    weights: tuple[float, ...],
    limit: int,
    filters: Filters,
    best: int | None,
) -> list[tuple[Any, ...]]:
    where, args = filters.sql("entries.")
    columns = ", ".join(f"entries.{c}" for c in Insight._fields)
    bm25 = f"-bm25(search, {', '.join('?' * len(weights))})"
    found = f"SELECT rowid, {bm25} AS relevance FROM search WHERE search MATCH ?"
    if best is not None:
        found += " ORDER BY relevance DESC LIMIT ?"
    return db.execute(
        f"SELECT s.relevance, entries.rowid, {columns} FROM ({found}) s "
        f"JOIN entries ON entries.rowid = s.rowid "
        f"WHERE {where} ORDER BY s.relevance DESC, entries.id LIMIT ?",
        (*weights, expression, *([best] if best is not None else []), *args, limit),
    ).fetchall()


def coverage(
    db: sqlite3.Connection, words: Mapping[str, float], rowids: Iterable[int]
) -> dict[int, float]:
    """The summed weights of the query ``words`` each of the rows ``rowids`` holds (in
    any indexed field), one index lookup per word."""
    wanted = set(rowids)
    held: dict[int, float] = {}
    for word, weight in words.items():
        for (rowid,) in db.execute("SELECT rowid FROM search WHERE search MATCH ?", (f'"{word}"',)):
            if rowid in wanted:
                held[rowid] = held.get(rowid, 0.0) + weight
    return held


def matches_any(db: sqlite3.Connection, expression: str) -> bool:
    """Whether an FTS5 ``expression`` matches a row (archived insights included): the
    first match ends the look-up."""
    found = db.execute("SELECT 1 FROM search WHERE search MATCH ? LIMIT 1", (expression,))
    return found.fetchone() is not None


def same_terms(db: sqlite3.Connection, terms: Iterable[str]) -> list[int]:
    """The rows whose claim holds exactly ``terms`` (its tokens and stems): where an
    exact duplicate is, found by the index however common each term is (term_matches
    leaves the common ones out). Rows include archived insights."""
    wanted = sorted({t for t in terms if t})
    if not wanted:
        return []
    placeholders = ", ".join("?" * len(wanted))
    frequency = dict(
        db.execute(f"SELECT term, doc FROM claim_vocab WHERE term IN ({placeholders})", wanted)
    )
    if len(frequency) < len(wanted):
        return []  # a term no claim holds
    # Through the rarest term's list alone: a common one's costs ~65 ms at 100,000.
    rarest = min(wanted, key=lambda term: frequency[term])
    found = db.execute(
        "SELECT rowid FROM claim_terms WHERE claim_terms MATCH ? AND terms = ?",
        (f'"{rarest}"', " ".join(wanted)),
    )
    return [rowid for (rowid,) in found]


def same_words(db: sqlite3.Connection, claim: str) -> list[int]:
    """The rows whose claim holds every word of ``claim``, as the full-text index reads
    words in any script: where an exact duplicate of a claim with no ASCII term is
    ("Проверяй тесты", "先复现问题再修复", "Go to it"), which ``same_terms`` cannot look up
    (the claim terms are ASCII words of three letters or more, as 1.4.5's were). A
    claim of no word ("🙂"): the claims of no word, whose characters are their exact
    key (keys.normalized), and no index holds those."""
    found = _WORD.findall(claim)[:MAX_QUERY_WORDS]
    if not found:
        return _wordless(db)
    every = " ".join(f'"{word}"' for word in found)
    # Only claims with no ASCII term either: "Do it" must not read every claim with "it".
    rows = db.execute(
        "SELECT rowid FROM search WHERE search MATCH ? AND rowid IN "
        "(SELECT rowid FROM claim_terms WHERE terms = '')",
        (f"claim : ({every})",),
    )
    return [rowid for (rowid,) in rows]


def _wordless(db: sqlite3.Connection) -> list[int]:
    """The rows whose claim has no word in any script: few, among those of no term."""
    rows = db.execute(
        "SELECT rowid, claim FROM search WHERE rowid IN "
        "(SELECT rowid FROM claim_terms WHERE terms = '')"
    )
    return [rowid for rowid, claim in rows if not _WORD.search(claim or "")]


def term_matches(
    db: sqlite3.Connection, terms: Iterable[str], max_share: float, floor: int
) -> tuple[dict[int, int], int]:
    """How many of ``terms`` each insight's claim holds, counted through the index.

    Returns ({rowid: shared terms}, number of terms left out). A term found in
    more than ``max(floor, max_share × insights)`` claims is left out: it would
    touch most of the store (the FTS5 trap of 65 ms at 100,000 insights) while
    telling almost nothing about similarity. Rows include archived insights.
    """
    wanted = sorted({t for t in terms if t})
    if not wanted:
        return {}, 0
    total = db.execute("SELECT count(*) FROM entries WHERE error IS NULL").fetchone()[0]
    limit = max(floor, int(total * max_share))
    placeholders = ", ".join("?" * len(wanted))
    frequency = dict(
        db.execute(f"SELECT term, doc FROM claim_vocab WHERE term IN ({placeholders})", wanted)
    )
    counts: dict[int, int] = {}
    skipped = 0
    for term in wanted:
        found = frequency.get(term, 0)
        if found > limit:
            skipped += 1
        elif found:
            for (rowid,) in db.execute(
                "SELECT rowid FROM claim_terms WHERE claim_terms MATCH ?", (f'"{term}"',)
            ):
                counts[rowid] = counts.get(rowid, 0) + 1
    return counts, skipped
