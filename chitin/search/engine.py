"""Retrieval over the cache: full-text candidates, then the ranking of ``retrieve``."""

from __future__ import annotations

import array
from collections.abc import Callable
from datetime import datetime
from typing import NamedTuple

from chitin.index import fulltext
from chitin.index.cache import Cache, Filters, TextMatch
from chitin.model.insight import TYPES, Insight
from chitin.model.results import Retrieval as Retrieval
from chitin.model.vector_math import dot
from chitin.retrieval.context import detect_category
from chitin.retrieval.retrieve import rank
from chitin.retrieval.scoring import Settings, shaped_boost
from chitin.retrieval.selection import Cosine
from chitin.search import synonymy
from chitin.search.semantic import Semantic, nearest, said_nothing

# How many full-text matches are scored: far more than are shown, so that the
# damped factors can re-rank among them, and few enough to stay fast at 100,000.
MIN_CANDIDATES = 200
CANDIDATES_PER_RESULT = 10
SHORT_ID = 4  # the fewest characters of an id shown to the agent
# Retrieval by text alone matches the synonyms of the query's words that no insight
# holds (synonymy.py): nDCG@10 +0.017 [+0.003, +0.033] on bench/eval/agent-store.yaml by
# text, +0.025 [+0.005, +0.049] on the blind heldout-3.yaml (docs/design.md §6b, round
# 6). bench/eval/synonyms.py turns it off to measure against.
TEXT_SYNONYMS = True


def retrieve(
    cache: Cache,
    query: str,
    *,
    now: datetime,
    settings: Settings,
    max_results: int,
    filters: Filters,
    semantic: Semantic | None = None,
) -> Retrieval:
    """Full-text matches, fused with the nearest insights in meaning when ``semantic``
    is given, then ranked by the scoring formula."""
    category = detect_category(query)
    limit = max(MIN_CANDIDATES, CANDIDATES_PER_RESULT * max_results)
    weights = fulltext.weights(settings.relevance_weights)
    matches: list[tuple[float, Insight]] | None = None
    degraded, unembedded = None, 0
    if semantic is not None and query.strip():
        text = cache.remembered(
            ("text", query, limit, weights, filters, True),
            lambda: _text(cache, query, limit, weights, filters, True),
        )
        found = nearest(cache, semantic, query, filters)
        degraded, unembedded = found.degraded, found.unembedded
        if found.hits:
            plain = [(match.relevance, match.insight) for match in text.matches]
            floors = said_nothing(cache, semantic, filters)
            meaning = [(i, c) for i, c in found.hits if c > floors.get(i, -1.0)]
            matches = _fused(cache, plain, meaning, filters, settings.fusion, text.share)
    elif semantic is not None:
        # A query that says nothing matches nothing in meaning, but the stored vectors
        # are kept current as a search keeps them: selection judges by them which of
        # the strongest insights repeat or contradict each other, as contribute does.
        found = nearest(cache, semantic, None, filters)
        degraded, unembedded = found.degraded, found.unembedded
    if matches is None:  # no vectors to fuse: by text alone, with synonyms
        found_by_text = cache.remembered(
            ("by text", query, limit, weights, filters, TEXT_SYNONYMS),
            lambda: _by_text(cache, query, limit, weights, filters),
        )
        matches = [(match.relevance, match.insight) for match in found_by_text]
    boosts = {kind: shaped_boost(category, kind, settings) for kind in TYPES}
    ranked = rank(
        matches,
        lambda kind: cache.strongest({kind: boosts[kind]}, filters),
        category=category,
        now=now,
        settings=settings,
        max_results=max_results,
        cosine=_cosines(cache, semantic),
        allowed=filters.types or TYPES,
        queried=bool(query.strip()),
    )
    short = cache.short_ids((r.insight.id for r in ranked), SHORT_ID)
    return Retrieval(category, ranked, degraded, unembedded, short_ids=short)


