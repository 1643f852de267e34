"""The forms a suffix makes of a lexicon's word ("strict": "stricter", "strictly"; "turn":
"turned", "turning"), for the stance lexicon (stance.py) and the synonym table
(synonyms.py)."""

from __future__ import annotations

from chitin.retrieval.lexicon import DRIFTED, PHRASE_VERBS

_VOWELS = "aeiou"


def inflections(word: str) -> frozenset[str]:
    """The forms a suffix makes of a pole's word ("strict": "stricter", "strictly";
    "gentle": "gently"; "big": "bigger"; "busy": "busier"), made once for the whole
    lexicon, so that a lookup is one dict get. A form that is no word is harmless; one
    that means something else is in ``lexicon.DRIFTED``."""
    return frozenset(kept_forms(word))


def kept_forms(word: str) -> list[str]:
    return [form for form in _forms(word) if form == word or form not in DRIFTED]


def _forms(word: str) -> tuple[str, ...]:
    # Tuples, not sets: the lexicon's ~1,100 words make ~9,500 forms on a session
    # start's first stance read, and set algebra took half again as long (~4.4 → ~3 ms).
    if word.endswith("e"):
        cut = word[:-1]
        adverb = cut + "y" if word.endswith("le") else word + "ly"
        return (word, word + "s", word + "d", cut + "ing", word + "r", word + "st", adverb)
    if len(word) > 2 and word[-1] == "y" and word[-2] not in _VOWELS:
        base = word[:-1]
        return (word, word + "ing", *(base + suffix for suffix in _Y_SUFFIXES))
    made = (word, *(word + suffix for suffix in _SUFFIXES))
    if _closed_syllable(word):  # big → bigger, plan → planned
        made += tuple(word + word[-1] + suffix for suffix in _DOUBLING_SUFFIXES)
    return (*made, word + "ally") if word.endswith("ic") else made


_SUFFIXES = ("s", "es", "ed", "ing", "er", "est", "ly")
_DOUBLING_SUFFIXES = ("ed", "ing", "er", "est")
_Y_SUFFIXES = ("ies", "ied", "ier", "iest", "ily", "iness")


def _closed_syllable(word: str) -> bool:
    """Consonant, vowel, consonant at the end: the last letter doubles before a suffix."""
    return (
        len(word) >= 3
        and word[-1] not in _VOWELS + "wxy"
        and word[-2] in _VOWELS
        and word[-3] not in _VOWELS
    )


def verb_forms(verb: str) -> list[str]:
    """A verb's forms: "-s", "-ed", "-ing" as a suffix makes them, and the irregular."""
    made = [form for form in _forms(verb) if form.endswith(("s", "d", "ing")) or form == verb]
    return made + list(PHRASE_VERBS.get(verb, ()))
