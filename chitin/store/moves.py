"""An insight file a person moved by hand (``mv``, ``git mv``, a rename): the file at
its new path is new to HEAD, and HEAD's file of the same id is gone from the working
tree. A commit of hand edits that takes either half takes the other with it, so that
HEAD holds the insight once (a move is one insight moved, not one added beside the old
one), whichever path the write that commits them names: its new one (``reinforce``,
``archive``), or its old one (a ``sync`` whose incoming change is there)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from chitin.errors import StoreError, ValidationError
from chitin.format.layout import SCANNED_DIRS, is_insight_path
from chitin.format.markdown import read_insight
from chitin.store.files import read_file

if TYPE_CHECKING:
    from chitin.store.git import Git

# The removals asked of git: files in HEAD that the working tree lacks, each with its
# blob (to read its id when its name does not tell it).
GONE = ["diff", "--raw", "-z", "--no-abbrev", "--no-renames", "--diff-filter=D", "HEAD"]
# The files new to HEAD: untracked ones, and those staged as added (``git mv``).
NEW = [
    "--no-optional-locks",
    "status",
    "--porcelain=v2",
    "-z",
    "--untracked-files=all",
    "--no-renames",
]
NEW_TO_HEAD = ("untracked", "added")  # git.pending's kinds of a file HEAD lacks


def counterparts(git: Git, root: Path, pending: Mapping[str, str]) -> dict[str, str]:
    """The other half of each hand move among ``pending`` (git.pending's answer): for a
    file new to HEAD, HEAD's files of its id gone from the working tree (where it came
    from); for a file of HEAD gone from the working tree, the files new to HEAD that
    hold its id (where it went). Path → kind, as git.pending says it. Other files a
    person added or removed are not among them; git is asked only when one of
    ``pending`` is new to HEAD or gone."""
    here = {p: os.path.lexists(root / p) for p in pending if is_insight_path(p)}
    new = [p for p, there in here.items() if there and pending[p] in NEW_TO_HEAD]
    gone = [p for p, there in here.items() if not there and pending[p] not in NEW_TO_HEAD]
    found: dict[str, str] = {}
    if new:
        ids = {_id_of(root, path) for path in new}
        found.update(dict.fromkeys(_gone_of(git, ids), "modified"))
    if gone:
        removed = _gone(git)
        blobs = git.cat_blobs(removed[p] for p in gone if p in removed)
        ids = {_id_in(blobs.get(removed.get(p, "")), PurePosixPath(p).stem) for p in gone}
        found.update(_new_of(git, root, ids))
    return {path: kind for path, kind in found.items() if path not in pending}


def _gone_of(git: Git, ids: set[str]) -> list[str]:
    """HEAD's files gone from the working tree that hold one of ``ids``."""
    gone = _gone(git)
    found = [path for path in gone if PurePosixPath(path).stem in ids]
    others = {path: blob for path, blob in gone.items() if path not in found}
    if others:
        blobs = git.cat_blobs(others.values())
        for path, blob in others.items():
            if _id_in(blobs.get(blob), PurePosixPath(path).stem) in ids:
                found.append(path)
    return found


def _gone(git: Git) -> dict[str, str]:
    """Insight files of HEAD missing from the working tree: path → their blob."""
    listed = git.run([*GONE, "--", *SCANNED_DIRS], check=False).stdout.split("\0")
    gone: dict[str, str] = {}
    for record, path in zip(listed[::2], listed[1::2], strict=False):
        fields = record.split()
        if len(fields) >= 3 and is_insight_path(path):
            gone[path] = fields[2]
    return gone


def _new_of(git: Git, root: Path, ids: set[str]) -> dict[str, str]:
    """The insight files new to HEAD (untracked, or staged as added) holding one of
    ``ids``: path → ``untracked`` or ``added``."""
    listed = git.run([*NEW, "--", *SCANNED_DIRS], check=False).stdout.split("\0")
    found: dict[str, str] = {}
    for record in listed:
        if record.startswith("? "):
            path, kind = record[2:], "untracked"
        elif record.startswith("1 A"):
            path, kind = record.split(" ", 8)[-1], "added"
        else:
            continue
        if is_insight_path(path) and _id_of(root, path) in ids:
            found[path] = kind
    return found


def _id_of(root: Path, path: str) -> str:
    try:
        text: bytes | None = read_file(root / path)
    except (OSError, StoreError):
        text = None
    return _id_in(text, PurePosixPath(path).stem)


def _id_in(text: bytes | None, fallback: str) -> str:
    """The id a file's text holds (its name's, as a reader takes it, when it has none)."""
    if text is None:
        return fallback
    try:
        found = read_insight(
            text.decode("utf-8", "replace"),
            fallback_id=fallback,
            fallback_type=None,
            fallback_time="1970-01-01T00:00:00Z",
        )
    except ValidationError:
        return fallback
    return found.id
