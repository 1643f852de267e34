"""A write whose git never ends (a hook that blocks): the first SIGTERM or SIGINT is
held, as for every write, and a second one ends git, its hook with it, undoes the write
and ends the command (store/interrupts.py, store/git_process.py)."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import chitin_program, git

from chitin.store import journal

BLOCKING_HOOK = """#!/bin/sh
echo $$ > "{started}"
read line < "{fifo}"
"""


def pending(pid: int, signum: int) -> bool:
    """Whether ``signum`` is still pending for ``pid`` (not yet taken by its handler)."""
    status = Path(f"/proc/{pid}/status").read_text()
    masks = [int(line.split()[1], 16) for line in status.splitlines() if "Pnd:" in line]
    return any(mask & (1 << (signum - 1)) for mask in masks)


def wait_until(condition: object, what: str) -> None:
    """A safety net against a hang, not a measure: the outcome is what is asserted."""
    deadline = time.monotonic() + 60
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.02)


def fifo_has_reader(fifo: Path) -> bool:
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError as error:
        assert error.errno == errno.ENXIO
        return False
    return True


@pytest.fixture
def blocked(tmp_path: Path) -> Iterator[tuple[Path, Path, Path]]:
    store = tmp_path / "store"
    subprocess.run([chitin_program(), "--store", str(store), "init"], check=True)
    fifo, started = tmp_path / "fifo", tmp_path / "started"
    os.mkfifo(fifo)
    hook = store / ".git" / "hooks" / "pre-commit"
    hook.write_text(BLOCKING_HOOK.format(started=started, fifo=fifo))
    hook.chmod(0o755)
    yield store, fifo, started
    while fifo_has_reader(fifo):  # a hook left blocked by a failure: let it go
        with open(fifo, "w") as writer:
            writer.write("go\n")


@pytest.mark.parametrize(
    "signals",
    [
        (signal.SIGTERM, signal.SIGTERM, signal.SIGINT),
        (signal.SIGINT, signal.SIGINT),
        (signal.SIGTERM, signal.SIGINT),
    ],
)
def test_a_second_signal_ends_a_write_blocked_on_git(
    blocked: tuple[Path, Path, Path], signals: tuple[int, ...]
) -> None:
    store, fifo, started = blocked
    before = git(store, "rev-parse", "HEAD")
    command = subprocess.Popen(
        [
            chitin_program(),
            "--store",
            str(store),
            "contribute",
            "--type",
            "skill",
            "--claim",
            "Reproduce a bug before fixing it",
            "--confidence",
            "0.8",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_until(started.exists, "the hook started")
        for signum in signals:
            if command.poll() is not None:
                break
            command.send_signal(signum)
            wait_until(
                lambda s=signum: command.poll() is not None or not pending(command.pid, s),
                "the signal taken",
            )
        out, err = command.communicate(timeout=60)
    finally:
        if command.poll() is None:
            command.kill()
            command.communicate()
    ended_by = signals[1]
    assert command.returncode == 128 + ended_by, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Interrupted: "), err
    assert "git" in lines[0] and "nothing was changed" in lines[0]
    assert out == ""
    # the store is as before the write, with nothing left for the next command
    assert git(store, "rev-parse", "HEAD") == before
    assert git(store, "status", "--porcelain", "--untracked-files=all") == ""
    assert not (store / ".git" / "index.lock").exists()
    assert not (store / ".git" / journal.JOURNAL).exists()
    assert not list((store / ".git").glob("chitin-index-*"))
    # the hook, git's child, was ended with git
    wait_until(lambda: not fifo_has_reader(fifo), "the hook ended")
    listed = subprocess.run(
        [chitin_program(), "--store", str(store), "list"], capture_output=True, text=True
    )
    assert listed.returncode == 0 and listed.stderr == "", listed.stderr
