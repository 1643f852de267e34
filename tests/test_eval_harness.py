"""Tests of the evaluation harness itself (no model needed): the sets load and keep
their rules, a paraphrase that shares two content words is refused, graded metrics and
the paired bootstrap say what they should.

    pytest -q -p no:cacheprovider tests/test_eval_harness.py
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import yaml
from bench_modules import bench_module

from chitin.model.insight import TYPES
from chitin.retrieval import retrieve, scoring

evaluation = bench_module("eval", "run")

INSIGHTS = [
    {
        "id": "deploy-canary",
        "type": "skill",
        "claim": "Deploy first to the canary pool and watch error rates before the full rollout.",
        "confidence": 0.8,
        "provenance": "observation",
        "tags": ["deploys"],
        "age_days": 10,
    },
    {
        "id": "trig-friday",
        "type": "trigger",
        "claim": "Deploy non-urgent changes late on a Friday.",
        "condition": "It is Friday afternoon and a deploy is planned.",
        "avoid": True,
        "confidence": 0.8,
        "provenance": "directive",
        "age_days": 100,
    },
    {
        "id": "sql-params",
        "type": "skill",
        "claim": "Build SQL with bound parameters, never string formatting.",
        "confidence": 0.9,
        "provenance": "external",
        "age_days": 400,
    },
]


def write_set(path: Path, queries: list[dict[str, object]]) -> Path:
    path.write_text(yaml.safe_dump({"insights": INSIGHTS, "queries": queries}), encoding="utf-8")
    return path


def test_the_agent_store_is_large_and_covers_every_kind_and_type() -> None:
    insights, queries = evaluation.load(evaluation.AGENT_STORE)
    assert len(insights) >= 300 and len(queries) >= 120
    kinds = Counter(q.kind for q in queries)
    assert all(kinds[kind] >= 25 for kind in evaluation.KINDS), kinds
    assert set(Counter(i.type for i in insights)) == set(TYPES)
    assert all(set(q.grades.values()) <= {1, 2} and 2 in q.grades.values() for q in queries)
    triggers = {i.id for i in insights if i.type == "trigger"}
    assert all(q.relevant[0] in triggers for q in queries if q.kind == "trigger")


def test_the_first_set_loads_with_its_lists_read_as_grades() -> None:
    _, queries = evaluation.load(evaluation.DATASET)
    for q in queries:
        assert q.grades[q.relevant[0]] == 2
        assert all(q.grades[i] == 1 for i in q.relevant[1:])


def test_a_paraphrase_sharing_two_content_words_is_refused(tmp_path: Path) -> None:
    bad = {
        "query": "deploying to the canary pool",
        "kind": "paraphrase",
        "relevant": {"deploy-canary": 2},
    }
    with pytest.raises(evaluation.SetError, match=r"shares 3: canary, deploying, pool"):
        evaluation.load(write_set(tmp_path / "set.yaml", [bad]))
    # One shared word is allowed; a word shared with a useful (grade 1) id is not counted.
    good = {
        "query": "stitching user input into a statement by concatenation, before a deploy",
        "kind": "paraphrase",
        "relevant": {"sql-params": 2, "deploy-canary": 1},
    }
    _, queries = evaluation.load(write_set(tmp_path / "ok.yaml", [good]))
    assert queries[0].relevant == ["sql-params", "deploy-canary"]


def test_stemming_and_prefixes_count_as_the_same_word() -> None:
    target = evaluation._insight(INSIGHTS[2])
    # "formatted" / "formatting" (stems "formatt", "format"), "parameter" / "parameters".
    assert evaluation.paraphrase_overlap("formatted parameter", target) == [
        "formatted",
        "parameter",
    ]
    assert evaluation.paraphrase_overlap("the and of with", target) == []  # stopwords


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        ({"nowhere": 2}, "labels name no insight: nowhere"),
        ({"deploy-canary": 3}, "grades must be 2"),
        ({"deploy-canary": 1}, "no label of grade 2"),
    ],
)
def test_a_malformed_label_is_refused(tmp_path: Path, labels: object, message: str) -> None:
    query = {"query": "canary deploy", "kind": "plain", "relevant": labels}
    with pytest.raises(evaluation.SetError, match=message):
        evaluation.load(write_set(tmp_path / "set.yaml", [query]))


def test_graded_metrics() -> None:
    q = evaluation.Query("q", "plain", ["a", "b"], {"a": 2, "b": 1})
    assert evaluation.measures(["a", "b", "x"], q) == (1.0, 1.0, 1.0)
    swapped = evaluation.measures(["b", "a"], q)
    assert swapped.ndcg < 1 and swapped.recall == 1 and swapped.rr == 0.5
    assert evaluation.measures(["x"] * 10 + ["a"], q) == (0.0, 0.0, 0.0)  # below the top 10
    useful_only = evaluation.measures(["b"], q)
    answer_only = evaluation.measures(["a"], q)
    assert 0 < useful_only.ndcg < answer_only.ndcg < 1 and useful_only.rr == 0


def test_the_paired_bootstrap_is_reproducible_and_tells_signal_from_noise() -> None:
    same = evaluation.paired_bootstrap([0.5, 0.7, 0.2], [0.5, 0.7, 0.2])
    assert same.diff == 0 and same.low == same.high == 0 and not same.outside_noise
    a = [0.2, 0.5, 0.4, 0.9, 0.1, 0.6, 0.3, 0.8]
    better = [x + 0.1 for x in a]
    interval = evaluation.paired_bootstrap(a, better)
    assert interval.outside_noise and interval.low == pytest.approx(0.1)
    noisy = evaluation.paired_bootstrap(a, [0.9, 0.1, 0.4, 0.2, 0.8, 0.6, 0.3, 0.5])
    assert not noisy.outside_noise
    assert noisy == evaluation.paired_bootstrap(a, [0.9, 0.1, 0.4, 0.2, 0.8, 0.6, 0.3, 0.5])


def test_a_run_saved_and_compared_with_itself_differs_by_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHITIN_BACKGROUND_EMBED", "off")
    queries = [
        {"query": "canary rollout", "kind": "plain", "relevant": {"deploy-canary": 2}},
        {"query": "Friday deploy", "kind": "trigger", "relevant": ["trig-friday", "deploy-canary"]},
    ]
    dataset = write_set(tmp_path / "set.yaml", queries)
    saved = tmp_path / "text.json"
    assert evaluation.main(["--dataset", str(dataset), "--text", "--save", str(saved)]) == 0
    assert [q["ranked"][0] for q in json.loads(saved.read_text())["queries"]] == [
        "deploy-canary",
        "trig-friday",
    ]
    capsys.readouterr()
    assert evaluation.main(["--dataset", str(dataset), "--compare", "text", str(saved)]) == 0
    out = capsys.readouterr().out
    assert "+0.000   [+0.000, +0.000]" in out and "] *" not in out


def test_the_command_refuses_a_broken_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    query = {
        "query": "deploying to the canary pool",
        "kind": "paraphrase",
        "relevant": ["deploy-canary"],
    }
    code = evaluation.main(["--dataset", str(write_set(tmp_path / "set.yaml", [query]))])
    assert code == 1 and "Error:" in capsys.readouterr().err


@pytest.mark.parametrize("saved", ["other set", "not json", "no queries", "no file"])
def test_a_compare_refuses_a_saved_run_it_cannot_use_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], saved: str
) -> None:
    """`--compare before.json default` with a run saved on another set, or a file that
    is no saved run, was a traceback (SetError, JSONDecodeError, KeyError), and only
    after the whole run; a missing --dataset was a FileNotFoundError."""
    query = {"query": "canary rollout", "kind": "plain", "relevant": {"deploy-canary": 2}}
    dataset = write_set(tmp_path / "set.yaml", [query])
    before = tmp_path / "before.json"
    before.write_text(
        {
            "other set": json.dumps({"queries": [{"query": "elsewhere", "ranked": []}]}),
            "not json": "{half",
            "no queries": "{}",
            "no file": "",
        }[saved],
        encoding="utf-8",
    )
    args = ["--dataset", str(dataset), "--compare", str(before), "default"]
    if saved == "no file":
        args = ["--dataset", str(tmp_path / "missing.yaml")]
    assert evaluation.main(args) == 1
    err = capsys.readouterr().err
    assert err.startswith("Error: ") and err.count("\n") == 1 and "Traceback" not in err


def test_the_late_interaction_rerank_moves_only_the_nearest_k() -> None:
    """bench/eval/late.py (docs/design.md §6b, round 4): the first k hits are re-ordered
    by cosine + beta × (MaxSim − their mean MaxSim); the hits beyond k keep their place."""
    import late

    hits = [("a", 0.60), ("b", 0.58), ("c", 0.55), ("d", 0.50)]
    moved = late.reranked(hits, [0.2, 0.6, 0.4], beta=1.0)
    assert [i for i, _ in moved] == ["b", "c", "a", "d"]  # 0.78, 0.55, 0.40
    assert dict(moved)["b"] == pytest.approx(0.58 + 0.2)
    assert dict(moved)["c"] == pytest.approx(0.55)  # its score is the mean: unchanged
    assert moved[-1] == ("d", 0.50)
    assert late.reranked(hits, [0.2, 0.6, 0.4], beta=0.0)[:3] == hits[:3]


def test_maxsim_averages_each_query_tokens_best_match() -> None:
    import late
    import numpy as np

    late.TOKENS["q"] = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], dtype=np.float32)
    late.TOKENS["t"] = np.array([[1.0, 0.0, 0.0], [0.0, 0.6, 0.8]], dtype=np.float32)
    assert late.maxsim("q", "t") == pytest.approx((1.0 + 0.6) / 2)
    assert late.maxsim("q", "t", stored=True) == pytest.approx(0.8, abs=0.01)  # int8 rows
    assert late.maxsim("t", "t") == pytest.approx(1.0)


def test_synonyms_on_the_text_side_find_an_answer_sharing_only_a_synonym(tmp_path: Path) -> None:
    """bench/eval/expansion.py (docs/design.md §6b, round 6): with chitin's synonym
    table on the text side, a query whose only link to an insight is a synonym ("bill"
    for "invoice") finds it by text; without it, nothing does."""
    from chitin.core import Chitin, Query

    expansion = bench_module("eval", "expansion")
    invoice = {"id": "invoice-vat", "type": "skill", "confidence": 0.8}
    invoice["claim"] = "Check the VAT rate on every invoice sent abroad."
    evaluation.build_store([evaluation._insight(i) for i in [*INSIGHTS, invoice]], tmp_path)
    (tmp_path / "chitin.yaml").write_text("embedding: {provider: none}\n")

    def found(setting: object) -> list[str]:
        chitin = Chitin(tmp_path, now=evaluation.NOW)  # a cache of its own: none remembered
        try:
            with expansion.substituted(setting):
                asked = Query("the bill looks odd", max_results=3)
                return [r.insight.id for r in chitin.retrieve(asked, record=False).ranked]
        finally:
            chitin.close()

    assert "invoice-vat" not in found(expansion.OFF)
    assert found(expansion.Expansion("or", 1.0))[:1] == ["invoice-vat"]
    absent = expansion.Expansion("apart", 0.5, lambda _word, held: held == 0)
    assert found(absent)[:1] == ["invoice-vat"]


def test_the_decay_substitution_changes_decay_alone_and_is_undone() -> None:
    """bench/eval/priors.py (docs/design.md §6b, round 8): a transform of the decay
    factor reaches the score of a match and of a filler, and nothing else; leaving the
    block gives the real scoring back."""
    priors = bench_module("eval", "priors")
    original = retrieve.strength
    insight = evaluation._insight(INSIGHTS[2])  # external, 400 days: decay 0.21
    settings = scoring.Settings()
    real = scoring.strength(insight, "general", evaluation.NOW, settings)
    with priors.decay_as(lambda decay: max(decay, 0.5)):
        floored = scoring.strength(insight, "general", evaluation.NOW, settings)
        assert retrieve.strength is scoring.strength
    assert real.decay < 0.5 and floored.decay == 0.5
    assert floored.score == pytest.approx(real.score * 0.5 / real.decay)
    assert floored.confidence == real.confidence and floored.type_boost == real.type_boost
    assert scoring.strength(insight, "general", evaluation.NOW, settings) == real
    assert retrieve.strength is original is scoring.strength  # undone
