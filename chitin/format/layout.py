"""Where insight files live in a store, how large one may be, and how a message about
one is kept to a line: facts of the file format, with no IO."""

from __future__ import annotations

from typing import NamedTuple

# The readers here enforce model/bounds.py's limit, which the writers check too.
from chitin.model.bounds import MAX_INSIGHT_BYTES as MAX_INSIGHT_BYTES

# Folders at the store root that hold insight files: live ones and archived ones.
INSIGHTS_DIR = "insights"
ARCHIVE_DIR = "archive"
SCANNED_DIRS = (INSIGHTS_DIR, ARCHIVE_DIR)


# What a message about a file may quote of it: a value read from a hand-made file can
# be as long as the file, and a message is one line of a warning or of `check`.
MAX_MESSAGE = 300


def clipped(message: str, limit: int = MAX_MESSAGE) -> str:
    """``message`` cut to ``limit`` characters (an ellipsis says so), on one line."""
    if len(message) <= limit and "\n" not in message:
        return message
    line = " ".join(message[: limit + 1].split())
    return line if len(line) <= limit and len(message) <= limit else line[: limit - 1] + "…"


def too_large(size: int, limit: int = MAX_INSIGHT_BYTES) -> str:
    return f"{size:,} bytes, more than an insight file may hold ({limit:,}), so it is not read"


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


def moved_path(path: str, kind: str, archived: bool, types: tuple[str, ...]) -> str:
    """Where the file at ``path`` goes when its insight becomes of type ``kind``, or
    archived or live: the top folder and a type folder change, and nothing else. The
    folders a person made below them (``insights/skill/team-ana/``), a shard folder,
    and a file of one's own folder (``insights/team-ana/``, which may hold any type)
    stay where they are."""
    parts = path.split("/")
    folders = parts[1:-1]
    if folders and folders[0] in types:
        folders[0] = kind
    return "/".join([ARCHIVE_DIR if archived else INSIGHTS_DIR, *folders, parts[-1]])


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
RACY_SIZE = -1  # the size a racily recent file's row is kept with: it never matches
# The window for a timestamp with digits below the millisecond: it comes from a file
# system that keeps them (ext4, XFS, btrfs, tmpfs, APFS; NTFS keeps 100 ns), stamped by
# a clock that ticks at least every 10 ms (Linux's coarse clock at HZ=100). A file
# changed 50 ms before its stat is recorded cannot change again with the same mtime.
# Whole milliseconds or coarser (FAT's 2 s, ext3's and HFS+'s 1 s) keep RACY_WINDOW_NS.
# Without it, every file written in the last 2 s was parsed again by every sync: up to
# six a contribute in perf-vs-orig's rhythm (docs/design.md §9l).
FINE_RACY_WINDOW_NS = 50_000_000


def racily_recent(mtime_ns: int, now_ns: int) -> bool:
    """Whether a file with this mtime could still change without its stat changing, as
    seen at ``now_ns``: what is recorded of it then is not trusted the next time."""
    fine = mtime_ns % 1_000_000 != 0
    return mtime_ns >= now_ns - (FINE_RACY_WINDOW_NS if fine else RACY_WINDOW_NS)
