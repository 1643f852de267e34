"""Merged away on one machine, reinforced on the other: the side choice that drops the
insight (`--theirs` here, `--ours` there) carries its reinforcements into the merge."""

from __future__ import annotations

from pathlib import Path

from tests.test_sync import Machines, as_json, chitin, evidence_of
from tests.test_sync import chitin_on_path as chitin_on_path  # autouse: the merge driver
from tests.test_sync import machines as machines  # the fixture


def pair(machines: Machines) -> tuple[str, str]:
    gone, into = (i["id"] for i in as_json(machines.a, "list")[1:3])
    return gone, into


def reinforce_twice(store: Path, insight_id: str) -> None:
    chitin(store, "reinforce", insight_id, "--evidence", "external", agent="beta")
    chitin(store, "reinforce", insight_id, agent="beta")


def test_theirs_keeps_the_reinforcements_made_here(machines: Machines) -> None:
    gone, into = pair(machines)
    counts = {i["id"]: i["reinforcementCount"] for i in as_json(machines.a, "list")}
    chitin(machines.a, "merge", gone, into, agent="alpha")
    reinforce_twice(machines.b, gone)
    # merge keeps the higher confidence: as if it had merged after the reinforcements
    confidence = max(
        machines.insight(m, i)["confidence"] for m, i in ((machines.a, into), (machines.b, gone))
    )
    added = evidence_of(machines.b, gone)[-2:]
    chitin(machines.a, "sync")
    assert "removed on the remote" in chitin(machines.b, "sync", expect=1).stderr
    chitin(machines.b, "sync", "--theirs", gone)
    merged = machines.insight(machines.b, into)
    assert merged["reinforcementCount"] == counts[gone] + counts[into] + 2
    assert merged["confidence"] == confidence
    assert set(added) <= set(evidence_of(machines.b, into))
    assert not list(machines.b.glob(f"insights/*/{gone}.md"))
    # what b commits is what a receives: nothing waits uncommitted
    assert chitin(machines.b, "sync").exit_code == 0
    chitin(machines.a, "sync")
    assert machines.insight(machines.a, into) == merged
    assert not list(machines.a.glob(f"insights/*/{gone}.md"))


def test_ours_keeps_the_reinforcements_made_on_the_remote(machines: Machines) -> None:
    gone, into = pair(machines)
    before = machines.insight(machines.b, into)["reinforcementCount"]
    source = machines.insight(machines.b, gone)["reinforcementCount"]
    reinforce_twice(machines.a, gone)
    chitin(machines.a, "sync")
    chitin(machines.b, "merge", gone, into, agent="alpha")
    assert "removed here, changed on the remote" in chitin(machines.b, "sync", expect=1).stderr
    chitin(machines.b, "sync", "--ours", gone)
    merged = machines.insight(machines.b, into)
    assert merged["reinforcementCount"] == before + source + 2
    assert set(evidence_of(machines.a, gone)) <= set(evidence_of(machines.b, into))


def test_taking_the_side_that_kept_it_folds_nothing(machines: Machines) -> None:
    """`--ours` where this machine reinforced it: the insight stays, and the merged
    one is as the remote merged it (nothing counted twice)."""
    gone, into = pair(machines)
    chitin(machines.a, "merge", gone, into, agent="alpha")
    chitin(machines.a, "sync")
    remote_merged = machines.insight(machines.a, into)
    reinforce_twice(machines.b, gone)
    chitin(machines.b, "sync", expect=1)
    chitin(machines.b, "sync", "--ours", gone)
    assert machines.insight(machines.b, gone)["reinforcementCount"] >= 2
    assert machines.insight(machines.b, into) == remote_merged
