"""Are two insights one lesson, two opposing ones, or neither? (pure rules)

``judge(a, b, cosine)`` is the one judgement behind ``contribute``'s report, ``check``,
``dedupe`` and retrieval's collapsing of duplicates. ``cosine`` is the similarity of
the two insights' ``judged_text`` under the local model (all-MiniLM-L6-v2), or None
where no vectors can be had: the judgement then reads words alone, and says so in
``basis``.

- **Exact duplicate**: the same type and the same claim, case, spacing and punctuation
  aside; for triggers, the same condition, response and do/avoid.
- **Conflict**: the same topic, and opposing stances: one negated and the other not
  (for triggers, "avoid" counts as a negation), opposite poles of the antonym lexicon
  (``lexicon.ANTONYMS``), a preference turned around ("X over Y" against "Y over X"),
  or a word one side turns down, or opposites in one frame's slots (rejection.py).
  The same topic is the same content words (Jaccard ≥ TOPIC_OVERLAP, the opposing
  words aside), or a cosine of at least TOPIC_COSINE; with two opposing pairs or more,
  half that overlap or a cosine of WEAK_TOPIC_COSINE.
- **Near duplicate**: no opposing stance, and a cosine of at least DUPLICATE_COSINE
  (or of SUPPORTED_COSINE with TOPIC_OVERLAP of the content words); without vectors,
  WORDS_DUPLICATE of the content words. Where ``alignment`` is given (the door's token
  alignment of the words each side has of its own, retrieval/alignment.py), two
  insights of one type with a cosine in [ALIGN_FLOOR, ALIGN_CEILING) are duplicates
  by it instead: from ALIGN_DUPLICATE, unless a rule below keeps them apart, and not
  under ALIGN_VETO; a word and its synonym (synonyms.txt) align fully there. ``check``
  and ``dedupe`` align such pairs too, within a budget (chitin.search.aligned).
- **Neither, whatever the cosine**: triggers of opposite situations, or of other ones
  for opposite responses; a claim turned round twice (negation and opposite pole);
  claims naming other quantities with other words besides, or other people (``_apart``,
  ``_other_values``); no duplicate where the claims are one frame with one slot
  filled otherwise (retrieval/template.py). With one opposing cue and words of its own
  on each side, the topic is the same only by meaning. No duplicate of two claims with
  no topic word and no pole; past the model's reach, words alone (retrieval/unread.py).

The thresholds were chosen on bench/dedup's labelled sets (figures: docs/design.md §9e).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from chitin.retrieval import people, unread
from chitin.retrieval.comparison import turned
from chitin.retrieval.keys import condition_key, normalized
from chitin.retrieval.lexicon import WISHES
from chitin.retrieval.rejection import other_opposition
from chitin.retrieval.responses import share_words
from chitin.retrieval.stance import (
    Stance,
    opposed_poles,
    opposite_poles,
    order,
    stance,
    words_of,
    words_only,
)
from chitin.retrieval.template import other_filler
from chitin.retrieval.unread import topic_overlap as _overlap

DUPLICATE = "duplicate"
CONFLICT = "conflict"
NONE = ""

MEANING = "meaning"  # judged with the cosine of the two texts
WORDS = "words"  # no vectors: judged by words alone

DUPLICATE_COSINE = 0.70
SUPPORTED_COSINE = 0.65
TOPIC_COSINE = 0.70
WEAK_TOPIC_COSINE = 0.5
TOPIC_OVERLAP = 0.5
WORDS_DUPLICATE = 0.7
# A reworded trigger: its whole text ("When …: …") and its response alone both near.
# A shared situation makes the whole text near whatever the response says, so the
# response's own cosine decides (bench/dedup: compatible triggers of one situation
# have responses at 0.18–0.39, reworded ones at 0.33–0.89).
TRIGGER_COSINE = 0.58
TRIGGER_RESPONSE = 0.40
RESPONSE_FLOOR = 0.30
# Two claims about one person embed close whatever they say of the person (the name
# weighs in the vector and in the shared words): a higher bar, by meaning alone.
RELATIONAL_COSINE = 0.82
STANCE_ONLY = 2  # topic words at most, beside its pole, of a claim that is a stance
STANCE_COSINE = 0.4
# Do against avoid is a conflict about one situation: the conditions share this much of
# their topic words (bench/dedup: the conflicts' conditions 0.33–1.0, the look-alikes'
# with other situations 0.25 and below).
CONDITION_OVERLAP = 0.3
# The words each side has of its own, aligned token by token (retrieval/alignment.py),
# where the door has the token vectors: from ALIGN_FLOOR up to ALIGN_CEILING of the
# cosine, a pair only the cosine bar kept apart is a duplicate from ALIGN_DUPLICATE,
# and a duplicate by the cosine is none under ALIGN_VETO ("Never commit secrets" /
# "generated files to the repository": 0.80, its own words 0.15). Above the ceiling
# the cosine decides alone. bench/dedup/align.py; docs/design.md §9e, sixth round.
# Synonyms of the table (retrieval/synonyms.py) align fully, so a pair whose own words
# are synonyms ("admit mistakes" / "own up to an error", 0.49) reaches the bar from a
# lower cosine: ALIGN_FLOOR 0.50 → 0.45 (bench/dedup/synonyms.py; §9e, eighth round).
ALIGN_DUPLICATE = 0.45
ALIGN_VETO = 0.30
ALIGN_FLOOR = 0.45
ALIGN_CEILING = 0.92
# Two claims about one person this near, their own words apart (under ALIGN_VETO), one
# of them a wish: one wish filled with two values, a conflict (``_other_slot``). The
# bar sits where the seven tuning sets' look-alikes about one person stop (0.83) and
# opposite wishes start (0.84–0.92): bench/dedup; docs/design.md §9e, eleventh round.
SLOT_COSINE: float | None = 0.84
# The lowest cosine at which a rule may find anything in two insights that share no
# topic word (judge's first exit): a conflict's STANCE_COSINE, a duplicate's bars above.
_BARS = (STANCE_COSINE, WEAK_TOPIC_COSINE, TOPIC_COSINE, DUPLICATE_COSINE, SUPPORTED_COSINE)
LOWEST_COSINE = min(*_BARS, TRIGGER_COSINE, RELATIONAL_COSINE, ALIGN_FLOOR)


class Side(NamedTuple):
    """What the judgement reads of an insight."""

    type: str
    claim: str
    condition: str | None = None
    avoid: bool = False


class Verdict(NamedTuple):
    kind: str  # DUPLICATE, CONFLICT or NONE
    similarity: float  # the cosine (basis MEANING) or the content words' Jaccard
    reason: str  # why: "same claim", "same meaning", "not X ↔ X", '"brief" ↔ "thorough"'
    exact: bool = False
    basis: str = MEANING


def side_of(insight: Any) -> Side:
    """The Side of anything with type, claim, condition and avoid (an Insight)."""
    return Side(insight.type, insight.claim, insight.condition, bool(insight.avoid))


def judged_text(side: Side) -> str:
    """The text whose embedding ``cosine`` compares: the claim, and a trigger's
    condition (a response means little without the situation it answers)."""
    return f"When {side.condition}: {side.claim}" if side.condition else side.claim


def exact_key(side: Side) -> tuple[str, ...]:
    """Two insights with the same key are the same insight (``contribute`` refuses it)."""
    if side.type == "trigger":
        return (side.type, condition_key(side.condition), normalized(side.claim), str(side.avoid))
    return (side.type, normalized(side.claim))


def sentence_key(side: Side) -> tuple[str, ...] | None:
    """What two insights of any types share when they say the very same sentence: one
    lesson kept twice (a personality and a skill), which retrieval shows once and
    check and dedupe cluster. None for a trigger: its claim is half of what it says."""
    if side.type == "trigger" or side.condition:
        return None
    return ("", normalized(side.claim))


def judge(
    a: Side,
    b: Side,
    cosine: float | None,
    response: float | None = None,
    alignment: float | None = None,
) -> Verdict:
    """The verdict on two insights (symmetric). ``response``: for two triggers, the
    cosine of their responses (claims) alone, where it could be had. ``alignment``:
    the alignment of the words each has of its own (``alignment.own_alignment``),
    where the token vectors could be had (the door asks for them only where the
    verdict depends on it: ``depends_on_alignment``)."""
    basis = WORDS if cosine is None else MEANING
    if exact_key(a) == exact_key(b):
        return Verdict(DUPLICATE, 1.0, "same claim", True, basis)
    if sentence_key(a) is not None and sentence_key(a) == sentence_key(b):
        return Verdict(DUPLICATE, 1.0, "same claim", False, basis)  # another type: written
    mine, theirs = _stance(a), _stance(b)
    overlap = _overlap(mine.topic, theirs.topic)
    # Rounded: the last digits of a cosine differ between CPUs (and say nothing).
    similarity = overlap if cosine is None else round(cosine, 4)
    if overlap == 0.0 and (cosine is None or cosine < LOWEST_COSINE):
        # No topic word in common and far in meaning: no rule below finds anything.
        # Said first: retrieval's selection and `check` judge many such pairs.
        return Verdict(NONE, similarity, "", False, basis)
    if _apart(a, b, mine, theirs):
        return Verdict(NONE, similarity, "", False, basis)
    reason, cues = _opposition(a, b, mine, theirs)
    if not reason and (overlap >= TOPIC_OVERLAP or (cosine or 0.0) >= TOPIC_COSINE):
        reason, cues = other_opposition(a, b), 1  # only where one cue makes a conflict
    if reason:
        same = _stance_only(mine, theirs, cosine) or _same_topic(mine, theirs, cosine, cues)
        kind = CONFLICT if same else NONE
        return Verdict(kind, similarity, reason, False, basis)
    if _other_values(mine, theirs):
        return Verdict(NONE, similarity, "", False, basis)
    if _other_slot(a, b, cosine, alignment):
        return Verdict(CONFLICT, similarity, "one wish, another value", False, basis)
    # one frame with another filler is not one lesson (asked last: it is rarely needed)
    if _duplicate(a, b, overlap, cosine, response, alignment) and not other_filler(a, b):
        return Verdict(
            DUPLICATE, similarity, "same meaning" if cosine else "same words", False, basis
        )
    return Verdict(NONE, similarity, "", False, basis)


def depends_on_alignment(
    a: Side, b: Side, cosine: float | None, response: float | None = None
) -> bool:
    """Whether ``alignment`` could change the verdict on the pair."""
    if cosine is None or not _aligned(a, b, cosine):
        return False
    return judge(a, b, cosine, response, 0.0).kind != judge(a, b, cosine, response, 1.0).kind


def _stance_only(mine: Stance, theirs: Stance, cosine: float | None) -> bool:
    """Whether one of two claims with opposing poles, neither negated, is its stance
    and little else ("Be verbose and explain every step": two topic words beside
    "verbose"), and the two are near in meaning (STANCE_COSINE): its pole is then what
    it is about, and the other's opposite pole speaks of the same thing. The issue-24
    pair "Be verbose and explain every step" and the starter "Speak plainly and
    briefly, …" are 0.54 apart, under any bar that keeps look-alikes apart; "Be concise
    in chat" / "Be thorough in design documents", two things, 0.21."""
    if cosine is None or cosine < STANCE_COSINE or mine.negated or theirs.negated:
        return False
    shorter = min(len(_said(mine, theirs)), len(_said(theirs, mine)))
    return shorter <= STANCE_ONLY and bool(opposed_poles(mine.poles, theirs.poles))


