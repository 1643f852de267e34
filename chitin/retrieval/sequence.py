"""Fillers of one kind in a frame's slot (pure): words that do not make a slot differ.

Round 13's long slot (template.SLOT_WORDS = 12) called "Write the failing test before
the fix" / "Write a failing test first, then the fix" and "Read the error message
carefully before changing code" / "… closely before you change any code" another
filler: "before" has no counterpart in "first, then", nor "carefully" in "closely". Two
kinds of words are read here as one filler each, from general English, not from the
labelled pairs:

- words that put one thing before another (before, first … then, prior to, ahead of,
  beforehand, earlier): one claim's stands for the other's, where each claim has one
  and the things they order come in the same order; "after" is not among them;
- adverbs of attention (carefully, closely, thoroughly, …): how closely a thing is done,
  added or exchanged, is one lesson ("quickly" is another manner, and stays).

Another form of a verb ("changing" / "you change") template already reads by its roots.
The same things in another order around such a word ("Write the test before the fix,
…" / "Write the fix first, then the test, …") are another filler, whatever covers the
words. docs/design.md §9e, fourteenth round.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

BEFORE = frozenset(
    ("before", "beforehand", "first", "firstly", "prior", "ahead", "earlier", "then")
)
AFTER = frozenset(("after", "afterwards", "afterward", "later"))
ATTENTION = frozenset(
    (
        "carefully",
        "closely",
        "thoroughly",
        "attentively",
        "meticulously",
        "diligently",
        "cautiously",
        "properly",
        "fully",
    )
)
ORDERING = BEFORE | AFTER


def one_kind(
    said: frozenset[str],
    told: frozenset[str],
    mine: Sequence[str],
    theirs: Sequence[str],
    content: Callable[[str], str | None],
) -> tuple[frozenset[str], frozenset[str]] | None:
    """Two slots' content words without the fillers of one kind; None where the two
    claims order the same things otherwise around a word of order (another filler).
    ``content`` gives a word's root, or None for a word that says nothing."""
    said, told = said - ATTENTION, told - ATTENTION
    if not (said | told) & ORDERING:
        return said, told
    first, second = _order(mine, content), _order(theirs, content)
    shared = set(first) & set(second)
    if [k for k in first if k in shared] != [k for k in second if k in shared]:
        return None
    if BEFORE.intersection(mine) and BEFORE.intersection(theirs):
        return said - BEFORE, told - BEFORE
    return said, told


def _order(words: Sequence[str], content: Callable[[str], str | None]) -> list[str]:
    """A claim's content roots in order, outside the words of order and attention; each
    root once, where it first comes."""
    found: list[str] = []
    for word in words:
        key = None if word in ORDERING or word in ATTENTION else content(word)
        if key is not None and key not in found:
            found.append(key)
    return found
