"""A few look-ups in the synonym lexicon without loading its tables.

``chitin.retrieval.synonyms`` loads every form of the lexicon into dictionaries: 5-8 ms
for a process's first look-up (the made tables and the groups), more than a retrieve
may spend on a lexicon it asks about a few words. Retrieval by text asks about the
words of a query that no insight holds, and the phrases its words start (docs/design.md
§6b, round 6), so it searches the files' bytes instead, read once a process and made
searchable with two replaces (~0.2 ms): the made tables (``synonyms.SYNONYM_FORMS``,
"= head|form form ..." and "+ head|phrase|phrase" lines; one search, ~0.1-0.3 ms, a
word), and a group's line of ``synonyms.SYNONYMS``. The answers are the tables' (tests/
test_synonym_lookup.py compares every form); without the made file, the tables answer.
"""

from __future__ import annotations

import functools

from chitin.resources import asset_path
from chitin.retrieval import synonyms


class Lexicon:
    """The lexicon's files as bytes, made once so that one search finds an entry: the
    single words' table with each form between two spaces ("\n= head| form form \n"),
    the phrases' with each phrase between two bars ("\n+ head|phrase|phrase|\n"), and
    the groups with each line after a newline."""

    __slots__ = ("groups", "phrases", "words")

    def __init__(self, forms: bytes, groups: bytes) -> None:
        split = forms.find(b"\n+ ")
        words = forms if split < 0 else forms[:split]
        self.words = b"\n" + words.replace(b"|", b"| ").replace(b"\n", b" \n") + b" \n"
        self.phrases = b"" if split < 0 else forms[split:].replace(b"\n", b"|\n") + b"|\n"
        self.groups = b"\n" + groups

    def head_of(self, word: str) -> str | None:
        """The head of the group whose forms hold ``word`` (one word, lower case)."""
        pattern = b" " + word.encode() + b" "
        at = self.words.find(pattern)
        while at >= 0:
            start = self.words.rfind(b"\n", 0, at) + 1
            bar = self.words.find(b"|", start)
            # a head may itself hold spaces ("switch off"): the match is after its "|"
            if self.words.startswith(b"= ", start) and 0 <= bar < at:
                return self.words[start + 2 : bar].decode("utf-8")
            at = self.words.find(pattern, at + 1)
        return None

    def phrase_head(self, phrase: str) -> str | None:
        """The head of the group whose phrases hold ``phrase`` ("setting up")."""
        at = self.phrases.find(b"|" + phrase.encode() + b"|")
        if at < 0:
            return None
        start = self.phrases.rfind(b"\n", 0, at) + 1
        return self.phrases[start + 2 : self.phrases.find(b"|", start)].decode("utf-8")

    def starts_phrase(self, word: str) -> bool:
        """Whether a phrase of the lexicon starts with ``word``."""
        return b"|" + word.encode() + b" " in self.phrases

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


def starts_phrase(word: str) -> bool:
    found = lexicon()
    if found is None:
        return any(phrase.startswith(word + " ") for phrase in synonyms.phrases())
    return found.starts_phrase(word)


def entries(head: str) -> tuple[str, ...]:
    found = lexicon()
    if found is None:
        return next((g for g in synonyms.groups() if g[0] == head), ())
    return found.entries(head)
