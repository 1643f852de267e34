"""BERT's WordPiece tokenizer in plain Python, for the few texts of a session start.

The local model's tokenizer is the ``tokenizers`` library's, from the tokenizer.json
that ships with chitin. Importing that library and loading the file take ~55 ms, more
than embedding a query with the prepared model. For a few texts this module does the
same in about a millisecond: it reads the vocabulary as plain text (one token a line,
the line number its id; 230 KB) and looks each candidate piece up in it, without
building a dictionary of its 30,522 tokens (which alone costs ~8 ms); a process that
serves many queries builds it once (``WordPiece.index``). Bulk work keeps the library,
which is much faster per text.

It follows the pipeline tokenizer.json declares, in the library's order and with its
definitions (tests compare the two on thousands of generated texts):
- added tokens ([CLS], [MASK], …) written in the text are kept whole, unnormalised;
- BertNormalizer: drop NUL, U+FFFD and "other" characters (general category C) but
  tab, newline and carriage return; turn white space into spaces; put spaces around
  CJK ideographs; strip accents (NFD, without non-spacing marks); lowercase each
  character on its own (no final-sigma rule, as Rust's ``char::to_lowercase``);
- BertPreTokenizer: split on white space, and keep each punctuation character (ASCII
  punctuation, or general category P) as a token of its own;
- WordPiece: the longest vocabulary entry first, ``##`` before a word's later pieces,
  [UNK] for a word that cannot be split or is longer than 100 characters;
- ``[CLS] … [SEP]``, truncated to MAX_TOKENS in all.

A character that Python's Unicode tables do not know (general category Cn: assigned in
a later Unicode version than this Python's, as some emoji are) may be one the library
knows, and one added to Unicode after the library's tables (U+0890, Unicode 14) is
read otherwise by the two; for a text holding either, ``encode`` raises ``Unsure``, and
the caller asks the library. chitin/providers/unsure.py lists the second kind.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator, Sequence
from pathlib import Path

UNKNOWN = "[UNK]"
PREFIX = "##"
MAX_WORD = 100
# Unicode's White_Space property, as Rust's char::is_whitespace (Python's str.isspace
# differs: it counts U+001C-U+001F, which are controls and dropped before this is asked).
WHITE_SPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
KEPT_CONTROLS = frozenset("\t\n\r")
ASCII_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
CJK_RANGES = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B920, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)


class Unsure(ValueError):
    """The text holds a character this Python's Unicode tables do not know."""


class WordPiece:
    """A vocabulary, as the text of a vocabulary file, and the special tokens of the
    tokenizer it came from."""

    def __init__(self, vocabulary: bytes, specials: Sequence[str]) -> None:
        self.text = b"\n" + vocabulary  # each token then stands between two newlines
        self.specials = sorted(specials, key=len, reverse=True)  # longest match first
        self._ids: dict[str, int | None] = {}
        self._indexed = False  # True once _ids holds every token (see index)
        unknown, start, end = (self.id_of(t) for t in (UNKNOWN, "[CLS]", "[SEP]"))
        if unknown is None or start is None or end is None:
            raise ValueError("the vocabulary lacks [UNK], [CLS] or [SEP]")
        self.unknown, self.start, self.end = unknown, start, end

    @classmethod
    def load(cls, path: Path, specials: Sequence[str]) -> WordPiece:
        """From a vocabulary file: one token a line, the line number its id."""
        return cls(path.read_bytes(), specials)

    def index(self) -> None:
        """Put every token in the dictionary now (~8 ms), for a process that will
        tokenize many texts: a word of made-up letters tries dozens of pieces, and a
        scan of the vocabulary for each costs ~10 ms a query; a lookup costs nothing."""
        ids: dict[str, int | None] = {}
        for number, token in enumerate(self.text[1:].split(b"\n")):
            ids.setdefault(token.decode("utf-8"), number)  # the first line, as find's
        self._ids, self._indexed = ids, True

    def id_of(self, token: str) -> int | None:
        """The token's id (its line number), or None if it is not in the vocabulary."""
        if self._indexed:
            return self._ids.get(token)
        if token not in self._ids:
            found = self.text.find(b"\n" + token.encode("utf-8") + b"\n")
            self._ids[token] = None if found < 0 else self.text.count(b"\n", 0, found)
        return self._ids[token]

    def encode(self, text: str, limit: int, defer: bool = True) -> list[int]:
        """The ids of ``[CLS] text [SEP]``, at most ``limit`` in all. Unsure if the
        text holds a character the library may read otherwise (unless not ``defer``,
        for scripts/unsure_characters.py, which finds them)."""
        ids = [self.start]
        for piece, special in self._split_specials(text):
            if special:
                found = self.id_of(piece)
                ids.append(self.unknown if found is None else found)
                continue
            for word in pre_tokenize(normalize(piece, defer)):
                ids.extend(self._word(word))
        return [*ids[: limit - 1], self.end]

    def _split_specials(self, text: str) -> Iterator[tuple[str, bool]]:
        """The text in pieces: the special tokens written in it, and what lies between."""
        start = position = 0
        while position < len(text):
            found = next((s for s in self.specials if text.startswith(s, position)), None)
            if found is None:
                position += 1
                continue
            if start < position:
                yield text[start:position], False
            yield found, True
            position += len(found)
            start = position
        if start < len(text):
            yield text[start:], False

    def _word(self, word: str) -> list[int]:
        if len(word) > MAX_WORD:
            return [self.unknown]
        pieces: list[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            while end > start:
                candidate = word[start:end] if start == 0 else PREFIX + word[start:end]
                found = self.id_of(candidate)
                if found is not None:
                    pieces.append(found)
                    break
                end -= 1
            else:
                return [self.unknown]
            start = end
        return pieces


def _read_otherwise(char: str) -> bool:
    """Whether the library's older Unicode tables read ``char`` otherwise than this
    Python's (chitin/providers/unsure.py, made by scripts/unsure_characters.py)."""
    from bisect import bisect_right

    from chitin.providers.unsure import ENDS, STARTS

    point = ord(char)
    at = bisect_right(STARTS, point) - 1
    return at >= 0 and point <= ENDS[at]


def normalize(text: str, defer: bool = True) -> str:
    """BertNormalizer with clean_text, handle_chinese_chars, strip_accents, lowercase."""
    cleaned = []
    for char in text:
        category = unicodedata.category(char)
        if defer and char >= "\x80" and (category == "Cn" or _read_otherwise(char)):
            raise Unsure(f"U+{ord(char):04X} may be read otherwise by the library")
        if char in ("\0", "\ufffd") or (char not in KEPT_CONTROLS and category[0] == "C"):
            continue
        if char in WHITE_SPACE:
            cleaned.append(" ")
        elif _is_cjk(char):
            cleaned.append(f" {char} ")
        else:
            cleaned.append(char)
    decomposed = unicodedata.normalize("NFD", "".join(cleaned))
    stripped = (char for char in decomposed if unicodedata.category(char) != "Mn")
    return "".join(char.lower() for char in stripped)


def pre_tokenize(text: str) -> Iterator[str]:
    """BertPreTokenizer: words split on white space, each punctuation mark alone."""
    word: list[str] = []
    for char in text:
        if char in WHITE_SPACE:
            if word:
                yield "".join(word)
                word = []
        elif char in ASCII_PUNCTUATION or unicodedata.category(char)[0] == "P":
            if word:
                yield "".join(word)
                word = []
            yield char
        else:
            word.append(char)
    if word:
        yield "".join(word)


def _is_cjk(char: str) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in CJK_RANGES)
