"""The eleventh round's rules (docs/design.md §9e): a contrasting ", not", the order of
two things turned around, a comparison's shared words, and one wish of a person filled
with two values. Pure rules: the cosine and the alignment are given."""

from __future__ import annotations

from chitin.retrieval.comparison import contrast
from chitin.retrieval.judgement import (
    CONFLICT,
    DUPLICATE,
    NONE,
    Side,
    depends_on_alignment,
    judge,
)
from chitin.retrieval.leaning import leaning, may_oppose
from chitin.retrieval.stance import stance


def skill(claim: str) -> Side:
    return Side("skill", claim)


def person(claim: str) -> Side:
    return Side("relational", claim)


def test_a_contrasting_not_affirms_the_claim() -> None:
    read = stance("Cite the primary source, not the news article about it.")
    assert not read.negated
    assert read.preference is not None and "primary" in read.preference[0]
    assert stance("Do not cite the news article.").negated
    verdict = judge(
        skill("Cite the primary source, not the news article about it."),
        skill("Reference the original study rather than press coverage of it."),
        0.72,
    )
    assert verdict.kind == DUPLICATE


def test_not_just_and_not_only_add_rather_than_contrast() -> None:
    for text in ("Suggest a fix, not just the problem.", "Log the error, not only the code."):
        assert contrast(text) == text
    assert contrast("Use tabs - not spaces") == "Use tabs rather than spaces"


def test_two_things_in_the_other_order_are_a_conflict() -> None:
    verdict = judge(
        skill("Do cardio before weights in the same session"),
        skill("Do weights before cardio in the same session"),
        0.99,
    )
    assert verdict.kind == CONFLICT and "before" in verdict.reason
    after = judge(skill("Do weights after cardio"), skill("Do cardio after weights"), 0.9)
    assert after.kind == CONFLICT
    same = judge(
        skill("Open-source tools deserve more trust than closed-source ones."),
        skill("Open-source tools deserve more trust than closed ones."),
        0.95,
    )
    assert same.kind == DUPLICATE


def test_the_compared_word_on_both_sides_takes_no_side() -> None:
    verdict = judge(
        skill("Prefer integration tests over unit tests for database code."),
        skill("Prefer unit tests over integration tests for database code."),
        0.99,
    )
    assert verdict.kind == CONFLICT and "over" in verdict.reason


def test_an_order_does_not_pair_claims_in_checks_pre_filter() -> None:
    """A templated import ("… only after the smoke tests pass") must not make every two
    of its claims a conflict candidate in `check` (bench/check_scale.py)."""
    first = leaning(skill("Deploy service 1 only after the smoke tests pass"))
    second = leaning(skill("Deploy service 2 only after the smoke tests pass"))
    assert not first.compares and not may_oppose(first, second)


def test_one_wish_of_a_person_filled_with_two_values_is_a_conflict() -> None:
    window = person("Sam prefers window seats on flights.")
    aisle = person("Sam prefers aisle seats on flights.")
    assert depends_on_alignment(window, aisle, 0.90)
    verdict = judge(window, aisle, 0.90, None, 0.19)
    assert verdict.kind == CONFLICT
    # Aligned words of their own: the same wish said again; but one frame with another
    # filler is never that (tests/test_template.py).
    again = person("On flights, Sam likes to sit by the window.")
    assert judge(window, again, 0.90, None, 0.60).kind == DUPLICATE
    assert judge(window, aisle, 0.90, None, 0.60).kind == NONE
    # Not near enough, or not a wish ("drives"), or no alignment to read: no conflict.
    assert judge(window, aisle, 0.83, None, 0.19).kind == NONE
    facts = person("Tom drives a blue car to work."), person("Tom drives a red car to work.")
    assert judge(*facts, 0.90, None, 0.19).kind == NONE
    assert judge(window, aisle, 0.90).kind != CONFLICT


def test_would_rather_x_than_y_is_a_preference() -> None:
    """ "rather" apart from its "than" (§9e, fourteenth round): a wish turned round
    against "prefers Y to X", and what check's pre-filter pairs; "rather than" as one
    marker reads as before."""
    rather = person("Uncle Sam would rather be emailed than called.")
    prefers = person("Uncle Sam prefers phone calls to email.")
    assert stance(rather.claim).preference is not None
    assert judge(rather, prefers, 0.9).kind == CONFLICT
    assert may_oppose(leaning(rather), leaning(prefers))
    assert (
        judge(rather, person("Uncle Sam would rather get an email than a call."), 0.9).kind
        != CONFLICT
    )
    assert stance("Ask for help rather than guessing.").preference == (
        frozenset({"ask", "help"}),
        frozenset({"guess"}),
    )
