"""Two claims that are one sentence with one slot filled otherwise (pure).

"Keep the retry interval constant" / "Keep the retry interval variable", "Plant garlic
cloves in autumn" / "… in spring", "Never commit secrets to the repository" / "… build
output …": the same words in the same order around a run of words that differ
(on one side it may be empty: a scope added, "Tell Mia early …" / "Tell Mia's teacher
early …", or a negator; one word added is a modifier, "… now", and leaves it be).
A sentence embedding reads the shared frame and hardly the slot (0.8–0.97 near), and
the slot's words, being of one kind and one role, align well as tokens (opposites
embed close), so the judgement's bars called such pairs duplicates. They are not one
lesson whatever the slot holds: another value of the same thing (an opposite the
lexicon lacks) or another thing (a look-alike). A slot holds a paraphrase only where
each word of it has a counterpart on the other side, the same word in another form
or a synonym of the table ("likes short" / "prefers brief"); a slot of function words
("before fitting a model" / "before you fit any model") or of numbers alone (a
template filled in, "Deploy service 1 …" / "… 2 …": a bulk import's near duplicates)
is no other filler either. docs/design.md §9e, twelfth round.

The slot need not be short (§9e, thirteenth round): two claims that open or close
alike and differ in the middle by words the other side does not cover ("Sow carrot
seed thickly and thin the seedlings later" / "… sparsely so the row never needs
thinning"; "Buy travel insurance the day you book the trip" / "… in the last week
before you leave") say two things about one subject, whatever the embedding makes of
the shared words. A paraphrase rewords the whole sentence or its middle in words the
table covers; one that keeps the frame and rewords the middle in words it lacks is
the price (3 of 382 on the ten tuning sets).

A slot of one name against another where a name ends in "++" or "#" ("Use C for the
firmware" / "Use C++ …", 0.77) is another filler in any frame: the model reads the
sign hardly at all (fix91).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Protocol

from chitin.retrieval.lexicon import NUMBER_WORDS, WISHES
from chitin.retrieval.sequence import one_kind
from chitin.retrieval.stance import FILLER, NEGATORS, opposite_poles, root, stance, words_of
from chitin.retrieval.synonyms import canonical

# The indefinite pronouns stand for what the frame already names ("before changing it" /
# "… anything"): function words here, as stance.FILLER's are. ("nothing" and "nobody"
# negate, and stay content.)
INDEFINITE = frozenset(
    f"{a}{b}" for a in ("some", "any", "every") for b in ("thing", "one", "body", "where")
)
# At most this many words on each side differ (3 in the twelfth round; 12 chosen by
# leave-one-set-out on the ten tuning sets, 9 folds of 10; 8-99 a plateau), and at
# least this many content words frame them.
SLOT_WORDS = 12
FRAME_WORDS = 2
# Adverbs English places freely around the verb and its object: one moved is the same
# sentence. Words in "-ly" are such adverbs, but for these (periods, which fill a slot
# of when, and nouns and adjectives).
ADVERBS = frozenset(("always", "usually", "often", "sometimes", "also", "just", "only"))
NOT_ADVERBS = frozenset(
    {
        *("daily", "weekly", "monthly", "yearly", "hourly", "nightly", "quarterly", "early"),
        *("family", "reply", "supply", "apply", "assembly", "anomaly", "friendly", "likely"),
    }
)
# The signs that end a name (stance.words_of keeps them): "c++", "c#", "f#"
SIGNS = ("++", "#")


class Claimed(Protocol):
    @property
    def type(self) -> str: ...
    @property
    def claim(self) -> str: ...


def other_filler(first: Claimed, second: Claimed) -> bool:
    """Whether two claims are one frame with one slot filled otherwise (see the
    module's docstring). Not asked of triggers: their claim is half of what they say."""
    if first.type == "trigger" or second.type == "trigger":
        return False
    mine, theirs = _words(first.claim), _words(second.claim)
    if abs(len(mine) - len(theirs)) > SLOT_WORDS:
        return False
    if mine[:1] != theirs[:1] and mine[-1:] != theirs[-1:]:
        return False  # no shared first or last word, no frame: most pairs stop here
    slot, other, frame = slots(mine, theirs)
    if (not slot and not other) or max(len(slot), len(other)) > SLOT_WORDS:
        return False  # the same words; or more than a slot differs
    if len(slot) == len(other) == 1 and (slot[0].endswith(SIGNS) or other[0].endswith(SIGNS)):
        return True  # one name for another, a sign its own ("C" / "C++" / "C#"), in any frame
    if _framing(frame) < FRAME_WORDS:
        return False
    said, told = _content(slot), _content(other)
    if (not said and not told) or all(_number(w) for w in said | told):
        return False
    if not (slot and other) and len(said | told) == 1 and not (said | told) & NEGATORS:
        return False  # one word added is a modifier ("… now", "… carefully"): the same lesson
    if sorted(slot) == sorted(other):
        # the same words in another order: "day/month/year" / "month/day/year"; but an
        # adverb moved, the rest in its order, says the same ("Always run tests …" /
        # "Run tests always …", "… to main directly" / "… directly to main")
        return not _adverb_moved(slot, other)
    # words of order and of attention are fillers of one kind (sequence.py); the same
    # things ordered otherwise around them are another filler
    kept = one_kind(said, told, mine, theirs, _key)
    if kept is None:
        return True
    said, told = kept
    # a word the other claim has elsewhere says nothing new ("closed-source ones" /
    # "closed ones", after "open-source")
    # (each slot's words are among its own claim's: the other claim's words cover them)
    return not (_covered(said, theirs) and _covered(told, mine))


def opposite_fillers(first: Claimed, second: Claimed) -> tuple[str, str] | None:
    """Two words, one in each slot of two one-frame claims, that are opposites: a pole
    of the lexicon on one side and, on the other, its opposite or a synonym of it (the
    table's: "terse" is "brief", opposite "long"; "sparsely" / "thickly"). In one frame
    the slot is all that differs, so opposites there are a side taken, even where each
    claim names both ends ("praise in public, correct in private" / the other way
    round), which ``stance.opposed_poles`` leaves alone in claims of other shapes.
    docs/design.md §9e, thirteenth round."""
    if first.type == "trigger" or second.type == "trigger":
        return None
    (reach, heads), (other_reach, other_heads) = _sides(first.claim), _sides(second.claim)
    if not (reach & other_heads or other_reach & heads):
        return None  # no two poles opposed, if through a synonym: most pairs stop here
    words, others = _words(first.claim), _words(second.claim)
    if words[:1] != others[:1] and words[-1:] != others[-1:]:
        return None  # no shared first or last word, no frame: most pairs stop here
    slot, other, frame = slots(words, others)
    if max(len(slot), len(other)) > SLOT_WORDS or _framing(frame) < FRAME_WORDS:
        return None  # not one frame
    # a word both claims say is no filler of one slot ("at night" on both sides)
    said, told = _roots(words), _roots(others)
    fillers = [w for w in other if w not in FILLER and _root(w) not in said]
    for word in (w for w in slot if w not in FILLER and _root(w) not in told):
        for filler in fillers:
            if _opposed(word, filler):
                # asked last: the frame's whole test costs more than this search
                return (word, filler) if other_filler(first, second) else None
    return None


@functools.lru_cache(maxsize=1 << 18)  # check judges every claim of a store, often
def _sides(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The synonym heads of what a claim's poles oppose, and of its poles."""
    poles = stance(text).poles
    return frozenset().union(*map(_against, poles)), frozenset().union(*map(_heads, poles))


def _opposed(word: str, other: str) -> bool:
    return bool(_against(word) & _heads(other) or _against(other) & _heads(word))


def _adverb_moved(slot: Sequence[str], other: Sequence[str]) -> bool:
    """Whether ``other`` is ``slot`` with one adverb moved: taken out of each, the rest
    is the same words in the same order."""
    for at, word in enumerate(slot):
        if word in ADVERBS or (word.endswith("ly") and len(word) > 4 and word not in NOT_ADVERBS):
            rest = [*slot[:at], *slot[at + 1 :]]
            if any(
                [*other[:there], *other[there + 1 :]] == rest
                for there, moved in enumerate(other)
                if moved == word
            ):
                return True
    return False


def _framing(frame: Sequence[str]) -> int:
    return sum(1 for word in frame if word not in FILLER)


@functools.lru_cache(maxsize=4096)
def _roots(words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(_root(w) for w in words)


@functools.lru_cache(maxsize=4096)
def _heads(word: str) -> frozenset[str]:
    """A word's synonym group, and its poles' (as the table's group heads)."""
    table = canonical()
    return frozenset((table.get(word, word), *(table.get(p, p) for p in stance(word).poles)))


@functools.lru_cache(maxsize=4096)
def _against(word: str) -> frozenset[str]:
    """The opposites of a word's poles, as the table's group heads."""
    table = canonical()
    return frozenset(table.get(o, o) for p in stance(word).poles for o in opposite_poles(p))


def slots(
    mine: tuple[str, ...], theirs: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """What differs between two claims' words after their shared beginning and end
    (each side's slot), and those shared words (the frame)."""
    head = _common(mine, theirs)
    limit, tail = min(len(mine), len(theirs)) - head, 0
    while tail < limit and mine[-1 - tail] == theirs[-1 - tail]:
        tail += 1
    frame = mine[:head] + mine[len(mine) - tail :]
    return mine[head : len(mine) - tail], theirs[head : len(theirs) - tail], frame


# One negation spelt three ways: "cannot", "can not" and "can't" (which words_of reads
# as "ca" "not", as it reads "won't" as "wo" "not") are the same words to a slot.
SPELT_APART = {"cannot": ("can", "not"), "ca": ("can",), "wo": ("will",), "sha": ("shall",)}


@functools.lru_cache(maxsize=4096)  # small: check reads each claim's words once or twice
def _words(text: str) -> tuple[str, ...]:
    return tuple(part for word in words_of(text) for part in SPELT_APART.get(word, (word,)))


def _common(first: Sequence[str], second: Sequence[str]) -> int:
    size = 0
    for one, other in zip(first, second, strict=False):
        if one != other:
            break
        size += 1
    return size


def _content(words: Sequence[str]) -> frozenset[str]:
    """The slot's words that say something: not filler, but a negator does."""
    return frozenset(w for w in words if (w not in FILLER and w not in INDEFINITE) or w in NEGATORS)


@functools.lru_cache(maxsize=4096)
def _root(word: str) -> str:
    """stance.root, and a doubled last consonant dropped from a short root too
    ("fitting" → "fitt" → "fit")."""
    found = root(word)
    if len(found) > 2 and found[-1] == found[-2] and found[-1] not in "aeiouls":
        return found[:-1]
    return found


def _key(word: str) -> str | None:
    """A word's root, or None for a word that says nothing (the frame's order)."""
    return None if word in FILLER or word in INDEFINITE else _root(word)


def _number(word: str) -> bool:
    return word.isdigit() or word in NUMBER_WORDS


def _covered(words: frozenset[str], claim: tuple[str, ...]) -> bool:
    """Whether each of ``words`` is one of the words of ``claim`` in another form, a
    synonym, or a word on the same side of an opposition; two verbs of wishing ("likes"
    / "prefers") say one wish (an opposite wish, "likes" / "hates", is a conflict the
    poles read before this is asked)."""
    roots, wishes, sides = _reading(claim)
    missing = [w for w in words if _root(w) not in roots]
    if wishes:
        missing = [w for w in missing if w not in WISHES]
    # two words on one side of the lexicon's oppositions ("thorough", "long": both
    # opposite "brief") say the same
    missing = [w for w in missing if not any(opposite_poles(p) & sides for p in stance(w).poles)]
    if not missing:
        return True
    table = canonical()  # read here only: the table's first read costs ~10 ms
    heads = {table.get(w, w) for w in claim}
    return all(table.get(w, w) in heads for w in missing)


@functools.lru_cache(maxsize=4096)
def _reading(claim: tuple[str, ...]) -> tuple[frozenset[str], bool, frozenset[str]]:
    """What ``_covered`` reads of a claim's words, once: their roots, whether one is a
    verb of wishing, and the opposites of their poles."""
    sides = frozenset(o for w in claim for p in stance(w).poles for o in opposite_poles(p))
    return frozenset(_root(w) for w in claim), bool(WISHES.intersection(claim)), sides
