"""The resident embedder's client: the local model's vectors from a process that keeps
it loaded, so that a short command (``contribute``'s door, a session start's new query)
imports neither numpy nor onnxruntime and loads no model.

One resident runs per user and installation (its key: this protocol, chitin's version,
the model's sha256 and the Python installation), shared by every store and every test
run. The first process that needs the model and finds none starts it, detached, and
embeds in-process itself that time; the resident exits by itself after an idle time.
It is never needed: no socket, a refused or slow connection, a short or malformed
answer, another key or another owner, and the caller embeds in-process as before,
silently. ``CHITIN_RESIDENT=0`` turns it off (see ``settings``).

The socket lives in a private folder (0700, owned by the user, checked before every
use; a folder that fails the check turns the resident off), and both ends check the
other's uid (SO_PEERCRED). A path longer than a Unix socket's 108 bytes is bound and
reached through a descriptor of its folder (residency.py's ``at_socket``, as the
front's): where that cannot be (no /proc), the resident is off.

Framing, both ways: 4 bytes of big-endian length, then that much JSON. The answer's
JSON is followed by ``rows × dimensions`` little-endian float32 values. Asked for
``tokens``, the answer's JSON lists each text's word pieces (``pieces``), and the
values are the token vectors, text after text, a row per piece.
"""

from __future__ import annotations

import _socket
import binascii
import contextlib
import json
import os
import struct
import sys
import time
from array import array
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeGuard

from chitin import __version__
from chitin.lockfile import USER_FOLDER, private_folder, user_folder
from chitin.providers.minilm import DIMENSIONS, MODEL, MODEL_SHA256
from chitin.residency import (
    at_socket,
    failed_lately,
    held,
    idle_seconds,
    peer_uid,
    reachable_socket,
    receive_exactly,
    switched_off,
)

if TYPE_CHECKING:  # subprocess loads only to start a resident
    import subprocess

PROTOCOL = 2  # 2: token vectors (``tokens``)
SWITCH = "CHITIN_RESIDENT"  # 0, off, no or false: never ask one, never start one
FOLDER = USER_FOLDER  # where the socket lives (default: see ``folder_for``)
IDLE = "CHITIN_RESIDENT_IDLE"  # seconds without a request before it exits
IDLE_SECONDS = 300.0
TIMEOUT = 1.0  # seconds for the connection and the first texts' answer
PER_TEXT = 0.05  # and this much more per text asked
MAX_TEXTS = 32  # more at once is bulk work, for the caller's own optimised model
MAX_FRAME = 8 << 20  # bytes: a request of MAX_TEXTS long texts fits many times over
FAILED_PAUSE = 600.0  # seconds after a resident failed to start before another tries
_STARTED: list[subprocess.Popen[bytes]] = []  # the residents this process started


class Resident(NamedTuple):
    """Where this installation's resident answers, and what it needs to start."""

    folder: Path
    key: str
    idle: float
    prepared_root: Path | None  # the model cache its own load uses (providers.model_cache)

    @property
    def socket(self) -> Path:
        return self.folder / f"embed-{self.key}.sock"

    @property
    def lock(self) -> Path:
        return self.folder / f"embed-{self.key}.lock"

    @property
    def failed(self) -> Path:
        return self.folder / f"embed-{self.key}.failed"


def settings(env: Mapping[str, str], prepared_root: Path | None) -> Resident | None:
    """The resident for this environment, or None where it is turned off."""
    if switched_off(env.get(SWITCH)):
        return None
    idle = idle_seconds(env.get(IDLE), IDLE_SECONDS)
    found = Resident(folder_for(env), installation_key(), idle, prepared_root)
    if not reachable_socket(str(found.socket)):
        return None  # no socket can be made there (no /proc): never start one in vain
    return found


def folder_for(env: Mapping[str, str]) -> Path:
    """Where the socket lives: this user's folder (chitin/lockfile.py, ``user_folder``),
    which the mark of commands shares."""
    return user_folder(env)


def installation_key() -> str:
    """What a resident must share with its client to give the same vectors."""
    made = f"{PROTOCOL}|{__version__}|{MODEL}|{MODEL_SHA256}|{sys.prefix}"
    # A checksum, not a digest: it only tells installations apart on one machine, and
    # hashlib's OpenSSL costs ~2.8 ms on every retrieve that makes a local provider.
    return f"{binascii.crc32(made.encode()):08x}"


# ------------------------------------------------------------------ framing


def send_frame(sock: Any, header: Mapping[str, object], payload: bytes = b"") -> None:
    data = json.dumps(header).encode("utf-8")
    sock.sendall(struct.pack(">I", len(data)) + data + payload)


def receive_frame(sock: Any, deadline: float | None) -> dict[str, object]:
    (size,) = struct.unpack(">I", receive_exactly(sock, 4, deadline))
    if size > MAX_FRAME:
        raise ValueError("a frame too large")
    found = json.loads(receive_exactly(sock, size, deadline).decode("utf-8"))
    if not isinstance(found, dict):
        raise ValueError("a frame that is not an object")
    return found


