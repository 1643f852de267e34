"""One frame, another filler (chitin.retrieval.template): two claims that are one
sentence with one slot filled otherwise are no duplicate, whatever the cosine
and the alignment say; a slot that says the same in other forms, synonyms or function
words, or that holds numbers alone, leaves the judgement as it was. Pure rules: the
cosine and the alignment are given, so these run without the model."""

from __future__ import annotations

import pytest

from chitin.retrieval.judgement import CONFLICT, DUPLICATE, NONE, Side, depends_on_alignment, judge
from chitin.retrieval.template import opposite_fillers, other_filler


def skill(claim: str) -> Side:
    return Side("skill", claim)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # an opposite the lexicon lacks, one word each side
        ("Keep the retry interval constant", "Keep the retry interval variable"),
        # two seasons, two tools: another value of one slot
        ("Plant garlic cloves in autumn", "Plant garlic cloves in spring"),
        ("Run the linter before every commit.", "Run the formatter before every commit."),
        # the same words in another order
        ("Write dates as day/month/year.", "Write dates as month/day/year."),
        # a scope added on one side
        ("Tell Mia early about any change.", "Tell Mia's teacher early about any change."),
        # a long middle: two things said of one subject (a slot of up to 12 words)
        (
            "Buy concert tickets the day the sale opens.",
            "Buy concert tickets in the last week before the show, when prices drop.",
        ),
        ("Proof bread dough in a warm kitchen.", "Proof bread dough overnight in the fridge."),
    ],
)
def test_one_frame_with_another_filler_is_no_duplicate(first: str, second: str) -> None:
    a, b = skill(first), skill(second)
    assert other_filler(a, b) and other_filler(b, a)
    # near in meaning and in the tokens of their own words: a duplicate by the bars
    assert judge(a, b, 0.85, None, 0.6).kind == NONE
    assert judge(a, b, 0.95).kind == NONE  # above the alignment's band too
    assert not depends_on_alignment(a, b, 0.85)  # so the door asks no token vectors


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # a synonym of the table, and two verbs of wishing
        ("Dana likes short status updates", "Dana prefers brief status updates"),
        # another form of one word, and function words
        (
            "Check for missing values before fitting a model.",
            "Check for missing values before you fit any model.",
        ),
        # two words on one side of an opposition (both opposite "brief")
        ("Keep answers thorough for the operator", "Keep answers long for the operator"),
        # an indefinite pronoun for what the frame names
        (
            "Reproduce a flaky test in a loop before changing it",
            "Reproduce a flaky test in a loop before changing anything",
        ),
        # numbers alone: a template filled in, a bulk import's near duplicates
        (
            "Deploy service 17 only after the smoke tests pass",
            "Deploy service 18 only after the smoke tests pass",
        ),
        # more than a slot differs: left to the cosine and the alignment
        ("Reproduce the bug before you fix it", "Reproduce a bug before fixing it"),
        # one negation spelt another way: "cannot", "can not", "can't", "won't"
        (
            "A blurred photo cannot be saved in editing.",
            "A blurred photo can NOT be saved in editing",
        ),
        ("A blurred photo can't be saved in editing", "A blurred photo cannot be saved in editing"),
        (
            "The build won't pass without the lockfile",
            "The build will not pass without the lockfile",
        ),
        # one adverb moved, the other words in their order: English places it freely
        ("Always run tests before pushing", "Run tests always before pushing"),
        (
            "Check the logs carefully before restarting",
            "Carefully check the logs before restarting",
        ),
        ("Don't push to main directly", "Do not push directly to main"),
    ],
)
def test_a_slot_that_says_the_same_stays_a_duplicate(first: str, second: str) -> None:
    a, b = skill(first), skill(second)
    assert not other_filler(a, b)
    assert judge(a, b, 0.9, None, 0.6).kind == DUPLICATE


def test_by_words_alone_the_same_rule_holds() -> None:
    """`check` without vectors judges by the share of topic words: one frame with
    another filler is no duplicate there either, and a template of numbers is."""
    first = skill("Keep the retry interval constant for payment and invoice batch jobs")
    second = skill("Keep the retry interval variable for payment and invoice batch jobs")
    assert judge(first, second, None).kind == NONE
    deploy = "Deploy service {} only after the smoke tests pass"
    numbered = judge(skill(deploy.format(17)), skill(deploy.format(18)), None)
    assert numbered.kind == DUPLICATE


def test_a_conflict_read_before_is_kept_and_triggers_are_not_asked() -> None:
    brief, long = skill("Keep commit messages brief"), skill("Keep commit messages long")
    assert judge(brief, long, 0.9).kind == CONFLICT  # the poles decide first
    first = Side("trigger", "roll back the release", "a deploy fails", False)
    second = Side("trigger", "roll back the change", "a deploy fails", False)
    assert not other_filler(first, second)


@pytest.mark.parametrize(
    ("first", "second", "words"),
    [
        # a synonym of an opposite: "terse" is "brief" in the table, opposite "long"
        (
            "Keep the reply terse and to the point.",
            "Keep the reply long and to the point.",
            ("terse", "long"),
        ),
        # opposites of the lexicon the poles' rule drops where one claim names both
        # ends ("warm" against "at room temperature"); in one frame the slot decides
        (
            "Serve the soup cold, at 4 degrees.",
            "Serve the soup warm, at room temperature.",
            ("cold", "warm"),
        ),
    ],
)
def test_opposites_in_the_slots_of_one_frame_are_a_conflict(
    first: str, second: str, words: tuple[str, str]
) -> None:
    a, b = skill(first), skill(second)
    assert opposite_fillers(a, b) == words
    verdict = judge(a, b, 0.9, None, 0.6)
    assert verdict.kind == CONFLICT and verdict.reason == '"{}" ↔ "{}"'.format(*words)


def test_no_opposites_in_the_slots_is_no_conflict() -> None:
    # another thing in the slot, and a word both claims say ("night") is no filler
    linter, formatter = (
        skill("Run the linter before every commit."),
        skill("Run the formatter before every commit."),
    )
    assert opposite_fillers(linter, formatter) is None
    down = skill("Turn the heating down at night to save money.")
    up = skill("Turn the heating up at night so the house is warm by morning.")
    assert opposite_fillers(down, up) is None
