"""Whether git's index still holds exactly HEAD's tree, as chitin's last plain commit
left it: then nothing else is staged, and a write need not ask git (``git diff
--cached``, one process beside every commit's staging: docs/design.md §9m).

After a commit of the whole index (git_commit's plain commit, made only when nothing
else was staged), the index holds the new HEAD's tree. Its identity then (device,
inode, mtime, ctime, size) is kept with that HEAD in ``.chitin/clean-index`` (derived
data: a lost or stale note costs one ``git diff --cached``). git writes its
index whole, into ``index.lock`` renamed over it, so any later change of the index
(``git add``, ``reset``, a checkout, a ``status`` that refreshes it) gives it another
inode; a HEAD moved without the index (``reset --soft``, ``update-ref``) no longer
matches the kept commit. Either way the next write asks git again.

A hook may change the index after the commit git made of it (post-commit, the ref
transaction's): git renames its index into place before it writes the commit and
moves the branch, so the identity is kept only when the index is older than the
branch's ref file (timestamps finer than a millisecond, a loose ref of a plain
``.git`` folder); anything else, and git is asked each time, as before.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from chitin.errors import StoreError
from chitin.store.files import read_file
from chitin.store.git_head import read_head

KEPT = "clean-index"  # in .chitin/
KEPT_BYTES = 256  # "<commit> <five numbers>\n"


def as_left(git_dir: Path, kept: Path) -> bool:
    """Whether the index is the one chitin's last plain commit left, with HEAD there."""
    try:  # a FIFO there is not waited on
        note = read_file(kept, KEPT_BYTES).decode("ascii")
    except (OSError, StoreError, UnicodeDecodeError):
        return False
    now = _identity(git_dir)
    return now is not None and note == now


def remember(git_dir: Path, kept: Path) -> None:
    """Keep the index's identity after a plain commit, when no hook rewrote it since;
    else forget the last one."""
    now = _identity(git_dir) if _untouched_since_commit(git_dir) else None
    if now is None:
        with contextlib.suppress(OSError):
            kept.unlink(missing_ok=True)
        return
    if not kept.parent.is_dir():
        return
    temporary = kept.with_name(f".{kept.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(now, encoding="ascii")
        os.replace(temporary, kept)  # over anything there, a FIFO included
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink()


def _identity(git_dir: Path) -> str | None:
    head = read_head(git_dir)
    try:
        index = os.stat(git_dir / "index")
    except OSError:
        return None
    if head is None:
        return None
    stamp = (index.st_dev, index.st_ino, index.st_mtime_ns, index.st_ctime_ns, index.st_size)
    return f"{head} {' '.join(map(str, stamp))}\n"


def _untouched_since_commit(git_dir: Path) -> bool:
    """Whether the index is older than the branch's ref: written by the commit, before
    the commit moved the branch, and not since."""
    try:
        head = (git_dir / "HEAD").read_text(encoding="ascii").strip()
        if not head.startswith("ref: refs/") or ".." in head:
            return False
        ref = os.stat(git_dir / head[5:]).st_mtime_ns
        index = os.stat(git_dir / "index").st_mtime_ns
    except (OSError, UnicodeDecodeError):
        return False
    fine = index % 1_000_000 != 0 and ref % 1_000_000 != 0  # else the same tick may hide it
    return fine and index < ref
