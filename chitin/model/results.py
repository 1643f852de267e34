"""The values a retrieval and a contribute check answer with: what render prints and
what retrieval's rules and search's engine make. Here, in the model, so that render can
name them without importing the rules or the search that produce them."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

from chitin.model.insight import Insight

if TYPE_CHECKING:  # a retrieval's packing is made for retrieve; get and stats never load it
    from chitin.model.packing import Packed


class Candidate(NamedTuple):
    id: str
    type: str
    claim: str


class Match(NamedTuple):
    """A stored insight close to a new claim: a duplicate or a conflict."""

    id: str
    type: str
    claim: str
    similarity: float
    tension_score: float
    tension_reason: str
    conflict_score: float
    basis: str = ""  # judged by "meaning" (with vectors) or "words" (judgement.py)


class Factors(NamedTuple):
    """One insight's score and the factors it is the product of, with what two of them
    are made from: ``match`` for relevance, ``age_days`` and ``half_life`` for decay."""

    score: float
    relevance: float
    confidence: float
    reinforcement: float
    type_boost: float
    decay: float
    match: float = 1.0
    age_days: float = 0.0
    half_life: float | None = None


class Ranked(NamedTuple):
    """An insight in the result. A match's score is its factors' product; an insight
    that fills the result without matching the query scores 0 (its factors still say
    how strong it is, which decides its place among the fillers). ``also_covers``: the
    ids of the insights that say the same and are not shown; ``outweighs``: those
    that contradict it and are weaker (``selection``)."""

    insight: Insight
    factors: Factors
    matched: bool
    also_covers: tuple[str, ...] = ()
    outweighs: tuple[str, ...] = ()

    @property
    def score(self) -> float:
        return self.factors.score if self.matched else 0.0


class Retrieval(NamedTuple):
    category: str
    ranked: list[Ranked]
    degraded: str | None  # why retrieval fell back to something weaker, if it did
    unembedded: int = 0  # insights left without a current vector
    recorded: bool = True  # False: the retrieval times could not be noted in .chitin/
    # id → the shortest prefix that names it (SHORT_ID characters at least): what the
    # agent reads beside each insight, and types to reinforce or correct it.
    short_ids: Mapping[str, str] = MappingProxyType({})
    packed: Packed | None = None  # what fits the query's budget (set by Chitin.retrieve)
