"""The background embedding yields to the user's commands in any store, not only its
own: a worker embedding one store ran beside a contribute in another and cost it ~30
ms of waiting at the lowest priority (docs/design.md §9g). Every command touches this
user's mark of commands (chitin/lockfile.py); the worker waits while it is fresh."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chitin.core import background
from chitin.core.background_status import read_status
from chitin.lockfile import commands_mark, user_folder


def test_a_command_in_any_store_touches_the_users_mark(tmp_path: Path) -> None:
    mark = commands_mark(os.environ)
    assert mark is not None and mark.parent == user_folder(os.environ)
    long_ago = time.time() - 3600
    os.utime(mark, (long_ago, long_ago))
    other = tmp_path / "another-store"
    subprocess.run(
        [sys.executable, "-m", "chitin", "--store", str(other), "list"],
        check=True,
        capture_output=True,
    )
    assert mark.stat().st_mtime > long_ago + 3000


def test_no_mark_is_made_until_a_worker_asks_for_one(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "chitin", "--store", str(tmp_path / "s"), "list"],
        check=True,
        capture_output=True,
    )
    assert not (user_folder(os.environ) / "commands").exists()


def test_the_worker_waits_while_commands_run_in_another_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "store"
    own = root / ".chitin" / "vectors" / background.LOCK_FILE
    own.parent.mkdir(parents=True)
    own.touch()
    user = commands_mark(os.environ)
    assert user is not None
    now = [time.time()]
    os.utime(own, (now[0] - 60, now[0] - 60))  # nothing in this store for a minute
    os.utime(user, (now[0] - 0.2, now[0] - 0.2))  # a command elsewhere, just now
    monkeypatch.setattr(background.time, "sleep", lambda seconds: now.append(now.pop() + seconds))

    def clock() -> float:
        return now[0]

    assert background.wait_for_quiet(root, clock) == 0  # this store alone is quiet
    waited = background.wait_for_quiet(root, clock, user=user)
    assert background.QUIET_SECONDS - 0.2 <= waited <= background.QUIET_SECONDS


def test_a_folder_others_may_enter_gives_no_mark(tmp_path: Path) -> None:
    folder = user_folder(os.environ)
    folder.mkdir(mode=0o700)
    folder.chmod(0o755)
    assert commands_mark(os.environ) is None
    assert not (folder / "commands").exists()


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="reads /proc")
def test_the_worker_starts_up_only_once_the_commands_pause(tmp_path: Path) -> None:
    """Its start-up (interpreter, CLI, model libraries) ran at once, beside the
    commands of the agent that set it off (docs/design.md §9q): a lean waiter holds
    it until the marks have rested for QUIET_SECONDS, then becomes it (same pid)."""
    store = tmp_path / "store"
    subprocess.run(
        [sys.executable, "-m", "chitin", "--store", str(store), "init"],
        check=True,
        capture_output=True,
    )
    lock = store / ".chitin" / "vectors" / background.LOCK_FILE
    pid = background.spawn(store, dict(os.environ))
    commands_end = time.time() + 2.0  # a command every 50 ms for two seconds
    waiter_seen = False
    while time.time() < commands_end:
        os.utime(lock)
        touched = lock.stat().st_mtime
        waiter_seen = waiter_seen or b"chitin.quiet_start" in _cmdline(pid)
        time.sleep(0.05)
    os.waitpid(pid, 0)  # until it has ended, however long the machine makes it wait
    background._spawned.discard(pid)
    status = read_status(store)
    assert status.get("state") == "done", status
    assert waiter_seen
    assert status["pid"] == pid  # the waiter became the worker: one process throughout
    finished = status["finished"]
    assert isinstance(finished, float)
    assert finished - touched >= background.QUIET_SECONDS - 0.05  # never beside a command


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""
