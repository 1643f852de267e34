"""The git processes chitin starts (store/git.py is their one caller), each in a process
group of its own, and noted while it may run, so that a second signal during a write
(store/interrupts.py) can end one that never finishes, with its hooks and their
children.

Their own group: a signal meant for chitin alone (kill PID) or its terminal's Ctrl-C
does not reach git, whose work the write's guard lets finish; and ending git's group
ends what git started (a hook, gpg) with it. Commands that hold the store's lock for
the network (sync's fetch, push and merge: ``pass_fds``) stay in chitin's group: ssh may ask
the terminal for a passphrase, which a group in the background cannot read."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from typing import Any

from chitin.store import interrupts

__all__ = ["DEVNULL", "run", "start"]

DEVNULL = subprocess.DEVNULL


def start(
    argv: Sequence[str],
    env: dict[str, str],
    *,
    stdin: int | None,
    text: bool = True,
    pass_fds: Sequence[int] = (),
) -> subprocess.Popen[Any]:
    """Start git, in a group of its own unless it holds the lock (``pass_fds``), and
    note it until it is reaped (a reaped one is never ended: its pid may be another
    process's by then)."""
    process = subprocess.Popen(
        argv,
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=text,
        env=env,
        pass_fds=pass_fds,
        process_group=None if pass_fds else 0,
    )
    for pid, (earlier, _) in list(interrupts.RUNNING.items()):
        if earlier.returncode is not None:
            del interrupts.RUNNING[pid]
    interrupts.RUNNING[process.pid] = (process, not pass_fds)
    return process


def run(
    argv: Sequence[str],
    env: dict[str, str],
    *,
    input: str | bytes | None,
    text: bool,
    pass_fds: Sequence[int],
) -> subprocess.CompletedProcess[str]:
    """``subprocess.run(argv, input=input, capture_output=True)``, with ``start``."""
    stdin = None if input is None else subprocess.PIPE
    with start(argv, env, stdin=stdin, text=text, pass_fds=pass_fds) as process:
        try:
            out, err = process.communicate(input)
        except BaseException:
            process.kill()
            raise
        finally:
            interrupts.RUNNING.pop(process.pid, None)
    return subprocess.CompletedProcess(list(argv), process.returncode, out, err)
