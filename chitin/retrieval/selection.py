"""What reaches the agent of a ranking (pure): one line per lesson, one side of a
contradiction, and no filler that does not hold whatever the task.

The ranking orders every candidate by its score. An agent reading the result needs
less than that order: two insights that say the same thing are one lesson, and should
cost one line of its context; two that contradict each other should not both be
followed, so only the stronger is shown. The collapsed ones are not lost: each line
names what it also covers and what it outweighs (``--explain``, JSON), so a person
can merge or archive them.

Both judgements are deliberately strict, since a wrong collapse hides an insight:

- **The same lesson** (``same_lesson``): the same type (and, for triggers, the same
  action, do or avoid), the same stance (neither negates what the other says, no
  opposing terms), and either the same words once normalised, or the shorter one's
  content words (stems) all but contained in the longer one's and close in meaning
  (cosine of their vectors), or very close in meaning alone. Figures in
  docs/design.md §6c.
- **A contradiction** (``contradicts``): the conflict judgement of ``contribute``
  and ``check`` (``conflicts.judge``) with a real opposition (opposing terms, or a term
  and its negation), not mere overlap; or two triggers for the same situation of
  which one does what the other avoids.

"Stronger" is the query-independent part of the score: confidence, reinforcement and
decay. The stronger of a pair takes the better of the two places in the ranking.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from chitin.index.fulltext import STOPWORDS
from chitin.model.insight import Insight
from chitin.model.terms import MIN_TOKEN_LENGTH, stem, tokens, words
from chitin.retrieval import conflicts

if TYPE_CHECKING:
    from chitin.retrieval.retrieve import Ranked

# A shorter statement whose content words are at least this share of a longer one's,
# of the same type and stance, says the same thing if their meaning agrees too.
CONTAINED = 0.8
# ... with at least this cosine between their vectors (the README's trigger example
# and the starter insight it repeats: 0.746; unrelated pairs that share most words
# of the shorter one, on bench/eval/agent-store.yaml: at most 0.58).
CONTAINED_MEANING = 0.6
# Close enough in meaning alone: paraphrases in other words. Distinct insights of
# bench/eval/agent-store.yaml come within 0.835 of each other (a conflict pair at
# 0.793, a superseded preference at 0.771).
SAME_MEANING = 0.9
MIN_WORDS = 2  # a statement of one content word is too short to contain another
# Opposing terms make a contradiction only between insights on one subject: "Be verbose
# and explain every step" against the starter "Speak plainly and briefly, ..." (0.544),
# "Be formal with customers" against "Be casual with customers" (0.733); the opposing
# terms of unrelated insights of bench/eval/agent-store.yaml ("fails fast" against "a
# slow query", "asks" against "active") come within 0.21-0.36 of each other.
OPPOSED_MEANING = 0.45
# One statement negating the other ("always rebase" against "never rebase") holds this
# share of the other's content words.
NEGATED = 0.6

Cosine = Callable[[Insight, Insight], float | None]  # None: no vectors to compare


class Statement(NamedTuple):
    """What the two judgements read of an insight, worked out once: its words once
    normalised, its content words' stems, those of them it negates ("never edit
    production"), and the conflict judgement's features of its claim."""

    normalized: str
    stems: frozenset[str]
    negated: frozenset[str]
    features: conflicts.Features


NEGATION_REACH = 3  # a negator governs this many following words (as in conflicts)


def statement(insight: Insight) -> Statement:
    text = insight.claim if not insight.condition else f"{insight.condition} {insight.claim}"
    sequence = words(text.replace("n't", " not").replace("n’t", " not"))
    stems: set[str] = set()
    negated: set[str] = set()
    for index, word in enumerate(sequence):
        if len(word) < MIN_TOKEN_LENGTH or word in STOPWORDS or word in _NEGATORS:
            continue
        stems.add(stem(word))
        if not _NEGATORS.isdisjoint(sequence[max(0, index - NEGATION_REACH) : index]):
            negated.add(stem(word))
    return Statement(
        " ".join(text.lower().split()),
        frozenset(stems),
        frozenset(negated),
        conflicts.features(insight.claim),
    )


_NEGATORS = frozenset({"not", "never", "without", "avoid", "stop", "cannot", "nor", "neither"})


def _stances_differ(first: Statement, second: Statement) -> bool:
    """Whether one negates a word the other says plainly."""
    plain_first, plain_second = first.stems - first.negated, second.stems - second.negated
    return not (first.negated.isdisjoint(plain_second) and second.negated.isdisjoint(plain_first))


