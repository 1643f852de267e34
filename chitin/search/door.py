"""What a new insight duplicates or opposes among the stored ones: ``contribute``'s
check, before anything is written.

Candidates come from words (the cache's term index: those sharing enough terms, and
those holding a term of the conflict lexicon) and, when the store's vectors are
ready, from meaning (the nearest stored insights). At most JUDGED of them, the most
alike first, are judged by ``judgement.judge`` with the cosine of their whole-text
vectors (``embedding_text``: what the sidecar stores and retrieval's collapsing of
duplicates reads too). A candidate's vector is the stored one where it is current
for its text; only the new insight and candidates without one are embedded (and a
trigger's response, which is stored nowhere), and of those without one only the
RULE.cap closest by words: the others are judged by words, as ``degraded`` says, while
the background embedding gives them their vectors. With nothing to compare, the model
is not loaded. With no embedding provider, or none that works, every word candidate is
judged by words alone, and ``degraded`` says why.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from chitin.index.rows import Filters
from chitin.model.insight import Insight
from chitin.model.search_text import embedding_text, embedding_texts, vector_hash
from chitin.model.vector_math import dot
from chitin.providers import ProviderError
from chitin.retrieval.conflicts import MAX_CONFLICTS, Match
from chitin.retrieval.judgement import (
    CONFLICT,
    DUPLICATE,
    Side,
    Verdict,
    exact_key,
    judge,
    judged_text,
    side_of,
)
from chitin.retrieval.stance import topic
from chitin.search import door_tokens
from chitin.search.candidates import conflict_candidates, same_claim_candidates
from chitin.search.semantic import nearest, plain_rows, waiting

if TYPE_CHECKING:
    from chitin.index.cache import Cache
    from chitin.search.semantic import Semantic

JUDGED = 16  # candidates judged by meaning with the new insight, at most
FAR = 0.3  # below this cosine of stored vectors and share of topic words: not judged
NEIGHBOURS = 20  # nearest stored insights by meaning added to the word candidates


class Rule(NamedTuple):
    """What the door does with word candidates that have no stored vector: an imported
    or cloned store, before the background embedding has given them theirs (with more
    than semantic.INLINE_LIMIT waiting, nothing is embedded inline). bench/dedup/
    door_store.py compares rules; RULE is the one it chose."""

    far: bool  # leave out those far by topic words, as where stored vectors exist
    cap: int | None  # embed at most this many of them, most alike by topic words first
    rest_by_words: bool  # judge the others by words alone (else: not at all)


# Embedding every word candidate (up to JUDGED, and the new text: 17 texts, ~190 ms of
# the model at perf-vs-orig's 1,000) made a contribute into an unembedded store cost
# more than the rest of it. On the seven tuning sets (1,397 pairs, each `a` among 1,346
# unembedded distractors), against embedding them all: the 2 closest embedded and the
# rest judged by words, duplicate F1 -0.004 [-0.018, +0.008], conflict F1 +0.006
# [+0.001, +0.012], compatible flagged -0.017 [-0.031, -0.005], 2.2 texts embedded
# per contribute instead of 7.9; 1 closest loses duplicates (-0.023 [-0.043, -0.005]),
# and leaving out those far by words as a store with vectors does loses more (-0.063).
# With stored vectors nothing changes (the same 1,397 pairs, fully embedded: no verdict
# moved). docs/design.md §9g, "The door in a store without vectors".
RULE = Rule(far=False, cap=2, rest_by_words=True)


class Found(NamedTuple):
    duplicates: list[Match]
    conflicts: list[Match]
    degraded: str | None  # why the judgement read words alone, or missed some vectors
    # stored insights without a vector, judged by words alone, when that is what
    # ``degraded`` says (the caller may start the background embedding for them)
    unembedded: int = 0
    # the new insight's vectors, every part (search_text.embedding_texts), where the
    # judgement embedded its whole text: the caller stores them once the insight is
    # recorded (search/own_vectors.py)
    own: tuple[Sequence[float], ...] | None = None


def strength(insight: Insight) -> tuple[int, float, str, str]:
    """The order of "strongest first": most reinforced, most confident, then the
    oldest (the one whose history the others join), then the id."""
    return (-insight.reinforcements, -insight.confidence, insight.created, insight.id)


def word_candidates(cache: Cache, side: Side) -> list[Insight]:
    """The stored insights sharing words with ``side``. Asked twice by a contribute (its
    exact-duplicate refusal, then the door): the second is the first's answer while the
    cache's content is the same (``Cache.remembered``; docs/design.md §9l)."""
    text = judged_text(side)

    def find() -> list[Insight]:
        found = conflict_candidates(cache, text)
        return list(cache.by_ids(c.id for c in found).values())

    return list(cache.remembered(("word candidates", text), find))


