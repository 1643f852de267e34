"""Issue 28, item 6: output says what changed, and numbers are rounded as 1.4.5 rounds
them (toFixed), in text and JSON alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import Run, git

from chitin.render.text import confidence, confidence_change


def test_init_on_a_store_says_it_is_one_already(run: Run, store: Path) -> None:
    assert run("init").stdout == f"✓ Store initialized at {store}\n"
    assert run("init").stdout == f"✓ {store} is already a store; nothing to do\n"
    (store / ".gitattributes").unlink()  # what an older chitin did not write
    git(store, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "drop it")
    said = run("init").stdout
    assert said.startswith(f"✓ {store} was already a store; added what it lacked (commit ")


def test_reinforce_shows_old_and_new_confidence(run: Run, add: Any, run_json: Any) -> None:
    made = add("skill", "Reproduce the bug first", 0.95)
    assert "  Confidence: 0.95 → 0.953\n" in run("reinforce", made["id"]).stdout  # 0.9525
    assert "  Confidence: 0.953 → 0.955\n" in run("reinforce", made["id"]).stdout  # 0.954875
    shown = run("get", made["id"]).stdout
    assert "  Confidence: 0.95 | Reinforced: 2x\n" in shown
    assert "confidence: 0.95 |" in run("list").stdout
    assert run_json("get", made["id"])["confidence"] == 0.954875  # the data stays exact


def test_the_rounding_is_javascripts_tofixed() -> None:
    assert confidence(0.914262) == "0.91"
    assert confidence(0.8) == "0.8" and confidence(1.0) == "1"
    assert confidence(0.125) == "0.13"  # an exact binary tie rounds up, as toFixed does
    assert confidence_change(1.0, 1.0) == "1 → 1"
    assert confidence_change(0.9999, 0.99990005) == "0.9999 → 0.99990005"  # below 1e-6
    assert confidence_change(0.99991, 0.9999145) == "0.99991 → 0.999915"


def test_json_numbers_are_rounded_as_their_text(run: Run, add: Any, run_json: Any) -> None:
    add("skill", "Write the failing test before the fix", 0.8)
    add("skill", "Keep commits small and single purpose", 0.675)
    assert "  Average confidence: 0.74\n" in run("stats").stdout  # 0.7375, toFixed(2)
    assert run_json("stats")["averageConfidence"] == 0.74
    found = run_json("similar", "write the failing test first", "--threshold", "0")
    shown = run("similar", "write the failing test first", "--threshold", "0").stdout
    for item in found:
        assert f"[{round(item['similarity'] * 100)}%]" in shown
        assert item["similarity"] == round(item["similarity"], 2)


def test_an_update_that_makes_two_insights_the_same_says_so(run: Run, add: Any) -> None:
    """contribute refuses the same insight twice; an update that makes one the same as
    another is kept (1.4.5's update checks nothing), and says how to fold them."""
    run("init")
    first = add("skill", "Pin the versions of dependencies", 0.8)["id"]
    second = add("skill", "Lock the dependency versions", 0.7)["id"]
    said = run("update", second, "--claim", "pin the versions of dependencies.").stdout
    assert f"  note: now the same insight as {first}: fold one into the other: " in said
    assert f"chitin merge {second} {first}" in said
    again = run("update", second, "--confidence", "0.75").stdout  # the same already: no news
    assert "note:" not in again
