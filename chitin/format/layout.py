"""Where insight files live in a store, how large one may be, and how a message about
one is kept to a line: facts of the file format, with no IO."""

from __future__ import annotations

# Folders at the store root that hold insight files: live ones and archived ones.
INSIGHTS_DIR = "insights"
ARCHIVE_DIR = "archive"
SCANNED_DIRS = (INSIGHTS_DIR, ARCHIVE_DIR)

# No insight file is larger (the largest chitin writes are a few KB, and 10,000
# reinforcements' evidence lines add ~600 KB). A larger file is reported, not read.
MAX_INSIGHT_BYTES = 1 << 20


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
