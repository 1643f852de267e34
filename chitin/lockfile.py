"""The lock that serialises chitin's writers, the ``.chitin/`` folder they and the
index keep their files in, and the clearing of a folder that stands where chitin keeps
one of its own files. A leaf: the store locks itself with it, and the index its
derived files in ``.chitin/``."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO

from chitin.errors import StoreError
from chitin.notices import notice, shown
from chitin.residency import USER_FOLDER as USER_FOLDER  # where others import it from
from chitin.residency import private, user_folder_name

# The folder of derived data at the store root: git-ignored, chitin's own.
DERIVED_DIR = ".chitin"


def derived_folder(root: Path) -> Path:
    """``root/.chitin``, which is only ever a plain folder (made when first needed).

    Every path into it is made here. A link there (committed, so it arrives by git
    clone or sync, for .gitignore's ``.chitin/`` did not match a link) would take the
    cache, the lock and the vectors wherever it points: it is never followed, but
    removed (its target untouched), replaced by a folder and said once; if it cannot
    be removed, the command stops. A file there is left alone (it may be someone's):
    writers refuse it in one line (lockfile.WriteLock), readers use no cache."""
    folder = root / DERIVED_DIR
    try:
        mode = os.lstat(folder).st_mode
    except OSError:  # missing (made when needed), or the store itself is not there
        return folder
    if stat.S_ISLNK(mode):
        _replace_link(folder)
    return folder


def note_command(root: Path, env: Mapping[str, str] | None = None) -> None:
    """Say that a chitin command runs in the store at ``root``: the background
    embedding's lock file, where one has run, gets a fresh mtime (one system call, and
    none when there is no such file); with ``env``, so does this user's mark of
    commands (USER_COMMANDS_MARK in ``user_folder``), where a worker made one: a
    worker embedding *another* store waits for this command too. The worker waits
    while commands come (core/background.py, ``wait_for_quiet``)."""
    with contextlib.suppress(OSError):  # none here, or .chitin/ is not ours to touch
        os.utime(derived_folder(root) / COMMANDS_MARK, follow_symlinks=False)
    if env is not None:
        with contextlib.suppress(OSError):
            os.utime(user_folder(env) / USER_COMMANDS_MARK, follow_symlinks=False)


COMMANDS_MARK = "vectors/background.lock"  # core/background.py's LOCK_FILE
USER_COMMANDS_MARK = "commands"


def user_folder(env: Mapping[str, str]) -> Path:
    """This user's folder for chitin's files of the moment (the resident embedder's and
    the front's sockets, the mark of commands): see residency.py's ``user_folder_name``.
    Whoever trusts what is in it checks that it is private (``private_folder``)."""
    return Path(user_folder_name(env))


def private_folder(folder: Path, make: bool) -> bool:
    """Whether ``folder`` is a folder of this user's that nobody else may enter (made
    so if missing and ``make``). A symlink, another owner or open modes: not ours."""
    return private(folder, make)


def commands_mark(env: Mapping[str, str]) -> Path | None:
    """This user's mark of commands (``note_command``), made if missing, for a
    background worker to watch; None where the user's folder is not private (a mark
    that others could touch would let them hold the worker back)."""
    folder = user_folder(env)
    if not private_folder(folder, True):
        return None
    mark = folder / USER_COMMANDS_MARK
    with contextlib.suppress(OSError):
        mark.touch(exist_ok=True)
    return mark


def _replace_link(folder: Path) -> None:
    try:
        folder.unlink()
        folder.mkdir()
    except OSError as error:
        raise StoreError(
            f"{folder} is a link, not chitin's folder, and cannot be removed "
            f"({error.strerror or error}): remove it, and run again"
        ) from None
    notice(f"{DERIVED_DIR} was a link, not chitin's folder: replaced it with an empty folder")


def clear_in_the_way(path: Path) -> bool:
    """Remove a folder, a symlink, a FIFO, a socket or a device standing where chitin
    keeps a derived file (``.chitin/`` is chitin's own, safe to delete), and say so.
    True if there was one. (Opened as a file, a FIFO waits or cannot seek; a link is
    written through, out of the store: a dangling one has its target created.)"""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return False
    if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
        with contextlib.suppress(OSError):
            path.unlink()
        notice(
            f"{shown(path)} was not a regular file (a symlink, FIFO, socket or device); removed it"
        )
        return True
    if not stat.S_ISDIR(mode):
        return False
    import shutil

    shutil.rmtree(path, ignore_errors=True)
    notice(f"{shown(path)} was a folder, not chitin's file; removed it")
    return True


class WriteLock:
    """An exclusive lock on ``.chitin/lock`` that serializes writers across processes
    (or on another file of ``.chitin/``, ``what`` naming it in the error)."""

    def __init__(self, path: Path, timeout: float = 60.0, what: str = "the store lock") -> None:
        self.path = path
        self.timeout = timeout
        self.what = what
        self._handle: IO[bytes] | None = None

    def __enter__(self) -> WriteLock:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):  # a file where the folder goes
            raise StoreError(
                f"{self.path.parent} is not a folder, so writers cannot take their lock "
                "there; it holds only chitin's derived data: remove it and run again"
            ) from None
        clear_in_the_way(self.path)
        handle = open(self.path, "a+b")
        deadline = time.monotonic() + self.timeout
        while not try_lock(handle):
            if time.monotonic() > deadline:
                handle.close()
                raise StoreError(
                    f"another chitin process has held {self.what} for {self.timeout:.0f} s "
                    f"({self.path}); try again when it has finished"
                )
            time.sleep(0.02)
        self._handle = handle
        return self

    def fileno(self) -> int:
        """The locked file's descriptor. A child process handed it holds the lock with
        us, and on after us if we are killed: the next writer waits for it to end."""
        assert self._handle is not None, "the lock is not held"
        return self._handle.fileno()

    def __exit__(self, *exc: object) -> None:
        if self._handle is not None:
            unlock(self._handle)
            self._handle.close()
            self._handle = None


if sys.platform == "win32":
    import msvcrt

    def try_lock(handle: IO[bytes]) -> bool:
        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def unlock(handle: IO[bytes]) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def try_lock(handle: IO[bytes]) -> bool:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def unlock(handle: IO[bytes]) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
