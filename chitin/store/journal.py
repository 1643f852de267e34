"""The write in progress, on disk, so that a write killed half-way is undone.

A write notes the paths it is about to change in the repository's own folder
(``.git/chitin-write.json``) before it touches any of them, and removes the note when
its commit is made or it has put everything back. kill -9 (or a power cut) leaves the
note behind. The next command that can take the store's lock finds it and makes the
index and the working tree hold HEAD's version of those paths: HEAD is either the
state before the write or, if the commit was made, the completed write. Nothing a
person committed is touched, and chitin's temporary files are removed with it.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from chitin.notices import notice, shown
from chitin.store import files, git_commit

if TYPE_CHECKING:
    from chitin.store.git import Git

JOURNAL = "chitin-write.json"
# How long a git process that outlived a killed chitin may take to finish (it holds
# the index lock while it works) before its lock is taken to be stale.
GIT_GRACE_SECONDS = 3.0
# How long a reader that finds an interrupted write waits for the store's lock, to undo
# it, before it reads the files as they are.
READER_WAIT_SECONDS = 1.0


def path_of(git: Git) -> Path:
    return git.git_dir() / JOURNAL


def pending(git: Git) -> bool:
    """Whether a write was interrupted and not yet undone (one stat)."""
    return path_of(git).exists()


def operation(git: Git) -> str:
    """What the noted write was: "sync", or "write" (also for a note that does not read)."""
    return str(_noted(git).get("op", "write"))


def touches_files(git: Git) -> bool:
    """Whether the noted write may have changed files (a sync's fetch or push does not;
    a note that does not read may have)."""
    return bool(_noted(git).get("paths", True))


def _noted(git: Git) -> dict[str, object]:
    try:
        data = json.loads(path_of(git).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def begin(git: Git, paths: Sequence[str], operation: str = "write") -> Path:
    """Note the write of ``paths``, durably, before any of them is written. A sync
    (``operation="sync"``) notes the paths its merge may touch: undoing it also ends
    the merge git was making."""
    journal = path_of(git)
    temporary = journal.with_name(f"{JOURNAL}.{os.getpid()}.tmp")
    data = json.dumps({"pid": os.getpid(), "paths": list(paths), "op": operation})
    try:
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, journal)
    except BaseException as error:  # a full disk: the write stops here, and leaves nothing
        temporary.unlink(missing_ok=True)
        files.named(error, journal)
        raise
    return journal


def end(journal: Path) -> None:
    journal.unlink(missing_ok=True)


def recover_and_say(git: Git) -> None:
    """``recover``, and a notice of what was undone."""
    syncing = operation(git) == "sync"
    restored = recover(git)
    if syncing:
        notice(
            "ended a chitin sync that was interrupted: no merge is left in progress, and "
            "the store is at its last commit; run `chitin sync` again to finish it"
        )
    elif restored:
        plural = "s" if len(restored) != 1 else ""
        notice(
            f"undid a chitin write that was interrupted before its commit "
            f"({len(restored)} file{plural} put back as in HEAD)"
        )


def recover(git: Git) -> list[str] | None:
    """Undo the interrupted write, if any; the caller holds the store's lock. Returns
    the paths put back, or None when there was nothing to undo."""
    journal = path_of(git)
    operation = "write"
    try:
        data = json.loads(journal.read_text(encoding="utf-8"))
        paths = [p for p in data["paths"] if isinstance(p, str) and _inside(p)]
        operation = str(data.get("op", "write"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        paths = []  # a note cut short by the crash: its write had not begun
    if operation == "sync":
        undo_merge(git, paths)
    else:
        _wait_for_git(git)
        git_commit.restore_from_head(git, paths)
    _remove_temporary_files(git.root, paths)
    for pattern in ("chitin-index-*", "chitin-pathspec-*"):  # Git's own files, if left
        for leftover in git.git_dir().glob(pattern):
            leftover.unlink(missing_ok=True)
    end(journal)
    return paths


# What git keeps while a merge is under way; a sync that did not finish leaves none.
MERGE_STATE = ("MERGE_HEAD", "MERGE_MSG", "MERGE_MODE", "AUTO_MERGE", "MERGE_RR")


def undo_merge(git: Git, paths: Sequence[str], kept: Path | None = None) -> None:
    """End a merge that sync started and did not finish (a conflict, a kill, a signal):
    git's merge state goes, and the index and the working tree hold HEAD's version of
    ``paths`` (the paths the merge could touch), which is the store before the sync, or
    the merge commit if it was made. ``kept``: the index from before the merge
    (git_commit.keep_index), put back first."""
    _wait_for_git(git)
    git_dir = git.git_dir()
    for name in MERGE_STATE:
        with contextlib.suppress(FileNotFoundError, IsADirectoryError):
            (git_dir / name).unlink()
    # A merge driver's inputs, which git writes in the working tree's top folder.
    for leftover in git.root.glob(".merge_file_*"):
        with contextlib.suppress(OSError):
            leftover.unlink()
    if kept is not None:
        with contextlib.suppress(OSError):
            os.replace(kept, git_dir / "index")
    git_commit.restore_from_head(git, paths)


def _inside(path: str) -> bool:
    parts = path.split("/")
    return bool(parts) and not path.startswith("/") and ".." not in parts


def _wait_for_git(git: Git) -> None:
    """A git command started by the killed chitin may still be finishing its work: let
    it, then take the locks it left behind as stale (their owner is gone: we hold the
    store's lock, and every git command that chitin runs runs under it). A commit takes
    the index's lock, HEAD's and its branch's."""
    locks = _git_locks(git.git_dir())
    deadline = time.monotonic() + GIT_GRACE_SECONDS
    while any(lock.exists() for lock in locks) and time.monotonic() < deadline:
        time.sleep(0.05)
    for lock in locks:
        if lock.exists():
            with contextlib.suppress(FileNotFoundError):
                lock.unlink()
            notice(f"removed {shown(lock)}, left by a git command of an interrupted chitin write")


def _git_locks(git_dir: Path) -> list[Path]:
    locks = [git_dir / "index.lock", git_dir / "HEAD.lock", git_dir / "packed-refs.lock"]
    # A fetch updates the remote-tracking refs (and ORIG_HEAD, FETCH_HEAD) under locks.
    locks += [git_dir / "ORIG_HEAD.lock", git_dir / "FETCH_HEAD.lock"]
    with contextlib.suppress(OSError):
        locks += sorted((git_dir / "refs" / "remotes").rglob("*.lock"))
    try:
        head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return locks
    ref = head[5:].strip() if head.startswith("ref:") else ""
    if ref.startswith("refs/") and ".." not in ref.split("/"):
        locks.append(git_dir / f"{ref}.lock")
    return locks


def _remove_temporary_files(root: Path, paths: Sequence[str]) -> None:
    """The ``.chitin-*.tmp`` files that atomic writes leave when killed mid-write."""
    for folder in {(root / path).parent for path in paths}:
        with contextlib.suppress(OSError):
            for leftover in folder.glob(".chitin-*.tmp"):
                leftover.unlink(missing_ok=True)
