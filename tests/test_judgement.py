"""The duplicate and conflict judgement (chitin.retrieval.judgement), as pure rules:
the cosine is given, so these run without the model."""

from __future__ import annotations

import pytest

from chitin.retrieval.judgement import (
    CONFLICT,
    DUPLICATE,
    MEANING,
    NONE,
    WORDS,
    Side,
    exact_key,
    judge,
)
from chitin.retrieval.stance import stance


def skill(claim: str) -> Side:
    return Side("skill", claim)


def trigger(condition: str, claim: str, avoid: bool) -> Side:
    return Side("trigger", claim, condition, avoid)


def test_an_exact_duplicate_ignores_case_spacing_and_punctuation() -> None:
    verdict = judge(
        skill("Reproduce a bug before fixing it"), skill("reproduce a bug  before fixing it!"), None
    )
    assert verdict.kind == DUPLICATE and verdict.exact and verdict.reason == "same claim"
    assert exact_key(skill("a b")) != exact_key(Side("principle", "a b"))


def test_the_same_sentence_under_another_type_is_a_duplicate_not_refused() -> None:
    personality = Side("personality", "Stay curious about surprising results")
    verdict = judge(personality, skill("stay curious about surprising results."), 0.2)
    assert (verdict.kind, verdict.similarity, verdict.exact) == (DUPLICATE, 1.0, False)
    # a trigger's claim is only its response: the same words answer another situation
    response = trigger("a benchmark regresses", "Stay curious about surprising results", False)
    assert judge(personality, response, 0.2).kind != DUPLICATE


def test_a_trigger_is_the_same_by_condition_response_and_avoid() -> None:
    avoid = trigger("a test fails", "weakening the assertion", True)
    assert judge(avoid, trigger("A test fails.", "Weakening the assertion", True), None).exact
    do = judge(avoid, trigger("a test fails", "weakening the assertion", False), 1.0)
    assert (do.kind, do.reason, do.exact) == (CONFLICT, "do ↔ avoid", False)


@pytest.mark.parametrize(
    ("first", "second", "cosine"),
    [
        ("Reproduce a bug before fixing it", "Reproduce the bug before you fix it", 0.87),
        ("Keep commits small and focused", "Make small commits that each do one thing", 0.84),
    ],
)
def test_a_paraphrase_is_a_duplicate_by_meaning_never_a_conflict(
    first: str, second: str, cosine: float
) -> None:
    verdict = judge(skill(first), skill(second), cosine)
    assert (verdict.kind, verdict.basis, verdict.exact) == (DUPLICATE, MEANING, False)
    assert verdict.similarity == cosine


@pytest.mark.parametrize(
    ("first", "second", "cosine", "reason"),
    [
        ("Be brief", "Be thorough", 0.46, '"brief" ↔ "thorough"'),
        ("Prefer small commits", "Prefer large commits", 0.93, '"small" ↔ "large"'),
        ("Use mocks in unit tests", "Don't use mocks in unit tests", 0.89, "negated ↔ affirmed"),
        ("Sam likes phone calls", "Sam dislikes phone calls", 0.88, '"like" ↔ "dislike"'),
        ("Lee prefers email over Slack", "Lee prefers Slack over email", 0.99, "over"),
        # a comparison turned around, its sides whole clauses
        (
            "Correctness of the code matters more than speed",
            "Speed matters more than correctness; ship fast",
            0.8,
            '"correct over',
        ),
        ("Serve the soup hot", "Serve the soup cold", 0.9, '"hot" ↔ "cold"'),
        ("Keep old log files", "Delete old log files", 0.85, '"keep" ↔ "delete"'),
    ],
)
def test_opposing_stances_on_one_topic_are_conflicts(
    first: str, second: str, cosine: float, reason: str
) -> None:
    verdict = judge(skill(first), skill(second), cosine)
    assert verdict.kind == CONFLICT and reason in verdict.reason
    assert judge(skill(second), skill(first), cosine).kind == CONFLICT  # symmetric


@pytest.mark.parametrize(
    ("first", "second", "cosine"),
    [
        ("Be concise in chat", "Be thorough in design documents", 0.21),  # other topics
        ("Run the linter before pushing", "Run the formatter before pushing", 0.60),
        ("Reproduce a bug before fixing it", "Add a regression test after fixing a bug", 0.62),
        ("Boss prefers morning standups", "TDD means writing tests first", -0.01),
        # the same direction twice, and two comparisons of different things
        ("Prefer clarity over speed", "Choose clarity over raw speed in reviews", 0.5),
        ("Tests matter more than docs", "Uptime matters more than features", 0.4),
    ],
)
def test_compatible_and_unrelated_claims_are_neither(
    first: str, second: str, cosine: float
) -> None:
    assert judge(skill(first), skill(second), cosine).kind == NONE


def test_a_negation_in_a_detail_does_not_turn_the_advice_around() -> None:
    detail = "Weakening the assertion before confirming that the test, not the code, is wrong"
    assert not stance(detail).negated
    assert stance("When the build breaks, do not push").negated
    assert stance("Never install packages without asking").negated is False  # two negators


def test_without_vectors_the_judgement_reads_words_and_says_so() -> None:
    near = judge(
        skill("Run the tests before you push"), skill("Run all the tests before pushing"), None
    )
    assert (near.kind, near.basis) == (DUPLICATE, WORDS)
    assert judge(skill("Be brief"), skill("Be thorough"), None).kind == CONFLICT
    assert (
        judge(skill("Use type hints"), skill("Python code carries annotations"), None).kind == NONE
    )


