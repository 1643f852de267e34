"""The lock that serialises chitin's writers, and the clearing of a folder that stands
where chitin keeps one of its own files. A leaf: the store locks itself with it, and
the index its derived files in ``.chitin/``."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import IO

from chitin.errors import StoreError


def clear_in_the_way(path: Path) -> bool:
    """Remove a folder standing where chitin keeps a derived file (``.chitin/`` is
    chitin's own, safe to delete), and say so. True if there was one."""
    if not path.is_dir() or path.is_symlink():
        return False
    import shutil

    from chitin.notices import notice, shown

    shutil.rmtree(path, ignore_errors=True)
    notice(f"{shown(path)} was a folder, not chitin's file; removed it")
    return True


class WriteLock:
    """An exclusive lock on ``.chitin/lock`` that serializes writers across processes."""

    def __init__(self, path: Path, timeout: float = 60.0) -> None:
        self.path = path
        self.timeout = timeout
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
                    f"another chitin process has held the store lock for {self.timeout:.0f} s "
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
