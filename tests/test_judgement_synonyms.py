"""Synonyms where the door compares the words two insights each have of their own
(retrieval/alignment.py, chitin/assets/synonyms.txt): a word and its synonym align
fully, so a paraphrase in synonyms is one lesson (docs/design.md §9e, eighth round)."""

from __future__ import annotations

from typing import Any

import pytest

from chitin.retrieval import synonyms
from chitin.retrieval.alignment import Tokens, own_alignment
from chitin.retrieval.judgement import DUPLICATE, NONE, Side, depends_on_alignment, judge

STOP = frozenset({"the", "a", "it"})
FLAKY = "Fix flaky tests before adding features"
UNRELIABLE = "Repair unreliable tests prior to new functionality"


def test_a_synonym_aligns_fully_with_the_word_of_its_group() -> None:
    x, y = (1.0, 0.0), (0.6, 0.8)
    # "mistake" and "error" embed 0.6 apart here; one group of the table makes them 1
    first = Tokens(("admit", "the", "mistake"), (x, x, x))
    second = Tokens(("admit", "the", "error"), (x, x, y))
    assert own_alignment(first, second, STOP) == pytest.approx(0.6)
    heads = {"mistake": "mistake", "error": "mistake"}
    assert own_alignment(first, second, STOP, heads) == pytest.approx(1.0)
    # a word of no group still aligns by its vector
    third = Tokens(("admit", "the", "slip"), (x, x, y))
    assert own_alignment(first, third, STOP, heads) == pytest.approx(0.6)


def test_the_shipped_table_reads_inflected_synonyms_as_one() -> None:
    heads = synonyms.canonical()
    assert heads["mistakes"] == heads["error"]
    assert heads["repaired"] == heads["fix"]


def test_the_alignment_counts_from_a_cosine_of_045() -> None:
    admit = Side("skill", "Admit mistakes as soon as you notice them.")
    own_up = Side("skill", "Own up to an error the moment you spot it.")
    assert depends_on_alignment(admit, own_up, 0.47)
    assert judge(admit, own_up, 0.47, alignment=0.60).kind == DUPLICATE
    assert judge(admit, own_up, 0.47, alignment=0.40).kind == NONE
    assert judge(admit, own_up, 0.44, alignment=0.90).kind == NONE  # under the floor


def contribute(run_json: Any, claim: str) -> Any:
    return run_json("contribute", "--type", "skill", "--claim", claim, "--confidence", "0.7")


def test_a_paraphrase_in_synonyms_is_reported_as_a_duplicate(add: Any, run_json: Any) -> None:
    first = add("skill", FLAKY, 0.8)
    made = contribute(run_json, UNRELIABLE)
    # 0.59 apart; their own words align at 0.42 by the model, 0.82 with the table
    # (fix/repair, flaky/unreliable, before/prior to, feature/functionality)
    assert [d["id"] for d in made["duplicates"]] == [first["id"]]
    assert made["duplicates"][0]["similarity"] < 0.7


def test_without_the_table_the_model_alone_aligns(
    add: Any, run_json: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(synonyms, "canonical", lambda: {})
    add("skill", FLAKY, 0.8)
    made = contribute(run_json, UNRELIABLE)
    assert made["duplicates"] == [] and made["conflicts"] == []


def test_the_table_holds_pin_lock_client_customer_cite_reference() -> None:
    heads = synonyms.canonical()
    assert heads["locked"] == heads["pin"] and heads["pinned"] == heads["lock"]
    assert heads["clients"] == heads["customer"]
    assert heads["cited"] == heads["reference"] == heads["citation"]
    # "agreement" is as often a contract as a consent: it is not read as "agree"
    assert heads.get("agreement", "agreement") != heads["agree"]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # the model alone leaves these apart; the table makes their own words one
        ("Pin dependency versions in production builds",
         "Lock the dependency versions for production builds"),
        ("Confirm the client's budget first", "Check the customer budget before quoting"),
    ],
)  # fmt: skip
def test_a_paraphrase_in_the_new_groups_is_a_duplicate(
    add: Any, run_json: Any, first: str, second: str
) -> None:
    known = add("skill", first, 0.8)["id"]
    assert [d["id"] for d in contribute(run_json, second)["duplicates"]] == [known]


def test_a_licence_agreement_is_not_agreeing_with_the_team(add: Any, run_json: Any) -> None:
    add("skill", "Read the licence agreement before adding a dependency", 0.8)
    made = contribute(run_json, "Agree with the team before adding a dependency")
    assert made["duplicates"] == [] and made["conflicts"] == []
