"""A few look-ups in the synonym lexicon without loading its tables.

``chitin.retrieval.synonyms`` loads every form of the lexicon into dictionaries: ~6 ms
for a process's first look-up (the made tables and the groups), more than a retrieve
may spend on a lexicon it asks about a few words. Retrieval by text asks about the
words of a query that no insight holds (docs/design.md §6b, round 6), so it finds them
in the files instead, read once a process (~0.5 ms): the single words' table (the
made file ``synonyms.SYNONYM_FORMS``, "= head|form form ..." lines) searched as bytes,
~0.1-0.3 ms a word; its phrases ("+ head|phrase|phrase ...") as a dictionary; and a
group's entries from its line of ``synonyms.SYNONYMS``. The answers are the tables'
(tests/test_synonym_lookup.py compares every form); without the made file, the tables
themselves answer.
"""

from __future__ import annotations

import functools

from chitin.resources import asset_path
from chitin.retrieval import synonyms


class Lexicon:
    """The lexicon's files, as bytes: each section starts with a newline, so that a
    line is found by its newline."""

    __slots__ = ("groups", "phrases", "words")

    def __init__(self, forms: bytes, groups: bytes) -> None:
        split = forms.find(b"\n+ ")
        self.words = b"\n" + (forms if split < 0 else forms[:split]) + b"\n"
        self.phrases = b"" if split < 0 else forms[split:] + b"\n"
        self.groups = b"\n" + groups

    def head_of(self, word: str) -> str | None:
        """The head of the group whose forms hold ``word`` (one word, lower case)."""
        found = word.encode()
        for before in (b"|", b" "):
            for after in (b" ", b"\n"):
                head = _line_head(self.words, before + found + after, b"= ")
                if head is not None:
                    return head
        return None

    def phrase_head(self, phrase: str) -> str | None:
        """The head of the group whose phrases hold ``phrase`` ("setting up")."""
        found = phrase.encode()
        for after in (b"|", b"\n"):
            head = _line_head(self.phrases, b"|" + found + after, b"+ ")
            if head is not None:
                return head
        return None

    def entries(self, head: str) -> tuple[str, ...]:
        """The entries of the group whose head is ``head``, as ``synonyms.groups``."""
        at = self.groups.find(b"\n" + head.encode() + b",")
        if at >= 0:
            end = self.groups.find(b"\n", at + 1)
            line = self.groups[at + 1 : None if end < 0 else end].decode("utf-8")
            found = synonyms.parse(line)
            if found and found[0][0] == head:
                return found[0]
        return next((g for g in synonyms.groups() if g[0] == head), ())


def _line_head(text: bytes, pattern: bytes, prefix: bytes) -> str | None:
    """The head of the first line of ``text`` (lines "<prefix>head|…") that holds
    ``pattern`` after its "|" (a head may itself hold spaces: "switch off")."""
    at = text.find(pattern)
    while at >= 0:
        start = text.rfind(b"\n", 0, at) + 1
        bar = text.find(b"|", start)
        if text.startswith(prefix, start) and 0 <= bar <= at:
            return text[start + len(prefix) : bar].decode("utf-8")
        at = text.find(pattern, at + 1)
    return None


@functools.cache
def lexicon() -> Lexicon | None:
    """The lexicon's files, read once; None without the made tables (``synonyms``'
    own tables then answer: see ``head_of``)."""
    try:
        forms = asset_path(synonyms.SYNONYM_FORMS).read_bytes()
        groups = asset_path(synonyms.SYNONYMS).read_bytes()
    except OSError:
        return None
    return Lexicon(forms, groups)


def head_of(word: str) -> str | None:
    found = lexicon()
    return synonyms.canonical().get(word) if found is None else found.head_of(word)


def phrase_head(phrase: str) -> str | None:
    found = lexicon()
    return synonyms.phrases().get(phrase) if found is None else found.phrase_head(phrase)


def entries(head: str) -> tuple[str, ...]:
    found = lexicon()
    if found is None:
        return next((g for g in synonyms.groups() if g[0] == head), ())
    return found.entries(head)