def exact_duplicates(cache: Cache, side: Side) -> list[Insight]:
    """Stored insights that are the same insight as ``side``, strongest first."""
    key = exact_key(side)
    pool = {i.id: i for i in word_candidates(cache, side)}
    more = [c.id for c in same_claim_candidates(cache, side.claim) if c.id not in pool]
    pool.update(cache.by_ids(more))
    same = [i for i in pool.values() if exact_key(side_of(i)) == key]
    return sorted(same, key=strength)


def examine(
    cache: Cache, insight: Insight, semantic: Semantic | None, why_not: str | None
) -> Found:
    """The duplicates (most similar first) and the MAX_CONFLICTS closest conflicts."""
    return examine_later(cache, insight, semantic, why_not)()


def examine_later(
    cache: Cache, insight: Insight, semantic: Semantic | None, why_not: str | None
) -> Callable[[], Found]:
    """``examine`` in two halves: now, what needs the store (the candidates, their
    stored vectors) and the question for the missing vectors, sent; the judgement when
    the result is called. The caller may write in between, while a resident embedder
    embeds (providers/resident.py): the verdicts are the same."""
    side = side_of(insight)
    pool = {i.id: i for i in word_candidates(cache, side)}
    if semantic is None:
        found = _by_words(side, pool.values(), why_not)
        return lambda: found
    if not pool and semantic.vectors.empty() and not waiting(cache, semantic):
        found = _found([], None)  # an empty store: nothing to compare, no model
        return lambda: found

    def by_words(error: ProviderError) -> Found:
        why = f"no vectors ({error}): duplicates and conflicts judged by words alone"
        return _by_words(side, pool.values(), why)

    try:
        finish = _by_meaning(cache, semantic, insight, pool)
    except ProviderError as error:
        found = by_words(error)
        return lambda: found

    def finished() -> Found:
        try:
            return finish()
        except ProviderError as error:
            return by_words(error)

    return finished


def _by_words(side: Side, insights: Iterable[Insight], why: str | None) -> Found:
    return _found([(i, judge(side, side_of(i), None)) for i in insights], why)


def _by_meaning(
    cache: Cache, semantic: Semantic, insight: Insight, pool: dict[str, Insight]
) -> Callable[[], Found]:
    side = side_of(insight)
    text = embedding_text(insight)
    near, degraded, unembedded = _neighbours(cache, semantic, text, pool)
    ranked = _closest(side, pool.values(), near, RULE.far)[:JUDGED]
    stored = {i.id: _stored(cache, semantic, i) for i in ranked}
    chosen, by_words = _embedded(ranked, stored)
    worded = [(i, judge(side, side_of(i), None)) for i in by_words]
    if not chosen:
        found = _found(worded, degraded, unembedded)
        return lambda: found
    vectors = _Vectors(semantic)
    vectors.want(text, semantic.vectors.cached_query(text))
    # The others asked beside, where a search would embed them inline (nothing else
    # waits: own_vectors.py); a store waiting for its background embedding leaves
    # them to it, as it does the rest.
    parts = embedding_texts(insight) if degraded is None and not unembedded else ()
    for part in parts[1:]:
        vectors.want(part, None)
    for candidate in chosen:
        vectors.want(embedding_text(candidate), stored[candidate.id])
    triggers = [i for i in chosen if side.type == i.type == "trigger"]
    for response in [side.claim] + [i.claim for i in triggers] if triggers else []:
        vectors.want(response, None)  # see judgement.TRIGGER_RESPONSE
    arriving = vectors.ask_missing()
    tokens = door_tokens.TokenSource(semantic)
    door_tokens.ask_early(tokens, side, text, chosen, vectors.known.get, dot)

    def judged() -> Found:
        vectors.take(arriving)
        new = vectors[text]
        responses = {i.id: vectors.cosine(i.claim, side.claim) for i in triggers}
        cosines = {i.id: dot(vectors[embedding_text(i)], new) for i in chosen}
        aligned = door_tokens.aligned(tokens, insight, chosen, cosines, responses)
        verdicts = [
            (i, judge(side, side_of(i), cosines[i.id], responses.get(i.id), aligned.get(i.id)))
            for i in chosen
        ]
        own = tuple(vectors[part] for part in parts) if parts else None
        return _found(verdicts + worded, degraded, unembedded)._replace(own=own)

    return judged


def _embedded(
    ranked: Sequence[Insight], stored: dict[str, Any]
) -> tuple[list[Insight], list[Insight]]:
    """The candidates judged by meaning, and those judged by words alone (or not at
    all, per RULE): of those without a stored vector, only the RULE.cap most alike."""
    if RULE.cap is None:
        return list(ranked), []
    chosen: list[Insight] = []
    rest: list[Insight] = []
    embedding = 0
    for insight in ranked:
        if stored[insight.id] is not None:
            chosen.append(insight)
        elif embedding < RULE.cap:
            chosen.append(insight)
            embedding += 1
        else:
            rest.append(insight)
    return chosen, rest if RULE.rest_by_words else []


def _stored(cache: Cache, semantic: Semantic, insight: Insight) -> Any:
    """The insight's stored whole-text vector, if it is current for its text."""
    digest = cache.text_hash_of(insight.id) or ""
    if digest != vector_hash(insight):
        return None
    return semantic.vectors.whole_vector(insight.id, digest)


