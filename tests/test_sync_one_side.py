"""`sync --ours/--theirs ID` settles the text in conflict by one side; what the merge
driver merges cleanly (reinforcements, evidence, tags, times) stays merged (issue 6:
never lose a reinforcement)."""

from __future__ import annotations

import pytest

from tests.test_sync import Machines, as_json, chitin, evidence_of
from tests.test_sync import chitin_on_path as chitin_on_path  # autouse: the merge driver
from tests.test_sync import machines as machines  # the fixture


@pytest.mark.parametrize(("side", "claim"), [("--ours", "two"), ("--theirs", "one")])
def test_one_side_keeps_both_sides_reinforcements(
    machines: Machines, side: str, claim: str
) -> None:
    before = machines.insight(machines.a)
    chitin(machines.a, "reinforce", machines.id, "--evidence", "external", agent="alpha")
    chitin(machines.a, "update", machines.id, "--claim", "Ask exactly one question")
    tags = ",".join([*before["tags"], "from-a"])
    chitin(machines.a, "update", machines.id, "--tags", tags)
    for _ in range(2):
        chitin(machines.b, "reinforce", machines.id, agent="beta")
    chitin(machines.b, "update", machines.id, "--claim", "Ask no more than two questions")
    chitin(machines.a, "sync")
    assert "claim changed on both sides" in chitin(machines.b, "sync", expect=1).stderr
    chitin(machines.b, "sync", side, machines.id)
    chitin(machines.a, "sync")
    a, b = machines.insight(machines.a), machines.insight(machines.b)
    assert a == b
    assert claim in b["claim"]
    assert b["reinforcementCount"] == before["reinforcementCount"] + 3
    assert "from-a" in b["tags"]
    authors = sorted(e.split()[1].split("@")[0] for e in evidence_of(machines.b, machines.id))
    assert authors == ["alpha", "beta", "beta"]
    assert b["id"] in {i["id"] for i in as_json(machines.b, "list")}
