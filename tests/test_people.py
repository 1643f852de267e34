"""The people a claim names (chitin.retrieval.people), and the judgement's rule that a
lesson about one person is never a duplicate of, nor in conflict with, one about
another: pure rules, the cosine given."""

from __future__ import annotations

import pytest

from chitin.retrieval.judgement import CONFLICT, DUPLICATE, NONE, Side, judge
from chitin.retrieval.people import names


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("Alice likes brief replies", {"alice"}),
        ("Tom always wants the numbers first", {"tom"}),
        ("Leo is vegetarian.", {"leo"}),
        ("Text Sofia instead of ringing her; she hates calls.", {"sofia"}),
        ("Tell Dr. Reyes about problems ahead of time", {"reyes"}),
        ("Dr. Kim wants citations in APA style", {"kim"}),
        ("Mr Okafor, our landlord, wants requests by phone.", {"okafor"}),
        ("When reviewing Priya's work, propose a concrete change", {"priya"}),
        ("When Alice asks for a review: keep it short", {"alice"}),
        ("I'm told Kenji thinks best on Monday mornings", {"kenji"}),
        ("Reproduce a bug before fixing it", set()),
        ("MARCO LIKES SHORT STATUS UPDATES", set()),
        ("The user prefers tabs for indentation", set()),
        ("My grandmother cannot eat gluten.", set()),
    ],
)
def test_names_are_read_from_the_writing(text: str, named: set[str]) -> None:
    assert names(text) == named


def relational(claim: str) -> Side:
    return Side("relational", claim)


def test_the_same_lesson_about_two_people_is_two_lessons() -> None:
    alice = relational("Alice likes brief replies")
    assert judge(alice, relational("Bob prefers short answers"), 0.6, alignment=0.9).kind == NONE
    assert judge(alice, relational("Bob prefers short answers"), 0.95).kind == NONE
    # Opposite preferences of two people are no contradiction either.
    assert judge(alice, relational("Bob wants long, detailed replies"), 0.7).kind == NONE


def test_about_one_person_the_judgement_is_as_before() -> None:
    alice = relational("Alice likes brief replies")
    assert judge(alice, relational("Alice prefers short replies"), 0.9).kind == DUPLICATE
    assert judge(alice, relational("Alice wants long, detailed replies"), 0.7).kind == CONFLICT
    # A title is not a name: "Dr. Kim" and "Dr Kim" are one person, "Dr. Reyes" another.
    kim = relational("Dr. Kim wants citations in APA style")
    # (reworded whole: one frame with its middle reworded, "Dr Kim asks for APA style
    # citations", is no duplicate since the thirteenth round: tests/test_template.py)
    assert (
        judge(kim, relational("APA style citations are what Dr Kim wants"), 0.9).kind == DUPLICATE
    )
    assert judge(kim, relational("Dr. Reyes wants citations in APA style"), 0.9).kind == NONE


def test_only_a_lesson_about_people_is_judged_by_its_names() -> None:
    """Tools and places are capitalised too: two skills naming other tools keep the
    judgement they had (the rule asks for a relational insight)."""
    first = Side("skill", "Tell Sam before a force push")
    second = Side("skill", "Tell Dana before any force push to a shared branch")
    assert judge(first, second, 0.95).kind == DUPLICATE
    assert judge(relational("Tell Sam before a force push"), second, 0.95).kind == NONE
