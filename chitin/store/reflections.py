"""Reflection queue files on disk: the store's own and chitin 1.4.5's legacy one."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import NamedTuple

from chitin.lockfile import WriteLock, derived_folder
from chitin.model.reflection import Marker, parse_queue, serialize
from chitin.model.search_text import well_formed
from chitin.store.files import UnsafeFile, atomic_write, read_file, read_text

# Inside the git-ignored .chitin/: a queue is machine-local, like the cache.
QUEUE_FILE = "reflections.json"
QUEUE_BYTES = 64 << 20  # a cap far above any queue: read_text's default is for insight files
# What each session was given at its start (issue 26), one small file per session id,
# read when the session ends; the oldest go once there are more than MAX_NOTES.
NOTES_FOLDER = "sessions"
MAX_NOTES = 64
# The queue's own lock. Not the store's: the queue is no part of its git history, and a
# sync over a slow remote or a big import holds that lock far longer than the 15 s a
# host gives its session-end hook. Held only to read and replace the queue: a few ms.
QUEUE_LOCK = "reflections.lock"
QUEUE_LOCK_SECONDS = 5.0


class QueueFile(NamedTuple):
    """One queue file as read: its markers, or the problem that made it unusable."""

    path: Path
    markers: list[Marker]
    problem: str | None = None

    @property
    def exists(self) -> bool:
        return self.path.exists()


def queue_path(root: Path) -> Path:
    return derived_folder(root) / QUEUE_FILE


def queue_lock(root: Path) -> WriteLock:
    """The lock every reader-then-writer of the queues holds (queueing, clearing,
    ``reflect --done``), so that no marker queued meanwhile is lost or cleared unseen."""
    return WriteLock(
        derived_folder(root) / QUEUE_LOCK, QUEUE_LOCK_SECONDS, "the reflection queue's lock"
    )


def read_queue(path: Path) -> QueueFile:
    """A missing file is an empty queue; one that cannot be read or parsed says why."""
    try:  # never waits on a FIFO put there
        text = read_text(path, QUEUE_BYTES)
    except FileNotFoundError:
        return QueueFile(path, [])
    except (OSError, UnicodeDecodeError) as error:
        return QueueFile(path, [], f"cannot be read ({_reason(error)})")
    except UnsafeFile as error:
        return QueueFile(path, [], f"cannot be read (it is {error})")
    parsed = parse_queue(text)
    return QueueFile(path, parsed.markers, parsed.problem)


def write_queue(path: Path, markers: list[Marker]) -> None:
    atomic_write(path, serialize(markers))


def _reason(error: Exception) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error)


def _note_path(root: Path, session: str) -> Path:
    # A session id is the host's text: hashed, so that no id can name a path.
    digest = hashlib.sha256(session.encode("utf-8", "replace")).hexdigest()[:32]
    return derived_folder(root) / NOTES_FOLDER / f"{digest}.json"


def write_session_note(root: Path, session: str, injected: list[str]) -> None:
    """Note the ids of the insights given at ``session``'s start."""
    path = _note_path(root, session)
    atomic_write(path, json.dumps({"session": session, "injected": injected}) + "\n")
    notes = sorted(path.parent.glob("*.json"), key=lambda p: p.stat().st_mtime)
    for old in notes[:-MAX_NOTES]:
        old.unlink(missing_ok=True)


def read_session_note(root: Path, session: str) -> list[str]:
    """The ids noted for ``session``; none when there is no usable note. A note edited
    by hand may hold a byte that is not UTF-8, or half a UTF-16 pair (a JSON escape):
    each reads as U+FFFD, as a queue's marker does, since the queue's write could not
    encode it (the hook's marker was lost, and ``reflect --queue`` an internal error)."""
    try:
        raw = read_file(_note_path(root, session), QUEUE_BYTES)
        data = json.loads(raw.decode("utf-8", "replace"))
    except (OSError, UnsafeFile, json.JSONDecodeError, RecursionError):
        return []
    ids = data.get("injected") if isinstance(data, dict) else None
    if not isinstance(ids, list):
        return []
    return [well_formed(i) for i in ids if isinstance(i, str)]


# How far each session's events were digested and reflected on, by where they are
# (``core/agent.py``): {place: {"shown": messages, "through": messages}}. The newest
# MAX_PLACES are kept; a place forgotten is digested whole again, never skipped.
PLACES_FILE = "reflected.json"
MAX_PLACES = 256


def read_places(root: Path) -> dict[str, dict[str, int]]:
    """The places noted; none when the file is missing or unusable."""
    try:
        data = json.loads(read_text(derived_folder(root) / PLACES_FILE, QUEUE_BYTES))
    except (OSError, UnsafeFile, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        str(place): {k: v for k, v in noted.items() if type(v) is int and v >= 0}  # not True
        for place, noted in data.items()
        if isinstance(noted, dict)
    }


def write_places(root: Path, places: dict[str, dict[str, int]]) -> None:
    """Keep ``places`` (the newest last), at most MAX_PLACES of them."""
    kept = dict(list(places.items())[-MAX_PLACES:])
    atomic_write(derived_folder(root) / PLACES_FILE, json.dumps(kept) + "\n")
