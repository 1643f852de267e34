"""Moved on one machine (archived, retyped) and changed there, changed where it was on
the other: the sync follows the insight to its new folder and merges it there.

git pairs a moved file with its old path only while the two are at least half alike,
and an insight file is small: two reinforcements (their evidence lines, the new
counts and times) before an archive were enough for git to see a file deleted and
another added. The sync stopped on a conflict, and keeping a side left the insight
twice, live and archived, one id used by two files."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git
from tests.test_sync import Machines, as_json, chitin
from tests.test_sync import chitin_on_path as chitin_on_path  # autouse: the merge driver
from tests.test_sync import machines as machines  # the fixture


def files_of(store: Path, insight_id: str) -> list[str]:
    found = [
        *store.glob(f"insights/**/{insight_id}.md"),
        *store.glob(f"archive/**/{insight_id}.md"),
    ]
    return sorted(str(p.relative_to(store)) for p in found)


@pytest.mark.parametrize("mover_syncs_first", [True, False])
@pytest.mark.parametrize("move", [("archive",), ("update", "--type", "skill")])
def test_an_insight_moved_and_reinforced_meets_an_edit_where_it_was(
    machines: Machines, mover_syncs_first: bool, move: tuple[str, ...]
) -> None:
    a, b = machines.a, machines.b
    # A short insight, as agents write them: its file is little more than its fields.
    claim = ("--claim", "Prefer explicit config", "--confidence", "0.6")
    insight_id = as_json(a, "contribute", "--type", "principle", *claim)["insight"]["id"]
    chitin(a, "sync")
    chitin(b, "sync")
    chitin(a, "reinforce", insight_id, agent="alpha")
    chitin(a, "reinforce", insight_id, agent="alpha")
    chitin(a, *move[:1], insight_id, *move[1:])
    chitin(b, "reinforce", insight_id, agent="beta")
    chitin(b, "update", insight_id, "--context", "Only in long sessions")
    first, second = (a, b) if mover_syncs_first else (b, a)
    chitin(first, "sync")
    chitin(second, "sync")
    chitin(first, "sync")
    expected = files_of(a, insight_id)
    assert len(expected) == 1 and expected[0].startswith(
        "archive/" if move == ("archive",) else "insights/skill/"
    )
    for store in (a, b):
        insight = machines.insight(store, insight_id)
        assert insight["reinforcementCount"] == 3
        assert insight["context"] == "Only in long sessions"
        assert insight["archived"] is (move == ("archive",))
        assert files_of(store, insight_id) == expected
        authors = sorted(e.split()[1].split("@")[0] for e in evidence_of_any(store, expected[0]))
        assert authors == ["alpha", "alpha", "beta"]
        assert as_json(store, "check")["errors"] == []
        assert git(store, "status", "--porcelain") == ""


def evidence_of_any(store: Path, path: str) -> list[str]:
    front = (store / path).read_text().split("---\n")[1]
    return [line[2:] for line in front.splitlines() if line.startswith("- 20")]


def claim_conflict_on_a_moved_insight(machines: Machines) -> str:
    """Machine a reinforces an insight twice, changes its claim and archives it; b
    changes the claim otherwise; b's sync stops on the conflict. The insight's id."""
    a, b = machines.a, machines.b
    claim = ("--claim", "Prefer explicit config", "--confidence", "0.6")
    insight_id = as_json(a, "contribute", "--type", "principle", *claim)["insight"]["id"]
    chitin(a, "sync")
    chitin(b, "sync")
    chitin(a, "reinforce", insight_id)
    chitin(a, "reinforce", insight_id)  # git no longer sees the archive as a move
    chitin(a, "update", insight_id, "--claim", "Prefer explicit config files")
    chitin(a, "archive", insight_id)
    chitin(b, "update", insight_id, "--claim", "Prefer explicit config always")
    chitin(a, "sync")
    chitin(b, "sync", expect=1)
    return insight_id


@pytest.mark.parametrize("side", ["--ours", "--theirs"])
def test_a_claim_conflict_on_a_moved_insight_settles_to_one_file(
    machines: Machines, side: str
) -> None:
    """The claim changed on both sides, and one side archived the insight: the sync
    stops, and the side kept is the one file of that id (keeping ours left the
    insight live and archived, one id in two files, and sent that to the remote)."""
    a, b = machines.a, machines.b
    insight_id = claim_conflict_on_a_moved_insight(machines)
    chitin(b, "sync", side, insight_id)
    chitin(a, "sync")
    kept = "always" if side == "--ours" else "files"
    assert machines.insight(a, insight_id) == machines.insight(b, insight_id)
    for store in (a, b):
        assert kept in machines.insight(store, insight_id)["claim"]
        assert len(files_of(store, insight_id)) == 1
        assert as_json(store, "check")["errors"] == []


def test_a_claim_conflict_on_a_moved_insight_shows_both_claims_to_resolve(
    machines: Machines,
) -> None:
    """The file left to edit held this side's version alone (git's modify/delete has
    no markers): the other claim, its reinforcements and its archive were out of
    sight, and `--continue` dropped them without a word."""
    a, b = machines.a, machines.b
    insight_id = claim_conflict_on_a_moved_insight(machines)
    (edited,) = (b / ".chitin" / "conflicts").glob(f"**/{insight_id}.md")
    text = edited.read_text()
    assert "files" in text and "always" in text and "reinforcements: 2" in text
    kept = text.split("<<<<<<<")[0] + "Prefer explicit config, always in files\n"
    edited.write_text(kept + text.split(">>>>>>>")[1].split("\n", 1)[1])
    chitin(b, "sync", "--continue")
    chitin(a, "sync")
    for store in (a, b):
        insight = machines.insight(store, insight_id)
        assert (insight["claim"], insight["reinforcementCount"]) == (
            "Prefer explicit config, always in files",
            2,
        )
        assert len(files_of(store, insight_id)) == 1
