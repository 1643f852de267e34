"""A sync stopped at its worst moment: git's merge has written the merged files and
waits (in a pre-merge-commit hook) to commit them. Killed or interrupted there, the
next command must find HEAD at the old or the merged commit, a clean working tree, no
lock and no merge state, and the next write must succeed (issue 27, item 1)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import git
from tests.test_sync import Machines, as_json, chitin, chitin_on_path  # noqa: F401


@pytest.fixture
def machines(tmp_path: Path) -> Machines:
    return Machines(tmp_path)


HOOK = """#!/bin/sh
touch "{ready}"
while [ ! -e "{go}" ]; do sleep 0.02; done
"""


def contribute(store: Path, claim: str) -> None:
    chitin(store, "contribute", "--type", "skill", "--claim", claim, "--confidence", "0.6")


def _diverged(machines: Machines) -> tuple[str, str]:
    """b has a commit of its own, and the remote two more: b's sync makes a merge."""
    for claim in ("Read the log before the code", "Name the failing step"):
        contribute(machines.a, claim)
    chitin(machines.a, "sync")
    contribute(machines.b, "Keep steps small")
    return git(machines.b, "rev-parse", "HEAD").strip(), machines.remote_head()


def _held_in_the_hook(store: Path, tmp_path: Path) -> tuple[subprocess.Popen[str], Path]:
    ready, go = tmp_path / "ready", tmp_path / "go"
    hook = store / ".git" / "hooks" / "pre-merge-commit"
    hook.write_text(HOOK.format(ready=ready, go=go))
    hook.chmod(0o755)
    process = subprocess.Popen(
        [sys.executable, "-m", "chitin", "--store", str(store), "sync"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    while not ready.exists():  # the merged files are written; the commit waits
        assert process.poll() is None, process.communicate()
        time.sleep(0.02)
    return process, go


@pytest.mark.parametrize("how", ["SIGKILL-group", "SIGKILL", "SIGTERM", "SIGINT"])
def test_a_sync_killed_mid_merge_leaves_a_store_that_works(
    machines: Machines, tmp_path: Path, how: str
) -> None:
    before, theirs = _diverged(machines)
    process, go = _held_in_the_hook(machines.b, tmp_path)
    name = how.removesuffix("-group")
    if how.endswith("-group"):
        os.killpg(process.pid, getattr(signal, name))
    else:
        process.send_signal(getattr(signal, name))
        time.sleep(0.2)  # the signal is taken (or chitin is gone) before git goes on
    go.touch()
    _, stderr = process.communicate(timeout=60)
    (machines.b / ".git" / "hooks" / "pre-merge-commit").unlink()
    assert "Traceback" not in stderr

    listed = as_json(machines.b, "list")  # the next command: it repairs what is left
    head = git(machines.b, "rev-parse", "HEAD").strip()
    if head != before:  # the merge was made: exactly the merge of the two
        assert git(machines.b, "log", "-1", "--format=%P").split() == [before, theirs]
    assert git(machines.b, "status", "--porcelain", "--untracked-files=all") == ""
    for left in ("MERGE_HEAD", "index.lock", "chitin-write.json"):
        assert not (machines.b / ".git" / left).exists(), left
    assert not list(machines.b.glob(".merge_file_*"))
    in_head = git(machines.b, "ls-tree", "-r", "--name-only", "HEAD", "insights/")
    assert len(listed) == len(in_head.split())
    if process.returncode == 0:
        assert head != before
    contribute(machines.b, "Still writable")
    chitin(machines.b, "sync")
    assert json.loads(chitin(machines.b, "list", "--format", "json").stdout)


def test_a_fetch_killed_with_its_git_leaves_no_lock_behind(machines: Machines) -> None:
    """The state a sync killed (with its process group) mid-fetch leaves: its note in
    the journal, and git's lock on the remote-tracking ref it was updating."""
    contribute(machines.a, "Read the log before the code")
    chitin(machines.a, "sync")
    note = {"pid": 1, "paths": [], "op": "sync"}
    (machines.b / ".git" / "chitin-write.json").write_text(json.dumps(note))
    lock = machines.b / ".git" / "refs" / "remotes" / "origin" / "main.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text("")
    result = chitin(machines.b, "sync")
    assert "ended a chitin sync that was interrupted" in result.stderr
    assert not lock.exists() and not (machines.b / ".git" / "chitin-write.json").exists()
    assert "Read the log before the code" in chitin(machines.b, "list").stdout


def test_a_sync_on_a_full_disk_merges_all_or_nothing(machines: Machines, tmp_path: Path) -> None:
    import shutil

    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    incoming = [
        {"id": f"inc-{n:03d}", "type": "skill", "claim": f"Incoming insight {n}", "confidence": 0.6}
        for n in range(60)
    ]
    (tmp_path / "incoming.json").write_text(json.dumps(incoming))
    chitin(machines.a, "import", str(tmp_path / "incoming.json"))
    chitin(machines.a, "sync")
    contribute(machines.b, "Keep steps small")
    disk = tmp_path / "disk"
    disk.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(disk)]).returncode:
        pytest.skip("mount -t tmpfs failed here (a container without the capability)")
    try:
        for free_kb in (600, 400, 300, 260, 200, 0):
            store = disk / "store"
            shutil.rmtree(store, ignore_errors=True)
            shutil.copytree(machines.b, store, symlinks=True)
            remote = tmp_path / f"remote-{free_kb}.git"
            shutil.copytree(machines.remote, remote)
            git(store, "remote", "set-url", "origin", str(remote))
            _sync_with_free_space(store, disk / "filler", free_kb)
    finally:
        shutil.rmtree(disk / "store", ignore_errors=True)
        subprocess.run(["umount", str(disk)], check=False)


def _sync_with_free_space(store: Path, filler: Path, free_kb: int) -> None:
    as_json(store, "list")
    left = os.statvfs(filler.parent)
    with open(filler, "wb") as handle:
        handle.write(b"\0" * max(left.f_bavail * left.f_frsize - free_kb * 1024, 0))
    before = git(store, "rev-parse", "HEAD")
    result = subprocess.run(
        [sys.executable, "-m", "chitin", "--store", str(store), "sync"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    # What the failed sync left, before any other command repairs anything:
    assert git(store, "--no-optional-locks", "status", "--porcelain") == "", free_kb
    assert not list((store / ".git").glob("chitin-*")), free_kb
    assert not (store / ".git" / "MERGE_HEAD").exists(), free_kb
    filler.unlink()
    merged = git(store, "rev-parse", "HEAD") != before
    assert merged == (result.returncode == 0), (free_kb, result.stderr)
    assert "Traceback" not in result.stderr and result.returncode in (0, 1), result.stderr
