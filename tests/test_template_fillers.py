"""Fillers of one kind in a frame's slot (chitin.retrieval.sequence, §9e fourteenth
round): words that say "before" (before, first … then, prior to, ahead of), adverbs of
attention (carefully, closely, thoroughly) and another form of a verb ("changing" / "you
change") do not make a slot differ, so an everyday paraphrase that keeps its frame stays
a duplicate; another order of the same things, "after" against "before", or another
manner ("quickly") still does. Pure rules: the cosine and the alignment are given.
The probes were written before the judgement's verdicts on them were looked at."""

from __future__ import annotations

import pytest

from chitin.retrieval.judgement import CONFLICT, DUPLICATE, Side, judge
from chitin.retrieval.template import other_filler


def skill(claim: str) -> Side:
    return Side("skill", claim)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # the lead's two, lost by round 13's 12-word slot
        ("Write the failing test before the fix", "Write a failing test first, then the fix"),
        (
            "Read the error message carefully before changing code",
            "Read the error message closely before you change any code",
        ),
        # other words for "before"
        (
            "Back up the database before running a migration",
            "Back up the database prior to running any migration",
        ),
        (
            "Pull the latest changes before you start a rebase",
            "Pull the latest changes ahead of starting a rebase",
        ),
        (
            "Run the full test suite first, then push the branch",
            "Run the full test suite before pushing the branch",
        ),
        # adverbs of attention, one for another or added, and another form of the verb
        ("Review the diff thoroughly before merging", "Review the diff carefully before you merge"),
        (
            "Read the contract closely before signing it",
            "Read the contract carefully before you sign it",
        ),
        (
            "Measure the room carefully before buying furniture",
            "Measure the room before you buy any furniture",
        ),
    ],
)
def test_a_slot_of_one_kind_of_filler_stays_a_duplicate(first: str, second: str) -> None:
    a, b = skill(first), skill(second)
    assert not other_filler(a, b) and not other_filler(b, a)
    assert judge(a, b, 0.9, None, 0.6).kind == DUPLICATE


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # the same things in the other order, in a frame: no paraphrase (added after
        # the probes' verdicts were read: the two below are outside any frame)
        (
            "Write the test before the fix in every repository",
            "Write the fix first, then the test in every repository",
        ),
        # "after" is not "before"
        ("Stretch your legs before a long run", "Stretch your legs after a long run"),
        (
            "Read the manual carefully before calling support",
            "Read the manual carefully after calling support",
        ),
        ("Commit the lockfile before the release", "Commit the lockfile after the release"),
        # another manner is another filler
        ("Edit the config file carefully", "Edit the config file quickly"),
    ],
)
def test_another_order_or_manner_is_still_another_filler(first: str, second: str) -> None:
    a, b = skill(first), skill(second)
    assert other_filler(a, b) and other_filler(b, a)
    assert judge(a, b, 0.9, None, 0.6).kind != DUPLICATE  # "after" is a conflict


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Write the test before the fix", "Write the fix first, then the test"),
        (
            "Fix the flaky test first, then the release notes",
            "Fix the release notes before the flaky test",
        ),
    ],
)
def test_an_order_turned_outside_a_frame_is_no_duplicate(first: str, second: str) -> None:
    """Probes written with the others: the same things in the other order, where the two
    share one content word at an end ("Write the", "Fix the"), which is no frame (two
    are asked, FRAME_WORDS). Steps ("first, then") against an order ("before") are read
    as two orders (framed.py): a conflict, as two "before"s turned round are."""
    a, b = skill(first), skill(second)
    assert judge(a, b, 0.9, None, 0.6).kind == CONFLICT
