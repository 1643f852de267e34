"""Start a background process only once chitin's commands pause.

    python -m chitin.quiet_start MARK [MARK ...] -- PROGRAM [ARG ...]

waits until no MARK (a file every chitin command touches: lockfile.note_command) has
been touched for QUIET_SECONDS, and at most MAX_WAIT, then becomes PROGRAM (exec: the
same pid). The background embedding is spawned this way (core/background.py): its own
start-up (the interpreter, the CLI, the model's libraries; ~0.1-0.2 s of CPU) ran at
once, beside the commands of the agent that had just set it off, and perf-vs-orig's
contribute at 1,000 paid for it in every run (docs/design.md §9q). This waiter costs
the interpreter's start and a stat per mark now and then.

A leaf of the standard library only: ``chitin`` and this module are all it imports.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False  # not typing's: this start imports no typing (~15 ms)
if TYPE_CHECKING:
    from collections.abc import Callable

QUIET_SECONDS = 1.0  # no command for this long: the work may start
MAX_WAIT = 30.0  # seconds: then it starts anyway, so that it ends while commands never stop
SEPARATOR = "--"


def wait_for_quiet(marks: list[str], clock: Callable[[], float] = time.time) -> float:
    """Wait while any of ``marks`` was touched less than QUIET_SECONDS ago, at most
    MAX_WAIT; a mark that cannot be read ends the wait (nothing to yield to). Returns
    the seconds waited."""
    started = clock()
    while clock() - started < MAX_WAIT:
        try:
            quiet_for = clock() - max(os.stat(mark).st_mtime for mark in marks)
        except (OSError, ValueError):
            break
        if quiet_for >= QUIET_SECONDS:
            break
        time.sleep(min(QUIET_SECONDS - quiet_for, MAX_WAIT) + 0.01)
    return clock() - started


def main(argv: list[str]) -> int:
    if SEPARATOR not in argv:
        print("usage: python -m chitin.quiet_start MARK ... -- PROGRAM [ARG ...]", file=sys.stderr)
        return 2
    split = argv.index(SEPARATOR)
    marks, program = argv[:split], argv[split + 1 :]
    if not program:
        print("chitin.quiet_start: no program to start after --", file=sys.stderr)
        return 2
    wait_for_quiet(marks)
    try:
        os.execv(program[0], program)
    except OSError as error:
        print(f"chitin.quiet_start: cannot start {program[0]}: {error}", file=sys.stderr)
        return 1
    return 0  # not reached: execv replaced this process


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
