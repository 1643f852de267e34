"""Notices: what chitin repaired or set aside by itself, for the front end to show.

A damaged file under ``.chitin/`` (a truncated cache, random bytes in the vector index,
a folder where a file belongs) is rebuilt or set aside, and the command goes on: the
session start must not fail for derived data. The person should still hear of it,
once. Code below the CLI cannot print, so it records a notice here, and the CLI
prints what is pending after each command (``warning: …`` on stderr).

This is process-wide on purpose, as Python's ``warnings`` are: the repairs happen deep
in the index, store and provider layers, and threading a sink through every
constructor would put a parameter on a dozen signatures for a rare event. A
long-running front end (a server) takes the pending notices after each request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # --version prints the notices too, and must not load pathlib
    from pathlib import Path

_pending: list[str] = []


def notice(message: str) -> None:
    """Record one line for the person (said once per command, however often recorded)."""
    if message not in _pending:
        _pending.append(message)


def take() -> list[str]:
    """The notices recorded since the last call, oldest first; the list is emptied."""
    taken = list(_pending)
    _pending.clear()
    return taken


def shown(path: Path) -> str:
    """``path`` as a notice names it: from the store's ``.chitin/`` folder on, if it is
    inside one (the notice is about that file, wherever the store lives)."""
    parts = path.parts
    if ".chitin" in parts:
        return "/".join(parts[parts.index(".chitin") :])
    return str(path)
