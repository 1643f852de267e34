"""What chitin's resident processes share: the resident embedder (providers/resident.py)
and the resident CLI front (chitin/front/). A leaf that imports nothing of chitin and
nothing costly (no pathlib, no socket.py), for the front's client runs in every command
before anything else loads.

- The user's folder of the moment, where their sockets live, and the check that it is
  private (lockfile.py's ``user_folder`` and ``private_folder`` are these, as Paths).
- The switch words, the idle time, the peer's uid (SO_PEERCRED).
- One instance per key: an ``flock`` held for the resident's whole life (``take_lock``),
  which a starter probes (``held``) and a leaving resident removes (``release_lock``);
  a ``.failed`` marker that stops starters for a while.
- Reading exactly so many bytes from a socket before a deadline.
- A socket's path bound or connected to whatever the length of its folder (``at_socket``).
"""

from __future__ import annotations

import _socket
import fcntl
import math
import os
import stat
import struct
import time

TYPE_CHECKING = False  # not typing's: the console script's start imports no typing (~3 ms)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

OFF = frozenset({"0", "off", "no", "false"})
ON = frozenset({"1", "on", "yes", "true"})
USER_FOLDER = "CHITIN_RESIDENT_DIR"
MOST_IDLE = 1e8  # seconds (three years: "never"); socket.settimeout refuses past time_t
SOCKET_PATH_BYTES = 107  # sun_path holds 108 bytes, the last a NUL


def user_folder_name(env: Mapping[str, str]) -> str:
    """This user's folder for chitin's files of the moment: ``$CHITIN_RESIDENT_DIR``
    (absolute); else ``$XDG_RUNTIME_DIR/chitin`` (absolute, an existing folder); else
    ``/tmp/chitin-<uid>``: short, and the same for every HOME a test or a benchmark sets.
    A relative folder is ignored, as XDG says of its own: it would be another folder in
    every cwd (made there by each command), and the front, whose cwd is /, elsewhere."""
    given = env.get(USER_FOLDER)
    if given and os.path.isabs(given):
        return given
    runtime = env.get("XDG_RUNTIME_DIR") or ""
    if os.path.isabs(env.get("HOME") or ""):  # else ~ would be "/" (fix80)
        runtime = os.path.expanduser(runtime)
    if os.path.isabs(runtime) and os.path.isdir(runtime):
        return os.path.join(runtime, "chitin")
    return f"/tmp/chitin-{os.getuid()}"


PROC_FD = "/proc/self/fd"  # a process's descriptors as folders (Linux; not macOS)


def reachable_socket(path: str) -> bool:
    """Whether ``at_socket`` can reach a socket at ``path``: it fits a socket's address,
    or /proc/self/fd is there to reach it through its folder."""
    return len(os.fsencode(path)) <= SOCKET_PATH_BYTES or os.path.isdir(PROC_FD)


def at_socket(path: str, act: Callable[[str], object]) -> None:
    """``act`` (a socket's ``bind`` or ``connect``) on the socket file at ``path``, the
    one way both ends reach it. sun_path holds SOCKET_PATH_BYTES, and a user's folder
    can be longer (a long $XDG_RUNTIME_DIR or $CHITIN_RESIDENT_DIR, a test's tmp_path
    under a long $TMPDIR): a path that does not fit is reached through a descriptor of
    its folder, ``/proc/self/fd/N/NAME`` (Linux; without /proc, an OSError as before).
    The file is the same either way, at ``path``: never a chdir, nor another name."""
    if len(os.fsencode(path)) <= SOCKET_PATH_BYTES:
        act(path)
        return
    folder, name = os.path.split(path)
    descriptor = os.open(folder, getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY)
    try:
        act(f"{PROC_FD}/{descriptor}/{name}")
    finally:
        os.close(descriptor)


def private(folder: str | os.PathLike[str], make: bool) -> bool:
    """Whether ``folder`` is a folder of this user's that nobody else may enter (made
    so if missing and ``make``). A symlink, another owner or open modes: not ours."""
    if make:
        try:  # noqa: SIM105 - no contextlib in the console script's start
            os.makedirs(folder, mode=0o700)
        except OSError:
            pass  # there already, or not to be made: the check below says which
    try:
        seen = os.lstat(folder)
    except OSError:
        return False
    mine = seen.st_uid == os.getuid() and stat.S_ISDIR(seen.st_mode)
    return mine and not seen.st_mode & 0o077


def switched_off(value: str | None) -> bool:
    return (value or "").strip().lower() in OFF


def idle_seconds(given: str | None, default: float) -> float:
    """The idle time a variable gives, one a socket can wait: from 0.1 s to MOST_IDLE
    (inf: the most), else ``default`` (a word, NaN)."""
    try:
        idle = float(given or default)
    except ValueError:
        return default
    return default if math.isnan(idle) else min(max(idle, 0.1), MOST_IDLE)


def peer_uid(sock: Any) -> int | None:
    """The uid of the process at the other end, where the system says (Linux)."""
    option = getattr(_socket, "SO_PEERCRED", None)
    if option is None:
        return None
    try:
        _, uid, _ = struct.unpack("3i", sock.getsockopt(_socket.SOL_SOCKET, option, 12))
    except OSError:
        return None
    return int(uid)


def receive_exactly(sock: Any, size: int, deadline: float | None) -> bytes:
    """``size`` bytes, or ValueError on an early end; OSError (a timeout) past
    ``deadline`` (None: no deadline, the socket's own timeout)."""
    chunks: list[bytes] = []
    left = size
    while left:
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("the resident is too slow")
            sock.settimeout(remaining)
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise ValueError("the connection ended early")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def failed_lately(marker: str | os.PathLike[str], pause: float) -> bool:
    """Whether a resident failed to start less than ``pause`` seconds ago."""
    try:
        return time.time() - os.stat(marker).st_mtime < pause
    except OSError:
        return False


def held(lock: str | os.PathLike[str]) -> bool:
    """Whether a resident holds ``lock`` (runs, or is starting). A probe makes no file:
    none there means none runs."""
    try:
        descriptor = os.open(lock, os.O_RDWR)
    except FileNotFoundError:
        return False
    except OSError:
        return True  # cannot tell: do not start one
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(descriptor)  # releases the lock if it was taken
    return False


def take_lock(lock: str | os.PathLike[str]) -> int | None:
    """The lock's descriptor, held for the caller's life; None if another holds it.

    A resident that leaves removes its lock file (``release_lock``), so that the files
    of old keys do not pile up in the user's folder. The file locked must therefore
    still be the one at ``lock`` once locked: one opened just before its holder removed
    it is dropped and the path opened again."""
    for _ in range(3):
        descriptor = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(descriptor)
            return None
        if _is_at(descriptor, lock):
            return descriptor
        os.close(descriptor)
    return None


def release_lock(lock: str | os.PathLike[str], descriptor: int) -> None:
    """Remove the lock file taken by ``take_lock``, then let it go. Only its holder
    removes it, and only while it is still the file at ``lock``."""
    try:
        if _is_at(descriptor, lock):
            os.unlink(lock)
    except OSError:
        pass  # nothing worse than a file left behind
    os.close(descriptor)


def _is_at(descriptor: int, path: str | os.PathLike[str]) -> bool:
    try:
        there = os.stat(path)
    except OSError:
        return False
    mine = os.fstat(descriptor)
    return (there.st_dev, there.st_ino) == (mine.st_dev, mine.st_ino)
