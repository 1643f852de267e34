"""The background embedding's status file (``.chitin/vectors/background.json``): how the
last run ended, or that one is starting (core/background.py runs and starts them)."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from chitin.lockfile import derived_folder
from chitin.quiet_start import MAX_WAIT

STATUS_FILE = "background.json"
STARTING = "starting"  # the status a spawner leaves until its worker holds the lock
# After this, a worker that never took the lock is let be: its waiter may wait for the
# commands to pause for MAX_WAIT (chitin/quiet_start.py), then it starts in seconds.
STARTING_SECONDS = MAX_WAIT + 30.0


def folder(root: Path) -> Path:
    return derived_folder(root) / "vectors"


def starting(last: Mapping[str, Any], now: float) -> bool:
    """Whether the status names a worker spawned lately that is alive and has not taken
    the lock yet. It waits for the commands to pause (chitin/quiet_start.py), and its
    start (the interpreter, the CLI) takes ~0.1-0.2 s of CPU at the lowest priority,
    seconds on a busy machine: every write meanwhile found the lock free and spawned
    another, which left at once (docs/design.md §9k)."""
    pid, started = last.get("pid"), last.get("started")
    if last.get("state") != STARTING or not isinstance(pid, int) or pid <= 0:
        return False
    if not isinstance(started, (int, float)) or not 0 <= now - started < STARTING_SECONDS:
        return False
    if sys.platform == "win32":
        return True  # os.kill(pid, 0) would end it there
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # there, and not ours to signal
    return True


def read_status(root: Path) -> dict[str, Any]:
    """How the last background embedding ended; {} when unknown or unreadable (the
    file is rewritten by the next run)."""
    try:
        data = json.loads((folder(root) / STATUS_FILE).read_bytes())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_status(root: Path, state: str, **details: Any) -> None:
    """Replace the status file atomically; a failure to write it is not worth failing
    the embedding for."""
    record = {"state": state, "pid": os.getpid(), **details}
    path = folder(root) / STATUS_FILE
    temporary = path.with_name(f".{STATUS_FILE}.{os.getpid()}.tmp")
    with contextlib.suppress(OSError):
        if path.is_dir():
            import shutil

            shutil.rmtree(path)
        temporary.write_text(json.dumps(record), encoding="utf-8")
        os.replace(temporary, path)
