"""A git that never answers cannot hold a write: SIGTERM or SIGINT sent to chitin alone
(not to its process group, as a terminal's Ctrl-C is) reaches git after a grace of a
few seconds (a second signal at once), and the write is undone as for any
interruption (store/git_children.py). A slow git that ends within the grace keeps
the write: tests/test_front.py."""

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

from chitin.store.git_children import GRACE


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


@pytest.mark.parametrize(
    ("signum", "times"), [(signal.SIGTERM, 1), (signal.SIGINT, 1), (signal.SIGINT, 2)]
)
def test_a_signal_ends_a_write_whose_git_hangs(
    run: Run, store: Path, tmp_path: Path, signum: int, times: int, monkeypatch: pytest.MonkeyPatch
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
        began = time.monotonic()
        for _ in range(times):
            process.send_signal(signum)
            time.sleep(0.2)
        _, err = process.communicate(timeout=15)  # before: until the hook ended
        took = time.monotonic() - began
    finally:
        process.kill()
        with contextlib.suppress(ProcessLookupError):
            os.kill(hook, signal.SIGKILL)
    assert process.returncode == 128 + signum, err
    assert err.strip().splitlines()[-1] == "Interrupted: nothing was changed."
    assert git(store, "rev-parse", "HEAD") == before
    assert git(store, "status", "--porcelain", "--untracked-files=all") == ""
    assert took < (GRACE + 3 if times == 1 else GRACE - 1), took  # a second: at once
