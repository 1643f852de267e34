"""chitin.retrieval.synonym_lookup: the synonym lexicon asked about a few words without
loading its tables, with the tables' answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from chitin.retrieval import synonym_lookup, synonyms
from chitin.retrieval.synonym_lookup import Lexicon


def test_every_form_phrase_and_group_reads_as_the_tables_say() -> None:
    lexicon = synonym_lookup.lexicon()
    assert lexicon is not None
    words, phrases = synonyms.canonical(), synonyms.phrases()
    assert [w for w, head in words.items() if lexicon.head_of(w) != head] == []
    assert [p for p, head in phrases.items() if lexicon.phrase_head(p) != head] == []
    firsts = {phrase.split()[0] for phrase in phrases}
    assert [w for w in firsts if not lexicon.starts_phrase(w)] == []
    assert [w for w in words if lexicon.starts_phrase(w) != (w in firsts)] == []
    assert [g for g in synonyms.groups() if lexicon.entries(g[0]) != g] == []
    assert synonym_lookup.head_of("invoices") == words["invoices"]
    assert (
        synonym_lookup.entries(words["invoices"])
        == synonyms.groups()[[g[0] for g in synonyms.groups()].index(words["invoices"])]
    )


FORMS = b"""# a comment: '= head|word'
= fix|fix fixed fixes mend mended
= switch off|shut shuts
+ switch off|power down|powered down
"""
GROUPS = b"# fixing\nfix, mend\nswitch off, shut, power down\n"


def test_a_word_is_found_only_among_a_lines_forms() -> None:
    lexicon = Lexicon(FORMS, GROUPS)
    assert lexicon.head_of("mended") == "fix"
    assert lexicon.head_of("fix") == "fix"
    assert lexicon.head_of("shut") == "switch off"
    assert lexicon.head_of("switch") is None  # a word of a head, not a form
    assert lexicon.head_of("off") is None
    assert lexicon.head_of("head") is None  # a comment's
    assert lexicon.head_of("power") is None  # a phrase's word
    assert lexicon.phrase_head("powered down") == "switch off"
    assert lexicon.phrase_head("power") is None
    assert lexicon.phrase_head("switch off") is None  # a head, not a phrase of its line
    assert lexicon.starts_phrase("powered") and not lexicon.starts_phrase("down")
    assert lexicon.entries("switch off") == ("switch off", "shut", "power down")
    assert lexicon.entries("mend") == ()  # not a head, here nor in the real lexicon


def test_without_the_made_file_the_tables_answer(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(synonym_lookup, "asset_path", lambda *parts: tmp_path.joinpath(*parts))
    synonym_lookup.lexicon.cache_clear()
    try:
        assert synonym_lookup.lexicon() is None
        assert synonym_lookup.head_of("invoices") == synonyms.canonical()["invoices"]
        assert synonym_lookup.phrase_head("getting rid of") == synonyms.phrases()["getting rid of"]
        assert synonym_lookup.starts_phrase("getting")
        assert not synonym_lookup.starts_phrase("rid")
    finally:
        monkeypatch.undo()
        synonym_lookup.lexicon.cache_clear()
