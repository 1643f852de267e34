"""Sync under a user's own git settings: what a person sets for their own merges must
not stop chitin's. ``merge.ff = only`` (a common "never make merge commits" choice)
refuses every merge that is not a fast-forward, which is exactly the merge that two
machines' concurrent reinforcements need."""

from __future__ import annotations

import os
from pathlib import Path

from tests.test_sync import Machines, as_json, chitin
from tests.test_sync import chitin_on_path as chitin_on_path  # autouse: the merge driver


def test_a_user_who_allows_only_fast_forwards_still_syncs_both_reinforcements(
    tmp_path: Path,
) -> None:
    machines = Machines(tmp_path)
    with Path(os.environ["GIT_CONFIG_GLOBAL"]).open("a") as config:
        config.write("[merge]\n\tff = only\n[pull]\n\trebase = true\n")
    chitin(machines.a, "reinforce", machines.id, agent="alpha")
    chitin(machines.b, "reinforce", machines.id, agent="beta")
    chitin(machines.a, "sync")
    chitin(machines.b, "sync")
    chitin(machines.a, "sync")
    for side in (machines.a, machines.b):
        assert machines.insight(side)["reinforcementCount"] == 2
    assert as_json(machines.a, "list") == as_json(machines.b, "list")
