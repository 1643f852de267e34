"""Word tokens and stems shared by the index (to find candidates) and by conflict
detection (to score them), so that both see exactly the same terms."""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Set

_SPLIT = re.compile(r"\W+", re.ASCII)
MIN_TOKEN_LENGTH = 3

# Irregular forms the suffix rules cannot reach (from the original, §4.2).
_STEM_MAP = {
    "brevity": "brief",
    "verbosity": "verbose",
    "cautiously": "cautious",
    "decisive": "decisive",
    "indecisive": "hesitate",
    "efficiency": "efficient",
    "flexibility": "flexible",
    "rigidity": "rigid",
    "formality": "formal",
    "informality": "informal",
    "complexity": "complex",
    "simplicity": "simple",
    "asking": "ask",
    "acting": "act",
    "waiting": "wait",
    "proceeding": "proceed",
}
# Applied as intended: the first rule whose suffix matches and leaves ≥ 3 letters.
# (The original stopped at the first rule of the list whatever it matched, so only
# "ness" was ever stripped: its defect §11.1.)
_SUFFIXES = (
    "ness",
    "ity",
    "tion",
    "ment",
    "ing",
    "ly",
    "ous",
    "ive",
    "ful",
    "ed",
    "er",
    "est",
    "al",
    "s",
)


def words(text: str) -> list[str]:
    """Lower-case ASCII word pieces of any length, in order (JS ``\\W`` semantics)."""
    return [piece for piece in _SPLIT.split(text.lower()) if piece]


def tokens(text: str) -> set[str]:
    """The original's plain token set: words of three or more characters, no stemming."""
    return {word for word in words(text) if len(word) >= MIN_TOKEN_LENGTH}


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    mapped = _STEM_MAP.get(word)
    if mapped is not None:
        return mapped
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= MIN_TOKEN_LENGTH:
            return word[: -len(suffix)]
    return word


def stemmed_tokens(text: str) -> set[str]:
    """Tokens plus their stems: the term set conflict detection compares."""
    found = tokens(text)
    return found | {stem(token) for token in found}


def claim_terms(claim: str) -> set[str]:
    """The terms a claim is indexed and looked up by: ``stemmed_tokens`` of its NFKC
    form, the form its exact key is of (keys.normalized), so that a claim typed in
    full-width letters ("Ｋｅｅｐ ｉｔ ｓｉｍｐｌｅ") or with a ligature ("ﬁle") finds its
    plain copy, and is found by it."""
    return stemmed_tokens(unicodedata.normalize("NFKC", claim))


def jaccard(first: Set[str], second: Set[str]) -> float:
    if not first and not second:
        return 0.0
    return len(first & second) / len(first | second)