def test_a_reworded_trigger_is_judged_by_its_response_too() -> None:
    one = trigger("About to migrate the production database", "Take a snapshot first", False)
    reworded = trigger("A schema change goes to prod", "Snapshot the database first", False)
    other = trigger("About to migrate the production database", "Tell the on-call team", False)
    # the whole texts near, the responses nearer: one lesson
    assert judge(one, reworded, 0.6, 0.62).kind == DUPLICATE
    # the same situation makes the whole texts near; the responses differ: two lessons
    assert judge(one, other, 0.75, 0.2).kind == NONE
    assert judge(one, reworded, 0.6).kind == NONE  # no response cosine: the whole text's bar


def test_two_claims_about_one_person_need_a_higher_bar() -> None:
    first = Side("relational", "Dana prefers short status updates")
    second = Side("relational", "Dana reads status updates in the morning")
    assert judge(first, second, 0.8).kind == NONE
    assert judge(first, Side("relational", "Dana likes brief status updates"), 0.9).kind == (
        DUPLICATE
    )
    # not relational: the general bar (another filler of one frame is none: test_template)
    short = judge(skill("Use short status updates"), skill("Keep status updates short"), 0.8)
    assert short.kind == DUPLICATE


def test_triggers_of_opposite_or_other_situations_are_neither() -> None:
    # the conditions oppose: two situations, whatever the responses say
    hot = trigger("the oven is still hot", "clean it", True)
    assert judge(hot, trigger("the oven has cooled down", "clean it", False), 0.89, 1.0).kind == (
        NONE
    )
    wrong = trigger("a student gives a wrong answer", "ask them to explain", False)
    right = trigger("a student gives a correct answer", "ask them to explain", False)
    assert judge(wrong, right, 0.97, 1.0).kind == NONE
    # do against avoid in other situations: neither (few shared words in the conditions)
    awake = trigger("the patient is awake and can swallow", "give the oral medication", False)
    out = trigger("the patient is unconscious", "give the oral medication", True)
    assert judge(awake, out, 0.82, 1.0).kind == NONE
    # ... but in one situation reworded, a conflict still
    twice = trigger("the same fix failed twice", "ask the user", False)
    again = trigger("a fix failed two times in a row", "asking the user", True)
    assert judge(twice, again, 0.88, 0.9).kind == CONFLICT


def test_a_trigger_opposes_by_its_response_not_its_condition() -> None:
    # "first" in one response, "last" in the other's condition: no opposition
    first = trigger("the build is slow", "run the tests first", False)
    last = trigger("the last deploy failed", "run the tests again", False)
    assert judge(first, last, 0.75, 0.2).kind == NONE


def test_a_claim_turned_round_twice_is_not_a_conflict() -> None:
    # a negation and an opposite pole: the same advice, or another slot, not opposed
    first, second = (
        skill("Don't merge a branch before CI has passed"),
        skill("Merge a branch after CI has passed"),
    )
    assert judge(first, second, 0.9).kind == NONE
    assert judge(
        skill("I don't check email before noon"), skill("I check email after lunch"), 0.79
    )[0] == (NONE)


def test_one_cue_between_claims_with_words_of_their_own_needs_meaning() -> None:
    # a template with another slot filled: half the words shared, far in meaning
    main = skill("Never push directly to the main branch")
    own = skill("Push directly to your own feature branch as often as you like")
    assert judge(main, own, 0.58).kind == NONE
    assert judge(main, own, 0.75).kind == CONFLICT
    assert judge(main, own, None).kind == CONFLICT  # words alone: the shared words decide
    # no words of its own on one side: the shared words suffice, as before
    assert judge(skill("Mock the database"), skill("Never mock the database"), 0.6).kind == (
        CONFLICT
    )


def test_other_numbers_and_other_words_are_two_values_not_one_lesson() -> None:
    five, fifteen = (
        skill("I run five kilometres on Mondays"),
        skill("I run fifteen kilometres on Saturdays"),
    )
    assert judge(five, fifteen, 0.84).kind == NONE
    assert stance("I run five kilometres").numbers == frozenset({"5"})
    # the number alone differs: a template filled in, near duplicates (a bulk import)
    one, two = (
        skill("Deploy service 1 after the smoke tests pass"),
        skill("Deploy service 2 after the smoke tests pass"),
    )
    assert judge(one, two, 0.95).kind == DUPLICATE
    assert (
        judge(skill("Keep receipts over 50 euros"), skill("File receipts above €50"), 0.74)[0]
        == DUPLICATE
    )


def test_does_is_filler() -> None:
    assert "doe" not in stance("Sam does not want to be copied").topic


def test_once_opening_a_clause_is_after() -> None:
    # "don't X before Y" and "X once Y is done" say the same: turned round twice
    first, second = (
        skill("Do not publish a release before the changelog is written"),
        skill("Publish a release once the changelog is written"),
    )
    assert judge(first, second, 0.88).kind == NONE
    assert "after" in stance("Publish it once you have tested it").poles
    # "once" as a count is not a time: no pole, and no conflict with a "before"
    assert not stance("Rotate the keys once a month").poles
    assert judge(
        skill("Never rotate the keys before a month"), skill("Rotate the keys once a month"), 0.8
    ).kind == (CONFLICT)


def test_front_and_behind_are_opposites() -> None:
    assert judge(
        skill("Mount the camera in front of the desk"),
        skill("Mount the camera behind the desk"),
        0.93,
    ).kind == (CONFLICT)


def test_prefer_x_to_y_is_a_preference() -> None:
    trains, planes = (
        Side("relational", "Ana prefers trains to planes for short trips"),
        Side("relational", "Ana prefers planes to trains for short trips"),
    )
    assert judge(trains, planes, 0.96).kind == CONFLICT
    # "prefer to" + a verb compares nothing
    assert stance("Ana prefers to travel by train").preference is None
