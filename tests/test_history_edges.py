"""What history and changelog say of changes chitin did not make (fix80): an edit not
committed yet, a rename of an insight by hand, and a ``git revert`` of a merge. Each
read as a bare "[edit]" (or not at all)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conftest import Run, git


def _by_hand(store: Path, *args: str) -> None:
    git(store, "-c", "user.name=Person", "-c", "user.email=person@example.org", *args)


def _file(store: Path, insight_id: str) -> Path:
    return next(store.rglob(f"{insight_id}.md"))


def test_an_edit_not_committed_is_the_newest_entry(
    run: Run, store: Path, add: Callable[..., dict[str, Any]]
) -> None:
    made = add("skill", "Reproduce a bug before fixing it", 0.8)["id"]
    path = _file(store, made)
    path.write_text(path.read_text().replace("confidence: 0.8", "confidence: 0.9"))
    shown = json.loads(run("history", made, "--format", "json").stdout)["history"]
    assert [e["changeType"] for e in shown] == ["create", "edit"]
    newest = shown[-1]
    assert newest["uncommitted"] is True and newest["commit"] is None
    assert (newest["field"], newest["oldValue"], newest["newValue"]) == ("confidence", "0.8", "0.9")
    assert "uncommitted" not in shown[0]
    text = run("history", made).stdout
    assert 'confidence: "0.8" → "0.9"  [not committed: edited in the working tree]' in text
    _by_hand(store, "commit", "-qam", "by hand")  # committed: an ordinary edit, with its commit
    shown = json.loads(run("history", made, "--format", "json").stdout)["history"]
    assert [("uncommitted" in e, e["changeType"]) for e in shown] == [
        (False, "create"),
        (False, "edit"),
    ]


def test_a_rename_by_hand_says_from_which_id(
    run: Run, store: Path, add: Callable[..., dict[str, Any]]
) -> None:
    old = add("skill", "Write the failing test first", 0.8)["id"]
    path = _file(store, old)
    renamed = path.with_name("failing-test-first.md")
    git(store, "mv", str(path), str(renamed))
    renamed.write_text(renamed.read_text().replace(f"id: {old}", "id: failing-test-first"))
    _by_hand(store, "commit", "-qam", "a better name")
    shown = json.loads(run("history", "failing-test-first", "--format", "json").stdout)
    newest = shown["history"][-1]
    assert (newest["field"], newest["oldValue"], newest["newValue"]) == (
        "id",
        old,
        "failing-test-first",
    )
    said = f"renamed from {old} to failing-test-first"
    assert said in run("history", "failing-test-first").stdout
    assert f"[edit] failing-test-first {said}" in run("changelog").stdout


def test_a_revert_of_a_merge_names_the_merge(
    run: Run, store: Path, add: Callable[..., dict[str, Any]]
) -> None:
    target = add("skill", "Reproduce a bug before fixing it", 0.9)["id"]
    source = add("skill", "Check the logs before guessing", 0.6)["id"]
    # its reinforcement is the target's after the merge: the merge changes the target's
    # file even within the second the target was made (updatedAt alone would not)
    run("reinforce", source)
    run("merge", source, target)
    merge = git(store, "rev-parse", "HEAD").strip()
    _by_hand(store, "revert", "--no-edit", "HEAD")
    rows = json.loads(run("changelog", "--format", "json").stdout)
    undone = [row for row in rows if row["commit"] != merge and "reverts" in row]
    assert {row["insightId"] for row in undone} == {target, source}
    for row in undone:
        assert row["reverts"]["commit"] == merge and row["reverts"]["op"] == "merge"
        assert row["reverts"]["subject"] == f"Merge {source} into {target}"
    text = run("changelog").stdout.splitlines()
    line = next(line for line in text if f"] {target}" in line)
    assert f"(reverts merge {merge[:8]}: Merge {source} into {target})" in line
