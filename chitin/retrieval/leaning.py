"""What one side of a conflict leans to, read without ``judge``: `check` and `dedupe`
rule out most pairs of a store with it before judging any (retrieval/clusters.py,
retrieval/bulk.py)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from itertools import islice
from typing import NamedTuple

from chitin.retrieval.framed import may_turn
from chitin.retrieval.judgement import Side, judged_text, negated
from chitin.retrieval.rejection import turns_down
from chitin.retrieval.stance import opposite_poles, stance


def takes_a_side(side: Side) -> bool:
    """Whether the insight could oppose another: a conflict always has one such side
    (negated or "avoid", a pole of the lexicon, "X over Y", "X, not Y", or what
    ``framed`` reads: a negator past the stance's reach, a particle, steps in order)."""
    read = stance(judged_text(side))
    return (
        negated(side, read)
        or bool(read.poles)
        or read.preference is not None
        or turns_down(side)
        or may_turn(side)
    )


class Leaning(NamedTuple):
    """What ``_opposition`` reads of one side, to rule out a conflict without ``judge``."""

    negated: bool
    against: frozenset[str]  # the poles opposite to those it takes
    poles: frozenset[str]
    compares: bool  # an "X over Y"
    rejects: bool  # a contrast ("X, not Y"): it may turn down what another takes
    turns: bool  # framed.may_turn: a negation, particle or order framed.py reads


def leaning(side: Side) -> Leaning:
    read = stance(judged_text(side))
    against = frozenset().union(*(opposite_poles(pole) for pole in read.poles))
    compares = read.preference is not None
    turns = may_turn(side)
    return Leaning(negated(side, read), against, read.poles, compares, turns_down(side), turns)


def may_oppose(first: Leaning, second: Leaning) -> bool:
    """False where ``judge`` cannot find the two opposed: same negation, no pole of one
    opposite to the other's, not both comparing, neither turning anything down, neither
    one that ``framed`` may read turned."""
    return (
        first.negated != second.negated
        or bool(first.against & second.poles)
        or (first.compares and second.compares)
        or first.rejects
        or second.rejects
        or first.turns
        or second.turns
    )


class PoleIndex:
    """Who holds each pole of the antonym lexicon, for claims whose topic is nothing
    but their stance ("be brief" against "be thorough"): up to ``cap`` of each
    opposite pole (clusters.py)."""

    def __init__(self, poles: Sequence[frozenset[str]], cap: int) -> None:
        self.poles, self.cap = poles, cap
        self.holding: dict[str, list[int]] = defaultdict(list)
        for position, held in enumerate(poles):
            for pole in held:
                self.holding[pole].append(position)

    def opposed(self, i: int) -> Iterator[int]:
        for pole in self.poles[i]:
            for other in opposite_poles(pole):
                yield from islice(self.holding.get(other, ()), self.cap)
