"""The alignment of the words each insight has of its own (chitin.retrieval.alignment)
and what it changes in the judgement: pure, with the numbers given. The door's part,
with the model, is in tests/test_door_alignment.py."""

from __future__ import annotations

import pytest

from chitin.retrieval.alignment import Tokens, own_alignment, words_of
from chitin.retrieval.judgement import (
    ALIGN_CEILING,
    CONFLICT,
    DUPLICATE,
    NONE,
    Side,
    depends_on_alignment,
    judge,
)

STOP = frozenset({"the", "to", "before", "it"})
PROFILE = Side("skill", "Profile before optimising")
MEASURE = Side("skill", "Measure performance before trying to optimize it")
SECRETS = Side("skill", "Never commit secrets to the repository.")
# not one frame (one frame with another filler is no duplicate at all:
# tests/test_template.py): no two content words open or close both alike
GENERATED = Side("skill", "Do not commit generated build files or caches to a shared repository.")


def test_a_word_piece_belongs_to_its_whole_word() -> None:
    assert words_of(["profile", "opt", "##imi", "##sing", "."]) == (
        "profile",
        "optimising",
        "optimising",
        "optimising",
        ".",
    )
    assert words_of(["##x"]) == ("x",)  # nothing to join it to: a word of its own


def test_only_the_words_of_their_own_are_aligned() -> None:
    x, y, z = (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.6, 0.8, 0.0)
    # "commit" shared (and unlike both), "the" a stopword: only "secrets"/"files" count
    first = Tokens(("commit", "the", "secrets"), (y, x, x))
    second = Tokens(("commit", "the", "files"), (x, x, z))
    assert own_alignment(first, second, STOP) == pytest.approx(0.6)
    # a side with no word of its own is aligned with all its tokens
    same = Tokens(("commit",), (z,))
    assert own_alignment(same, second, STOP) == pytest.approx(1.0)
    assert own_alignment(Tokens((), ()), second, STOP) == 0.0


def test_a_paraphrase_under_the_cosine_bar_is_a_duplicate_by_its_own_words() -> None:
    assert judge(PROFILE, MEASURE, 0.55).kind == NONE  # pooled, the two are far
    assert judge(PROFILE, MEASURE, 0.55, alignment=0.63).kind == DUPLICATE
    assert judge(PROFILE, MEASURE, 0.55, alignment=0.30).kind == NONE
    assert judge(PROFILE, MEASURE, 0.40, alignment=0.90).kind == NONE  # under the floor


def test_a_look_alike_over_the_bar_is_not_one_lesson_when_its_own_words_differ() -> None:
    assert judge(SECRETS, GENERATED, 0.80).kind == DUPLICATE
    assert judge(SECRETS, GENERATED, 0.80, alignment=0.15).kind == NONE
    assert judge(SECRETS, GENERATED, 0.80, alignment=0.50).kind == DUPLICATE
    # near enough, the cosine decides alone (a template filled in: "service 1" / "2")
    assert judge(SECRETS, GENERATED, ALIGN_CEILING, alignment=0.15).kind == DUPLICATE


def test_the_alignment_is_asked_only_where_it_can_change_the_verdict() -> None:
    assert depends_on_alignment(PROFILE, MEASURE, 0.55)
    assert depends_on_alignment(SECRETS, GENERATED, 0.80)
    assert not depends_on_alignment(PROFILE, MEASURE, 0.40)
    assert not depends_on_alignment(SECRETS, GENERATED, 0.95)
    assert not depends_on_alignment(PROFILE, MEASURE, None)
    negated = Side("skill", "Never profile before optimising")
    assert judge(PROFILE, negated, 0.85).kind == CONFLICT
    assert not depends_on_alignment(PROFILE, negated, 0.85)  # a conflict, whatever it says


def test_across_types_the_cosine_decides_alone() -> None:
    tdd = Side("skill", "Avoid writing the failing test before the fix")
    weaken = Side("trigger", "weakening the assertion", "a test fails", True)
    assert judge(tdd, weaken, 0.62, alignment=0.9).kind == NONE
    assert not depends_on_alignment(tdd, weaken, 0.62)


def test_a_reworded_trigger_needs_its_own_words_only_clear_the_veto() -> None:
    """Two triggers' whole texts are a condition and a response, both reworded in a
    reworded trigger; the responses' cosine already keeps one situation with another
    response apart, so the alignment's bar for them is the veto's (0.30), not 0.45."""
    weaken = Side("trigger", "weakening the assertion", "a test fails", True)
    loosen = Side("trigger", "loosening what the test checks", "a check goes red", True)
    assert depends_on_alignment(weaken, loosen, 0.55, 0.50)
    assert judge(weaken, loosen, 0.55, 0.50, 0.35).kind == DUPLICATE
    assert judge(weaken, loosen, 0.55, 0.50, 0.25).kind == NONE
    # the responses apart: another response to one situation, whatever the alignment
    assert judge(weaken, loosen, 0.55, 0.20, 0.35).kind == NONE
    # other insights keep the duplicate bar of the alignment
    assert judge(PROFILE, MEASURE, 0.55, None, 0.35).kind == NONE


def test_without_the_responses_cosine_a_trigger_clears_the_duplicate_bar() -> None:
    """qa55: check and dedupe have no cosine of the two responses alone (no sidecar
    stores it), so the veto's bar let two triggers of one situation with other
    responses ("…: roll back before anything else" / "…: page the on-call engineer")
    join as one lesson, which contribute, weighing the responses, keeps apart. Without
    that guard, a word the responses share stands in for it; with none, a trigger's
    own words clear the bar of any other insight."""
    roll = Side("trigger", "roll back before anything else", "a deployment fails")
    page = Side("trigger", "page the on-call engineer", "a deploy fails")
    assert judge(roll, page, 0.61, None, 0.35).kind == NONE
    assert judge(roll, page, 0.61, None, 0.50).kind == DUPLICATE
    assert judge(roll, page, 0.61, 0.45, 0.35).kind == DUPLICATE  # the door's, as before
    weaken = Side("trigger", "weakening the assertion", "a test fails", True)
    loosen = Side("trigger", "loosening the assertion of the test", "a check goes red", True)
    assert judge(weaken, loosen, 0.55, None, 0.35).kind == DUPLICATE  # "assertion" shared
