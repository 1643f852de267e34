"""The edges of a write (issue 27, part B): a signal or a dying git right after the
commit, and a disk that fills up on the way. Either all of a write is kept and the
command exits 0, or none of it is, and nothing is left staged."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Run, commit_count, git

CONTRIBUTE = ("contribute", "--type", "skill", "--claim", "Pin the versions", "--confidence", "0.6")


@pytest.fixture
def seeded(run: Run, store: Path) -> Path:
    run("init", "--seed")
    return store


def status(store: Path) -> str:
    return git(store, "status", "--porcelain", "--untracked-files=all")


def chitin_process(store: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """chitin in a process group of its own, as a terminal starts it."""
    return subprocess.run(
        [sys.executable, "-m", "chitin", "--store", str(store), *args],
        capture_output=True,
        text=True,
        start_new_session=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("hook", "said"),
    [
        # Ctrl-C: the terminal signals the whole group, git's commit with chitin.
        ("kill -INT 0", "SIGINT arrived after the change was committed"),
        # git's commit dies by itself once HEAD has moved.
        ("kill -KILL $PPID", ""),
    ],
)
def test_git_dying_right_after_its_commit_keeps_the_write(
    seeded: Path, hook: str, said: str
) -> None:
    post_commit = seeded / ".git" / "hooks" / "post-commit"
    post_commit.write_text(f"#!/bin/sh\n{hook}\n")
    post_commit.chmod(0o755)
    before = commit_count(seeded)
    result = chitin_process(seeded, *CONTRIBUTE)
    post_commit.unlink()
    assert result.returncode == 0, result.stderr
    assert "nothing was changed" not in result.stderr and said in result.stderr
    assert commit_count(seeded) == before + 1
    assert status(seeded) == ""  # the new file is there, as committed
    assert "Pin the versions" in chitin_process(seeded, "list").stdout
