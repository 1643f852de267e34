"""Synonyms for retrieval by text alone: a word of the query that no insight holds also
matches the other entries of its group in chitin's synonym lexicon
(chitin/assets/synonyms.txt), so that "the bill looks odd" finds an insight about an
invoice while a store has no vectors yet (or none at all: ``provider: none``).

- A query's *units* are the lexicon's phrases in it ("get rid of", "covering up") that
  no insight holds, and its content words that no insight holds, outside such a phrase.
  A word the store holds is matched as itself: expanding those cost person and plain
  queries more than it gave.
- A unit's expansions are its group's other entries, less those that stem like a word
  of the query (the index's Porter stemmer would match them as the word itself; for a
  phrase, its words that are not stopwords: "cover up" is the query's "covering up"),
  and less the words the store never holds or holds too often (``query_terms``' rule).
  They join the query's own words in its FTS5 query.
- Measured (docs/design.md §6b, round 6) by text alone: nDCG@10 +0.017 [+0.003, +0.033]
  on bench/eval/agent-store.yaml, +0.025 [+0.005, +0.049] on the blind heldout-3.yaml
  (flat on heldout-hard.yaml). With vectors, the same gains nothing outside the noise,
  so a retrieval that fuses meaning does not use it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from chitin.index import fulltext
from chitin.index.cache import Cache
from chitin.index.fulltext import QueryTerms
from chitin.retrieval import synonym_lookup, synonyms

_WORD = re.compile(r"\w+")


def expression(cache: Cache, text: str, terms: QueryTerms) -> str | None:
    """The FTS5 query of ``text``: its words worth looking up (``terms``) and the
    synonyms of its units (see the module's doc); None for neither."""
    units = _units(cache, text, terms)
    found = {e for head in units.values() for e in synonym_lookup.entries(head)}
    kept = sorted(_kept(cache, [*terms.weights], found - set(units))) if units else []
    parts = [*(f'"{word}"' for word in terms.words), *(f'"{e}"' for e in kept)]
    return " OR ".join(dict.fromkeys(parts)) or None


def _units(cache: Cache, text: str, terms: QueryTerms) -> dict[str, str]:
    """The query's units, each to its group's head."""
    units: dict[str, str] = {}
    words = _WORD.findall(text.lower().replace("'", ""))
    for phrase in _phrases(words):
        head = synonym_lookup.phrase_head(phrase)
        content = any(w in terms.weights for w in phrase.split())  # not stopwords alone
        if head is not None and content and not fulltext.matches_any(cache.db, f'"{phrase}"'):
            units[phrase] = head
    inside = {word for phrase in units for word in phrase.split()}
    for word in terms.weights:
        if terms.holders.get(word, 0) == 0 and word not in inside:
            head = synonym_lookup.head_of(word)
            if head is not None:
                units[word] = head
    return units


def _phrases(words: Sequence[str]) -> list[str]:
    """Every run of 2 to ``synonyms.LONGEST_PHRASE`` words that starts as a phrase of
    the lexicon does: the lexicon's phrases among them are looked up."""
    return [
        " ".join(words[at : at + size])
        for at in range(len(words))
        if synonym_lookup.starts_phrase(words[at])
        for size in range(2, min(synonyms.LONGEST_PHRASE, len(words) - at) + 1)
    ]


def _kept(cache: Cache, query: Sequence[str], entries: set[str]) -> set[str]:
    """The expansions worth looking up (see the module's doc)."""
    entries = entries - set(query)
    single = sorted(e for e in entries if " " not in e)
    phrases: Mapping[str, list[str]] = {e: fulltext.content_words(e) for e in entries if " " in e}
    words = sorted({*single, *(w for ws in phrases.values() for w in ws)} - set(query))
    stems = fulltext.stems(cache.db, [*query, *words])
    own = {stem for word in query for stem in stems[word]}
    kept = {e for e, ws in phrases.items() if not {s for w in ws for s in stems[w]} <= own}
    distinct = [word for word in single if not stems[word] <= own]
    return kept | set(fulltext.terms_of(cache.db, distinct).words)
