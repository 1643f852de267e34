"""An insight whose file a commit deleted outside chitin (``git rm`` and a commit, a
pull of someone's delete): what a "not found" names, and what ``history`` shows.
Asked only on the not-found path: one ``git log`` over the commits that deleted a
file of that name."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import NamedTuple

from chitin.format.layout import SCANNED_DIRS
from chitin.format.markdown import parse
from chitin.model.insight import TYPES, Insight
from chitin.store.git import Git

SEARCHED = 200  # the newest commits that deleted an insight file, looked at
_RECORD, _UNIT = "\x1e", "\x1f"
_EPOCH = "1970-01-01T00:00:00Z"  # a hand-made file's missing creation time


class Deleted(NamedTuple):
    """The newest commit that deleted the file of ``insight_id``, at ``path``."""

    insight_id: str
    path: str
    commit: str
    short: str
    day: str  # YYYY-MM-DD, UTC


def deleted(git: Git, ref: str) -> Deleted | None:
    """The deletion of the insight ``ref`` names (an id, or a prefix of only one
    deleted id), or None. A move (archive, a new type) is a rename, not a delete."""
    if not git.is_repository() or git.head() is None:
        return None
    fmt = f"--format={_RECORD}%H{_UNIT}%h{_UNIT}%at{_UNIT}"  # git's pathspecs are literal
    args = ["log", "-M", "--diff-filter=D", "--name-only", fmt, f"-n{SEARCHED}", "--"]
    found: dict[str, Deleted] = {}
    for record in git.run([*args, *SCANNED_DIRS], check=False).stdout.split(_RECORD)[1:]:
        commit, short, stamp, names = record.split(_UNIT, 3)
        day = datetime.fromtimestamp(int(stamp), tz=UTC).date().isoformat()
        for path in filter(None, (name.strip() for name in names.splitlines())):
            stem = path.rsplit("/", 1)[-1].removesuffix(".md")
            if not (path.endswith(".md") and stem.startswith(ref)):
                continue
            found.setdefault(stem, Deleted(stem, path, commit, short, day))  # newest first
    if ref in found:
        return found[ref]
    return next(iter(found.values())) if len(found) == 1 else None


def last_version(git: Git, gone: Deleted) -> Insight:
    """The insight as its file was just before the commit that deleted it."""
    text = git.run(["show", f"{gone.commit}^:{gone.path}"]).stdout
    folder = gone.path.split("/")[1]
    kind = folder if folder in TYPES else None
    return parse(text, fallback_id=gone.insight_id, fallback_type=kind, fallback_time=_EPOCH)[0]
