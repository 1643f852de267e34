"""The git processes running now, so that an interruption reaches them.

During a write, store/interrupts.py notes SIGINT and SIGTERM instead of raising them,
and the write waits for git to answer. A git that never answers (a pre-commit hook
waiting on the network, a credential helper, a stuck filesystem) then held the
command until SIGKILL. Ctrl-C in a terminal reaches git through the process group,
but a SIGTERM (a supervisor, a timeout, ``kill``) or an interrupt sent to chitin
alone did not. Now git gets it too, as from a terminal, but only after GRACE: a git
that is merely slow (a hook of a few seconds) still finishes, and the write is kept,
rather than being cut short where it might leave .git/index.lock behind (see
tests/test_front.py). A second signal goes to git at once, a third kills it."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import subprocess

RUNNING: set[subprocess.Popen[Any]] = set()
SIGNALLED: set[subprocess.Popen[Any]] = set()  # sent an interruption: ended, it is not waited for
PATIENCE = 0.5  # seconds between looks, while git runs, at whether it ended
GRACE = 5.0  # seconds git may go on after an interruption before it gets it too


class _Asked:
    """The interruptions of the write in progress: how many, the first, and when."""

    count = 0
    signum = 0
    since = 0.0
    sent = False


def interrupt(signum: int) -> None:
    """A signal came during a write, before its commit (store/interrupts.py)."""
    _Asked.count += 1
    if _Asked.count == 1:
        _Asked.signum, _Asked.since, _Asked.sent = signum, time.monotonic(), False
    elif _Asked.count == 2:
        _Asked.sent = True
        forward(signum)
    else:
        import signal  # not at the top: a read runs no git, and never loads it

        forward(signal.SIGKILL)


def settle() -> None:
    """The write is committed or over: no interruption is owed to the git after it."""
    _Asked.count, _Asked.sent = 0, False


def _owed() -> None:
    """Pass the first interruption on once git has had GRACE to finish."""
    if _Asked.count == 1 and not _Asked.sent and time.monotonic() - _Asked.since >= GRACE:
        _Asked.sent = True
        forward(_Asked.signum)


@contextlib.contextmanager
def running(process: subprocess.Popen[Any]) -> Iterator[subprocess.Popen[Any]]:
    """Know ``process`` as a running git for as long as the block lasts."""
    RUNNING.add(process)
    try:
        yield process
    finally:
        RUNNING.discard(process)
        SIGNALLED.discard(process)


def forward(signum: int) -> None:
    """Send ``signum`` to every git still running: it ends as if Ctrl-C had reached
    it, and the write that waited for it undoes itself the usual way."""
    for process in list(RUNNING):
        if process.poll() is not None:
            RUNNING.discard(process)  # ended, its answer never read (an interrupted write)
            continue
        SIGNALLED.add(process)
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signum)


def run(
    argv: Sequence[str],
    input: str | bytes | None,
    text: bool,
    env: dict[str, str],
    pass_fds: Sequence[int],
) -> subprocess.CompletedProcess[Any]:
    """``subprocess.run`` with its output captured, git known as running meanwhile."""
    import subprocess

    with subprocess.Popen(
        argv,
        stdin=None if input is None else subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=text,
        env=env,
        pass_fds=pass_fds,
    ) as process:
        try:
            out, err = communicate(process, input, text)
        except BaseException:
            process.kill()  # as subprocess.run does
            raise
    return subprocess.CompletedProcess(list(argv), process.returncode, out, err)


def communicate(
    process: subprocess.Popen[Any], input: str | bytes | None = None, text: bool = True
) -> tuple[Any, Any]:
    """``process.communicate``, known as running meanwhile; once an interruption was
    passed on to it and it has ended, what it started (a hook) may hold its output
    open for as long as it runs: its output is then not waited for."""
    import subprocess

    with running(process):
        while True:
            try:
                return process.communicate(input, timeout=PATIENCE)
            except subprocess.TimeoutExpired:
                _owed()
                if process in SIGNALLED and process.poll() is not None:
                    break
                input = None  # given once: communicate goes on writing it
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()
    return ("", "") if text else (b"", b"")
