"""Ctrl-C and SIGTERM during a write: either nothing happened, or all of it did.

Python raises ``KeyboardInterrupt`` wherever the interpreter happens to be. During a
write that could be between writing a file and committing it, or after the commit and
before the command says so, which left the store or the message wrong (issue 11).

``Guard`` takes SIGINT, SIGTERM and SIGHUP for the length of a write and turns them
into a note. The write asks ``check()`` at the points where stopping is still clean
(before each file, before the commit): there an interruption undoes the write and
stops the command. Once ``committed()`` is called, an interruption can no longer undo
anything, so the command finishes and says that the change was kept.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

GUARDED = tuple(
    s
    for s in (signal.SIGINT, getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None))
    if s is not None
)


class Interrupted(KeyboardInterrupt):
    """A signal stopped a write before its commit: nothing of it was kept."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class Guard:
    """Signals held back for one write; see the module's doc."""

    def __init__(self) -> None:
        self.received: int | None = None
        self.is_committed = False
        self._previous: dict[int, Any] = {}

    def install(self) -> None:
        # Handlers can be set only from the main thread; a write from another thread
        # (a library caller's worker) keeps Python's default behaviour.
        if threading.current_thread() is threading.main_thread():
            for signum in GUARDED:
                self._previous[signum] = signal.signal(signum, self._note)

    def uninstall(self) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()

    def _note(self, signum: int, frame: FrameType | None) -> None:
        if self.received is None:
            self.received = signum

    def check(self) -> None:
        """Stop here, undoing the write, if a signal came and nothing is committed."""
        if self.received is not None and not self.is_committed:
            raise Interrupted(self.received)

    def committed(self) -> None:
        self.is_committed = True


_active: list[Guard] = []
# A front end that says so (the CLI) keeps a committed write's guard until it has
# finished the command (printed what it did), so that a signal after the commit can
# neither cut the command short nor make it claim that nothing changed.
_finish_after_commit = False
_kept: list[Guard] = []


def finish_commands() -> None:
    """Called by a front end whose command ends with ``release()``: from a write's
    commit to that call, signals are noted, not raised."""
    global _finish_after_commit
    _finish_after_commit = True


@contextlib.contextmanager
def holding() -> Iterator[Guard]:
    """Hold signals back for a write. Nested holds share the outermost guard, which
    alone decides at its end: an interruption before any commit stops the command
    (``Interrupted``), one after a commit is reported and the command finishes."""
    if _active:
        yield _active[-1]
        return
    guard = Guard()
    guard.install()
    _active.append(guard)
    try:
        yield guard
    finally:
        _active.pop()
        if guard.is_committed and guard.received is None and _finish_after_commit:
            _kept.append(guard)  # released by the front end when the command is done
        else:
            guard.uninstall()
    if guard.received is not None:
        if not guard.is_committed:
            raise Interrupted(guard.received)
        _report_late(guard.received)


def release(restore: bool = True) -> None:
    """The command is done: a signal that came after a commit is reported, and (with
    ``restore``) signals act as usual again. A process about to end keeps noting them
    (``restore=False``): a signal in its last milliseconds changes nothing, and must
    not be reported as an interruption of a write that was kept."""
    for guard in _kept:
        if guard.received is not None:
            _report_late(guard.received)
            guard.received = None
    if restore:
        while _kept:
            _kept.pop().uninstall()


def _report_late(signum: int) -> None:
    from chitin.notices import notice

    name = signal.Signals(signum).name
    notice(f"{name} arrived after the change was committed, so the change is kept")


def current() -> Guard | None:
    """The guard of the write in progress, if any."""
    return _active[-1] if _active else None
