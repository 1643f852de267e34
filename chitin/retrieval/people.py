"""The people a claim names, so that lessons about two people are never one lesson.

"Alice likes brief replies" and "Bob prefers short answers" say the same of two people:
two insights to keep, neither a duplicate nor (had one said "long") a conflict. A
sentence embedding hardly reads a name, and the alignment of the words each claim has
of its own aligns "Alice" with "Bob" as well as "brief" with "short". Only the names
tell them apart.

A name is read from the writing, without a list of names: a capitalised word that does
not open a sentence ("Ask Sam first", "Tell Dr. Reyes early"), or one that opens it and
is followed by what a person does ("Leo is vegetarian", "Priya prefers …", "Tom
always …"), where an imperative opening ("Reproduce a bug …", "Text Sofia …") is
followed by an object. Titles ("Dr.", "Mrs.") are not names: "Dr. Kim" and "Dr. Reyes"
are two people. A word in capitals throughout is an acronym or shouting ("SQL",
"MARCO LIKES …"), not read. A claim whose names the writing does not show gives none,
and the rule then says nothing (judgement.py asks for names on both sides).
"""

from __future__ import annotations

import functools
import re

_WORD = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ][\w'’-]*")
_STOPS = frozenset(".;:!?")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


TITLES = _words("mr mrs ms miss dr prof professor sir madam")
# Capitalised words that are not people: the pronoun I's contractions, days, months.
NOT_NAMES = _words(
    """i'm i've i'll i'd i’m i’ve i’ll i’d monday tuesday wednesday thursday friday
    saturday sunday january february march april may june july august september october
    november december"""
)
# What follows a name that opens a sentence: a verb of the third person, or a word
# that goes between the subject and its verb.
_AUXILIARIES = _words(
    """is was has had does did can can't cannot could won't would will should must may
    might isn't wasn't hasn't doesn't didn't couldn't wouldn't shouldn't needs"""
)
_BETWEEN = _words("always never only often usually rarely sometimes also still just")


@functools.lru_cache(maxsize=1 << 16)  # judged many times over by check and dedupe
def names(text: str) -> frozenset[str]:
    """The people ``text`` names, casefolded (a possessive's "'s" left off)."""
    words = [
        (match.group(), _opens(text, match.start(), previous)) for match, previous in _read(text)
    ]
    found: set[str] = set()
    for position, (word, opening) in enumerate(words):
        bare = _bare(word)
        if not _capitalised(word) or bare.rstrip(".") in TITLES or bare in NOT_NAMES:
            continue
        if not opening or _subject([w for w, _ in words[position + 1 : position + 3]]):
            found.add(bare)
    return frozenset(found)


def _read(text: str) -> list[tuple[re.Match[str], re.Match[str] | None]]:
    """Each word with the word before it."""
    matches = list(_WORD.finditer(text))
    return list(zip(matches, [None, *matches[:-1]], strict=True))


def _opens(text: str, start: int, previous: re.Match[str] | None) -> bool:
    """Whether the word at ``start`` opens a sentence: the text's first, or after a
    stop that does not end a title ("Dr. Reyes")."""
    if previous is None:
        return True
    between = text[previous.end() : start]
    return bool(_STOPS & set(between)) and previous.group().casefold() not in TITLES


def apart(first: str, second: str) -> bool:
    """Whether the two texts each name people, and none the same."""
    mine, theirs = names(first), names(second)
    return bool(mine and theirs) and not mine & theirs


def _capitalised(word: str) -> bool:
    return len(word) > 1 and word[0].isupper() and any(c.islower() for c in word[1:])


def _subject(after: list[str]) -> bool:
    """Whether the words after a sentence's first word read as its verb ("Leo is",
    "Tom always wants"), not an imperative's object ("Text Sofia", "Reproduce a")."""
    if not after:
        return False
    first = after[0].casefold()
    if first in _BETWEEN and len(after) > 1:
        first = after[1].casefold()
    return first in _AUXILIARIES or (_third_person(first) and after[0].islower())


def _third_person(word: str) -> bool:
    """A verb's -s form, as far as spelling tells ("prefers", "does"; not "less")."""
    return len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is"))


def _bare(word: str) -> str:
    folded = word.casefold()
    for ending in ("'s", "’s"):
        if folded.endswith(ending):
            return folded[: -len(ending)]
    return folded