def _said(mine: Stance, theirs: Stance) -> frozenset[str]:
    """What a claim is about beside its stance: its topic, the poles the other claim
    takes too ("… every morning in summer" / "… every evening in summer"), and the
    poles it names with an opposite ("small, frequent releases … than big, rare
    ones"), which take no side."""
    both = frozenset(p for p in mine.poles if opposite_poles(p) & mine.poles)
    return mine.topic | (mine.poles & theirs.poles) | both


def _same_topic(mine: Stance, theirs: Stance, cosine: float | None, cues: int) -> bool:
    """Opposing claims are a conflict only about the same thing. Several opposing
    pairs ("concise, brief" against "detailed, verbose") are evidence enough of a
    shared topic for a lower bar. With one, where each claim has words of its own
    ("Never push directly to the main branch" / "Push directly to your own feature
    branch"), the shared words may be a template with another slot filled: meaning
    decides, where there is a cosine."""
    overlap = _overlap(mine.topic, theirs.topic)
    if cues == 1 and cosine is not None and _own_words(mine, theirs):
        return cosine >= TOPIC_COSINE
    if cues >= 2:
        return overlap >= TOPIC_OVERLAP / 2 or (cosine is not None and cosine >= WEAK_TOPIC_COSINE)
    return overlap >= TOPIC_OVERLAP or (cosine is not None and cosine >= TOPIC_COSINE)


