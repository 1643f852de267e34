"""``check`` and ``dedupe`` judge as ``contribute`` does: by meaning, from the vectors
the store's sidecar holds for the insights' current texts (never embedding anything
themselves), and by words where there are none (chitin.search.stored)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from tests.conftest import Run

CLAIM = "Write the failing test first"
PARAPHRASE = "Start with a test that fails"  # 0.78 near; 2 of 5 topic words: words miss it


def warnings(run: Run) -> list[Any]:
    return list(json.loads(run("check", "--format", "json").stdout)["warnings"])


def test_check_and_dedupe_find_a_paraphrase_by_its_stored_vectors(
    run: Run, add: Any, run_json: Any, store: Path
) -> None:
    first = add("skill", CLAIM, 0.9)
    second = add("skill", PARAPHRASE, 0.6, force=True)
    add("skill", "Index the columns a slow query filters on", 0.7, force=True)
    run("embed")
    found = warnings(run)
    assert [(w["kind"], w["path"]) for w in found] == [
        ("near-duplicate", f"insights/skill/{first['id']}.md")
    ]
    clusters = run_json("dedupe")
    assert [
        [c["keep"]["id"], [d["id"] for d in c["duplicates"]]] for c in clusters["clusters"]
    ] == [[first["id"], [second["id"]]]]
    # and its help says so (it said "by words" alone, which would send a user to
    # look elsewhere for the paraphrases it finds)
    assert "by meaning where the stored" in run("dedupe", "--help").stdout
    # a stale vector is not read: the new text has none, so words judge (and miss it)
    run("update", first["id"], "--claim", "Write the changelog entry first")
    assert warnings(run) == []
    shutil.rmtree(store / ".chitin" / "vectors")  # none at all: words, and nothing made
    assert warnings(run) == []
    assert not (store / ".chitin" / "vectors").exists()


def test_check_says_how_many_insights_it_judged_by_words(run: Run, add: Any, store: Path) -> None:
    add("skill", CLAIM, 0.9)
    add("skill", "Index the columns a slow query filters on", 0.7)
    shutil.rmtree(store / ".chitin" / "vectors", ignore_errors=True)  # as in a fresh clone
    line = "2 insights judged by words (no vector yet; `chitin embed` makes them)"
    assert run("check").stdout.splitlines()[-2:] == [line, "✓ 2 insight files checked: no problems"]
    run("embed")
    assert "judged by words" not in run("check").stdout
    assert json.loads(run("check", "--format", "json").stdout)["judgedByWords"] == 0
    # a file written by hand has no vector until `chitin embed` runs
    hand = store / "insights" / "skill" / "name-branches.md"
    hand.write_text("---\nconfidence: 0.7\n---\n\nName branches after the issue they close\n")
    result = run("check")
    assert result.stdout.startswith("1 insight judged by words (no vector yet; `chitin embed`")
    assert json.loads(run("check", "--format", "json").stdout)["judgedByWords"] == 1
    # with embedding off, words judge by choice: there is nothing `chitin embed` would make
    (store / "chitin.yaml").write_text("embedding: {provider: none}\n")
    assert json.loads(run("check", "--format", "json").stdout)["judgedByWords"] == 0


def test_the_bucketed_search_finds_planted_near_pairs_among_many() -> None:
    import numpy as np

    from chitin.search.neighbours import BRUTE, close_pairs

    rng = np.random.default_rng(7)
    size = 3 * BRUTE  # bucketed, not every pair
    matrix = rng.standard_normal((size, 384)).astype(np.float32)
    planted = [(k, size - 1 - k) for k in range(0, 600, 3)]
    for first, second in planted:  # cosine ~0.9
        matrix[second] = matrix[first] + 0.5 * rng.standard_normal(384).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    found = {(i, j) for i, j, _ in close_pairs(matrix, 0.5)}
    # Random directions are the hardest case for buckets (no structure to follow):
    # 193 of 200 were found at 0.88 (2 buckets a row: 179; 4: 198); nothing else is near.
    assert len(found & set(planted)) >= 190 and found <= set(planted)


def test_check_reports_the_conflict_contribute_warned_of_with_no_shared_word(
    run: Run, run_json: Any, store: Path
) -> None:
    """Issue 24's pair (qa33): "Be verbose and explain every step" against the starter
    "Speak plainly and briefly, …" shares no topic word; contribute calls it a conflict
    by meaning (a stance, 0.46 near), and check, the same judgement on the same stored
    vectors, must too."""
    run("init", "--seed")
    made = run_json(
        "contribute", "--type", "personality", "--claim", "Be verbose and explain every step",
        "--confidence", "0.5", "--provenance", "social",
    )  # fmt: skip
    assert [c["id"] for c in made["conflicts"]] == ["lead-with-the-answer-43iz"]
    run("embed")
    found = [w for w in warnings(run) if w["kind"] == "conflict"]
    assert len(found) == 1, found
    paths = {found[0]["path"], found[0]["message"].split(" conflicts with ")[1].split(" (")[0]}
    assert paths == {
        f"insights/personality/{made['insight']['id']}.md",
        "insights/personality/lead-with-the-answer-43iz.md",
    }
