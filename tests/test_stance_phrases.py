"""Opposite phrases as the stance rules read them (chitin/assets/opposite-phrases.txt,
chitin.retrieval.stance): a phrase is one pole, longest first, in its verb's forms;
its words are no topic and its negators no negation (docs/design.md §9e, tenth round)."""

from __future__ import annotations

import pytest

from chitin.retrieval.judgement import CONFLICT, NONE, Side, judge
from chitin.retrieval.stance import opposed_poles, parse_phrases, phrased, stance, words_of


def skill(claim: str) -> Side:
    return Side("skill", claim)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Keep the butter at room temperature", "Keep the butter chilled"),
        ("Apply the schema migrations all at once", "Apply the schema migrations gradually"),
        ("Label the parcels by hand", "Label the parcels automatically"),
        ("Hold the weekly planning in person", "Hold the weekly planning remotely"),
        ("Leave the porch light turned on overnight", "Leave the porch light turned off overnight"),
        ("Tom can't stand jazz in the car", "Tom loves jazz in the car"),
        ("Send the invoices one at a time", "Send the invoices in bulk"),
    ],
)
def test_opposite_phrases_are_conflicts(first: str, second: str) -> None:
    # The model embeds the two close: without the phrases, a duplicate by meaning.
    assert judge(skill(first), skill(second), 0.9).kind == CONFLICT
    assert judge(skill(second), skill(first), 0.9).kind == CONFLICT


def test_a_phrase_is_one_pole_its_words_no_topic_and_its_negator_no_negation() -> None:
    read = stance("Tom can't stand jazz in the car")
    assert "ca_not_stand" in read.poles
    assert not read.negated
    assert read.topic == frozenset({"tom", "jazz", "car"})
    # "can't stand" and "hates" say the same: no conflict, as a negation made it.
    assert judge(skill("Tom can't stand jazz"), skill("Tom hates jazz"), 0.9).kind != CONFLICT


def test_the_longest_phrase_is_read_first() -> None:
    assert phrased(words_of("Do one thing at a time")) == ["do", "one_thing_at_a_time"]
    assert phrased(words_of("book it at the last minute")) == ["book", "it", "at_the_last_minute"]
    assert "at_once" in stance("Merge them at once").poles


def test_a_phrase_s_verb_is_read_in_its_forms() -> None:
    assert "turn_off" in stance("Turning off the lights at night saves money").poles
    assert "turn_off" in stance("She turns off notifications on weekends").poles
    assert "take_on" in stance("He took on the migration alone").poles


def test_a_pole_a_phrase_s_own_word_takes_is_still_read() -> None:
    # "stay quiet" is a phrase (against "speak up"), and "quiet" keeps its opposites.
    quiet, loud = skill("Stay quiet in design reviews"), skill("Speak loudly in design reviews")
    assert "quiet" in stance(quiet.claim).poles
    assert judge(quiet, loud, 0.8).kind == CONFLICT


def test_the_main_clause_reach_counts_a_phrase_s_words() -> None:
    # "never" is the sixth word: a detail, as it was before the phrase was one token.
    assert not stance("Ask for feedback in private, never in public").negated
    assert stance("Never ask for feedback in public").negated


def test_a_pair_of_comparisons_takes_no_side() -> None:
    praise = frozenset({"in_public", "in_private"})
    criticism = frozenset({"one_on_one", "in_front_of_the_team"})
    assert opposed_poles(praise, criticism) == []
    assert opposed_poles(frozenset({"in_private"}), criticism) == [
        ("in_private", "in_front_of_the_team")
    ]


def test_a_word_after_non_is_no_pole() -> None:
    assert "urgent" in stance("Ship urgent fixes on Friday").poles
    assert "urgent" not in stance("Ship non-urgent fixes on Friday").poles
    urgent = skill("Ship non-urgent fixes on Monday")
    later = skill("Fixes that can wait ship Monday")
    assert judge(urgent, later, 0.8).kind != CONFLICT


def test_a_negation_the_phrase_list_leaves_out_is_read_as_a_negation() -> None:
    assert stance("I would rather not travel in winter").negated
    assert stance("There is not enough time to review").negated


def test_the_phrase_file_names_a_line_that_is_no_pair() -> None:
    assert parse_phrases("# a comment\nby hand / automatically\n") == [
        ((("by", "hand"), None), (("automatically",), None))
    ]
    assert parse_phrases("turn* on / turn* off") == [((("turn", "on"), 0), (("turn", "off"), 0))]
    with pytest.raises(ValueError, match=r"line 2 of opposite-phrases\.txt: not a pair"):
        parse_phrases("by hand / automatically\nby hand\n")
    with pytest.raises(ValueError, match="line 1"):
        parse_phrases("a / b / c")


def test_phrase_poles_about_other_things_stay_apart() -> None:
    butter, report = skill("Keep the butter at room temperature"), skill("File the report chilled")
    assert judge(butter, report, 0.2).kind == NONE
    assert judge(butter, report, None).kind == NONE
