"""A plain `git clone` of a store copies .gitattributes, not git's config: chitin's
first write there defines the merge driver the attributes name, so that a plain `git
pull` merges insight files field by field; until then `chitin check` says how."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.test_sync import chitin
from tests.test_sync import chitin_on_path as chitin_on_path  # autouse: the merge driver


def driver(store: Path) -> str:
    found = subprocess.run(
        ["git", "-C", str(store), "config", "--local", "--get", "merge.chitin.driver"],
        capture_output=True,
        text=True,
    )
    return found.stdout.strip()


def plain_clone(tmp_path: Path) -> tuple[Path, Path, str]:
    """(a store pushed to a bare remote, a plain clone of it, an insight's id)."""
    remote, a, b = tmp_path / "remote.git", tmp_path / "a", tmp_path / "b"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    chitin(a, "init", "--seed")
    subprocess.run(["git", "-C", str(a), "remote", "add", "origin", str(remote)], check=True)
    chitin(a, "sync")
    subprocess.run(["git", "clone", "-q", str(remote), str(b)], check=True)
    insight_id = json.loads(chitin(a, "list", "--format", "json").stdout)[0]["id"]
    return a, b, insight_id


def test_check_says_a_plain_clone_lacks_the_driver(tmp_path: Path) -> None:
    _, b, _ = plain_clone(tmp_path)
    assert driver(b) == ""
    said = chitin(b, "check").stdout
    assert ".git/config: warning: merge.chitin: git's config does not define" in said
    assert "fix: run `chitin init` once in this clone" in said
    chitin(b, "init")
    assert driver(b) and "merge.chitin" not in chitin(b, "check").stdout


def test_the_first_write_in_a_plain_clone_sets_the_driver_up(tmp_path: Path) -> None:
    a, b, insight_id = plain_clone(tmp_path)
    chitin(b, "reinforce", insight_id)
    assert driver(b).endswith(" merge-driver %O %A %B %P")
    chitin(a, "reinforce", insight_id)
    chitin(a, "sync")
    pulled = subprocess.run(
        ["git", "-C", str(b), "-c", "user.name=t", "-c", "user.email=t@t", "pull", "-q",
         "--no-rebase", "origin", "HEAD"],
        capture_output=True,
        text=True,
    )  # fmt: skip
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    got = json.loads(chitin(b, "get", insight_id, "--format", "json").stdout)
    assert got["reinforcementCount"] == 2  # both reinforcements, merged by the driver
