"""The reflection queue's own lock: queueing a session's reflection, as the hosts' hooks
do at a session's end, never waits on the store's write lock, which a sync over a slow
remote or a big import holds far longer than the 15 s a host gives its hook."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import Run, chitin_program

# Both hosts stop their hook after 15 s (Claude Code's settings.json timeout, the
# OpenClaw hook's DEFAULT_TIMEOUT_MS); before the fix, a held store lock cost 60 s.
HOST_TIMEOUT = 15

# Held as chitin holds it: the store's WriteLock (an flock on .chitin/lock), until the
# test closes the child's stdin.
HOLD_STORE_LOCK = """
import sys
from pathlib import Path
from chitin.lockfile import WriteLock
with WriteLock(Path(sys.argv[1]) / ".chitin" / "lock"):
    print("held", flush=True)
    sys.stdin.read()
"""

# Another queueing caught half-way: it has read the queue, under the queue's lock, and
# writes its marker only when the test closes its stdin.
QUEUE_HALF_WAY = """
import sys
from datetime import UTC, datetime
from pathlib import Path
from chitin.model.reflection import appended, new_marker
from chitin.store.reflections import queue_lock, queue_path, read_queue, write_queue
root = Path(sys.argv[1])
with queue_lock(root):
    current = read_queue(queue_path(root))
    print("held", flush=True)
    sys.stdin.read()
    marker = new_marker("other-session", "new", datetime.now(UTC))
    write_queue(queue_path(root), appended(current.markers, marker))
"""


@pytest.fixture
def initialised(run: Run, store: Path) -> Path:
    run("init")
    return store


@contextlib.contextmanager
def holding(script: str, store: Path) -> Iterator[subprocess.Popen[str]]:
    """A child process running ``script`` in ``store``, once it says it holds its lock."""
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(store)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "held\n"
        yield child
    finally:
        if child.returncode is None:  # not let go by the test: let go now
            child.communicate(timeout=60)


@pytest.fixture
def store_locked(initialised: Path) -> Iterator[subprocess.Popen[str]]:
    with holding(HOLD_STORE_LOCK, initialised) as child:
        yield child


def end_event(tmp_path: Path, session: str) -> str:
    """Claude Code's SessionEnd event, as its hooks reference documents it."""
    return json.dumps(
        {
            "session_id": session,
            "transcript_path": str(tmp_path / f"{session}.jsonl"),
            "cwd": str(tmp_path),
            "permission_mode": "default",
            "hook_event_name": "SessionEnd",
            "reason": "other",
        }
    )


def chitin(store: Path, *args: str, stdin: str = "", front: str | None = None) -> str:
    """Run the installed chitin as a host runs it, stopped at the host's timeout."""
    env = {**os.environ, "CHITIN_STORE": str(store)}
    if front is not None:
        env["CHITIN_FRONT"] = front
    done = subprocess.run(
        [chitin_program(), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=HOST_TIMEOUT,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def queued(store: Path) -> list[str]:
    markers = json.loads((store / ".chitin" / "reflections.json").read_text())
    return [marker["sessionKey"] for marker in markers]


@pytest.mark.usefixtures("store_locked")
@pytest.mark.parametrize("front", ["0", None], ids=["in-process", "default"])
def test_the_session_end_hook_queues_while_a_writer_holds_the_store_lock(
    initialised: Path, tmp_path: Path, front: str | None
) -> None:
    """The hook waited up to 60 s on .chitin/lock and was killed at 15 s: the marker
    was lost (and OpenClaw rested chitin for that store for 5 minutes)."""
    hook = ("hooks", "run", "claude-code", "reflect")
    chitin(initialised, *hook, stdin=end_event(tmp_path, "s-1"), front=front)
    chitin(initialised, "reflect", "--queue", "--session-key", "k-2", "--reason", "new")
    assert queued(initialised) == ["s-1", "k-2"]


@pytest.mark.usefixtures("store_locked")
def test_done_and_clear_do_not_wait_on_the_store_lock(initialised: Path) -> None:
    for key in ("k-1", "k-2"):
        chitin(initialised, "reflect", "--queue", "--session-key", key, "--reason", "new")
    chitin(initialised, "reflect", "--done", "k-1")
    assert queued(initialised) == ["k-2"]
    chitin(initialised, "reflect", "--clear")
    assert queued(initialised) == []


def test_a_queueing_half_way_is_waited_for_and_both_markers_kept(
    initialised: Path, tmp_path: Path
) -> None:
    """Two hooks at once: the second waits for the first's read and write, so neither
    writes over the other's marker."""
    event = tmp_path / "event.json"
    event.write_text(end_event(tmp_path, "s-1"))
    with holding(QUEUE_HALF_WAY, initialised) as other, event.open() as stdin:
        hook = subprocess.Popen(
            [chitin_program(), "hooks", "run", "claude-code", "reflect"],
            stdin=stdin,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "CHITIN_STORE": str(initialised), "CHITIN_FRONT": "0"},
        )
        time.sleep(2)  # long enough for the hook to reach the queue
        other.communicate(timeout=60)  # closes its stdin: it writes, and lets go
        _, err = hook.communicate(timeout=HOST_TIMEOUT)
        assert hook.returncode == 0 and not err, err
    assert queued(initialised) == ["other-session", "s-1"]