def _own_words(mine: Stance, theirs: Stance) -> bool:
    return bool(mine.topic - theirs.topic and theirs.topic - mine.topic)


def _other_values(mine: Stance, theirs: Stance) -> bool:
    """Both name quantities, none the same, and each has words of its own besides: other
    values of two slots ("I run five kilometres on Mondays" / "fifteen kilometres on
    Saturdays", 0.84), not one lesson; a sentence embedding reads the shared words and
    hardly the numbers. Claims that differ by the number alone ("Deploy service 1 …" /
    "Deploy service 2 …") are a template filled in, a bulk import's near duplicates."""
    if not (mine.numbers and theirs.numbers) or mine.numbers & theirs.numbers:
        return False
    return bool(words_only(mine.topic - theirs.topic) and words_only(theirs.topic - mine.topic))


def _duplicate(
    a: Side,
    b: Side,
    overlap: float,
    cosine: float | None,
    response: float | None,
    alignment: float | None,
) -> bool:
    if unread.nothing_read(_stance(a), _stance(b)):
        return False  # no word read on either side: not the whole overlap of two stances
    if cosine is None or unread.past_the_model(judged_text(a), judged_text(b)):
        return overlap >= WORDS_DUPLICATE  # the cosine read long texts' openings alone
    near = _near(a, b, overlap, cosine, response)
    if alignment is None or not _aligned(a, b, cosine):
        return near
    if near:
        return alignment >= ALIGN_VETO
    # Only the cosine bar kept them apart; triggers of like responses: the veto's bar.
    alike = a.type == b.type == "trigger" and (response is not None or share_words(a, b))
    bar = ALIGN_VETO if alike else ALIGN_DUPLICATE
    return alignment >= bar and _near(a, b, overlap, 1.0, response)


