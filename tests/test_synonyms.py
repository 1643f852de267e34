"""The synonym lexicon (chitin/assets/synonyms.txt, read by chitin.retrieval.synonyms):
its file is well formed, each word in one group, no group joins two opposite poles, and
each word's inflected forms read as its group's head."""

from __future__ import annotations

import pytest

from chitin.resources import asset_path
from chitin.retrieval import synonyms
from chitin.retrieval.lexicon import ANTONYMS
from chitin.retrieval.stance import FILLER, NEGATORS
from chitin.retrieval.synonyms import (
    LONGEST_PHRASE,
    SYNONYM_FORMS,
    canonical,
    format_tables,
    groups,
    heads,
    make_table,
    make_tables,
    parse,
    parse_tables,
    phrases,
)

TEXT = asset_path(synonyms.SYNONYMS).read_text(encoding="utf-8")


def entries() -> list[str]:
    return [entry for group in groups() for entry in group]


def test_the_file_parses_into_many_groups_of_lower_case_words() -> None:
    found = parse(TEXT)
    assert found == groups()
    assert len(found) >= 700
    for line in TEXT.splitlines():
        words = line.partition("#")[0]
        assert words == words.lower(), line
    assert all(len(group) >= 2 for group in found)


def test_a_line_that_is_not_a_group_of_words_is_an_error_naming_its_line() -> None:
    assert parse("# a comment\n\nfix, repair  # trailing\n") == (("fix", "repair"),)
    with pytest.raises(ValueError, match="line 2 "):
        parse("fix, repair\nQuick, fast\n")
    with pytest.raises(ValueError, match="line 1 "):
        parse("alone\n")
    with pytest.raises(ValueError, match="line 1 "):
        parse("e-mail, email\n")


def test_no_stopword_is_a_word_of_a_group_and_a_negator_only_heads_one() -> None:
    # A stopword ("use", "keep") carries no topic. A negator ("avoid", "never") turns a
    # stance around: it may head a group, so that "steer clear of" and "shun" read as
    # "avoid", but no negator reads as another word.
    assert not {entry for entry in entries() if " " not in entry} & FILLER
    for group in groups():
        assert not set(group[1:]) & NEGATORS, group
    assert canonical()["shunned"] == phrases()["steering clear of"] == "avoid"


def test_no_word_is_in_two_groups() -> None:
    seen: dict[str, tuple[str, ...]] = {}
    for group in groups():
        for entry in group:
            assert entry not in seen, (entry, seen[entry], group)
            seen[entry] = group


def test_no_group_holds_both_poles_of_an_opposite_pair() -> None:
    table = canonical()
    for first, second in ANTONYMS:
        if first in table and second in table:
            assert table[first] != table[second], (first, second, table[first])


def test_no_two_groups_make_the_same_form_of_different_words() -> None:
    # make_table would keep such a form with the first group; the data avoids them.
    owner: dict[str, str] = {}
    listed = {entry for entry in entries() if " " not in entry}
    for group in groups():
        for word in group:
            if " " in word:
                continue
            for form in synonyms._forms(word):
                if form in listed:
                    continue
                assert owner.setdefault(form, group[0]) == group[0], (form, owner[form], word)


@pytest.mark.parametrize(
    ("form", "head"),
    [
        ("repaired", "fix"),
        ("mending", "fix"),
        ("fixes", "fix"),
        ("began", "start"),
        ("commencing", "start"),
        ("quicker", "quick"),
        ("rapidly", "quick"),
        ("bought", "buy"),
        ("purchased", "buy"),
        ("prod", "production"),
        ("repos", "repository"),
        ("color", "colour"),
        ("optimized", "optimise"),
        ("errors", "mistake"),
        ("invoices", "bill"),
        ("verified", "check"),
        ("copies", "copy"),
        ("studied", "research"),
        ("busier", "busy"),
        ("simpler", "simple"),
    ],
)
def test_a_word_and_its_forms_read_as_the_group_head(form: str, head: str) -> None:
    assert canonical()[form] == head


def test_a_word_the_lexicon_lists_is_its_own_group_s_not_a_form_of_another() -> None:
    # "manager" is a suffix form of "manage", "later" of "late": the listed word wins.
    assert canonical()["manager"] == "boss"
    assert canonical()["later"] == "later"
    assert canonical()["latest"] == "recent"
    found = make_table((("late", "overdue"), ("recent", "latest")))
    assert found["latest"] == "recent" and found["lated"] == "late"


def test_where_two_groups_make_one_form_the_first_keeps_it() -> None:
    found = make_table((("plan", "scheme"), ("plane", "aircraft")))
    assert found["planed"] == "plan" and found["plane"] == "plane"


def test_forms_that_mean_something_else_are_not_made() -> None:
    table = canonical()
    assert "stated" not in table  # not "stat"
    assert "really" not in table  # not "real"
    assert "apply" not in table  # not "app"
    assert "programmer" not in table  # not "programme"
    assert not (synonyms.DRIFTED - set(entries())) & set(table)


def test_multi_word_entries_are_phrases_not_words() -> None:
    table, multi = canonical(), phrases()
    assert "set up" not in table and "set" not in table
    assert multi["set up"] == multi["setting up"] == multi["sets up"] == "configure"
    assert multi["get rid of"] == "remove"
    assert all(len(phrase.split()) <= LONGEST_PHRASE for phrase in multi)


def test_heads_rewrites_phrases_then_words() -> None:
    words = str.split("we set up the repo and got rid of flaky tests")
    assert heads(words) == [
        "we",
        "configure",
        "the",
        "repository",
        "and",
        "got",
        "rid",
        "of",
        "unstable",
        "test",
    ]
    assert heads(str.split("get rid of it")) == ["remove", "it"]
    assert heads([]) == []


def test_each_irregular_form_belongs_to_a_word_the_lexicon_lists() -> None:
    listed = set(entries())
    assert set(synonyms.IRREGULAR.values()) <= listed
    assert not set(synonyms.IRREGULAR) & listed


def test_the_shipped_tables_are_the_ones_the_lexicon_makes() -> None:
    shipped = parse_tables(asset_path(SYNONYM_FORMS).read_text(encoding="utf-8"))
    assert shipped == make_tables(groups()), "run: python scripts/synonym_forms.py"
    assert (dict(canonical()), dict(phrases())) == shipped


def test_the_tables_file_round_trips_and_rejects_a_stray_line() -> None:
    tables = ({"fix": "fix", "mended": "fix"}, {"set up": "configure", "turn off": "switch off"})
    assert parse_tables("# made\n" + format_tables(tables)) == tables
    with pytest.raises(ValueError, match="not a line"):
        parse_tables("= fix mended\nfix repaired\n")


def test_without_the_made_file_the_tables_are_made(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(synonyms, "SYNONYM_FORMS", "no-such-file.txt")
    synonyms._tables.cache_clear()
    try:
        assert synonyms._tables() == make_tables(groups())
    finally:
        synonyms._tables.cache_clear()


def test_a_group_s_head_is_a_single_word_where_it_has_one() -> None:
    for group in groups():
        assert " " not in group[0] or all(" " in entry for entry in group), group
