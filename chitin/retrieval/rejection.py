"""One claim turns down what the other takes (pure).

"Configure the service through environment variables." / "Configure the service
through a checked-in config file rather than environment variables."; "Log errors as
structured JSON lines." / "Write log messages as plain human-readable sentences, not
JSON.": the second holds a contrast ("rather than", "instead of", or a "not" or
"never" after a comma, a colon, a semicolon, a bracket or a dash: comparison.contrast's
"X, not Y") whose clause names a word the first says, outside any contrast or
comparison of its own ("over", "than", "instead of", "in favour of"), and the second
does not say before it. Each says which of two things it takes, and the one the first
takes is the one the second turns down: an opposing stance, a conflict where the two
are on one topic (``judgement._same_topic``, as for any single cue). A plain "not" is
left to the negation rule: "for anything that is not urgent" rejects nothing.
docs/design.md §9e, thirteenth round.
"""

from __future__ import annotations

import functools
import re

from chitin.retrieval.framed import framed_opposition
from chitin.retrieval.stance import FILLER, NEGATORS, words_of
from chitin.retrieval.template import INDEFINITE, Claimed, _root, opposite_fillers

_CONTRAST = re.compile(
    r"(?:(?:[,;:(\u2013\u2014]|\s-)\s*(?:not|never)|\b(?:rather than|instead of))\b"
    r"(?!\s+(?:just|only|merely|simply)\b)"
)
# What a claim puts second in a comparison of its own is not a word it takes.
_SECOND = re.compile(r"\b(?:over|than|instead of|in favou?r of)\b")
_CLAUSE_END = re.compile(r"[,;:.!?()]")


def other_opposition(first: Claimed, second: Claimed) -> str:
    """Why two claims that no pole, negation or comparison opposed still take opposing
    stances ("" if they do not): one turns down what the other takes, one frame has
    opposites in its slots (``template.opposite_fillers``), or a negation, a particle or
    an order that ``stance`` does not read turns one round (``framed``)."""
    taken = rejected(first, second)
    if taken:
        return f'"{taken}" ↔ "not {taken}"'
    found = opposite_fillers(first, second)
    if found:
        return f'"{found[0]}" ↔ "{found[1]}"'
    return framed_opposition(first, second)


def rejected(first: Claimed, second: Claimed) -> str | None:
    """A word (its root) one of two claims takes and the other turns down (see the
    module's docstring), or None. Not asked of triggers: their claim is half of what
    they say, and do against avoid reads their stance."""
    if first.type == "trigger" or second.type == "trigger":
        return None
    if not (_may_contrast(first.claim) or _may_contrast(second.claim)):
        return None  # most claims: two cached lookups
    return _turned_down(first.claim, second.claim) or _turned_down(second.claim, first.claim)


def turns_down(side: Claimed) -> bool:
    """Whether a claim may turn down what another takes: `check`'s pre-filter pairs
    such a claim with its candidates (``leaning.may_oppose``)."""
    return side.type != "trigger" and _may_contrast(side.claim) and bool(_contrasts(side.claim))


@functools.lru_cache(maxsize=1 << 18)  # check judges every claim of a store, often
def _may_contrast(text: str) -> bool:
    """Whether ``text`` has a contrast at all (most claims do not)."""
    return _CONTRAST.search(text.lower()) is not None


def _turned_down(taker: str, rejecter: str) -> str | None:
    said = _taken(taker)
    for before, rest in _contrasts(rejecter):
        hit = (rest & said) - before
        if hit:
            return min(hit)
    return None


@functools.lru_cache(maxsize=4096)
def _taken(text: str) -> frozenset[str]:
    """The roots of the content words a claim takes: not those its own contrasts or
    comparisons put second."""
    lowered = text.lower()
    second = [rest for _, rest in _contrasts(text)]
    second += [_content(_clause(lowered[m.end() :])) for m in _SECOND.finditer(lowered)]
    return _content(lowered).difference(*second)


@functools.lru_cache(maxsize=4096)
def _contrasts(text: str) -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
    """For each contrast in ``text``: the roots of the content words before it, and of
    those after it to the end of its clause."""
    lowered = text.lower()
    return tuple(
        (_content(lowered[: m.start()]), _content(_clause(lowered[m.end() :])))
        for m in _CONTRAST.finditer(lowered)
    )


def _clause(text: str) -> str:
    return _CLAUSE_END.split(text, 1)[0]


@functools.lru_cache(maxsize=4096)
def _content(text: str) -> frozenset[str]:
    return frozenset(
        _root(w)
        for w in words_of(text)
        if w not in FILLER and w not in INDEFINITE and w not in NEGATORS
    )