def _other_slot(a: Side, b: Side, cosine: float | None, alignment: float | None) -> bool:
    """Two claims about one person that embed as near as a reworded one
    (SLOT_COSINE) while the words each has of its own do not align (under ALIGN_VETO):
    one wish of that person filled with two values ("Sam prefers window seats on
    flights." / "aisle seats", 0.90, its own words 0.19), which issue 25 counts as a
    conflict. The veto alone would call them neither."""
    if SLOT_COSINE is None or cosine is None or alignment is None:
        return False
    if not (a.type == b.type == "relational" and _aligned(a, b, cosine)):
        return False
    if cosine < SLOT_COSINE or alignment >= ALIGN_VETO:
        return False
    return bool(WISHES.intersection(words_of(a.claim)) or WISHES.intersection(words_of(b.claim)))


def _aligned(a: Side, b: Side, cosine: float) -> bool:
    """Whether the alignment counts: a cosine in its band, between insights of one type
    (the whole texts of a trigger and of another type are of other shapes, and no
    labelled pair measured the alignment across types)."""
    return a.type == b.type and ALIGN_FLOOR <= cosine < ALIGN_CEILING


def _near(a: Side, b: Side, overlap: float, cosine: float, response: float | None) -> bool:
    """Near duplicates by the cosine (and a trigger's response) alone."""
    if a.type == b.type == "trigger" and response is not None:
        return (cosine >= TRIGGER_COSINE and response >= TRIGGER_RESPONSE) or (
            cosine >= DUPLICATE_COSINE and response >= RESPONSE_FLOOR
        )
    if a.type == b.type == "relational":
        return cosine >= RELATIONAL_COSINE
    return cosine >= DUPLICATE_COSINE or (cosine >= SUPPORTED_COSINE and overlap >= TOPIC_OVERLAP)


