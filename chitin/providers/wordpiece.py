"""BERT's WordPiece tokenizer in plain Python, for the few ASCII texts of a session start.

The local model's tokenizer is the ``tokenizers`` library's, from the tokenizer.json
that ships with chitin. Importing that library and loading the file take ~55 ms, more
than embedding a query with the prepared model. For a few texts this module does the
same in about a millisecond: it reads the vocabulary as plain text (one token a line,
the line number its id; 230 KB) and looks each candidate piece up in it, without
building a dictionary of its 30,522 tokens (which alone costs ~8 ms); a process that
serves many queries builds it once (``WordPiece.index``). Bulk work keeps the library,
which is much faster per text.

**ASCII text only** (``answers``), and the em dash chitin writes between the parts
of an embedded insight (U+2014: punctuation, without case or decomposition, in every
Unicode version). On these characters the pipeline tokenizer.json declares has one
reading, fixed since Unicode 1.1 and written out below; beyond them the library's
Unicode tables and Python's differ (a character added in Unicode 14 is a format
character to one and unknown to the other), so any other text goes to the library.
Most real queries are ASCII: bench/tokenizer_paths.py counts them. On these
characters, in the library's order and with its definitions (tests compare the two):
- added tokens ([CLS], [MASK], …) written in the text are kept whole, unnormalised;
- BertNormalizer: drop NUL and the control characters but tab, newline and carriage
  return (the others, vertical tab and form feed included, are dropped before white
  space is looked at); turn tab, newline and carriage return into spaces; lowercase;
- BertPreTokenizer: split on spaces, and keep each punctuation character as a token
  of its own;
- WordPiece: the longest vocabulary entry first, ``##`` before a word's later pieces,
  [UNK] for a word that cannot be split or is longer than 100 characters;
- ``[CLS] … [SEP]``, truncated to MAX_TOKENS in all.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path

UNKNOWN = "[UNK]"
PREFIX = "##"
MAX_WORD = 100
# BertNormalizer on ASCII: the controls go (all of category Cc but \t, \n, \r), the
# white space that is left becomes a space, and letters are lowercased.
_DROPPED = "".join(chr(c) for c in [*range(0x20), 0x7F] if chr(c) not in "\t\n\r")
_NORMALIZE = str.maketrans(
    "\t\n\rABCDEFGHIJKLMNOPQRSTUVWXYZ", "   abcdefghijklmnopqrstuvwxyz", _DROPPED
)
# BertPreTokenizer on them: runs of letters, digits and the rest that is neither
# space nor punctuation, and each punctuation character alone.
EM_DASH = "\u2014"
PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~" + EM_DASH
_WORDS = re.compile(f"[^ {re.escape(PUNCTUATION)}]+|[{re.escape(PUNCTUATION)}]")


def answers(text: str) -> bool:
    """Whether this tokenizer gives the library's ids for ``text``: ASCII, and the
    em dash, only."""
    return text.isascii() or text.replace(EM_DASH, "").isascii()


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

    def encode(self, text: str, limit: int) -> list[int]:
        """The ids of ``[CLS] text [SEP]``, at most ``limit`` in all, for an ASCII
        ``text`` (``answers``); ValueError for any other."""
        if not answers(text):
            raise ValueError("the plain tokenizer reads ASCII text (and the em dash) only")
        ids = [self.start]
        for piece, special in self._split_specials(text):
            if special:
                found = self.id_of(piece)
                ids.append(self.unknown if found is None else found)
                continue
            for word in pre_tokenize(normalize(piece)):
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


def normalize(text: str) -> str:
    """BertNormalizer (clean_text, lowercase) on ASCII text and the em dash; its
    other steps (CJK spacing, accent stripping) change none of those characters."""
    return text.translate(_NORMALIZE)


def pre_tokenize(text: str) -> Iterator[str]:
    """BertPreTokenizer: words split on spaces, each punctuation mark alone."""
    return iter(_WORDS.findall(text))
