"""The texts two insights must share to be the same insight (pure): a claim and a
trigger's condition, case, spacing, punctuation and Unicode's forms of one character
aside (``judgement.exact_key`` and ``sentence_key`` are made of them)."""

from __future__ import annotations

import functools
import re
import unicodedata

# Punctuation, but not a "+" or "#" ending a word ("C++", "C#"), nor the dot of a name
# as the judgement's words read it (stance._WORD): one opening a word before letters
# (".NET", ".env"), or between two characters or more and letters ("ASP.NET",
# "Node.js"); not "e.g.", "3.11" or a sentence's end. "don't" reads "dont".
_PUNCTUATION = re.compile(
    r"(?P<join>(?<=\w)['\u2018\u2019](?=\w))|(?P<name>(?<![a-z0-9.])\.(?=[a-z])"
    r"|(?<=[a-z0-9]{2})\.(?=[a-z]+(?:\.[a-z]+)*(?![a-z0-9])))|(?<![\w+#])[+#]+|[^\w\s+#]"
)
# The words that open a condition as the CLI shows it ("When {condition}").
_OPENINGS = frozenset({"when", "if", "whenever"})


@functools.lru_cache(maxsize=1 << 18)  # check and dedupe compare each claim often
def normalized(text: str | None) -> str:
    """Case, spacing, punctuation and Unicode's forms of one character (NFKC: "café" as
    one code point or two) aside; a text of no word ("🙂") is its characters, not ""."""
    folded = unicodedata.normalize("NFKC", text or "").casefold()
    spaced = _PUNCTUATION.sub(_replaced, folded)
    return " ".join(spaced.split()) or "".join(folded.split())


def _replaced(found: re.Match[str]) -> str:
    return "" if found["join"] else "." if found["name"] else " "


def condition_key(condition: str | None) -> str:
    """A trigger's condition ``normalized``, without a leading "when", "if" or
    "whenever": chitin shows it as "When {condition}", so people write "When a test
    fails" for "a test fails" (the stored text stays as written)."""
    text = normalized(condition)
    opening, _, rest = text.partition(" ")
    return rest if opening in _OPENINGS and rest else text
