"""A git that never answers cannot hold a write: SIGTERM or SIGINT sent to chitin alone
(not to its process group, as a terminal's Ctrl-C is) reaches git, and the write is
undone as for any interruption (store/git_children.py)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import Run, chitin_program, git


def hanging_hook(store: Path, mark: Path) -> None:
    """A pre-commit hook that waits two minutes (a hook waiting on the network), its
    pid written to ``mark`` once it runs."""
    hook = store / ".git" / "hooks" / "pre-commit"
    hook.write_text(
        f"#!/bin/sh\necho $$ > '{mark}'\n"
        f"exec '{sys.executable}' -c 'import time; time.sleep(120)'\n"
    )
    hook.chmod(0o755)


def wait_for(mark: Path, seconds: float) -> int:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if mark.exists() and mark.read_text().strip():
            return int(mark.read_text())
        time.sleep(0.05)
    pytest.fail("the hook never ran")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_ends_a_write_whose_git_hangs(
    run: Run, store: Path, tmp_path: Path, signum: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    run("init")
    before = git(store, "rev-parse", "HEAD")
    mark = tmp_path / "hook.pid"
    hanging_hook(store, mark)
    monkeypatch.setenv("CHITIN_FRONT", "0")
    args = ["--store", str(store), "contribute", "--type", "skill", "--confidence", "0.7"]
    process = subprocess.Popen(
        [chitin_program(), *args, "--claim", "Keep hooks fast and quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    hook = wait_for(mark, 60)
    try:
        process.send_signal(signum)
        _, err = process.communicate(timeout=15)  # before: until the hook ended
    finally:
        process.kill()
        with contextlib.suppress(ProcessLookupError):
            os.kill(hook, signal.SIGKILL)
    assert process.returncode == 128 + signum, err
    assert err.strip().splitlines()[-1] == "Interrupted: nothing was changed."
    assert git(store, "rev-parse", "HEAD") == before
    assert git(store, "status", "--porcelain", "--untracked-files=all") == ""
