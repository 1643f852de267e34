"""The held-out sets (issues 24 and 25) keep their shape, and the pairs check refuses a
malformed set with one line per problem. Nothing here ranks or judges: the sets stay
blind.

    pytest -q -p no:cacheprovider tests/test_heldout_sets.py
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from bench_modules import bench_module

from chitin.model.insight import TYPES

pairs_check = bench_module("dedup", "pairs_check")
evaluation = bench_module("eval", "run")

HELDOUT = evaluation.HERE / "heldout.yaml"
# The brief's rough counts per label and kind; the set may hold more, never fewer.
LEAST = {
    ("duplicate", "exact-normalised"): 10,
    ("duplicate", "paraphrase"): 35,
    ("duplicate", "reworded-trigger"): 10,
    ("conflict", "negation"): 15,
    ("conflict", "antonym"): 20,
    ("conflict", "do-vs-avoid"): 10,
    ("conflict", "preference"): 10,
}


def test_the_heldout_retrieval_set_loads_with_every_type_and_kind() -> None:
    insights, queries = evaluation.load(HELDOUT)  # check() refuses a broken set
    assert len(insights) >= 290
    assert {i.type for i in insights} == set(TYPES)
    assert all(i.condition for i in insights if i.type == "trigger")
    kinds = Counter(q.kind for q in queries)
    assert len(queries) >= 100 and set(kinds) == set(evaluation.KINDS)
    assert kinds["paraphrase"] >= 35


def test_the_heldout_retrieval_set_says_it_is_held_out() -> None:
    assert "never tuned on" in HELDOUT.read_text(encoding="utf-8").split("insights:")[0]


def test_the_heldout_pairs_load_with_the_counts_asked_for() -> None:
    pairs = pairs_check.load()
    assert len(pairs) >= 160
    per_kind = Counter((p.label, p.kind) for p in pairs)
    assert all(per_kind[key] >= least for key, least in LEAST.items())
    per_label = Counter(p.label for p in pairs)
    assert per_label["compatible"] >= 35 and per_label["unrelated"] >= 20
    assert "held out" in pairs_check.PAIRS.read_text(encoding="utf-8").split("pairs:")[0].lower()


def test_the_pairs_check_prints_counts_per_label_and_kind(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert pairs_check.main([]) == 0
    out = capsys.readouterr().out
    assert "duplicate" in out and "reworded-trigger" in out and "shared-word" in out


def _pair(**changes: Any) -> dict[str, Any]:
    pair: dict[str, Any] = {
        "a": {"type": "skill", "claim": "Reproduce a bug before fixing it"},
        "b": {"type": "skill", "claim": "Reproduce the bug before you fix it"},
        "label": "duplicate",
        "kind": "paraphrase",
    }
    pair.update(changes)
    return pair


TRIGGER = {"type": "trigger", "condition": "a test fails", "claim": "weaken the assertion"}
BROKEN = [
    (_pair(label="same"), "unknown label 'same' (allowed: duplicate, conflict"),
    (_pair(kind="antonym"), "unknown kind 'antonym' for duplicate (allowed:"),
    (_pair(b={"type": "trigger", "claim": "x"}), "pair 1.b: a trigger needs a non-empty"),
    (_pair(a={"type": "habit", "claim": "x"}), "pair 1.a: type 'habit' is not one of"),
    (_pair(a={"type": "skill", "claim": " "}), "pair 1.a: 'claim' must be non-empty text"),
    (_pair(a={"type": "skill", "claim": "x", "avoid": True}), "'avoid' is for triggers only"),
    (_pair(a={"type": "skill", "claim": "x", "why": "y"}), "unknown field 'why'"),
    (_pair(b={"type": "skill", "claim": "x", "reasoning": ""}), "'reasoning' must be non-empty"),
    (
        {"a": {"type": "skill", "claim": "x"}, "label": "unrelated", "kind": "shared-word"},
        "pair 1: missing 'b'",
    ),
    (
        _pair(label="conflict", kind="do-vs-avoid", a=TRIGGER, b=TRIGGER),
        "do-vs-avoid needs the same condition and claim, and one side avoid: true",
    ),
    (_pair(label="conflict", kind="preference"), "pairs two relational insights"),
]


@pytest.mark.parametrize(("pair", "expected"), BROKEN)
def test_the_pairs_check_refuses_a_broken_pair_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], pair: dict[str, Any], expected: str
) -> None:
    path = tmp_path / "pairs.yaml"
    path.write_text(yaml.safe_dump({"pairs": [_pair(), pair]}), encoding="utf-8")
    assert pairs_check.main([str(path)]) == 1
    err = capsys.readouterr().err
    assert expected.replace("pair 1", "pair 2") in err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 2  # the heading, then one line for the one problem


@pytest.mark.parametrize(
    ("text", "expected"),
    [("pairs: [", "not valid YAML"), ("other: 1", "expected a top-level 'pairs:' list")],
)
def test_the_pairs_check_refuses_a_file_that_is_not_a_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, expected: str
) -> None:
    path = tmp_path / "pairs.yaml"
    path.write_text(text, encoding="utf-8")
    assert pairs_check.main([str(path)]) == 1
    err = capsys.readouterr().err
    assert expected in err and len(err.strip().splitlines()) == 1


def test_the_pairs_check_names_a_missing_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert pairs_check.main([str(tmp_path / "none.yaml")]) == 1
    assert "cannot read it" in capsys.readouterr().err


@pytest.mark.parametrize(
    "name",
    [
        "heldout-pairs-2.yaml",
        "heldout-pairs-3.yaml",
        "heldout-pairs-4.yaml",
        "heldout-pairs-6.yaml",
        "heldout-pairs-7.yaml",
        "heldout-pairs-8.yaml",
        "heldout-pairs-9.yaml",
        "heldout-pairs-10.yaml",
        "heldout-pairs-11.yaml",
    ],
)
def test_every_pair_set_passes_the_check(name: str) -> None:
    assert pairs_check.main([str(pairs_check.PAIRS.parent / name)]) == 0


def test_a_pair_side_reaches_contribute_with_its_reasoning_and_context() -> None:
    scorer = bench_module("dedup", "run")
    side = {"type": "skill", "claim": "x", "reasoning": "because", "context": "at work"}
    fields = scorer.fields_of(side)
    assert (fields["reasoning"], fields["context"]) == ("because", "at work")


HELDOUT_3 = evaluation.HERE / "heldout-3.yaml"


def test_the_third_heldout_retrieval_set_loads_with_its_shape() -> None:
    insights, queries = evaluation.load(HELDOUT_3)  # check() refuses a broken set
    assert len(insights) >= 200
    assert {i.type for i in insights} == set(TYPES)
    kinds = Counter(q.kind for q in queries)
    assert len(queries) >= 80 and set(kinds) == set(evaluation.KINDS)
    assert kinds["paraphrase"] >= 0.45 * len(queries)
    assert "never tuned on" in HELDOUT_3.read_text(encoding="utf-8").split("insights:")[0]


HELDOUT_7 = evaluation.HERE / "heldout-7.yaml"


def test_the_seventh_heldout_retrieval_set_loads_with_its_shape() -> None:
    insights, queries = evaluation.load(HELDOUT_7)  # check() refuses a broken set
    assert len(insights) >= 280 and len(queries) == 100
    assert {i.type for i in insights} == set(TYPES)
    kinds = Counter(q.kind for q in queries)
    assert set(kinds) == set(evaluation.KINDS) and kinds["paraphrase"] * 3 >= len(queries)
    starts = [q for q in queries if q.text.startswith(("coding session in", "session start"))]
    assert len(starts) == 4
    assert "never tuned on" in HELDOUT_7.read_text(encoding="utf-8").split("insights:")[0]
