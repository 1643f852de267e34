"""One frame, and one claim rejects what the other says (pure).

"Configure the service through environment variables." / "Configure the service
through a checked-in config file rather than environment variables."; "Mei wants
feedback in writing." / "Mei wants feedback given face to face, never in writing.":
one frame with another filler (retrieval/template.py), where the second's slot holds a
contrast ("rather than", "instead of", or a "not" or "never" after a comma, a colon, a
semicolon, a bracket or a dash: comparison.contrast's "X, not Y") whose clause names a
word the first says, says outside any contrast of its own, and the second does not say
before it. Each says which of two things it takes; the one the first takes is the one
the second turns down: a conflict, whatever a sentence embedding makes of the shared
words. A plain "not" is left to the negation rule: "for anything that is not urgent"
rejects nothing. docs/design.md §9e, thirteenth round.
"""

from __future__ import annotations

import functools
import re

from chitin.retrieval.stance import FILLER, NEGATORS
from chitin.retrieval.template import INDEFINITE, Claimed, _root, _words, other_filler, slots

_CONTRAST = re.compile(
    r"(?:(?:[,;:(\u2013\u2014]|\s-)\s*(?:not|never)|\b(?:rather than|instead of))\b"
    r"(?!\s+(?:just|only|merely|simply)\b)"
)
_CLAUSE_END = re.compile(r"[,;:.!?()]")
_IN_SLOT = frozenset(("not", "never", "rather", "instead"))


def rejected(first: Claimed, second: Claimed) -> str | None:
    """A word one of two one-frame claims takes and the other rejects (see the
    module's docstring), or None. Not asked of triggers (``other_filler`` is not)."""
    if not (_contrasts(first.claim) or _contrasts(second.claim)):
        return None  # most claims: two cached lookups
    if not other_filler(first, second):
        return None
    return _turned_down(first.claim, second.claim) or _turned_down(second.claim, first.claim)


def _turned_down(taker: str, rejecter: str) -> str | None:
    """A word ``taker`` says that ``rejecter``'s slot turns down."""
    slot = slots(_words(rejecter), _words(taker))[0]
    if not _IN_SLOT.intersection(slot):
        return None
    said = _content(taker) - frozenset().union(*(rest for _, rest in _contrasts(taker)))
    for before, rest in _contrasts(rejecter):
        hit = (rest & said) - before
        if hit:
            return min(hit)
    return None


@functools.lru_cache(maxsize=4096)
def _contrasts(text: str) -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
    """For each contrast in ``text``: the roots of the content words before it, and of
    those after it to the end of its clause."""
    lowered = text.lower()
    found = []
    for marker in _CONTRAST.finditer(lowered):
        rest = _CLAUSE_END.split(lowered[marker.end() :], 1)[0]
        found.append((_content(lowered[: marker.start()]), _content(rest)))
    return tuple(found)


@functools.lru_cache(maxsize=4096)
def _content(text: str) -> frozenset[str]:
    return frozenset(
        _root(w)
        for w in _words(text)
        if w not in FILLER and w not in INDEFINITE and w not in NEGATORS
    )
