"""Where a claim compares two things, and whether two claims compare them the other
way round (pure; the sides' words are read by ``stance``).

A preference ("X over Y", "X rather than Y", "prefer X to Y") and an order ("X before
Y", "Y after X", "X deserves more trust than Y") each put one side first. Two claims
that put the same words first and second the other way round oppose each other
(``judgement._opposition``); a preference also lets `check`'s pre-filter pair two
claims (``leaning.may_oppose``), an order does not (a templated "… only after the
smoke tests pass" would pair every claim of a bulk import).
"""

from __future__ import annotations

import re

Preference = tuple[frozenset[str], frozenset[str]] | None  # the first side's roots, the second's

# "X over Y", "X rather than Y", "X matters more than Y": X is put before Y. Each side
# is the content words of its clause on that side of the marker ("Speed of delivery
# matters more than polish": {speed, delivery, matter} over {polish}).
_PREFERENCE = re.compile(r"\b(?:over|rather than|instead of|more than|in favou?r of)\b")
# "prefer X to Y" (but not "prefer to do X"): the "to" is the marker.
_PREFER_TO = re.compile(r"\bprefer\w*\s+(?!to\b)\w[^,;:.!?()]*?\s(to)\b")
# "would rather X than Y", "had sooner X than Y": "rather" apart from its "than"; the
# "than" is the marker, as in "X rather than Y" (§9e, fourteenth round).
_RATHER_THAN = re.compile(r"\b(?:rather|sooner)\s+(?!than\b)\w[^,;:.!?()]*?\s(than)\b")
CLAUSE_END = re.compile(r"[,;:.!?()]")
_ORDER = re.compile(r"\b(?:before|than)\b")
_ORDER_AFTER = re.compile(r"\bafter\b")
# "X, not Y" contrasts two things and affirms X ("Cite the primary source, not the news
# article"): "X rather than Y", not a negated claim. "not just", "not only" add.
_CONTRAST = re.compile(
    r"(?:[,;:(\u2013\u2014]|\s-)\s*not\b(?!\s+(?:just|only|merely|simply)\b)", re.IGNORECASE
)


def contrast(text: str) -> str:
    """``text`` with each contrasting ", not" read as "rather than"."""
    if "not" not in text and "NOT" not in text and "Not" not in text:
        return text  # most claims: no regex run
    return _CONTRAST.sub(" rather than", text)


def preference_marker(lowered: str) -> tuple[int, int] | None:
    """Where a lower-cased claim's preference marker is, if it has one."""
    found = _PREFERENCE.search(lowered)
    if found is not None:
        return found.start(), found.end()
    prefer = _PREFER_TO.search(lowered) or _RATHER_THAN.search(lowered)
    return None if prefer is None else (prefer.start(1), prefer.end(1))


def order_marker(lowered: str) -> tuple[int, int, bool] | None:
    """Where a lower-cased claim's order marker is, and whether it is "after" (which
    names the later thing first)."""
    if "before" not in lowered and "than" not in lowered and "after" not in lowered:
        return None  # most claims: no regex run
    found = _ORDER.search(lowered)
    if found is not None:
        return found.start(), found.end(), False
    found = _ORDER_AFTER.search(lowered)
    return None if found is None else (found.start(), found.end(), True)


def turned(mine: Preference, theirs: Preference) -> tuple[str, str] | None:
    """A word the first puts before another that the second puts after it, and the
    other way round ("speed … more than polish" against "polish … more than speed")."""
    if mine is None or theirs is None:
        return None
    first, second = mine[0] & theirs[1], mine[1] & theirs[0]
    # A word on both sides of both is what is compared ("integration tests over unit
    # tests" / "unit tests over integration tests": tests), not a side taken.
    both = first & second
    first, second = first - both, second - both
    if not first or not second:
        return None
    return min(first), min(second)
