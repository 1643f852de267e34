"""The features of the learned duplicate decision (learn.py): each labelled pair as the
judgement sees it at the door and in ``check``, and what its conflict step reads.
``judge()`` is called as the door calls it (synonyms.py's vectors), so the rules'
verdicts here are ``contribute``'s pair for pair."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from leads import whole

Pair = Mapping[str, Any]


class Row(NamedTuple):
    """One pair as the judgement sees it."""

    rules: str  # the hand rules' verdict (today's judge)
    check: str  # the rules' verdict with the whole-text cosine alone (check, dedupe)
    open: bool  # reaches the near-duplicate step at the door
    open_check: bool  # … and in check
    base: dict[str, float]  # features every caller has
    extra: dict[str, float]  # the door's: response cosine, alignment
    label: int  # 1: a duplicate
    compatible: bool  # a compatible pair (the goal caps how many are flagged)


def _sides(pair: Pair) -> tuple[Any, Any]:
    from chitin.retrieval.judgement import Side

    def side(data: Pair) -> Side:
        return Side(data["type"], data["claim"], data.get("condition"), bool(data.get("avoid")))

    return side(pair["a"]), side(pair["b"])


def _reaches(a: Any, b: Any, cosine: float, response: float | None) -> bool:
    """Whether ``judge`` gets as far as its near-duplicate step on the pair."""
    from chitin.retrieval import judgement

    reached = []
    original = judgement._duplicate

    def spy(*args: Any) -> bool:
        reached.append(True)
        return False

    judgement._duplicate = spy  # type: ignore[assignment]
    try:
        judgement.judge(a, b, cosine, response)
    finally:
        judgement._duplicate = original  # type: ignore[assignment]
    return bool(reached)


def rows(pairs: Sequence[Pair], known: Mapping[str, Any]) -> list[Row]:
    from chitin.index.fulltext import STOPWORDS
    from chitin.retrieval import alignment, judgement, synonyms

    def tokens(text: str) -> alignment.Tokens:
        made = known[text]
        return alignment.Tokens(
            tuple(made.words), tuple(tuple(map(float, r)) for r in made.vectors)
        )

    heads = synonyms.canonical()
    made = []
    for pair in pairs:
        a, b = _sides(pair)
        cosine = float(known[whole(pair["a"])].pooled @ known[whole(pair["b"])].pooled)
        trigger = a.type == b.type == "trigger"
        response = float(known[a.claim].pooled @ known[b.claim].pooled) if trigger else None
        aligned = None
        if judgement.depends_on_alignment(b, a, cosine, response):
            aligned = alignment.own_alignment(
                tokens(whole(pair["b"])), tokens(whole(pair["a"])), STOPWORDS, heads
            )
        rules = judgement.judge(b, a, cosine, response, aligned).kind or "none"
        check = judgement.judge(b, a, cosine).kind or "none"
        mine, theirs = judgement._stance(b), judgement._stance(a)
        sizes = sorted((len(mine.topic), len(theirs.topic)))
        own = (len(mine.topic - theirs.topic) + len(theirs.topic - mine.topic)) / max(
            1, len(mine.topic | theirs.topic)
        )
        in_band = a.type == b.type and judgement.ALIGN_FLOOR <= cosine < judgement.ALIGN_CEILING
        if in_band and aligned is None:  # the door would ask where the rules' verdict
            # does not depend on it; the learned one may, so it is computed for the fit
            aligned = alignment.own_alignment(
                tokens(whole(pair["b"])), tokens(whole(pair["a"])), STOPWORDS, heads
            )
        base = {
            "c": cosine,
            "ov": judgement._overlap(mine.topic, theirs.topic),
            "own": own,
            "len": sizes[0] / max(1, sizes[1]),
            "short": float(sizes[0] <= 2),
            "trig": float(trigger),
            "rel": float(a.type == b.type == "relational"),
            "hi": max(0.0, cosine - judgement.DUPLICATE_COSINE),
            "rule": float(check == "duplicate"),
            "omin": float(min(len(mine.topic - theirs.topic), len(theirs.topic - mine.topic))),
            "omax": float(max(len(mine.topic - theirs.topic), len(theirs.topic - mine.topic))),
            "c2": cosine * cosine,
        }
        extra = {
            "r": (response or 0.0) if trigger else 0.0,
            "has_al": float(in_band),
            "al": aligned if in_band and aligned is not None else 0.0,
        }
        extra["alc"] = extra["al"] * cosine
        extra["alm"] = (
            _lesser(tokens(whole(pair["b"])), tokens(whole(pair["a"])), STOPWORDS, heads)
            if in_band
            else 0.0
        )
        made.append(
            Row(
                rules,
                check,
                _reaches(b, a, cosine, response),
                _reaches(b, a, cosine, None),
                base,
                extra,
                int(pair["label"] == "duplicate"),
                pair["label"] == "compatible",
            )
        )
    return made


def _lesser(first: Any, second: Any, stopwords: Any, heads: Any) -> float:
    """The lesser of the own-words alignment's precision and recall (one side's words
    of its own may all find a match, a scope added to the other's may not)."""
    from chitin.retrieval.alignment import _best, _own

    mine = _own(first, set(second.words), stopwords, heads)
    theirs = _own(second, set(first.words), stopwords, heads)
    if not mine or not theirs:
        return 0.0
    mh, th = {h for h, _ in mine} - {""}, {h for h, _ in theirs} - {""}
    p = sum(_best(row, h, theirs, th) for h, row in mine) / len(mine)
    r = sum(_best(row, h, mine, mh) for h, row in theirs) / len(theirs)
    return min(p, r)


def gate_features(pair: Pair, row: Row) -> list[float] | None:
    """What the conflict step reads of a pair with an opposing stance (None: no
    opposition, or kept apart): cosine, topic overlap, two cues or more, words of
    their own on each side, a claim that is its stance, a negation, do against avoid,
    and the hand rule's own answer (``_same_topic``)."""
    from chitin.retrieval import judgement as j

    a, b = _sides(pair)
    cosine = row.base["c"]
    mine, theirs = j._stance(b), j._stance(a)
    if j._apart(b, a, mine, theirs):
        return None
    reason, cues = j._opposition(b, a, mine, theirs)
    if not reason:
        return None
    return [
        1.0,
        cosine,
        j._overlap(mine.topic, theirs.topic),
        float(cues >= 2),
        float(j._own_words(mine, theirs)),
        float(j._stance_only(mine, theirs, cosine)),
        float(reason.startswith("negated")),
        float(reason.startswith("do")),
        float(j._same_topic(mine, theirs, cosine, cues)),
    ]
