"""Where an insight that is no more went: the merge that folded it into another, from
the trailers of chitin's merge commits, or from the history rows an import carried
(an exported store's merges, imported elsewhere). For a "not found" only."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import NamedTuple

from chitin.model.insight import format_timestamp
from chitin.store.git import Git
from chitin.store.messages import TRAILER_PREFIX, carried_rows, trailers_of

_RECORD, _UNIT = "\x1e", "\x1f"


class MergedAway(NamedTuple):
    """A ``merge`` that folded the insight ``source`` into ``target``, at ``when``."""

    source: str
    target: str
    when: str


_ERE_SPECIAL = re.compile(r"([.\[\](){}*+?|^$\\])")  # escaped in git's -E pattern
MERGED_SEARCHED = 20  # commits naming a merged-away id that are read, newest first


def merged_away(git: Git, ref: str) -> MergedAway | None:
    """The newest ``merge`` that folded away the insight ``ref`` (an id, or a prefix
    of only one merged-away id), from its commit's trailers; None if there is none.

    For a "not found" only: git searches every commit message (fast, but not free).
    """
    fmt = f"--format={_RECORD}%at{_UNIT}%B"  # before the first commit: no output
    # The ref anywhere in the list: `merge a b target` and dedupe write "a, b".
    escaped = _ERE_SPECIAL.sub(r"\\\1", ref)
    listed = f"--grep=^{TRAILER_PREFIX}Merged: (.*, )?{escaped}"
    args = ["log", fmt, "-E", listed, f"-n{MERGED_SEARCHED}"]
    output = git.run(args, check=False).stdout
    found: dict[str, MergedAway] = {}
    for record in output.split(_RECORD)[1:]:
        stamp, message = record.split(_UNIT, 1)
        trailers = trailers_of(message)
        target = trailers.get("Insight", "")
        if trailers.get("Op") != "merge" or not target:
            continue
        when = format_timestamp(datetime.fromtimestamp(int(stamp), tz=UTC))
        for source in trailers.get("Merged", "").split(", "):  # several: dedupe's merges
            if source.startswith(ref):
                found.setdefault(source, MergedAway(source, target, when))  # newest first
    if not found:
        found = _carried(git, ref, escaped)
    if ref in found:
        return found[ref]
    return next(iter(found.values())) if len(found) == 1 else None


def _carried(git: Git, ref: str, escaped: str) -> dict[str, MergedAway]:
    """The merges of ``ref`` that an import (or a 1.x migration) carried in its
    message, as history rows of the target (``"source":"merge:<ids>"``): after an
    export and import, no merge commit names it, and ``get`` said "not found"."""
    fmt = f"--format={_RECORD}%B"
    listed = f'--grep="source":"merge:([^"]*, )?{escaped}'
    args = ["log", fmt, "-E", listed, f"-n{MERGED_SEARCHED}"]
    found: dict[str, MergedAway] = {}
    for message in git.run(args, check=False).stdout.split(_RECORD)[1:]:
        for target, rows in carried_rows(message).items():
            for row in rows:
                said = row.get("source")
                if row.get("changeType") != "merge" or not isinstance(said, str):
                    continue
                for source in said.removeprefix("merge:").split(", "):
                    if source.startswith(ref):
                        when = str(row.get("changedAt") or "")
                        found.setdefault(source, MergedAway(source, target, when))
    return found
