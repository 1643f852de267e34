"""File-system primitives: atomic writes, the writers' lock, and the walk over insight files."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from chitin.errors import StoreError
from chitin.format.layout import (
    MAX_INSIGHT_BYTES,
    SCANNED_DIRS,
    FileStat,
    Folder,
    is_insight_name,
    is_insight_path,
    too_large,
)
from chitin.notices import notice


def stat_of(path: Path) -> FileStat:
    st = path.stat()
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


def lstat_of(path: Path) -> tuple[FileStat, int]:
    """The stat of ``path`` itself, a link not followed, as the walk records it; and
    its mode."""
    st = os.lstat(path)
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino), st.st_mode


def atomic_write(path: Path, text: str, durable: bool = True) -> FileStat:
    """Write through a temporary file in the same folder, then rename over the target.

    A crash leaves either the old file or the new one, never half of one. ``durable``
    also syncs the data to disk before the rename, so a power cut cannot leave an
    empty file behind.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    _replaceable(path)
    fd, tmp_name = _scratch_file(path.parent)
    try:
        os.fchmod(fd, _mode_for(path))  # mkstemp makes 0600; keep what the file had
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException as error:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        named(error, path)
        raise
    return stat_of(path)


def named(error: BaseException, path: Path) -> None:
    """Give ``error`` the file it concerns when it has none: a buffered file's write
    or flush on a full disk raises ENOSPC without a name, and the person is told only
    "no space left on device", not where."""
    if isinstance(error, OSError) and error.filename is None:
        error.filename = str(path)


def _replaceable(path: Path) -> None:
    """Refuse to rename a file over a device, a FIFO or a socket: it would be replaced
    by a regular file and lost (as root, ``/dev/null`` itself, named by a host's
    settings link or a path option). A link is replaced as a link; a caller that means
    the file it points to resolves it first. (A folder refuses the rename itself.)"""
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        raise UnsafeFile(
            f"{path} is {kind_of(mode, 'not a file')}, not a file: chitin writes only "
            "regular files, and left it as it was",
            "name a regular file, or remove what is there",
        )


def _scratch_file(folder: Path) -> tuple[int, str]:
    """A new file of our own beside the target, as ``tempfile.mkstemp`` makes one
    (0600, never an existing name), without its import (tempfile, shutil, random:
    ~8 ms of a ``contribute``)."""
    for _ in range(100):
        name = str(folder / f".chitin-{os.urandom(6).hex()}.tmp")
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
            return os.open(name, flags, 0o600), name
        except FileExistsError:
            continue
    raise FileExistsError(f"no free scratch name in {folder}")


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


def walk(root: Path) -> dict[str, Folder]:
    """Every insight file under insights/ and archive/, by folder (relative, '/').

    Hidden files and folders, README.md files and editor temp files are not insights,
    nor is anything in another git repository's folder (``nested_repository``).
    Nothing is followed: a symbolic link (to a file or a folder, inside the store or
    out of it, or a loop) and a file that is not a regular one (a FIFO, a socket, a
    device) are listed with their own ``lstat``, for the reader to refuse and report
    (see ``read_file``), and no linked folder is entered. The same rule in
    ``is_listed``, for a single path.
    """
    found: dict[str, Folder] = {}
    for top in SCANNED_DIRS:
        base = root / top
        if base.is_symlink():
            linked_top(top)
        elif base.is_dir():
            _walk_dir(str(base), top, found)
    return found


def _walk_dir(directory: str, rel: str, found: dict[str, Folder]) -> None:
    folder = Folder([], [])
    subdirs: list[tuple[str, str]] = []
    with os.scandir(directory) as scan:
        for entry in scan:
            name = entry.name
            if name.endswith(".md"):
                # Any kind but a folder (known from d_type, without a system call).
                if is_insight_name(name) and not entry.is_dir(follow_symlinks=False):
                    st = entry.stat(follow_symlinks=False)
                    folder.names.append(name)
                    folder.stats.append((st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino))
            elif name[0] != ".":
                if entry.is_symlink():  # a linked folder is not entered: it is reported
                    st = entry.stat(follow_symlinks=False)
                    folder.names.append(name)
                    folder.stats.append((st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino))
                elif entry.is_dir(follow_symlinks=False) and not nested_repository(entry.path):
                    subdirs.append((entry.path, f"{rel}/{name}"))
    found[rel] = folder
    for path, sub_rel in subdirs:
        _walk_dir(path, sub_rel, found)


def nested_repository(folder: str) -> bool:
    """Whether ``folder`` is the top of another git repository (a store cloned into
    this one's insights/, say): its files are that repository's, and git's own walk
    skips it too. One lstat per folder."""
    return os.path.lexists(os.path.join(folder, ".git"))


def is_listed(root: Path, path: str) -> bool:
    """Whether the walk may list the store-relative ``path`` (a path git names): an
    insight path (unless it is a folder, which the reader sees), or a symbolic link of
    any name in a scanned folder, reported and never followed."""
    if is_insight_path(path):
        return True
    parts = path.split("/")
    return (
        len(parts) >= 2
        and parts[0] in SCANNED_DIRS
        and not any(part.startswith(".") for part in parts[1:])
        and os.path.islink(root / path)
    )


