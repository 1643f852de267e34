"""File-system primitives: atomic writes, the writers' lock, and the walk over insight files."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, NamedTuple

from chitin.errors import StoreError

# Folders at the store root that hold insight files: live ones and archived ones.
INSIGHTS_DIR = "insights"
ARCHIVE_DIR = "archive"
SCANNED_DIRS = (INSIGHTS_DIR, ARCHIVE_DIR)


# What tells us a file changed without reading it, as git's index does:
# (mtime_ns, ctime_ns, size, inode). A plain tuple, because the walk makes 100,000
# of them per command in a large store and a NamedTuple costs a Python-level call.
FileStat = tuple[int, int, int, int]


class Folder(NamedTuple):
    """The insight files of one folder: names and their stats, in the same order."""

    names: list[str]
    stats: list[FileStat]


# A file modified this close to the moment its stat is recorded could change again
# within the same timestamp tick without its stat changing (git calls it "racily
# clean"). What is recorded of such a file is not trusted the next time.
RACY_WINDOW_NS = 2_000_000_000


def stat_of(path: Path) -> FileStat:
    st = path.stat()
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


def atomic_write(path: Path, text: str, durable: bool = True) -> FileStat:
    """Write through a temporary file in the same folder, then rename over the target.

    A crash leaves either the old file or the new one, never half of one. ``durable``
    also syncs the data to disk before the rename, so a power cut cannot leave an
    empty file behind.
    """
    import tempfile  # ~8 ms to import, and only writers write

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=".chitin-", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, _mode_for(path))  # mkstemp makes 0600; keep what the file had
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    return stat_of(path)


def _mode_for(path: Path) -> int:
    """The permissions a rewrite of ``path`` keeps: its own, or for a new file what
    the umask gives (usually 0644)."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def bulk_write(path: Path, text: str) -> None:
    """Write one of many files: a new file is created in place, an existing one is
    replaced through a temporary file, and nothing is synced file by file.

    For writes of hundreds of files at once (an import), where file-by-file syncing
    and renaming cost more than the rest together. Their all-or-nothing comes from
    ``restoring`` and the single commit that follows, not from each file.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with open(path, "x", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    except FileExistsError:
        atomic_write(path, text, durable=False)


def is_insight_name(name: str) -> bool:
    """Insight files end in .md; hidden files and README.md files are not insights."""
    return name.endswith(".md") and not name.startswith(".") and name.lower() != "readme.md"


def is_insight_path(path: str) -> bool:
    """The same rule for a store-relative path, which must lie in a scanned folder."""
    parts = path.split("/")
    return (
        len(parts) >= 2
        and parts[0] in SCANNED_DIRS
        and is_insight_name(parts[-1])
        and not any(part.startswith(".") for part in parts[1:-1])
    )


def walk(root: Path) -> dict[str, Folder]:
    """Every insight file under insights/ and archive/, by folder (relative, '/').

    Hidden files and folders, README.md files and editor temp files are not insights.
    """
    found: dict[str, Folder] = {}
    for top in SCANNED_DIRS:
        base = root / top
        if base.is_dir():
            _walk_dir(str(base), top, found)
    return found


def _walk_dir(directory: str, rel: str, found: dict[str, Folder]) -> None:
    folder = Folder([], [])
    subdirs: list[tuple[str, str]] = []
    with os.scandir(directory) as scan:
        for entry in scan:
            name = entry.name
            if name.endswith(".md"):
                if is_insight_name(name) and entry.is_file():
                    st = entry.stat()
                    folder.names.append(name)
                    folder.stats.append((st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino))
            elif name[0] != "." and entry.is_dir():
                subdirs.append((entry.path, f"{rel}/{name}"))
    found[rel] = folder
    for path, sub_rel in subdirs:
        _walk_dir(path, sub_rel, found)


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
        self.path.parent.mkdir(parents=True, exist_ok=True)
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


@contextlib.contextmanager
def restoring(paths: list[Path]) -> Iterator[None]:
    """Put ``paths`` back as they were if the block fails: nothing is left half-done."""
    saved: dict[Path, bytes | None] = {}
    for path in paths:
        try:
            saved[path] = path.read_bytes()
        except FileNotFoundError:
            saved[path] = None
    try:
        yield
    except BaseException:
        for path, content in saved.items():
            if content is None:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(content)
        raise