def _cosines(cache: Cache, semantic: Semantic | None) -> Cosine:
    """How close two insights are in meaning, by their stored vectors (None where
    either has no current one): what ``selection`` judges a repeated lesson by."""
    if semantic is None or semantic.vectors.empty():  # one query, not two an insight
        return lambda _a, _b: None
    vectors: dict[str, array.array[float] | None] = {}

    def cosine(a: Insight, b: Insight) -> float | None:
        first, second = vector(a), vector(b)
        if first is None or second is None:
            return None
        return dot(first, second)  # unit vectors (see ``vector``)

    def vector(insight: Insight) -> array.array[float] | None:
        if insight.id not in vectors:
            digest = cache.text_hash_of(insight.id)
            found = semantic.vectors.whole_vector(insight.id, digest) if digest else None
            # A row that is not a unit vector is damage (the search sets the sidecar
            # aside for it): it compares with nothing.
            unit = found is not None and abs(dot(found, found) - 1.0) < 1e-3
            vectors[insight.id] = found if unit else None
        return vectors[insight.id]

    return cosine


class TextFound(NamedTuple):
    matches: list[TextMatch]
    share: dict[str, float]  # id → the part of the query a match covers (see _coverage)


def _text(
    cache: Cache,
    query: str,
    limit: int,
    weights: tuple[float, ...],
    filters: Filters,
    fusing: bool,
) -> TextFound:
    """The query's full-text matches, best first, and (when they are to be fused with
    matches in meaning) the share of the query each covers."""
    terms = fulltext.query_terms(cache.db, query)
    expression = fulltext.expression(terms.words)
    if not expression:
        return TextFound([], {})
    text = cache.search(expression, weights, limit, filters)
    return TextFound(text, _coverage(cache, text, terms) if fusing else {})


def _by_text(
    cache: Cache, query: str, limit: int, weights: tuple[float, ...], filters: Filters
) -> list[TextMatch]:
    """The query's full-text matches when nothing is fused with them: a word (or a
    phrase of the synonym lexicon) that no insight holds also matches its synonyms
    (synonymy.py; TEXT_SYNONYMS)."""
    if not TEXT_SYNONYMS:
        return _text(cache, query, limit, weights, filters, False).matches
    terms = fulltext.query_terms(cache.db, query)
    expression = synonymy.expression(cache, query, terms)
    return cache.search(expression, weights, limit, filters) if expression else []


def _coverage(
    cache: Cache, matches: list[TextMatch], terms: fulltext.QueryTerms
) -> dict[str, float]:
    """The share of the query's content words each text match holds, each word weighed
    by its inverse document frequency. BM25 normalised by the best match is relative:
    the best of weak matches (one word of six) would count as fully relevant and
    outweigh a close match in meaning. And a match on an everyday word ("asked",
    "someone") is weaker than one on a rare word: counted alike, "someone asked me to
    hurry up" was a third matched by any insight saying "asked" (docs/design.md §6b)."""
    asked = sum(terms.weights.values())
    if not matches or asked <= 0:
        return {}
    looked_up = {word: terms.weights[word] for word in terms.words}
    held = cache.coverage(looked_up, [match.rowid for match in matches])
    least = min(looked_up.values(), default=0.0)  # a match whose words stem otherwise
    return {m.insight.id: held.get(m.rowid, least) / asked for m in matches}


RRF_K = 60  # the usual constant of reciprocal rank fusion
TEXT_WEIGHT = 0.3  # blend: the share of text relevance (bench/eval: 0.2 to 0.6 tried; 0.3 best)
# Below this cosine similarity an insight does not match the query in meaning. Queries
# that mean nothing to the store ("hello", "list the files", "!!!", a row of x's) come
# within 0.17-0.25 of their nearest insight with all-MiniLM-L6-v2; on bench/eval a floor
# of 0.25 ranks as well as none (nDCG@10 0.782 against 0.776; 0.3 loses, 0.751).
MIN_SIMILARITY = 0.25
# A query that means something to the store (its nearest insight passes MIN_SIMILARITY)
# also matches the insights within NEAR_BEST of its nearest, down to LOWEST_SIMILARITY.
# The fixed floor is there to reject queries that mean nothing; an everyday query's
# nearest is often only 0.3-0.4 away, and its answer a little further, under 0.25,
# where the result was filled with the strongest principles instead (27 % of
# heldout-5.yaml's paraphrase answers were under the floor). On the seven bench/eval
# sets: heldout-5.yaml nDCG@10 +0.017*, paraphrases +0.042*; the others within the
# noise (docs/design.md §6b, round 8). A query whose nearest is 0.4 or more keeps 0.25.
NEAR_BEST = 0.15
LOWEST_SIMILARITY = 0.15
# A text match holding less than this share of the query's content words (one word of
# five or more) is not fused: for a paraphrase, the best such hit is noise, and the
# meaning of the query finds the insight if it is near. bench/eval/agent-store.yaml:
# nDCG@10 +0.008 [+0.002, +0.016], paraphrases +0.025 [+0.002, +0.056], the same at any
# share from 0.17 to 0.25 (docs/design.md §6b). Text-only retrieval keeps every match.
MIN_SHARE = 0.2
# A text match's part of the blend is weighed by how near the insight is in meaning:
# nothing at a cosine of TEXT_TRUST[0] or below, all of it from TEXT_TRUST[1]. A word
# the query shares with an insight whose meaning is far from it is most often a stray
# word (a paraphrase's best text hit), and a close text match is near in meaning too.
# bench/eval/agent-store.yaml: nDCG@10 +0.007 [+0.001, +0.014], paraphrases +0.016
# [+0.005, +0.029]; the other sets unchanged within noise (docs/design.md §6b, round 3).
TEXT_TRUST = (0.1, 0.6)
# The least trust a text match keeps: a word the model has no meaning for (a codename,
# a rare name) is far in meaning from the insight that holds it, and a trust of 0 left
# that insight out of the result ("Nothing stored matches"), where text alone finds it.
# This little ranks it below every match in meaning, as the last matches.
TEXT_TRUST_FLOOR = 0.01


