"""Make chitin/providers/unsure.py: the characters the plain tokenizer defers on.

    python scripts/unsure_characters.py && ruff format chitin/providers/unsure.py

The plain-Python tokenizer (chitin/providers/wordpiece.py) reads characters through
Python's Unicode tables, the ``tokenizers`` library through its own, which are older:
a character added in between (U+0890 ARABIC POUND MARK ABOVE, Unicode 14) is a format
character to one and unknown to the other, so the two give different ids. This script
asks both about every code point, alone and inside a word, and writes the ranges where
they differ, together with those this Python does not know at all (a later Python
knows more of them, and the library may still not), so that the plain tokenizer
defers to the library on exactly those. Run it when the library or Python changes;
tests/test_providers.py fails until then.
"""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

from tokenizers import Tokenizer

from chitin.providers import wordpiece
from chitin.providers.local import MAX_TOKENS, SPECIAL_TOKENS, TOKENIZER, VOCABULARY

TARGET = Path(wordpiece.__file__).with_name("unsure.py")


def differs(library: Tokenizer, ours: wordpiece.WordPiece, char: str) -> bool:
    if unicodedata.category(char) == "Cn":
        return True
    for text in (char, f"a{char}b", f"{char}{char}", f"{char} x"):
        try:
            found = ours.encode(text, MAX_TOKENS, defer=False)
        except wordpiece.Unsure:
            return True
        if found != library.encode(text).ids:
            return True
    return False


def ranges(points: list[int]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for point in points:
        if merged and merged[-1][1] == point - 1:
            merged[-1] = (merged[-1][0], point)
        else:
            merged.append((point, point))
    return merged


def main() -> int:
    library = Tokenizer.from_file(str(TOKENIZER))
    library.enable_truncation(MAX_TOKENS)
    library.no_padding()
    ours = wordpiece.WordPiece.load(VOCABULARY, SPECIAL_TOKENS)
    points = [
        cp
        for cp in range(0x80, 0x110000)
        if not 0xD800 <= cp <= 0xDFFF and differs(library, ours, chr(cp))
    ]
    found = ranges(points)
    starts = ", ".join(str(a) for a, _ in found)
    ends = ", ".join(str(b) for _, b in found)
    TARGET.write_text(
        '"""Characters on which the plain tokenizer defers to the library: made by\n'
        f"scripts/unsure_characters.py on Python {sys.version.split()[0]} (Unicode "
        f'{unicodedata.unidata_version}). Sorted, inclusive ranges."""\n\n'
        f"STARTS = ({starts},)\nENDS = ({ends},)\n",
        encoding="utf-8",
    )
    print(f"wrote {len(found)} ranges ({len(points)} code points) to {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
