"""An insight file moved by hand (``mv``, ``git mv``, a rename) is one insight moved:
the next chitin write of it commits its new path and the removal of the old one."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import Run, git


@pytest.fixture(autouse=True, params=["stat walk", "git status"])
def sync_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Small stores stat every file; above WALK_LIMIT files git says what changed."""
    if request.param == "git status":
        monkeypatch.setattr("chitin.index.cache.WALK_LIMIT", 0)
    return str(request.param)


def move(store: Path, old: str, new: str, how: str) -> None:
    (store / new).parent.mkdir(parents=True, exist_ok=True)
    if how == "git mv":
        git(store, "mv", old, new)
    else:
        shutil.move(store / old, store / new)


@pytest.mark.parametrize(
    ("how", "folder", "name"),
    [("mv", "principle", None), ("git mv", "principle", None), ("mv", "skill", "renamed")],
)
@pytest.mark.parametrize("command", ["reinforce", "archive"])
def test_a_hand_moved_insight_is_committed_as_one_move(
    run: Run,
    add: Any,
    store: Path,
    tmp_path: Path,
    how: str,
    folder: str,
    name: str | None,
    command: str,
) -> None:
    made = add("skill", "Write the failing test first", 0.8)
    old = f"insights/skill/{made['id']}.md"
    new = f"insights/{folder}/{name or made['id']}.md"
    move(store, old, new, how)
    run(command, made["id"])
    assert git(store, "status", "--porcelain") == ""
    assert old not in git(store, "ls-files").split()
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(store), str(clone))
    result = run("--store", str(clone), "get", made["id"], "--format", "json")
    assert "Write the failing test first" in result.stdout
    assert git(clone, "status", "--porcelain") == ""


def test_another_file_removed_by_hand_stays_uncommitted(run: Run, add: Any, store: Path) -> None:
    moved = add("skill", "Write the failing test first", 0.8)
    other = add("skill", "Name the branch after the issue", 0.7)
    move(store, f"insights/skill/{moved['id']}.md", f"insights/principle/{moved['id']}.md", "mv")
    (store / f"insights/skill/{other['id']}.md").unlink()
    run("reinforce", moved["id"])
    assert git(store, "status", "--porcelain") == f" D insights/skill/{other['id']}.md\n"


@pytest.mark.parametrize("how", ["mv", "git mv"])
def test_a_sync_takes_a_hand_move_and_the_remotes_change_of_the_old_path(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    scripts = str(Path(sys.executable).parent)  # git runs `chitin merge-driver`
    monkeypatch.setenv("PATH", scripts + os.pathsep + os.environ.get("PATH", ""))
    remote, a, b = tmp_path / "remote.git", tmp_path / "a", tmp_path / "b"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    run("--store", str(a), "init", "--seed")
    git(a, "remote", "add", "origin", str(remote))
    run("--store", str(a), "sync")
    git(tmp_path, "clone", "-q", str(remote), str(b))
    old = git(a, "ls-files", "insights/relational").split()[0]
    insight_id = Path(old).stem
    run("--store", str(b), "reinforce", insight_id)
    run("--store", str(b), "sync")
    move(a, old, f"insights/principle/{insight_id}.md", how)
    run("--store", str(a), "sync")  # the remote reinforced it at its old path
    assert git(a, "status", "--porcelain") == ""
    assert old not in git(a, "ls-files").split()
    ours = json.loads(run("--store", str(a), "get", insight_id, "--format", "json").stdout)
    theirs = json.loads(run("--store", str(b), "get", insight_id, "--format", "json").stdout)
    assert ours["confidence"] == theirs["confidence"]