def _fused(
    cache: Cache,
    text: list[tuple[float, Insight]],
    meaning: list[tuple[str, float]],
    filters: Filters,
    method: str,
    share: dict[str, float],
) -> list[tuple[float, Insight]]:
    """One relevance per candidate from its text rank and its meaning rank; ``share``
    is the part of the query each text match covers (see _coverage)."""
    trust = _trust(meaning)
    floor = meaning_floor(meaning)
    meaning = [(i, cosine) for i, cosine in meaning if cosine >= floor]
    text = [(raw, insight) for raw, insight in text if share.get(insight.id, 1.0) >= MIN_SHARE]
    insights = {insight.id: insight for _, insight in text}
    missing = [i for i, _ in meaning if i not in insights]
    insights.update(cache.by_ids(missing, filters))
    scores: dict[str, float] = {}
    if method == "rrf":
        for position, (_, insight) in enumerate(text):
            scores[insight.id] = 1 / (RRF_K + position + 1)
        for position, (insight_id, _) in enumerate(meaning):
            scores[insight_id] = scores.get(insight_id, 0.0) + 1 / (RRF_K + position + 1)
    else:  # blend: normalised BM25 and cosine similarity, weighed
        top = max((raw for raw, _ in text), default=1.0) or 1.0
        for raw, insight in text:
            weight = TEXT_WEIGHT * share.get(insight.id, 1.0) * trust(insight.id)
            scores[insight.id] = weight * raw / top
        for insight_id, cosine in meaning:
            scores[insight_id] = scores.get(insight_id, 0.0) + (1 - TEXT_WEIGHT) * cosine
    return [(score, insights[i]) for i, score in scores.items() if i in insights and score > 0]


def meaning_floor(meaning: list[tuple[str, float]]) -> float:
    """The cosine from which an insight matches the query in meaning: MIN_SIMILARITY,
    or, when the nearest passes it, NEAR_BEST under the nearest (never under
    LOWEST_SIMILARITY, never over MIN_SIMILARITY)."""
    best = max((cosine for _, cosine in meaning), default=0.0)
    if best < MIN_SIMILARITY:
        return MIN_SIMILARITY
    return max(LOWEST_SIMILARITY, min(MIN_SIMILARITY, best - NEAR_BEST))


def _trust(meaning: list[tuple[str, float]]) -> Callable[[str], float]:
    """How far a text match is trusted (TEXT_TRUST_FLOOR..1), by the insight's cosine to
    the query (TEXT_TRUST). ``meaning`` holds the nearest insights only; one not among them is
    no nearer than the farthest of them, whose cosine stands in for its own."""
    cosines = dict(meaning)
    farthest = min(cosines.values(), default=TEXT_TRUST[1])
    low, high = TEXT_TRUST

    def trust(insight_id: str) -> float:
        cosine = cosines.get(insight_id, farthest)
        return min(1.0, max(TEXT_TRUST_FLOOR, (cosine - low) / (high - low)))

    return trust
