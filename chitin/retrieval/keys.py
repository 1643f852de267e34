"""The texts two insights must share to be the same insight (pure): a claim and a
trigger's condition, case, spacing, punctuation and Unicode's forms of one character
aside (``judgement.exact_key`` and ``sentence_key`` are made of them)."""

from __future__ import annotations

import functools
import re
import unicodedata

# Punctuation, but not a "+" or "#" ending a word ("C++", "C#"); "don't" reads "dont".
_PUNCTUATION = re.compile(r"(?P<join>(?<=\w)['\u2018\u2019](?=\w))|(?<![\w+#])[+#]+|[^\w\s+#]")
# The words that open a condition as the CLI shows it ("When {condition}").
_OPENINGS = frozenset({"when", "if", "whenever"})


@functools.lru_cache(maxsize=1 << 18)  # check and dedupe compare each claim often
def normalized(text: str | None) -> str:
    """Case, spacing, punctuation and Unicode's forms of one character (NFKC: "café" as
    one code point or two) aside; a text of no word ("🙂") is its characters, not ""."""
    folded = unicodedata.normalize("NFKC", text or "").casefold()
    spaced = _PUNCTUATION.sub(lambda found: "" if found["join"] else " ", folded)
    return " ".join(spaced.split()) or "".join(folded.split())


def condition_key(condition: str | None) -> str:
    """A trigger's condition ``normalized``, without a leading "when", "if" or
    "whenever": chitin shows it as "When {condition}", so people write "When a test
    fails" for "a test fails" (the stored text stays as written)."""
    text = normalized(condition)
    opening, _, rest = text.partition(" ")
    return rest if opening in _OPENINGS and rest else text