def through_link(root: Path, path: str, seen: dict[str, bool] | None = None) -> bool:
    """Whether a folder on the way to the store-relative ``path`` is a symbolic link, or
    no folder: a path that git or an older cache names there is not read through it.
    ``seen`` keeps the answers by folder, for many paths in a few folders."""
    seen = {} if seen is None else seen
    parts = path.split("/")
    for end in range(1, len(parts)):
        folder = "/".join(parts[:end])
        if folder not in seen:
            mode = _lmode(root / folder)
            seen[folder] = mode is None or not stat.S_ISDIR(mode)
        if seen[folder]:
            return True
    return False


def _lmode(path: Path) -> int | None:
    try:
        return os.lstat(path).st_mode
    except OSError:
        return None


def linked_top(top: str) -> None:
    """Say that a top insight folder is a symbolic link, which is not followed."""
    notice(f"{top}/ is a symbolic link, which chitin does not follow: its insights are not read")


# ---------------------------------------------------------------- reading safely

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)  # a link swapped in after the lstat is refused
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO swapped in is opened without waiting
    | getattr(os, "O_BINARY", 0)
)


class UnsafeFile(StoreError):
    """A file where an insight file belongs that chitin does not read: a symbolic link,
    a FIFO, a socket, a device, or one larger than MAX_INSIGHT_BYTES. ``fix`` says what
    to do about it."""

    def __init__(self, message: str, fix: str) -> None:
        super().__init__(message)
        self.fix = fix


def read_file(path: Path, limit: int = MAX_INSIGHT_BYTES, links: bool = False) -> bytes:
    """The bytes of the insight file at ``path``, if it is a regular file of at most
    ``limit`` bytes; else UnsafeFile says what it is. OSError if it cannot be read.

    Links are never followed (unless ``links``: a settings file may be one), and a FIFO
    is never opened: the kind is checked with ``lstat`` before opening, and again on the
    open file, which is opened with O_NOFOLLOW|O_NONBLOCK so that a file swapped in
    between cannot hang the reader either. No more than ``limit`` + 1 bytes are ever read.
    """
    _refuse(os.stat(path) if links else os.lstat(path), limit)
    fd = os.open(path, _OPEN_FLAGS & ~getattr(os, "O_NOFOLLOW", 0) if links else _OPEN_FLAGS)
    try:
        st = os.fstat(fd)
        _refuse(st, limit)
        # One read of what fstat says, and a byte more to see the end (a regular file
        # reads short only there); not a buffer of ``limit`` bytes for every file.
        data = os.read(fd, st.st_size + 1)
        if len(data) > st.st_size:  # it grew after the fstat: read on, to the limit
            parts = [data]
            total = len(data)
            while total <= limit and (chunk := os.read(fd, limit + 1 - total)):
                parts.append(chunk)
                total += len(chunk)
            data = b"".join(parts)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise _too_large(len(data), limit)
    return data


def read_text(path: Path, limit: int = MAX_INSIGHT_BYTES, links: bool = False) -> str:
    """``read_file`` as text, the way ``Path.read_text`` reads it (UTF-8, and universal
    newlines). UnicodeDecodeError if it is not UTF-8."""
    text = read_file(path, limit, links).decode("utf-8")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def _refuse(st: os.stat_result, limit: int) -> None:
    mode = st.st_mode
    if stat.S_ISLNK(mode):
        raise UnsafeFile(not_regular(mode), "put the file itself there instead, or remove the link")
    if not stat.S_ISREG(mode):
        raise UnsafeFile(not_regular(mode), "replace it with a regular insight file, or remove it")
    if st.st_size > limit:
        raise _too_large(st.st_size, limit)


def kind_of(mode: int, otherwise: str) -> str:
    """What a file of ``mode`` is, for a message that refuses it: "a folder", "a FIFO
    (named pipe)", … or ``otherwise``."""
    kinds = (
        (stat.S_ISREG, "a file"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    )
    return next((name for test, name in kinds if test(mode)), otherwise)


def not_a_store_folder(root: Path) -> str:
    """Why ``root``, which exists, cannot be a store: what it is instead."""
    try:
        mode = root.stat().st_mode
    except OSError:
        kind = "a symlink to nothing"
    else:
        kind = kind_of(mode, "not a folder")
    return (
        f"the store path {root} is {kind}, not a folder "
        "(store= and $CHITIN_STORE name the store's folder)"  # the CLI: --store
    )


def not_regular(mode: int) -> str:
    """What a file of ``mode`` is, said as the reason chitin does not read it."""
    if stat.S_ISLNK(mode):
        return "a symbolic link, which chitin does not follow (it could lead out of the store)"
    if stat.S_ISDIR(mode):
        return "a folder, not an insight file"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO), not a regular file"
    if stat.S_ISSOCK(mode):
        return "a socket, not a regular file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device, not a regular file"
    return "not a regular file"


def _too_large(size: int, limit: int) -> UnsafeFile:
    return UnsafeFile(
        too_large(size, limit), f"shorten it to at most {limit:,} bytes, or remove it"
    )


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
