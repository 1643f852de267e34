"""The ``chitin`` program's entry point: one look at the command line, then the CLI.

A reading command in a store that is synced by git (see index/changes.py) will need
``git status``. Started here, before click and the command's own modules load (~80 ms
on the machines we measure, against ~25 ms of status at 10,000 insights), git has its
answer ready by the time the cache syncs, and the session start does not wait for it.

Only reading commands prefetch: a writer must see what other writers committed while
it waited for the store's lock. The look is deliberately simple: anything it does not
recognise (an option it does not know, a command it is not sure of) prefetches
nothing, which costs nothing but the head start. A status nobody asks for is ended
with the command.
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # not signal.py: its enums cost ~1 ms
import os
import sys

NOTHING_CHANGED = "nothing was changed"


def nothing_changed() -> str:
    """What a Ctrl-C before the command began says, as one during it would
    (process.interrupted_line: below a terminal's echoed "^C")."""
    return process.interrupted_line(NOTHING_CHANGED, 2, sys.stderr) + "\n"


def _loading_interrupted(number: int, frame: object) -> None:
    """A Ctrl-C while the program loads (the imports below, ~4 ms): nothing has begun,
    so one line, as main says it, and no traceback. It is set before anything of
    chitin's loads, chitin.process too (a Ctrl-C during that import was a traceback),
    so it says the line from os alone, as process.interrupted_line does for SIGINT:
    below the terminal's "^C" echo, and with no blank line anywhere else."""
    below = "\n" if os.isatty(2) else ""
    os.write(2, f"{below}Interrupted: {NOTHING_CHANGED}.\n".encode())
    os._exit(130)


# Only when this module starts the chitin program (its console script, or python -m
# chitin; front.console_script's test, which this cannot import yet), never for a program
# that imports it, nor over a handler someone else set. main puts Python's back.
_MAIN = sys.modules.get("__main__")
if (
    getattr(getattr(_MAIN, "__spec__", None), "name", None) == "chitin.__main__"
    or os.path.basename(getattr(_MAIN, "__file__", None) or "") == "chitin"
) and _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
    _signal.signal(_signal.SIGINT, _loading_interrupted)

from chitin import front, process  # noqa: E402  (after the handler: they take ~4 ms)

TYPE_CHECKING = False  # not typing's: the console script's start imports no typing (~3 ms)
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import NoReturn

# Commands that only read the store.
READERS = frozenset(
    {"get", "list", "stats", "similar", "retrieve", "render", "embed-status", "quality",
     "quality:score", "export"}
)  # fmt: skip
SESSION_START_HOOK = ("hooks", "run", "claude-code", "session-start")


def main() -> None:
    process.hold_collector()  # for the start-up (chitin/process.py says why)
    try:
        if _signal.getsignal(_signal.SIGINT) is _loading_interrupted:
            _signal.signal(_signal.SIGINT, _signal.default_int_handler)  # caught here on
        front.attempt(sys.argv[1:], os.environ)  # ends the process when a worker ran it
    except KeyboardInterrupt:  # Ctrl-C while it asked the front: no command has begun
        _not_begun()
    run_command(sys.argv[1:])


def run_command(argv: Sequence[str]) -> None:
    """What ``chitin <argv>`` runs, in this process or a worker of the front."""
    try:
        reading = prefetch(argv, os.environ)
        if reading:
            lean_run(argv)  # ends the process when it ran the command
        from chitin.cli import main as run_cli
    except KeyboardInterrupt:  # Ctrl-C while chitin loads: no command has begun
        _not_begun()
    if not reading:
        process.release_collector()  # a writer, the server or a worker may run long
    try:
        run_cli()
    except KeyboardInterrupt:
        # At the CLI's entry, before its own handling (cli/outcome.conclude) began: no
        # command has begun. After it, a writer notes signals to its end (the hand-off of
        # store/interrupts.py), so one that escapes comes from a command that only read.
        _not_begun()


def _not_begun() -> NoReturn:
    sys.stderr.write(nothing_changed())
    sys.exit(130)


def lean_run(argv: Sequence[str]) -> None:
    """The plain command lines of get, list, stats and retrieve, run without click
    (cli/lean.py); anything else returns, for the click group."""
    from chitin.cli.lean import attempt

    code = attempt(argv)
    if code is not None:
        process.leave(code)


def prefetch(argv: Sequence[str], env: Mapping[str, str]) -> bool:
    """Start ``git status`` now for a reading command in a store synced by git, but
    for ``get``: it stats the one file it shows instead (core/session.py,
    ``cache_vouching``), and asks git only when that file or a folder changed.
    Returns whether the command only reads."""
    reading, store = reading_command(argv)
    if reading and _command_line(argv)[0][0] != "get":
        # pathlib, where the store is, the index's mark and git: for reading commands
        # only (console/ahead.py); --version and the writers load none of them.
        from chitin.console.ahead import prefetch_status

        prefetch_status(store, env)
    return reading


def reading_command(argv: Sequence[str]) -> tuple[bool, str | None]:
    """Whether ``chitin <argv>`` only reads a store, and the --store it names (None: the
    store is found by the rule every command uses, chitin/location.py). False for a
    writer, a command line it does not recognise, or one that reads no store."""
    rest, store = _command_line(argv)
    if not rest or not (rest[0] in READERS or tuple(rest[:4]) == SESSION_START_HOOK):
        return False, None
    return True, _late_store(rest[1:]) or store


def _command_line(argv: Sequence[str]) -> tuple[list[str], str | None]:
    """The command and its arguments, and the --store given before it; ([], None) for
    a global option it does not know (--help, --version, ...): nothing to read."""
    store: str | None = None
    rest = list(argv)
    while rest and rest[0].startswith("-"):
        if rest[0] == "--store" and len(rest) > 1:
            store, rest = rest[1], rest[2:]
        elif rest[0].startswith("--store="):
            store, rest = rest[0].split("=", 1)[1], rest[1:]
        elif rest[0] == "--debug":
            rest = rest[1:]
        else:
            return [], None
    return rest, store


def _late_store(args: Sequence[str]) -> str | None:
    """The last --store given after the command (click takes the last one too)."""
    found = None
    for index, arg in enumerate(args):
        if arg == "--store" and index + 1 < len(args):
            found = args[index + 1]
        elif arg.startswith("--store="):
            found = arg.split("=", 1)[1]
    return found