class _Vectors:
    """Texts and their vectors: those known (stored, or the query cache's), and those
    to embed, in one pass. Kept as plain rows and compared in plain Python: with the
    resident embedder answering (providers/resident.py) the door imports no numpy."""

    def __init__(self, semantic: Semantic) -> None:
        self.semantic = semantic
        self.known: dict[str, Sequence[float]] = {}
        self.missing: list[str] = []

    def want(self, text: str, vector: Any) -> None:
        if vector is not None:
            self.known.setdefault(text, _plain(vector))
        elif text not in self.known and text not in self.missing:
            self.missing.append(text)

    def ask_missing(self) -> Callable[[], Sequence[Sequence[float]]]:
        """The missing texts' vectors, asked for now, to be taken later."""
        later = getattr(self.semantic.provider, "rows_later", None)
        if later is not None and self.missing:
            arriving: Callable[[], Sequence[Sequence[float]]] = later(self.missing, "document")
            return arriving
        made = plain_rows(self.semantic, self.missing, "document")
        return lambda: made

    def take(self, arriving: Callable[[], Sequence[Sequence[float]]]) -> None:
        self.known.update(zip(self.missing, arriving(), strict=True))

    def __getitem__(self, text: str) -> Sequence[float]:
        return self.known[text]

    def cosine(self, first: str, second: str) -> float:
        return dot(self.known[first], self.known[second])


def _plain(vector: Any) -> list[float]:
    """A vector (a numpy row, an array, a list) as Python floats."""
    return list(vector.tolist() if hasattr(vector, "tolist") else vector)


def _neighbours(
    cache: Cache, semantic: Semantic, text: str, pool: dict[str, Insight]
) -> tuple[dict[str, float], str | None, int]:
    """Add the nearest stored insights by meaning to ``pool``; their cosine (of the
    stored vectors' best part, a first guess), why meaning was not complete, if it was
    not, and how many stored insights wait for a vector. The new insight's vector,
    embedded for the search, is kept in the sidecar's query cache, where the judgement
    finds it."""
    near = nearest(cache, semantic, text, Filters(), keep=False)  # contribute writes next
    ids = [i for i, _ in near.hits[:NEIGHBOURS] if i not in pool]
    pool.update(cache.by_ids(ids))
    if near.degraded:
        return {}, near.degraded, 0  # the reason said is another
    if near.unembedded:
        return {}, unembedded_note(near.unembedded), near.unembedded
    return dict(near.hits), None, 0


def _closest(
    side: Side, insights: Iterable[Insight], near: dict[str, float], far: bool = True
) -> list[Insight]:
    """The candidates worth embedding, most alike first: by the stored vectors' cosine
    or the share of topic words, whichever says more; those far by both are left out
    (a verdict needs a cosine of 0.5, or a quarter of the topic words), and, with
    ``far``, those far by words where no stored vector says how near they are."""
    mine = topic(judged_text(side))

    def alike(insight: Insight) -> float:
        theirs = topic(judged_text(side_of(insight)))
        union = mine | theirs
        shared = len(mine & theirs) / len(union) if union else 1.0
        return max(shared, near.get(insight.id, 0.0))

    scored = [(alike(i), i) for i in insights]
    kept = [(score, i) for score, i in scored if score >= FAR or not (near or far)]
    kept.sort(key=lambda pair: (-pair[0], strength(pair[1])))
    return [i for _, i in kept]


def unembedded_note(count: int, embedding: str = "`chitin embed`") -> str:
    """What the check says of ``count`` stored insights without a vector; ``embedding``
    names what will embed them."""
    return (
        f"{count} insight(s) have no vector yet ({embedding}): "
        "duplicates among them are found by words only"
    )


def _found(
    verdicts: Sequence[tuple[Insight, Verdict]], degraded: str | None, unembedded: int = 0
) -> Found:
    duplicates = [match(i, v) for i, v in verdicts if v.kind == DUPLICATE]
    conflicts = [match(i, v) for i, v in verdicts if v.kind == CONFLICT]
    duplicates.sort(key=lambda m: -m.similarity)
    conflicts.sort(key=lambda m: -m.conflict_score)
    return Found(duplicates, conflicts[:MAX_CONFLICTS], degraded, unembedded)


def match(insight: Insight, verdict: Verdict) -> Match:
    """A verdict in the shape of 1.4.5's report: a conflict's tension is 1 (an opposing
    stance was found), and its score weighs the topic's closeness as 1.4.5 did."""
    if verdict.kind != CONFLICT:
        return Match(
            insight.id, insight.type, insight.claim, verdict.similarity, 0.0, "", 0.0, verdict.basis
        )
    score = 0.3 * verdict.similarity + 0.7
    return Match(
        insight.id,
        insight.type,
        insight.claim,
        verdict.similarity,
        1.0,
        verdict.reason,
        score,
        verdict.basis,
    )
