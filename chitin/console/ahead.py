"""The console's look ahead for a reading command: where its store is, and, when the
store's cache syncs by git (index/changes.py), ``git status`` started there now, before
the CLI loads (chitin/console/__init__.py says why). Loaded for reading commands only."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from chitin.console import reading_command
from chitin.errors import ChitinError
from chitin.format.layout import SCANNED_DIRS
from chitin.index.changes import syncs_by_git
from chitin.location import locate
from chitin.store import git


def reading_store(argv: Sequence[str], env: Mapping[str, str]) -> Path | None:
    """The store that ``chitin <argv>`` will only read, or None: a writer, a command
    line it does not recognise, or one that reads no store. Found by the rule every
    command uses (chitin/location.py), with a --store after the command too."""
    reading, store = reading_command(argv)
    return located(store, env) if reading else None


def prefetch_status(store: str | None, env: Mapping[str, str]) -> None:
    """Start ``git status`` in the store a reading command names, if it syncs by git:
    a look ahead only, so a store it cannot place is the command's to report."""
    try:
        root = located(store, env)
    except ChitinError:
        return
    if syncs_by_git(root):
        git.prefetch_status(root, SCANNED_DIRS)


def located(store: str | None, env: Mapping[str, str]) -> Path:
    try:
        here: Path | None = Path.cwd()
    except OSError:  # the folder was removed under us: no store there
        here = None
    return locate(store, env, here).path
