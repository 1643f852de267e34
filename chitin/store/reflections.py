"""Reflection queue files on disk: the store's own and chitin 1.4.5's legacy one."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from chitin.lockfile import derived_folder
from chitin.model.reflection import Marker, parse_queue, serialize
from chitin.store.files import atomic_write

# Inside the git-ignored .chitin/: a queue is machine-local, like the cache.
QUEUE_FILE = "reflections.json"


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


def read_queue(path: Path) -> QueueFile:
    """A missing file is an empty queue; one that cannot be read or parsed says why."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return QueueFile(path, [])
    except (OSError, UnicodeDecodeError) as error:
        return QueueFile(path, [], f"cannot be read ({_reason(error)})")
    parsed = parse_queue(text)
    return QueueFile(path, parsed.markers, parsed.problem)


def write_queue(path: Path, markers: list[Marker]) -> None:
    atomic_write(path, serialize(markers))


def _reason(error: Exception) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error)
