"""``check`` and ``dedupe`` give a pair whose verdict depends on the alignment of the
words each has of its own (retrieval/alignment.py) the verdict ``contribute`` gives
it: they ask the local model for those texts' token vectors, within a budget, and
say how many pairs they judged without (chitin.search.aligned)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from chitin.providers import ProviderError
from chitin.retrieval.clusters import Meaning
from chitin.retrieval.judgement import Side
from chitin.search import aligned
from tests.conftest import Run

ALICE = "Alice prefers short answers"
PARAPHRASE = "Alice likes brief replies"  # 0.80 pooled, under the relational bar (0.82)


def check_json(run: Run) -> Any:
    return json.loads(run("check", "--format", "json").stdout)


def test_check_and_dedupe_judge_a_pair_as_contribute_does(
    run: Run, run_json: Any, add: Any
) -> None:
    first = add("relational", ALICE, 0.9)
    made = run_json(
        "contribute", "--type", "relational", "--claim", PARAPHRASE, "--confidence", "0.6"
    )
    assert [d["id"] for d in made["duplicates"]] == [first["id"]]  # contribute: by alignment
    run("embed")
    report = check_json(run)
    assert [(w["kind"], w["path"]) for w in report["warnings"]] == [
        ("near-duplicate", f"insights/relational/{first['id']}.md")
    ]
    assert report["judgedWithoutAlignment"] == 0
    clusters = run_json("dedupe")["clusters"]
    assert [[c["keep"]["id"], [d["id"] for d in c["duplicates"]]] for c in clusters] == [
        [first["id"], [made["insight"]["id"]]]
    ]
    assert clusters and run_json("dedupe")["judgedWithoutAlignment"] == 0


def test_a_look_alike_contribute_keeps_apart_is_no_cluster(
    run: Run, run_json: Any, add: Any, tokenized: list[str]
) -> None:
    add("skill", "Never commit secrets to the repository.", 0.8)
    made = run_json(
        "contribute", "--type", "skill", "--claim",
        "Do not commit generated build files or caches to a shared repository.",
        "--confidence", "0.7",
    )  # fmt: skip
    # near in meaning, their own words apart (not one frame: one frame with another filler
    # is no duplicate at all, and asks for no alignment: tests/test_template.py)
    assert made["duplicates"] == []
    run("embed")
    tokenized.clear()
    report = check_json(run)
    assert report["warnings"] == [] and report["judgedWithoutAlignment"] == 0
    assert run_json("dedupe")["clusters"] == []
    assert len(tokenized) == 4  # each text once, by check, then by dedupe


def test_triggers_of_one_situation_with_other_responses_are_no_cluster(
    run: Run, run_json: Any, add: Any
) -> None:
    """qa55: check and dedupe joined "page the on-call engineer" to a reworded "roll
    back first" of the same situation, which contribute keeps apart, and `dedupe
    --apply` would have merged that lesson away."""
    first = add("trigger", "roll back first", 0.8, condition="a deploy fails")
    page = add("trigger", "page the on-call engineer", 0.7, condition="a deploy fails")
    again = run_json(
        "contribute", "--type", "trigger", "--condition", "a deployment fails",
        "--claim", "roll back before anything else", "--confidence", "0.6",
    )  # fmt: skip
    assert [d["id"] for d in again["duplicates"]] == [first["id"]]
    run("embed")
    clusters = run_json("dedupe")["clusters"]
    assert [[c["keep"]["id"], [d["id"] for d in c["duplicates"]]] for c in clusters] == [
        [first["id"], [again["insight"]["id"]]]
    ]
    report = check_json(run)
    assert len(report["warnings"]) == 1 and page["id"] not in json.dumps(report)


def test_past_the_budget_the_cosine_decides_and_the_output_says_so(
    run: Run, run_json: Any, add: Any, monkeypatch: pytest.MonkeyPatch, tokenized: list[str]
) -> None:
    add("relational", ALICE, 0.9)
    add("relational", PARAPHRASE, 0.6, force=True)
    run("embed")
    monkeypatch.setattr(aligned, "TEXTS", 0)
    report = check_json(run)
    assert report["warnings"] == [] and report["judgedWithoutAlignment"] == 1
    line = run("check").stdout.splitlines()[-2]
    assert line.startswith("1 pair judged without the alignment of their own words")
    assert run_json("dedupe")["judgedWithoutAlignment"] == 1
    assert run("dedupe").stdout.splitlines()[-1] == line
    assert tokenized == []


def test_without_stored_vectors_nothing_is_aligned(
    run: Run, add: Any, store: Path, tokenized: list[str]
) -> None:
    add("relational", ALICE, 0.9)
    add("relational", PARAPHRASE, 0.6, force=True)
    shutil.rmtree(store / ".chitin" / "vectors", ignore_errors=True)  # a fresh clone's
    report = check_json(run)
    assert report["warnings"] == [] and report["judgedWithoutAlignment"] == 0
    assert tokenized == [] and not (store / ".chitin" / "vectors").exists()


def _pair_meaning(cosine: float) -> Meaning:
    return Meaning([(0, 1, cosine)], lambda i, j: cosine if i != j else 1.0)


def test_the_model_failing_leaves_the_cosine_to_decide_and_is_counted() -> None:
    sides = [Side("relational", ALICE), Side("relational", PARAPHRASE)]

    def failing(texts: Sequence[str]) -> Any:
        raise ProviderError("the model is gone")

    def aligned_fully(texts: Sequence[str]) -> Any:
        return [(tuple(t.lower().split()), [[1.0, 0.0]] * len(t.split())) for t in texts]

    strength = [(0,), (1,)]
    text_of = [ALICE, PARAPHRASE].__getitem__
    failed = aligned.grouped(sides, strength, _pair_meaning(0.80), text_of, failing)
    assert failed.grouping.clusters == [] and failed.without_alignment == 1
    found = aligned.grouped(sides, strength, _pair_meaning(0.80), text_of, aligned_fully)
    assert [c.members for c in found.grouping.clusters] == [(0, 1)]
    assert found.without_alignment == 0
    # above the band the cosine decides alone: nothing is asked
    clear = aligned.grouped(sides, strength, _pair_meaning(0.95), text_of, failing)
    assert [c.members for c in clear.grouping.clusters] == [(0, 1)]
    assert clear.without_alignment == 0