def same_lesson(
    a: Insight, b: Insight, first: Statement, second: Statement, cosine: float | None
) -> bool:
    """Whether ``a`` and ``b`` say the same thing (see the module docstring)."""
    if a.type != b.type or bool(a.avoid) != bool(b.avoid):
        return False
    if first.normalized == second.normalized:
        return True
    if _stances_differ(first, second) or _opposed_terms(first, second):
        return False
    if cosine is None:
        return False
    return cosine >= SAME_MEANING or (
        cosine >= CONTAINED_MEANING and _contained(first.stems, second.stems)
    )


def contradicts(
    a: Insight, b: Insight, first: Statement, second: Statement, cosine: float | None
) -> bool:
    """Whether ``a`` and ``b`` pull in opposite directions (see the module docstring):
    two insights of one type on one subject (``cosine``) that take opposing terms
    ("verbose" against "brief"), or one of which negates what the other says in mostly
    the same words; or two triggers for the same situation, one doing what the other
    avoids."""
    if a.type != b.type:
        return False
    if a.condition and b.condition and bool(a.avoid) != bool(b.avoid):
        return _contained(_stems(a.condition), _stems(b.condition)) and _contained(
            first.stems, second.stems
        )
    if cosine is not None and cosine >= OPPOSED_MEANING and _opposed_terms(first, second):
        return True
    return _stances_differ(first, second) and _contained(first.stems, second.stems, NEGATED)


def _stems(text: str) -> set[str]:
    return {stem(w) for w in tokens(text) if w not in STOPWORDS}


def _opposed_terms(first: Statement, second: Statement) -> bool:
    """Whether the conflict judgement of ``contribute`` finds a pair of opposing terms
    between the two claims (not mere overlap, nor one negated word: "stop explaining"
    does not contradict "explain the delay")."""
    candidate = conflicts.Candidate("", "", "")
    _, clashes = conflicts.judge(first.features, [(candidate, second.features)])
    return any(
        '" ↔ "not ' not in reason
        for match in clashes
        if match.tension_reason != conflicts.OVERLAP_REASON
        for reason in match.tension_reason.split(", ")
    )


def _contained(
    first: frozenset[str] | set[str], second: frozenset[str] | set[str], share: float = CONTAINED
) -> bool:
    """Whether the shorter holds at least ``share`` of its content words in the longer."""
    shorter, longer = sorted((first, second), key=len)
    if len(shorter) < MIN_WORDS:
        return False
    return len(shorter & longer) >= share * len(shorter)


def stronger(ranked: Ranked) -> float:
    """How much an insight matters whatever the query: its score without relevance
    and without the type boost of the query's situation."""
    f = ranked.factors
    return f.confidence * f.reinforcement * f.decay


class _Slot:
    """A line of the result while it is chosen: the insight shown, and the others it
    stands for."""

    def __init__(self, ranked: Ranked, said: Statement) -> None:
        self.ranked, self.said = ranked, said
        self.covers: list[str] = list(ranked.also_covers)
        self.outweighs: list[str] = list(ranked.outweighs)

    def take(self, other: Ranked, said: Statement, duplicate: bool) -> None:
        """Fold ``other`` into this line; the stronger of the two is shown, in this place."""
        folded = self.covers if duplicate else self.outweighs
        if stronger(other) > stronger(self.ranked):
            folded.append(self.ranked.insight.id)
            self.ranked, self.said = placed(other, self.ranked), said
        else:
            folded.append(other.insight.id)
        folded.extend(other.also_covers if duplicate else other.outweighs)

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
    slots: list[_Slot] = []
    for candidate in ranked:
        said = statement(candidate.insight)
        for slot in slots:
            a, b = slot.ranked.insight, candidate.insight
            closeness = _cosine_if_same_type(cosine, a, b)
            if same_lesson(a, b, slot.said, said, closeness):
                slot.take(candidate, said, duplicate=True)
                break
            if contradicts(a, b, slot.said, said, closeness):
                slot.take(candidate, said, duplicate=False)
                break
        else:
            if len(slots) >= limit:
                continue  # only folded into a line already chosen, never a line of its own
            slots.append(_Slot(candidate, said))
    return [slot.result() for slot in slots]


def _cosine_if_same_type(cosine: Cosine, a: Insight, b: Insight) -> float | None:
    return cosine(a, b) if a.type == b.type else None
