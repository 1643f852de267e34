"""HEAD's commit, read from a plain ``.git`` folder without starting git, and its time
kept in .chitin/ by commit, so that a session start runs no git at all."""

from __future__ import annotations

import contextlib
import os
import re
from datetime import UTC, datetime
from pathlib import Path

from chitin.errors import StoreError
from chitin.store.files import read_file

_OID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
REMEMBERED_BYTES = 256  # "<commit> <seconds>\n": a commit of 64 digits fits four times


def read_head(git_dir: Path) -> str | None:
    """The commit HEAD names, read from a plain ``.git`` folder: HEAD itself (detached),
    or the loose or packed ref it points to. None whenever that is not plainly so."""
    try:
        head = (git_dir / "HEAD").read_text(encoding="ascii").strip()
        if not head.startswith("ref: "):
            return head if _OID.fullmatch(head) else None
        ref = head[5:]
        if not ref.startswith("refs/") or ".." in ref:
            return None
        loose = git_dir / ref
        if loose.is_file():
            found = loose.read_text(encoding="ascii").strip()
            return found if _OID.fullmatch(found) else None
        for line in (git_dir / "packed-refs").read_text(encoding="ascii").splitlines():
            oid, _, name = line.partition(" ")
            if name == ref and _OID.fullmatch(oid):
                return oid
    except (OSError, UnicodeDecodeError):
        return None
    return None


def remembered_time(path: Path, commit: str) -> datetime | None:
    try:  # a FIFO there is not waited on: remember_time puts a file in its place
        kept, stamp = read_file(path, REMEMBERED_BYTES).decode("ascii").split()
        return datetime.fromtimestamp(int(stamp), tz=UTC) if kept == commit else None
    except (OSError, StoreError, ValueError, UnicodeDecodeError, OverflowError):
        return None


def remember_time(path: Path, commit: str, stamp: int) -> None:
    """Keep the commit's time for the next session start (a lost write costs one git)."""
    if not path.parent.is_dir():
        return
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(f"{commit} {stamp}\n", encoding="ascii")
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink()
