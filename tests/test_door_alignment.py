"""``contribute``'s door aligns the words the new insight and a candidate each have of
their own (retrieval/alignment.py) where the cosine alone is not trusted, with the
local model's token vectors; never for a clear verdict (chitin.search.door)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import Run


def contribute(run_json: Any, claim: str) -> Any:
    return run_json("contribute", "--type", "skill", "--claim", claim, "--confidence", "0.7")


def test_a_paraphrase_in_other_words_is_reported_as_a_duplicate(
    add: Any, run_json: Any, tokenized: list[str]
) -> None:
    first = add("skill", "Profile before optimising", 0.8)
    made = contribute(run_json, "Measure performance before trying to optimize it")
    # pooled, the two are 0.55 apart, under every bar; their own words align at 0.63
    assert [d["id"] for d in made["duplicates"]] == [first["id"]]
    assert made["duplicates"][0]["basis"] == "meaning"
    assert made["duplicates"][0]["similarity"] < 0.6
    assert sorted(tokenized) == sorted(
        ["Measure performance before trying to optimize it", "Profile before optimising"]
    )


def test_a_look_alike_with_another_slot_filled_is_not_a_duplicate(add: Any, run_json: Any) -> None:
    add("skill", "Never commit secrets to the repository.", 0.8)
    made = contribute(run_json, "Never commit generated files to the repository.")
    assert made["duplicates"] == [] and made["conflicts"] == []


def test_a_clear_verdict_asks_for_no_token_vectors(
    run: Run, add: Any, run_json: Any, tokenized: list[str]
) -> None:
    first = add("skill", "Reproduce a bug before fixing it", 0.8)
    add("skill", "Water the tomatoes every morning in summer", 0.8)
    made = contribute(run_json, "Reproduce the bug before fixing it")  # 0.98
    assert [d["id"] for d in made["duplicates"]] == [first["id"]]
    made = contribute(run_json, "Never reproduce the bug before fixing it")  # a conflict
    assert made["conflicts"] and tokenized == []


def test_without_vectors_nothing_is_aligned(
    store: Path, run: Run, add: Any, run_json: Any, tokenized: list[str]
) -> None:
    run("init")
    (store / "chitin.yaml").write_text("embedding:\n  provider: none\n")
    add("skill", "Profile before optimising", 0.8)
    made = contribute(run_json, "Measure performance before trying to optimize it")
    assert made["duplicates"] == [] and tokenized == []
