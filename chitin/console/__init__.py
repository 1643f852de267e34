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

import os
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # nothing more loads for --version and other commands that read nothing
    from pathlib import Path

# Commands that only read the store.
READERS = frozenset(
    {"get", "list", "stats", "similar", "retrieve", "render", "embed-status", "quality",
     "quality:score", "export"}
)  # fmt: skip
SESSION_START_HOOK = ("hooks", "run", "claude-code", "session-start")


def main() -> None:
    try:
        prefetch(sys.argv[1:], os.environ)
        from chitin.cli import main as run_cli
    except KeyboardInterrupt:  # Ctrl-C while chitin loads: no command has begun
        sys.stderr.write("Interrupted: nothing was changed.\n")
        sys.exit(130)
    run_cli()


def reading_store(argv: Sequence[str], env: Mapping[str, str]) -> Path | None:
    """The store that ``chitin <argv>`` will only read, or None: a writer, a command
    line it does not recognise, or one that reads no store. Found by the rule every
    command uses (chitin/location.py), with a --store after the command too."""
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
            return None  # --help, --version, or something else: nothing to read
    if not rest or not (rest[0] in READERS or tuple(rest[:4]) == SESSION_START_HOOK):
        return None
    store = _late_store(rest[1:]) or store
    from pathlib import Path

    from chitin.location import locate

    try:
        here = Path.cwd()
    except OSError:  # the folder was removed under us: no store there
        here = None
    return locate(store, env, here).path


def _late_store(args: Sequence[str]) -> str | None:
    """The last --store given after the command (click takes the last one too)."""
    found = None
    for index, arg in enumerate(args):
        if arg == "--store" and index + 1 < len(args):
            found = args[index + 1]
        elif arg.startswith("--store="):
            found = arg.split("=", 1)[1]
    return found


def prefetch(argv: Sequence[str], env: Mapping[str, str]) -> None:
    """Start ``git status`` now for a reading command in a store synced by git."""
    root = reading_store(argv, env)
    if root is None:
        return
    from chitin.index.changes import syncs_by_git

    if syncs_by_git(root):
        from chitin.format.layout import SCANNED_DIRS
        from chitin.store import git

        git.prefetch_status(root, SCANNED_DIRS)