# ------------------------------------------------------------------ asking


class Asked(NamedTuple):
    """A question sent, its answer not read yet: the resident works meanwhile."""

    sock: Any
    key: str
    rows: int
    deadline: float


def ask(resident: Resident, texts: Sequence[str]) -> bytes | None:
    """The texts' vectors as ``len(texts) × DIMENSIONS`` little-endian float32 values,
    or None: whatever went wrong, the caller embeds in-process."""
    asked = send(resident, texts)
    return None if asked is None else answer(asked)


def send(resident: Resident, texts: Sequence[str], tokens: bool = False) -> Asked | None:
    """Ask for the texts' vectors (``tokens``: their token vectors); None if the
    resident cannot be asked."""
    if not texts or len(texts) > MAX_TEXTS or not private_folder(resident.folder, False):
        return None
    # _socket: socket.py's enums cost ~3 ms to import, a tenth of what is saved
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(TIMEOUT)
        at_socket(str(resident.socket), sock.connect)
        if peer_uid(sock) not in (None, os.getuid()):
            raise ValueError("another user's socket")
        request = {"protocol": PROTOCOL, "key": resident.key, "texts": list(texts)}
        send_frame(sock, request | ({"tokens": True} if tokens else {}))
    except (OSError, ValueError):
        sock.close()
        return None
    deadline = time.monotonic() + TIMEOUT + PER_TEXT * len(texts)
    return Asked(sock, resident.key, len(texts), deadline)


def answer(asked: Asked) -> bytes | None:
    """The answer to ``asked``, or None. What the caller did since it asked does not
    count against the resident: an answer already there is always read."""
    deadline = max(asked.deadline, time.monotonic() + 0.1)
    try:
        with contextlib.closing(asked.sock) as sock:
            header = receive_frame(sock, deadline)
            expected = {"key": asked.key, "rows": asked.rows, "dimensions": DIMENSIONS}
            if {name: header.get(name) for name in expected} != expected:
                return None
            payload = receive_exactly(sock, asked.rows * DIMENSIONS * 4, deadline)
    except (OSError, ValueError, UnicodeDecodeError, struct.error):
        return None
    return payload if sound(payload) else None


def answer_tokens(asked: Asked) -> list[tuple[tuple[str, ...], list[array[float]]]] | None:
    """The answer to ``asked`` for token vectors: each text's word pieces and rows."""
    deadline = max(asked.deadline, time.monotonic() + 0.1)
    try:
        with contextlib.closing(asked.sock) as sock:
            header = receive_frame(sock, deadline)
            expected = {"key": asked.key, "rows": asked.rows, "dimensions": DIMENSIONS}
            pieces = header.get("pieces")
            if {name: header.get(name) for name in expected} != expected:
                return None
            if not _pieces(pieces, asked.rows):
                return None
            size = sum(map(len, pieces)) * DIMENSIONS * 4
            payload = receive_exactly(sock, size, deadline)
    except (OSError, ValueError, UnicodeDecodeError, struct.error):
        return None
    if not sound(payload):
        return None
    rows, found, at = rows_of(payload), [], 0
    for text in pieces:
        found.append((tuple(text), rows[at : at + len(text)]))
        at += len(text)
    return found


def _pieces(pieces: object, texts: int) -> TypeGuard[list[list[str]]]:
    return (
        isinstance(pieces, list)
        and len(pieces) == texts
        and all(isinstance(t, list) and all(isinstance(p, str) for p in t) for t in pieces)
    )


def rows_of(payload: bytes) -> list[array[float]]:
    """The payload's rows, without numpy."""
    values = array("f")
    values.frombytes(payload)
    if sys.byteorder == "big":
        values.byteswap()
    return [values[at : at + DIMENSIONS] for at in range(0, len(values), DIMENSIONS)]


def sound(payload: bytes) -> bool:
    """Every row a unit vector of finite numbers, as the model gives: anything else is
    a bad answer, not a vector."""
    for row in rows_of(payload):
        norm = sum(value * value for value in row)
        if not 0.98 <= norm <= 1.02:  # also false for NaN
            return False
    return True


# ------------------------------------------------------------------ starting


def start(resident: Resident) -> bool:
    """Start the resident, detached, unless one runs or is starting (it holds its
    lock), or one failed to start lately. True if a process was started."""
    if not private_folder(resident.folder, True) or held(resident.lock):
        return False
    if failed_lately(resident.failed, FAILED_PAUSE):
        return False
    import subprocess

    argv = [sys.executable, "-m", "chitin.providers.resident_server", "--socket"]
    argv += [str(resident.socket), "--key", resident.key, "--idle", str(resident.idle)]
    if resident.prepared_root is not None:
        argv += ["--prepared", str(resident.prepared_root)]
    for earlier in list(_STARTED):  # reap those that ended (a long-lived caller's)
        if earlier.poll() is not None:
            _STARTED.remove(earlier)
    try:
        started = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd="/",
            start_new_session=True,  # not in the caller's process group: no signal of its
        )
    except OSError:
        return False
    _STARTED.append(started)  # not collected while it runs, which would warn
    return True
