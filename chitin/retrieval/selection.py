"""What reaches the agent of a ranking (pure): one line per lesson, and one side of a
contradiction.

The ranking orders every candidate by its score. An agent reading the result needs
less than that order: two insights that say the same thing are one lesson, and should
cost one line of its context; two that contradict each other should not both be
followed, so only the stronger is shown. The folded ones are not lost: each line names
what it also covers and what it outweighs (``--explain``, JSON), so that a person can
merge or archive them.

Two insights of one type are judged as ``contribute``, ``check`` and ``dedupe`` judge
them (``judgement.judge``): the same lesson (exact, or near by meaning), or opposing
stances on one topic. One more case is the same lesson here: a shorter restatement,
whose content words the longer one holds almost all of, close in meaning
(``restates``). "Reproduce a bug before fixing it" beside the starter's "Reproduce a
bug with a minimal failing case before changing any code to fix it" is one line of
advice said twice, though too far apart in meaning (0.70) for the judgement to call
one a duplicate of the other.

A contradiction is judged across types too when both say how to be or how to judge,
whatever the task (personality, principle, behavioral): "Be verbose and explain every
step" kept as a behavioral insight contradicts the personality "Speak plainly and
briefly" as much as it would as a personality, and ``contribute`` warns of it across
types. Otherwise insights of different types are folded only when they say the very
same thing (the same claim, case, spacing and punctuation aside; neither a trigger, whose
claim is only half of what it says): a trigger and a skill that share words say
different kinds of things, and a relational insight is one person's exception to a
general way of being, not its contradiction; but one sentence kept as a personality
and as a skill is one lesson, which the door (same type only) let in twice. "Stronger" is the
query-independent part of the score (confidence, reinforcement, decay); the stronger
of two takes the better of their places in the ranking. docs/design.md §6c has the
figures.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from chitin.model.insight import Insight
from chitin.model.results import Ranked
from chitin.retrieval import judgement
from chitin.retrieval.judgement import CONFLICT, DUPLICATE
from chitin.retrieval.keys import condition_key
from chitin.retrieval.responses import share_words
from chitin.retrieval.stance import stance

# A shorter statement whose topic words the longer one holds at least this share of...
CONTAINED = 0.8
# ... and whose vector is at least this close to the longer one's, restates it. The
# README's two examples and the starter insights they repeat: 0.697 and 0.746;
# distinct insights of bench/eval/agent-store.yaml whose shorter one's words the
# longer holds: at most 0.58.
RESTATED_MEANING = 0.6
MIN_WORDS = 2  # a statement of one topic word is too short to restate another
# The types judged with one another as with their own (the module docstring says why).
HOW_TO_BE = frozenset({"personality", "principle", "behavioral"})

Cosine = Callable[[Insight, Insight], float | None]  # None: no vectors to compare


def relation(a: Insight, b: Insight, cosine: float | None) -> str:
    """DUPLICATE, CONFLICT or "" (both are shown), for two insights of one type."""
    verdict = judgement.judge(judgement.side_of(a), judgement.side_of(b), cosine)
    if verdict.kind == DUPLICATE and not verdict.exact and _other_answers(a, b):
        return ""
    if verdict.kind:
        return verdict.kind
    return DUPLICATE if restates(a, b, cosine) else ""


def _other_answers(a: Insight, b: Insight) -> bool:
    """Two triggers of the very same situation whose responses share no word: other
    answers to it, whose whole texts embed close for the condition they share ("When
    the production deploy … fails: roll back first" / "…: page the on-call engineer",
    0.8). The door keeps them apart by the responses' own cosine, which retrieval does
    not have; a shared word stands in for it (retrieval/responses.py). Only for one
    condition, said alike: a reworded trigger rewords its situation too, and its
    response may share no word with the other's."""
    if not a.type == b.type == "trigger":
        return False
    same = condition_key(a.condition) == condition_key(b.condition)
    return same and not share_words(a, b)


def _across_types(a: Insight, b: Insight, cosine: float | None) -> str:
    """CONFLICT, DUPLICATE for the very same sentence, or "" (both are shown), for two
    insights of different types. Only a contradiction is judged across HOW_TO_BE: a
    near duplicate across types, judged by words where the store has no vectors yet,
    folded "Announce the deploys step 1 …" (behavioral) into "Split the deploys step
    2 …" (principle), and the stronger of two lessons took the other's place."""
    if a.type in HOW_TO_BE and b.type in HOW_TO_BE:
        verdict = judgement.judge(judgement.side_of(a), judgement.side_of(b), cosine)
        if verdict.kind == CONFLICT:
            return CONFLICT
    return _same_claim(a, b)


