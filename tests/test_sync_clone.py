"""A clone of a bare remote whose HEAD names a branch it does not have: git checks
nothing out, and `chitin init` there would start an unrelated history."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import git
from tests.test_sync import as_json, chitin
from tests.test_sync import chitin_on_path as chitin_on_path  # autouse: the merge driver


@pytest.mark.parametrize(("remote_head", "pushed"), [("main", "master"), ("master", "main")])
def test_a_clone_that_checked_out_nothing_is_told_to_check_out_the_branch(
    tmp_path: Path, remote_head: str, pushed: str
) -> None:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", remote_head, str(remote)], check=True)
    a, b = tmp_path / "a", tmp_path / "b"
    subprocess.run(["git", "init", "-q", "-b", pushed, str(a)], check=True)
    chitin(a, "init", "--seed")
    git(a, "remote", "add", "origin", str(remote))
    chitin(a, "sync")
    subprocess.run(["git", "clone", "-q", str(remote), str(b)], check=True, capture_output=True)
    refused = chitin(b, "sync", expect=1).stderr
    assert refused.count("\n") == 1 and "chitin init" not in refused, refused
    assert f"git -C {b} checkout {pushed}" in refused and "checked nothing out" in refused
    assert not (b / "insights").exists()  # nothing made: the advice works as said
    git(b, "checkout", "-q", pushed)
    chitin(b, "sync")
    assert as_json(b, "list") == as_json(a, "list")
