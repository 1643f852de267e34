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

from chitin.notices import notice
from chitin.store import git_children

GUARDED = tuple(
    s
    for s in (signal.SIGINT, getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None))
    if s is not None
)


class Interrupted(KeyboardInterrupt):
    """A signal stopped a write before its commit: nothing of it was kept. ``kept``:
    what earlier writes of the same command kept, where it made several."""

    def __init__(self, signum: int, kept: str = "") -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.kept = kept


class Guard:
    """Signals held back for one write; see the module's doc."""

    def __init__(self) -> None:
        self.received: int | None = None
        self.is_committed = False
        # what an interruption before the commit leaves all the same (a hand edit that
        # was committed first, as its own commit); said in place of "nothing was changed"
        self.kept = ""
        self._previous: dict[int, Any] = {}

    def install(self) -> None:
        # Handlers can be set only from the main thread; a write from another thread
        # (a library caller's worker) keeps Python's default behaviour.
        if threading.current_thread() is threading.main_thread():
            for signum in GUARDED:
                self._previous[signum] = signal.signal(signum, self._note)

    def uninstall(self) -> None:
        git_children.settle()
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()

    def _note(self, signum: int, frame: FrameType | None) -> None:
        if self.received is None:
            self.received = signum
        if not self.is_committed:  # the write stops, and git may be what it waits for:
            git_children.interrupt(signum)  # git gets it too, in time (git_children.py)

    def check(self) -> None:
        """Stop here, undoing the write, if a signal came and nothing is committed."""
        if self.received is not None and not self.is_committed:
            raise Interrupted(self.received, self.kept)

    def committed(self) -> None:
        self.is_committed = True
        git_children.settle()


class Handoff:
    """The hand-off of signals from the writes to the front end, one per process
    (signal handlers are the process's): the write in progress, and the committed
    writes whose guards the front end releases at the command's end.

    A front end that says so (the CLI, ``finish_commands``) keeps a committed write's
    guard until it has finished the command (printed what it did), so that a signal
    after the commit can neither cut the command short nor make it claim that nothing
    changed. One whose process ends right after the command (the console script)
    keeps noting signals to its last moment (``release``)."""

    def __init__(self) -> None:
        self.active: list[Guard] = []
        self.kept: list[Guard] = []
        self.finish_after_commit = False

    def finish_commands(self) -> None:
        """From a write's commit to ``release``, signals are noted, not raised."""
        self.finish_after_commit = True

    @contextlib.contextmanager
    def holding(self) -> Iterator[Guard]:
        """Hold signals back for a write. Nested holds share the outermost guard, which
        alone decides at its end: an interruption before any commit stops the command
        (``Interrupted``), one after a commit is reported and the command finishes."""
        if self.active:
            yield self.active[-1]
            return
        guard = Guard()
        guard.install()
        self.active.append(guard)
        failure: Exception | None = None
        try:
            yield guard
        except Exception as error:
            if guard.received is None or guard.is_committed:
                raise
            # The signal reached git too (a terminal's Ctrl-C goes to the whole group),
            # and the write failed of it and was undone: that is an interruption, not
            # git's failure ("git status failed: exit code -2").
            failure = error
        finally:
            self.active.pop()
            if guard.is_committed and guard.received is None and self.finish_after_commit:
                self.kept.append(guard)  # released by the front end when the command is done
            else:
                guard.uninstall()
        if guard.received is not None:
            if not guard.is_committed:
                raise Interrupted(guard.received, guard.kept) from failure
            _report_late(guard.received)

    def release(self, restore: bool = True) -> None:
        """The command is done: a signal that came after a commit is reported, and
        (with ``restore``) signals act as usual again. A process about to end keeps
        noting them (``restore=False``): a signal in its last milliseconds changes
        nothing, and must not be reported as an interruption of a write that was kept."""
        for guard in self.kept:
            if guard.received is not None:
                _report_late(guard.received)
                guard.received = None
        if restore:
            while self.kept:
                self.kept.pop().uninstall()

    def current(self) -> Guard | None:
        """The guard of the write in progress, if any."""
        return self.active[-1] if self.active else None


HANDOFF = Handoff()
# The writes' names for it (store/repository.py, core/sync.py, core/carapace.py).
holding = HANDOFF.holding
finish_commands = HANDOFF.finish_commands


def _report_late(signum: int) -> None:
    name = signal.Signals(signum).name
    notice(f"{name} arrived after the change was committed, so the change is kept")