def _same_claim(a: Insight, b: Insight) -> str:
    """DUPLICATE for two insights of different types that say the very same sentence."""
    key = judgement.sentence_key(judgement.side_of(a))
    return (
        DUPLICATE if key is not None and key == judgement.sentence_key(judgement.side_of(b)) else ""
    )


def restates(a: Insight, b: Insight, cosine: float | None) -> bool:
    """Whether one is a shorter restatement of the other (see the module docstring).
    Called on pairs the judgement found no opposing stance in."""
    if cosine is None or cosine < RESTATED_MEANING or bool(a.avoid) != bool(b.avoid):
        return False
    if not _contained(_topic(a), _topic(b), MIN_WORDS):
        return False
    # Two triggers of one situation share their topic words whatever each answers it
    # with ("When a deploy fails: roll back first" / "…: page the on-call engineer"):
    # the response restates the other's too, or they are two lessons.
    return a.type != "trigger" or b.type != "trigger" or _contained(_response(a), _response(b))


def _contained(first: frozenset[str], second: frozenset[str], least: int = 1) -> bool:
    """Whether the shorter of two word sets, of ``least`` words or more, is held by the
    longer at CONTAINED."""
    shorter, longer = sorted((first, second), key=len)
    return len(shorter) >= least and len(shorter & longer) >= CONTAINED * len(shorter)


def _topic(insight: Insight) -> frozenset[str]:
    return stance(judgement.judged_text(judgement.side_of(insight))).topic


def _response(trigger: Insight) -> frozenset[str]:
    """The words of a trigger's response, its poles included ("roll back first" has
    no topic word beside the poles "roll back" and "first")."""
    said = stance(trigger.claim)
    return said.topic | said.poles


def stronger(ranked: Ranked) -> float:
    """How much an insight matters whatever the query: its score without relevance
    and without the type boost of the query's situation."""
    f = ranked.factors
    return f.confidence * f.reinforcement * f.decay


class _Line:
    """A line of the result while it is chosen: the insight shown, and the others it
    stands for."""

    def __init__(self, ranked: Ranked) -> None:
        self.ranked = ranked
        self.covers: list[str] = list(ranked.also_covers)
        self.outweighs: list[str] = list(ranked.outweighs)

    def take(self, other: Ranked, kind: str) -> None:
        """Fold ``other`` into this line; the stronger of the two is shown, in this place.

        Each side keeps its own: what says the same as the shown insight is covered,
        what contradicts it is outweighed. When ``other`` takes the place of an
        insight it contradicts, that insight and its restatements now contradict the
        one shown, and what the insight outweighed agrees with it."""
        agrees = kind == DUPLICATE
        same, opposed = list(other.also_covers), list(other.outweighs)  # as ``other`` sees
        if stronger(other) > stronger(self.ranked):
            left_out = self.ranked.insight.id
            if not agrees:  # the old side now opposes the one shown, and its opposite agrees
                self.covers, self.outweighs = self.outweighs, self.covers
            self.ranked = placed(other, self.ranked)
        else:
            left_out = other.insight.id
            if not agrees:  # ``other``'s side opposes the one shown
                same, opposed = opposed, same
        (self.covers if agrees else self.outweighs).append(left_out)
        self.covers.extend(same)
        self.outweighs.extend(opposed)

    def result(self) -> Ranked:
        return self.ranked._replace(also_covers=tuple(self.covers), outweighs=tuple(self.outweighs))


def placed(incoming: Ranked, place: Ranked) -> Ranked:
    """``incoming`` in the place of ``place``: with its own strength, and the relevance
    of the place, since it is shown for the reason the other was found."""
    f, p = incoming.factors, place.factors
    strength = f.confidence * f.reinforcement * f.type_boost * f.decay
    if not place.matched:
        factors = f._replace(score=strength, relevance=0.0, match=0.0)
    else:
        factors = f._replace(score=strength * p.relevance, relevance=p.relevance, match=p.match)
    return incoming._replace(factors=factors, matched=place.matched)


def select(ranked: Sequence[Ranked], limit: int, cosine: Cosine) -> list[Ranked]:
    """The first ``limit`` lines of ``ranked`` (best first), each insight that says the
    same as a line before it, or contradicts it, folded into that line."""
    lines: list[_Line] = []
    for candidate in ranked:
        for line in lines:
            a, b = line.ranked.insight, candidate.insight
            if a.type == b.type:
                kind = relation(a, b, cosine(a, b))
            else:
                kind = _across_types(a, b, cosine(a, b))
            if kind in (DUPLICATE, CONFLICT):
                line.take(candidate, kind)
                break
        else:
            if len(lines) < limit:  # past it, only folded into a line already chosen
                lines.append(_Line(candidate))
    return [line.result() for line in lines]
