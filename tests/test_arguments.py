"""model/arguments.py: the one parser of raw arguments both front ends call. The CLI
gives texts (``--type skill,trigger``), the MCP server JSON values (``["skill"]``);
each refusal is one line naming the allowed values, the same for both."""

from __future__ import annotations

import pytest

from chitin.errors import ValidationError
from chitin.model import arguments


@pytest.mark.parametrize(
    ("raw", "values"),
    [
        ("skill,trigger", ("skill", "trigger")),  # a flag's comma list
        (["skill", "trigger"], ("skill", "trigger")),  # a tool's list
        ("skill, ,", ("skill",)),  # blanks dropped
        (None, ()),
        ([], ()),
    ],
)
def test_a_comma_list_and_a_list_give_the_same_values(raw: object, values: object) -> None:
    assert arguments.values(raw) == values  # type: ignore[arg-type]


def test_a_type_named_twice_is_one_type() -> None:
    """`retrieve` filled its result once per type named: ["skill"] * 100000 from an
    MCP client kept the server busy for half an hour, after the client had gone."""
    assert arguments.kinds("skill,principle,skill, skill") == ("skill", "principle")
    assert arguments.kinds(["trigger"] * 100_000) == ("trigger",)


def test_a_type_not_known_is_refused_naming_the_allowed_ones() -> None:
    assert arguments.kinds(" skill , trigger") == ("skill", "trigger")
    with pytest.raises(ValidationError) as refused:
        arguments.kinds(["skill", "skil"])
    assert str(refused.value) == (
        "invalid type 'skil' (allowed: behavioral, personality, relational, principle, "
        "skill, trigger)"
    )


@pytest.mark.parametrize(
    ("raw", "shown"),
    [("y", "'y'"), ("2", "'2'"), (2, "2"), (1.5, "1.5")],  # a flag's text, a tool's number
)
def test_a_threshold_out_of_range_is_refused_as_it_was_given(raw: object, shown: str) -> None:
    with pytest.raises(ValidationError) as refused:
        arguments.threshold(raw, semantic=False)
    assert str(refused.value) == f"threshold must be a number from 0 to 1, got {shown}"


def test_defaults_and_ranges() -> None:
    assert arguments.threshold(None, semantic=False) == 0.2
    assert arguments.threshold(None, semantic=True) == 0.5
    assert arguments.floor(None) is None and arguments.floor("0.7") == 0.7
    assert arguments.provenance("") is None and arguments.provenance("social") == "social"
    assert arguments.tags("a, b,a") == ("a", "b") == arguments.tags(["a", "b", "A"])
    assert arguments.bounded("limit", 5, 10) == 5
    with pytest.raises(ValidationError) as refused:
        arguments.bounded("budget", 0, 10)
    assert str(refused.value) == "budget must be a whole number from 1 to 10, got 0"
