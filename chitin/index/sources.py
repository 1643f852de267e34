"""What the cache is handed: the insight files, and what git knows of their changes.

The index reads no file and runs no git itself. ``core`` builds the cache with a file
loader (``InsightFiles``: the store's ``store/source.py`` over its safe reader and the
file format) and, in a git store, a change source (``ChangeSource``: the store's
``Git`` answers it as it is). A test can hand it anything that answers the same
questions, such as a store kept in memory.

Paths are store-relative, with ``/`` between parts, as in the cache's rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from chitin.format.layout import FileStat, Folder
from chitin.model.insight import Insight


class InsightFiles(Protocol):
    """The insight folders, listed, statted and read: the walk's rules (no link is
    followed, hidden files and README.md are not insights) are the loader's."""

    def walk(self) -> dict[str, Folder]:
        """Every insight file under the scanned folders, by folder: one call a sync."""
        ...

    def lstat(self, path: str) -> tuple[FileStat, int]:
        """The stat of ``path`` itself (a link not followed) and its mode; OSError
        (FileNotFoundError, NotADirectoryError) when there is nothing there."""
        ...

    def entries(self, folder: str) -> tuple[list[str], list[str]]:
        """The names the walk lists in ``folder``, and its real sub-folders."""
        ...

    def is_listed(self, path: str) -> bool:
        """Whether the walk may list ``path`` (a path git names)."""
        ...

    def through_link(self, path: str, seen: dict[str, bool]) -> bool:
        """Whether a folder on the way to ``path`` is a link or no folder; ``seen``
        keeps the answers by folder."""
        ...

    def linked_top(self, top: str) -> None:
        """Say that the top folder ``top`` is a symbolic link, which is not followed."""
        ...

    def load(self, path: str, stat: FileStat) -> Insight:
        """The insight in the file at ``path``, whose stat is ``stat``. Raises
        ChitinError, OSError or UnicodeDecodeError for a file that cannot be read:
        the cache keeps the reason as the file's problem."""
        ...


class ChangeSource(Protocol):
    """What git says of the files (``store.git.Git`` answers this as it is)."""

    def status(self, paths: Sequence[str]) -> tuple[str | None, set[str]] | None:
        """(HEAD, tracked paths that differ from it), or None when it cannot tell."""
        ...

    def changed_between(self, old: str, new: str, paths: Sequence[str]) -> set[str] | None:
        """The paths that differ between two commits, or None when it cannot tell."""
        ...

    def untracked(self, paths: Sequence[str]) -> Iterable[str]:
        """The files it does not track, ignored ones too."""
        ...
