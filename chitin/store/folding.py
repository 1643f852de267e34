"""A sync's side choice that drops an insight one side merged away: nothing is lost.

One machine folded B into A (``chitin merge``) while another reinforced B. The sync
stops on B (removed on one side, changed on the other); keeping the side that removed
it (``--theirs`` or ``--ours``) would drop the other side's reinforcements, evidence
and tags. So they follow B into A, as ``merge`` would have carried them had it run
after them: the increments since the common version are added, evidence lines and
tags united, the higher confidence kept.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import TYPE_CHECKING, NamedTuple

from chitin.errors import ChitinError
from chitin.format.markdown import Layout, parse
from chitin.model import ops
from chitin.model.evidence import united
from chitin.model.insight import Insight
from chitin.store import remote
from chitin.store.messages import TRAILER_PREFIX, trailers_of

if TYPE_CHECKING:
    from chitin.store.git import Git
    from chitin.store.repository import Store

_RECORD = "\x1e"
_FALLBACK_TIME = "1970-01-01T00:00:00Z"


class Dropped(NamedTuple):
    """An insight a side choice removed: its file, the side kept, and the texts of the
    common version and of the side not kept (read before the choice settles them)."""

    path: str
    how: str
    base: bytes | None
    other: bytes | None


def dropped(git: Git, path: str, how: str) -> Dropped:
    """What settling ``path`` by ``how`` ("ours" or "theirs"), a side that removed it,
    would drop; call it before the path is settled."""
    other = remote.stage(git, path, 3 if how == "ours" else 2)
    return Dropped(path, how, remote.stage(git, path, 1), other)


def fold_dropped(store: Store, drop: Dropped, theirs: str) -> str | None:
    """If the side that removed ``drop.path`` had merged it into another insight, fold
    the other side's changes since the base into that insight's file (written and
    staged). Returns the file changed, or None."""
    git = store.git
    if drop.how not in ("ours", "theirs") or drop.other is None or drop.base is None:
        return None
    source_id = PurePosixPath(drop.path).stem
    side = "HEAD" if drop.how == "ours" else theirs
    target_id = _merged_into(git, source_id, side, theirs)
    target_path = _path_of(git, target_id) if target_id else None
    if target_path is None or not (store.root / target_path).is_file():
        return None
    try:
        target = _read((store.root / target_path).read_text(encoding="utf-8"), target_path)
        old = _read(drop.base.decode("utf-8"), drop.path)
        new = _read(drop.other.decode("utf-8"), drop.path)
    except (ChitinError, UnicodeDecodeError):  # a file no one can read: left as it is
        return None
    folded, evidence = folded_into(target, old, new)
    text = store.render(folded, target[1]._replace(evidence=evidence))
    remote.settle(git, target_path, text.encode("utf-8"))
    return target_path


def folded_into(
    target: tuple[Insight, Layout], old: tuple[Insight, Layout], new: tuple[Insight, Layout]
) -> tuple[Insight, tuple[str, ...]]:
    """``target`` with what ``new`` added to ``old`` (the dropped insight's base)."""
    was, now = old[0], new[0]
    added = now.with_changes(
        reinforcements=max(0, now.reinforcements - was.reinforcements),
        reasoning=now.reasoning if now.reasoning != was.reasoning else None,
    )
    stamp = max(target[0].updated, now.updated)
    merged = ops.merged(added, target[0], None, stamp)
    return merged, united(target[1].evidence, new[1].evidence)


def _merged_into(git: Git, source_id: str, side: str, theirs: str) -> str | None:
    """The insight ``source_id`` was merged into on ``side`` since it parted from the
    other side: from the merge commit's trailers."""
    base = git.run(["merge-base", "HEAD", theirs], check=False).stdout.strip()
    fmt = f"--format={_RECORD}%B"
    grep = f"--grep={TRAILER_PREFIX}Merged:"
    output = git.run(["log", fmt, "-F", grep, side, *([f"^{base}"] if base else [])]).stdout
    for message in output.split(_RECORD)[1:]:  # newest first
        trailers = trailers_of(message)
        if trailers.get("Op") == "merge" and source_id in trailers.get("Merged", "").split(", "):
            return trailers.get("Insight") or None
    return None


def _path_of(git: Git, insight_id: str) -> str | None:
    """The file of ``insight_id`` in the merge's index (live or archived, sharded or
    not)."""
    listed = git.run(["ls-files", "-z", "--", "insights", "archive"]).stdout
    found = [p for p in listed.split("\0") if PurePosixPath(p).name == f"{insight_id}.md"]
    return found[0] if len(found) == 1 else None


def _read(text: str, path: str) -> tuple[Insight, Layout]:
    where = PurePosixPath(path)
    parts = [*where.parts, "", ""]
    return parse(text, fallback_id=where.stem, fallback_type=parts[1], fallback_time=_FALLBACK_TIME)
