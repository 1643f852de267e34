"""The full-text index for retrieval: SQLite FTS5 with BM25, inside the cache.

Each insight is one row with six columns, stemmed by FTS5's Porter tokenizer. A query
is matched against all of them, and BM25 weighs each column by the store's relevance
weights: the claim and a trigger's condition count most, because a query describes
the situation an insight is for.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Mapping, Sequence

from chitin.model.insight import Insight

COLUMNS: tuple[str, ...] = ("claim", "condition", "tags", "context", "reasoning", "limitations")
INSERT = f"INSERT INTO search (rowid, {', '.join(COLUMNS)}) VALUES ({', '.join('?' * 7)})"
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
    """The text of each indexed column, in COLUMNS order."""
    return (
        insight.claim,
        insight.condition or "",
        " ".join(insight.tags),
        insight.context or "",
        insight.reasoning or "",
        insight.limitations or "",
    )


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
    """The words of ``text`` worth looking up: no stopwords, and none whose stem is too
    common (COMMON_TERM_SHARE): an OR over those would rank most of the store (the FTS5
    trap measured at 65 ms for 100,000 insights) while telling little."""
    words = content_words(text)
    if not words:
        return []
    stems = _stems(db, words)
    # Counting the FTS table itself reads all of it (5 ms at 10,000): the rows it holds
    # are the readable files', which the entries' index counts at once.
    total = db.execute("SELECT count(*) FROM entries WHERE error IS NULL").fetchone()[0]
    limit = max(COMMON_TERM_FLOOR, int(total * COMMON_TERM_SHARE))
    wanted = sorted({stem for found in stems.values() for stem in found})
    marks = ", ".join("?" * len(wanted))
    rows = db.execute(f"SELECT term, doc FROM search_vocab WHERE term IN ({marks})", wanted)
    frequency = dict(rows) if wanted else {}
    return [
        word
        for index, word in enumerate(words, 1)
        if stems.get(index) and all(0 < frequency.get(s, 0) <= limit for s in stems[index])
    ]


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
