"""Whether the insight files may have changed since last asked, for a process that
answers many requests (the MCP server).

Such a process must see every change made under it (a ``git pull``, a hand edit,
another process's write) by its next request, and a command's way of seeing them, a
cache sync, costs a ``git status`` (~25 ms at 10,000 insights, ~250 ms at 100,000).
On Linux, inotify watches the insight folders instead: while no event has come,
nothing changed, and the sync is skipped.

Nothing is taken for granted. Where inotify is missing (macOS, Windows), cannot be
set up (the watch limit), or may not hear every change (file systems whose files
another machine can change: NFS, SMB, FUSE, 9p), or when its queue overflowed, the
answer is "maybe", and the caller syncs as a command does.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import struct
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

# inotify(7)
IN_MODIFY = 0x00000002
IN_ATTRIB = 0x00000004
IN_CLOSE_WRITE = 0x00000008
IN_MOVED_FROM = 0x00000040
IN_MOVED_TO = 0x00000080
IN_CREATE = 0x00000100
IN_DELETE = 0x00000200
IN_DELETE_SELF = 0x00000400
IN_MOVE_SELF = 0x00000800
IN_Q_OVERFLOW = 0x00004000
IN_IGNORED = 0x00008000
IN_ONLYDIR = 0x01000000
IN_ISDIR = 0x40000000
IN_NONBLOCK = 0o4000
IN_CLOEXEC = 0o2000000

FOLDER_EVENTS = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF
    | IN_ONLYDIR
)
# The store's own folder: only its entries coming and going matter (``insights/``
# made, removed, renamed), and the folder itself being moved away.
ROOT_EVENTS = IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF
_HEADER = struct.Struct("iIII")  # wd, mask, cookie, len; then len bytes of name

# statfs(2) f_type of local file systems, whose every change goes through this
# kernel and so reaches inotify.
LOCAL_FILE_SYSTEMS = frozenset(
    {
        0xEF53,  # ext2/3/4
        0x58465342,  # xfs
        0x9123683E,  # btrfs
        0x01021994,  # tmpfs
        0x794C7630,  # overlayfs (containers)
        0x2FC12FC1,  # zfs
        0xF2F52010,  # f2fs
        0xCA451A4E,  # bcachefs
        0x52654973,  # reiserfs
        0x3153464A,  # jfs
    }
)


class Watcher:
    """Watches ``folders`` (relative to ``root``) and everything below them."""

    def __init__(self, root: Path, folders: Sequence[str]) -> None:
        self.root = root
        self.folders = tuple(folders)
        self._fd: int | None = None
        self._root_wd: int | None = None
        self._paths: dict[int, Path] = {}  # watch descriptor -> folder
        self._usable = sys.platform.startswith("linux")

    @property
    def watching(self) -> bool:
        return self._fd is not None

    def changed(self) -> bool:
        """True unless it is known that no insight file changed since the last call.

        The first call (and any call after the watches were lost) sets the watches up
        and says True: the caller syncs after this call, so a change made meanwhile is
        either seen by that sync or heard of at the next call."""
        if self._fd is None:
            self._start()
            return True
        try:
            return self._drain()
        except OSError:
            self.close()
            return True

    def close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
        self._fd = None
        self._root_wd = None
        self._paths.clear()

    # -------------------------------------------------------------- setting up

    def _start(self) -> None:
        if not self._usable or not self.root.is_dir():
            return
        if _file_system(self.root) not in LOCAL_FILE_SYSTEMS:
            self._usable = False  # never trusted for this store: ask no more
            return
        libc = _libc()
        if libc is None:
            self._usable = False
            return
        fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            return  # the per-user limit of inotify instances: try again next time
        self._fd = fd
        try:
            self._root_wd = self._add(self.root, ROOT_EVENTS)
            for name in self.folders:
                self._add_tree(self.root / name)
        except OSError:
            self.close()

    def _add(self, folder: Path, mask: int) -> int:
        libc = _libc()
        assert libc is not None and self._fd is not None
        wd = int(libc.inotify_add_watch(self._fd, os.fsencode(folder), mask))
        if wd < 0:
            error = ctypes.get_errno()
            raise OSError(error, os.strerror(error), str(folder))
        self._paths[wd] = folder
        return wd

    def _add_tree(self, top: Path) -> None:
        """Watch ``top`` and every folder below it; one that is not there (yet) is
        watched when it comes (the parent hears of it)."""
        for folder in _folders_below(top):
            try:
                self._add(folder, FOLDER_EVENTS)
            except FileNotFoundError:
                continue
            except NotADirectoryError:
                continue

    # -------------------------------------------------------------- events

    def _drain(self) -> bool:
        assert self._fd is not None
        changed = False
        while True:
            try:
                data = os.read(self._fd, 65536)
            except BlockingIOError:
                return changed
            if not data:
                return changed
            if self._handle(data):
                changed = True
            if self._fd is None:  # the watches were lost: set up again next time
                return True

    def _handle(self, data: bytes) -> bool:
        changed = False
        for wd, mask, name in _events(data):
            if mask & IN_Q_OVERFLOW:
                self.close()  # events were lost: trust nothing, start again
                return True
            if wd == self._root_wd:
                if mask & (IN_DELETE_SELF | IN_MOVE_SELF):
                    self.close()
                    return True
                if name in self.folders:
                    changed = True
                    if mask & (IN_CREATE | IN_MOVED_TO):
                        self._add_tree(self.root / name)
                continue
            if mask & IN_IGNORED:
                self._paths.pop(wd, None)
                continue
            changed = True
            folder = self._paths.get(wd)
            if folder is not None and mask & IN_ISDIR and mask & (IN_CREATE | IN_MOVED_TO):
                self._add_tree(folder / name)
        return changed


def _events(data: bytes) -> Iterator[tuple[int, int, str]]:
    offset = 0
    while offset + _HEADER.size <= len(data):
        wd, mask, _, length = _HEADER.unpack_from(data, offset)
        offset += _HEADER.size
        raw = data[offset : offset + length].split(b"\0", 1)[0]
        offset += length
        yield wd, mask, os.fsdecode(raw)


def _folders_below(top: Path) -> Iterator[Path]:
    pending = [top]
    while pending:
        folder = pending.pop()
        yield folder
        try:
            with os.scandir(folder) as entries:
                pending.extend(
                    Path(e.path)
                    for e in entries
                    if e.is_dir(follow_symlinks=False) and not e.name.startswith(".")
                )
        except OSError:
            continue


_loaded: list[Any] = []


def _libc() -> Any:
    """The C library, with inotify's three functions; None where it lacks them."""
    if not _loaded:
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            libc.inotify_init1.argtypes = [ctypes.c_int]
            libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
            libc.statfs.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
        except (OSError, AttributeError):
            libc = None
        _loaded.append(libc)
    return _loaded[0]


def _file_system(path: Path) -> int | None:
    """statfs(2)'s f_type for ``path`` (the first field, a C long), or None."""
    libc = _libc()
    if libc is None:
        return None
    buffer = ctypes.create_string_buffer(512)  # larger than any struct statfs
    if libc.statfs(os.fsencode(path), buffer) != 0:
        return None
    return int(ctypes.c_ulong.from_buffer(buffer).value) & 0xFFFFFFFF