def _stance(side: Side) -> Stance:
    return stance(judged_text(side))


def _apart(a: Side, b: Side, mine: Stance, theirs: Stance) -> bool:
    """Two insights that neither repeat nor oppose each other, whatever their cosine:
    triggers of opposite situations ("the oven is still hot" / "has cooled down"), or
    of different ones for opposite responses (do against avoid needs CONDITION_OVERLAP
    of the conditions' words: "the patient is awake and can swallow" / "is
    unconscious"); or a claim turned round twice, by a negation and by an opposite
    pole ("Don't merge before CI has passed" / "Merge after CI has passed"), which
    says the same in other words, or of another slot (a look-alike); or other people's."""
    if "relational" in (a.type, b.type) and people.apart(judged_text(a), judged_text(b)):
        return True
    if a.type == b.type == "trigger" and a.condition and b.condition:
        first, second = stance(a.condition), stance(b.condition)
        if first.negated != second.negated or opposed_poles(first.poles, second.poles):
            return True
        return a.avoid != b.avoid and _overlap(first.topic, second.topic) < CONDITION_OVERLAP
    double = negated(a, mine) != negated(b, theirs) and opposed_poles(mine.poles, theirs.poles)
    return bool(double)


def _opposition(a: Side, b: Side, mine: Stance, theirs: Stance) -> tuple[str, int]:
    """Why the two take opposing stances ("" if they do not), and how many cues say so."""
    if negated(a, mine) != negated(b, theirs):
        if a.type == "trigger" and b.type == "trigger" and a.avoid != b.avoid:
            return "do ↔ avoid", 1
        return "negated ↔ affirmed", 1
    triggers = a.type == b.type == "trigger"
    if triggers:  # the advice is the response; situations: _apart
        mine, theirs = stance(a.claim), stance(b.claim)
    poles = opposed_poles(mine.poles, theirs.poles)
    if poles:
        return ", ".join(f'"{x}" ↔ "{y}"' for x, y in poles), len(poles)
    crossed = turned(mine.preference, theirs.preference)
    if crossed:
        first, second = crossed
        return f'"{first} over {second}" ↔ "{second} over {first}"', 1
    # Read only here, where nothing above opposed them, where both may order two
    # things, and not between claims naming other quantities (a template filled in:
    # "Deploy service 17 only after …", which `check` judges by the pair).
    texts = (a.claim, b.claim) if triggers else (judged_text(a), judged_text(b))
    if mine.numbers != theirs.numbers or not (
        _orders(mine, texts[0]) and _orders(theirs, texts[1])
    ):
        return "", 0
    crossed = turned(order(texts[0]), order(texts[1]))
    if crossed:
        first, second = crossed
        return f'"{first} before {second}" ↔ "{second} before {first}"', 1
    return "", 0


def _orders(read: Stance, text: str) -> bool:
    """Whether a claim may order two things: it takes "before" or "after" (poles of the
    lexicon) or says "than". Most claims do not, and need no order read."""
    return "before" in read.poles or "after" in read.poles or "than" in text


def negated(side: Side, read: Stance) -> bool:
    """A trigger's "avoid" negates its response; a negated condition ("the tests do
    not pass") does not change what the trigger says to do, so only the claim counts."""
    if side.type != "trigger":
        return read.negated
    return stance(side.claim).negated != side.avoid
