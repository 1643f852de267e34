"""How a command ends: whatever it raised becomes one line on stderr and an exit code.

Shared by the click group (cli/group.py) and the session start's own parser
(cli/lean.py), so that a command fails alike whichever of them ran it. Loads no click:
the group turns click's own exceptions into ``Failed`` before they reach here.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Sequence

from chitin.cli.output import say
from chitin.notices import take
from chitin.process import PREFETCHED, interrupted_line


class Failed(Exception):
    """A failure already worded: its line, and the exit code."""

    def __init__(self, line: str, code: int) -> None:
        super().__init__(line)
        self.line, self.code = line, code


def conclude(run: Callable[[], object], argv: Sequence[str], process_ends: bool) -> int:
    """Run one command and return its exit code; a failure's line goes to stderr."""
    try:
        try:
            result = run()
        finally:
            PREFETCHED.drop()  # a git status the console started that nobody took
            _release_signals(process_ends)
            _say_notices()
    except Failed as failure:
        return _fail(failure.line, failure.code)
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except KeyboardInterrupt as error:
        return interrupted(error)
    except Exception as error:
        return _fail(*_described(error, argv))
    return result if isinstance(result, int) else 0


def interrupted(error: KeyboardInterrupt) -> int:
    """Ctrl-C or SIGTERM: a write it stopped has been undone (store/interrupts.py)."""
    signum = getattr(error, "signum", 2)  # a write's guard says which signal came
    kept = getattr(error, "kept", "") or "nothing was changed"  # or what earlier writes kept
    line = interrupted_line(kept, signum, sys.stderr, getattr(error, "closed", False))
    return _fail(line, 128 + signum)


def _described(error: Exception, argv: Sequence[str]) -> tuple[str, int]:
    from chitin.render import failures

    message, code = failures.describe(error)
    message = harmless(message)
    if code == failures.INTERNAL:
        if "--debug" in argv:
            raise error
        message += " (run again with --debug for the traceback)"
    return f"{getattr(error, 'prefix', 'Error')}: {message}", code


def _release_signals(process_ends: bool) -> None:
    """The command has said what it did: a signal that came after its commit is
    reported, and signals act as usual again (store/interrupts.py's hand-off, loaded
    by the commands that write). The console script's process, which ends right after
    the command, keeps noting them to the end, so that one in the last milliseconds
    after a commit is not taken for an interruption of the write."""
    module = sys.modules.get("chitin.store.interrupts")
    if module is not None:
        module.HANDOFF.release(restore=not process_ends)


def _say_notices() -> None:
    """What chitin repaired by itself during the command (chitin.notices), once each."""
    for message in take():
        say(f"warning: {message}", err=True)


def _fail(line: str, code: int) -> int:
    say(_LONG_WORD.sub(_clipped_word, line), err=True)
    return code


# What a value quoted in an error (a file name, a path) may hold that would end its line
# or steer the terminal: shown as Python writes it (\n, \x1b), so the line stays one.
# (A bare command's help, which also ends here, keeps its lines: it is no error's text.)
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def harmless(message: str) -> str:
    """``message`` with its line breaks and control characters written as escapes."""
    return _CONTROL.sub(lambda found: repr(found.group())[1:-1], message)


# A run of characters no message needs whole (longer than any path a person reads):
# a value pasted by mistake, echoed back.
_LONG_WORD = re.compile(r"\S{301,}")


def _clipped_word(found: re.Match[str]) -> str:
    """The word's first 200 characters and its closing quote or bracket, if any."""
    word = found.group()
    closing = word[-1] if word[-1] in "'\")]," else ""
    return f"{word[:200]}…{closing}"


def _silence_stdout() -> None:
    # Output piped into `head` closed early: exit quietly, without a second error at exit.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
