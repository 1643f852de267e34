"""Opposing stances the poles and the stance's reach do not read (pure): a negation deep
in one frame, a particle turned round, and an order turned by "first … then".

- *A negation in one frame*: "Water from a clear mountain stream is safe to drink" /
  "… is not safe to drink": the same sentence, a negator the other lacks, and nothing
  else said. ``stance`` reads a negation within the first words of the main clause
  only (a "not" further on often belongs to a clause of its own, "for anything that is
  not urgent"); in one frame whose slots say the same but for the negators, the
  negation is the whole difference.
- *A particle turned round in one frame*: "Cook risotto with the lid on" / "… off";
  "Turn the thermostat down at night …" / "… up at night …". Particles are function
  words, so no pole of the lexicon reads them; where a slot of one frame begins (or
  ends) with one and the other's with its opposite, that is the side taken.
- *An order turned*: "Present the grammar rule first, then the examples." / "Present
  the examples first and let the grammar rule come after."; "Lead with the story, then
  give the numbers" / "Lead with the numbers, then give the story". ``stance.order``
  reads "before", "after" and "than"; these say the order with "first", "then",
  "afterwards", and are compared with each other or with such an order ("Write the
  test before the fix" / "Write the fix first, then the test").

General English, not words read off the labelled pairs. docs/design.md §9e,
fourteenth round.
"""

from __future__ import annotations

import functools
import re

from chitin.retrieval.comparison import Preference, turned
from chitin.retrieval.stance import NEGATORS, order, stance
from chitin.retrieval.template import (
    FRAME_WORDS,
    SLOT_WORDS,
    Claimed,
    _content,
    _covered,
    _framing,
    _key,
    _words,
    slots,
)

PARTICLES = {
    "on": "off",
    "up": "down",
    "forward": "back",
    "forwards": "backwards",
    "inside": "outside",
    "indoors": "outdoors",
}
PARTICLES.update({second: first for first, second in list(PARTICLES.items())})
# One of each pair of particles: a claim that says one may be turned by another that
# says "on", "up", …; `check` pairs it with its candidates (``may_turn``).
_TURNING = frozenset(("off", "down", "back", "backwards", "outside", "outdoors"))
# A claim without any of these words is turned by no reading here.
_HINT = re.compile(
    r"n['\u2019]t|\b(?:{})\b".format("|".join(sorted({*NEGATORS, *_TURNING, "then", "first"})))
)
# "then" after a condition ("if …, then …") is no order of two steps
_CONDITIONS = frozenset(("if", "when", "unless", "whenever", "once"))
_LATER = frozenset(("after", "afterwards", "afterward", "later"))


def framed_opposition(first: Claimed, second: Claimed) -> str:
    """Why two claims take opposing stances by one of the readings above ("" if none)."""
    if first.type == "trigger" or second.type == "trigger":
        return ""
    if not (_may_turn(first.claim) or _may_turn(second.claim)):
        return ""  # most pairs stop here: what `check` pairs (``may_turn``) is all it reads
    (mine, steps), (theirs, others) = _read(first.claim), _read(second.claim)
    if steps is not None or others is not None:
        # steps against steps, or against an order by "before" / "after" (stance.order)
        crossed = turned(steps or order(first.claim), others or order(second.claim))
        if crossed:
            return '"{0} before {1}" ↔ "{1} before {0}"'.format(*crossed)
    if not (mine and theirs) or (mine[0] != theirs[0] and mine[-1] != theirs[-1]):
        return ""  # no shared first or last word, no frame: most pairs stop here
    slot, other, frame = slots(mine, theirs)
    if max(len(slot), len(other)) > SLOT_WORDS or _framing(frame) < FRAME_WORDS:
        return ""
    if _negation(slot, other, mine, theirs):
        return "negated ↔ affirmed"
    for one, two in ((slot[:1], other[:1]), (slot[-1:], other[-1:])):
        if one and two and PARTICLES.get(one[0]) == two[0]:
            return f'"{one[0]}" ↔ "{two[0]}"'
    return ""


def _negation(
    slot: tuple[str, ...], other: tuple[str, ...], mine: tuple[str, ...], theirs: tuple[str, ...]
) -> bool:
    """One slot negates and the other does not, and their other words say the same."""
    if sum(w in NEGATORS for w in slot) % 2 == sum(w in NEGATORS for w in other) % 2:
        return False
    said, told = _content(slot) - NEGATORS, _content(other) - NEGATORS
    return _covered(said, theirs) and _covered(told, mine)


@functools.lru_cache(maxsize=4096)  # by text; small: check reads it of few claims
def _read(text: str) -> tuple[tuple[str, ...], Preference]:
    words = _words(text)
    return words, _steps(words)


def _steps(words: tuple[str, ...]) -> Preference:
    """What a claim does first and what next, by "then" ("A first, then B", "A, then
    B") or by "first" and a later word ("A first and B afterwards"): the content roots
    on each side of the split. None where it says no such order."""
    if "then" in words:
        split = words.index("then")
        if _CONDITIONS.intersection(words[:split]):
            return None
    elif "first" in words and _LATER.intersection(words[words.index("first") :]):
        start = words.index("first")
        later = [i for i, w in enumerate(words) if i > start and w == "and"]
        if not later:
            return None
        split = later[0]
    else:
        return None
    earlier, after = _roots(words[:split]), _roots(words[split + 1 :])
    return (earlier, after) if earlier and after else None


def _roots(words: tuple[str, ...]) -> frozenset[str]:
    skipped = {"first", "then", *_LATER}
    return frozenset(k for w in words if w not in skipped for k in [_key(w)] if k is not None)


def may_turn(side: Claimed) -> bool:
    """Whether a claim may be turned round by a reading above: a negator ``stance``
    does not read, one of each pair of particles, or steps in an order. `check` and
    `dedupe` pair such a claim with its candidates (``leaning.may_oppose``)."""
    return side.type != "trigger" and _may_turn(side.claim)


@functools.lru_cache(maxsize=1 << 18)  # check reads every claim of a store
def _may_turn(text: str) -> bool:
    if _HINT.search(text.lower()) is None:
        return False  # most claims: one regex, no words read
    words = _words(text)
    negators = sum(w in NEGATORS for w in words)
    if negators > (1 if stance(text).negated else 0):
        return True
    # read here without ``_read``'s cache: check asks this of every claim of a store
    return bool(_TURNING.intersection(words)) or _steps(words) is not None
