"""Opposing stances read in one frame or in an order of steps
(chitin.retrieval.framed, §9e fourteenth round): a negation past the stance's reach,
a particle turned round, and "A first, then B" against "B first, then A" are
conflicts; the same sentence negated twice, a particle in another place, the same
order said with other words, and a conditional "then" are not. Pure rules: the cosine
is given, so these run without the model."""

from __future__ import annotations

import pytest

from chitin.retrieval.judgement import CONFLICT, Side, judge
from chitin.retrieval.rejection import other_opposition


def skill(claim: str) -> Side:
    return Side("skill", claim)


@pytest.mark.parametrize(
    ("first", "second", "reason"),
    [
        # a negator the main clause's reach does not read (it was "another filler")
        (
            "A glass of wine in the evening helps me sleep.",
            "A glass of wine in the evening does not help me sleep.",
            "negated ↔ affirmed",
        ),
        (
            "Tap water in this building is safe to drink unfiltered.",
            "Tap water in this building is not safe to drink unfiltered.",
            "negated ↔ affirmed",
        ),
        # both read as negated by "without": the other negator is the difference
        (
            "The shop takes returns without a receipt.",
            "The shop doesn't take returns without a receipt.",
            "negated ↔ affirmed",
        ),
        # particles, which no pole reads
        ("Bake the pie with the foil on.", "Bake the pie with the foil off.", '"on" ↔ "off"'),
        (
            "Turn the volume down during calls with clients.",
            "Turn the volume up during calls with clients.",
            '"down" ↔ "up"',
        ),
        # an order of steps turned round
        (
            "Show the demo first, then explain the design.",
            "Explain the design first, then show the demo.",
            '"demo before design" ↔ "design before demo"',
        ),
        (
            "I write the summary first and add the details afterwards.",
            "I add the details first and write the summary afterwards.",
            '"summary before detail" ↔ "detail before summary"',
        ),
    ],
)
def test_an_opposing_stance_the_stance_does_not_read_is_a_conflict(
    first: str, second: str, reason: str
) -> None:
    a, b = skill(first), skill(second)
    verdict = judge(a, b, 0.95, None, 0.6)
    assert verdict.kind == CONFLICT
    assert judge(b, a, 0.95, None, 0.6).kind == CONFLICT
    if "before" not in reason:  # the roots of an order's words are the reason's
        assert verdict.reason == reason or verdict.reason == " ↔ ".join(reason.split(" ↔ ")[::-1])
    assert judge(a, b, None).kind == CONFLICT  # by words alone too (check, dedupe)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # negated on both sides, or a negator with words of its own
        ("Do not deploy on Fridays.", "Never deploy on Fridays."),
        ("Use tabs in the Makefile.", "Use tabs in the Makefile, not only spaces elsewhere."),
        # the same order in other words
        (
            "Run the full test suite first, then push the branch",
            "Run the full test suite, then push the branch",
        ),
        # a conditional "then" is no step
        (
            "If the build fails, then revert the merge.",
            "If you revert the merge, then the build fails.",
        ),
        # a particle against a word that is not its opposite
        ("Keep the lights on in the hall at night", "Keep the lights dim in the hall at night"),
    ],
)
def test_no_opposing_stance_is_read_where_none_is_taken(first: str, second: str) -> None:
    a, b = skill(first), skill(second)
    assert other_opposition(a, b) == "" and other_opposition(b, a) == ""
