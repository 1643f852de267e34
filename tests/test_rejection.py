"""One claim turns down what the other takes (chitin.retrieval.rejection): a conflict
where the two are on one topic, whatever the alignment says. Pure rules: the cosine and
the alignment are given, so these run without the model."""

from __future__ import annotations

import pytest

from chitin.retrieval.judgement import CONFLICT, Side, judge
from chitin.retrieval.rejection import rejected


def skill(claim: str) -> Side:
    return Side("skill", claim)


@pytest.mark.parametrize(
    ("first", "second", "word"),
    [
        # "rather than" and "instead of" name what the other takes
        (
            "Ship the quarterly report as a PDF.",
            "Ship the quarterly report as a shared document rather than a PDF.",
            "pdf",
        ),
        (
            "Keep the nightly backups on an external drive.",
            "Keep the nightly backups in cloud storage instead of on an external drive.",
            "driv",  # a root, as the topic words are
        ),
        # a contrasting "not" or "never", after a comma
        (
            "Jun wants code review notes in the pull request.",
            "Jun wants code review notes in a call, never in the pull request.",
            "pull",
        ),
        (
            "Format dates in the report as day first.",
            "Format dates in the report as year first, not day first.",
            "day",
        ),
    ],
)
def test_one_frame_whose_filler_the_other_turns_down_is_a_conflict(
    first: str, second: str, word: str
) -> None:
    a, b = skill(first), skill(second)
    assert rejected(a, b) == rejected(b, a) == word
    # near in meaning, their own words aligned: a duplicate by the bars, neither by the frame
    verdict = judge(a, b, 0.85, None, 0.6)
    assert verdict.kind == CONFLICT and word in verdict.reason
    assert judge(a, b, None).kind == CONFLICT  # by words too: check without vectors


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # both turn the same thing down: no side taken against the other
        (
            "Carry medicines in the cabin bag, not in the hold.",
            "Carry medicines in hand luggage rather than in the hold.",
        ),
        # a word the taker itself puts second ("over") is not one it takes
        ("Prefer tabs over spaces in the Makefile.", "Use tabs in the Makefile, not spaces."),
        # "not just" adds
        ("Test the parser and the lexer.", "Test the parser and, not just the lexer."),
        # a plain "not" rejects nothing here: left to the negation rule
        (
            "Page the on-call engineer for urgent alerts.",
            "Page the on-call engineer for alerts that are not urgent.",
        ),
        # the rejected word is not one the other says
        ("Write the summary in English.", "Write the summary in plain words, not jargon."),
    ],
)
def test_no_word_turned_down_is_no_rejection(first: str, second: str) -> None:
    assert rejected(skill(first), skill(second)) is None


def test_other_words_around_it_need_the_same_topic_by_meaning() -> None:
    """Not one frame: words of their own on each side, so the topic is the same only by
    meaning (TOPIC_COSINE), as for any single opposing cue."""
    a = skill("Log build errors as structured JSON lines.")
    b = skill("Write build log messages as plain readable sentences, not JSON.")
    assert rejected(a, b) == "json"
    assert judge(a, b, 0.80).kind == CONFLICT
    assert judge(a, b, 0.60).kind != CONFLICT


def test_triggers_are_not_asked() -> None:
    """A trigger's claim is half of what it says: the frame is not read there."""
    first = Side("trigger", "use the staging database", "a migration is tested")
    second = Side("trigger", "use a copy, not the staging database", "a migration is tested")
    assert rejected(first, second) is None
