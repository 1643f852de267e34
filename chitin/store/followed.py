"""An insight one side of a sync moved (archived, unarchived, retyped) and changed, and
the other side changed where it was: merged where it went.

git pairs a moved file with its old path only while the two are at least half alike,
and an insight file is small: a couple of reinforcements (their evidence lines, the
new counts and times) before an archive and git sees one file deleted and another
added. The old path is then in conflict (changed on one side, deleted on the other)
although the insight is the same, for its file name is its id. Here the three
versions meet as the merge driver would have met them, at the new path; the old path
goes. A merge that would leave a conflict is left to the person, with the driver's
markers at the old path (so both sides' texts show); the version they keep there (a
side, or their edit) then replaces the moved copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from chitin.format.layout import ARCHIVE_DIR, INSIGHTS_DIR
from chitin.store import remote
from chitin.store.files import atomic_write
from chitin.store.merging import merge_texts, unreadable

if TYPE_CHECKING:
    from chitin.store.git import Git

_TOPS = (INSIGHTS_DIR, ARCHIVE_DIR)


def same_names(git: Git, paths: Sequence[str]) -> list[str]:
    """The insight files of the index (HEAD's, before a merge) that share a file name
    with one of ``paths`` elsewhere: where a move on this side took them. A merge that
    follows a move may rewrite them, so the sync's journal covers them too."""
    names = {PurePosixPath(p).name for p in paths if p.startswith(_TOPS)}
    if not names:
        return []
    listed = git.run(["ls-files", "-z", "--", *_TOPS]).stdout.split("\0")
    return sorted(p for p in listed if p and PurePosixPath(p).name in names and p not in paths)


def follow(git: Git, path: str) -> bool:
    """Settle the conflicted ``path`` if one side moved it and both changed it: the
    merged insight is staged at the new path and ``path`` removed. False (nothing
    done) for any other conflict, or when the merge itself conflicts."""
    base, ours, theirs = (remote.stage(git, path, n) for n in (1, 2, 3))
    if base is None or (ours is None) == (theirs is None):
        return False  # not "changed on one side, gone on the other"
    moved = _moved_to(git, path)
    if moved is None:
        return False
    there = remote.stage(git, moved, 0)
    if there is None:
        return False
    try:
        old, mine, other = (t.decode("utf-8") for t in (base, ours or there, theirs or there))
    except UnicodeDecodeError:
        return False
    merged = merge_texts(old, mine, other, moved)
    if merged.conflicts:  # shown to the person as the driver marks it, counts merged
        atomic_write(git.root / path, merged.text)
        return False
    if unreadable(merged.text, moved) is not None:
        return False
    remote.settle(git, moved, merged.text.encode("utf-8"))
    remote.settle(git, path, None)
    return True


def drop_copy(git: Git, path: str) -> None:
    """The conflicted ``path`` is settled by a version kept there (a side chosen, or
    the person's edit): the copy of the same insight one side moved elsewhere goes,
    so that one id is one file."""
    moved = _moved_to(git, path)
    if moved is not None:
        remote.settle(git, moved, None)


def _moved_to(git: Git, path: str) -> str | None:
    """The one other insight file of ``path``'s name that the merge holds unconflicted."""
    name = PurePosixPath(path).name
    listed = git.run(["ls-files", "-z", "--stage", "--", *_TOPS]).stdout.split("\0")
    found = []
    for entry in listed:
        info, _, where = entry.partition("\t")
        if where and where != path and PurePosixPath(where).name == name:
            found.append((info.split()[-1], where))
    return found[0][1] if len(found) == 1 and found[0][0] == "0" else None
