"""Rows of ``history`` and ``changelog`` that one commit's two versions of a file do
not say by themselves (history.py reads those): a rename of the insight by hand, a
``git revert`` of a chitin commit, 1.x rows carried in a message, and the edit not
committed yet, which ``git status`` would show (fix80)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from chitin.errors import ChitinError
from chitin.model.history import Entry, Reverted
from chitin.model.insight import Insight, canonical_timestamp, format_timestamp
from chitin.store.git import Git

_REVERTS = re.compile(r"^This reverts commit ([0-9a-f]{40})\b", re.MULTILINE)
_OP = "Chitin-Op: "


def renamed(old: Insight, new: Insight, old_path: str, new_path: str) -> tuple[str, str] | None:
    """(old id, new id) when the commit renamed the insight (its file, or the id its
    frontmatter declares: a ``git mv`` by hand, and the edit that follows it); an
    archive's move keeps the file's name, and is none."""
    before, after = Path(old_path).stem, Path(new_path).stem
    if before != after:
        return before, after
    return (old.id, new.id) if old.id != new.id else None


def reverted(git: Git, message: str, trailers: Mapping[str, str]) -> Reverted | None:
    """What a ``git revert`` commit undid, from the "This reverts commit <sha>." line
    git writes: that commit, its chitin operation (its trailer) and its subject; None
    for a commit of chitin's own, or one whose message says no such thing."""
    found = None if trailers.get("Op") else _REVERTS.search(message)
    if found is None:
        return None
    sha = found.group(1)
    done = git.run(["log", "-1", "--format=%B", sha, "--"], check=False)
    body = done.stdout if done.returncode == 0 else ""
    ops = [line[len(_OP) :].strip() for line in body.splitlines() if line.startswith(_OP)]
    return Reverted(sha, ops[0] if ops else None, body.split("\n", 1)[0].strip() or None)


def uncommitted_pair(git: Git, path: str) -> tuple[bytes | None, bytes, str] | None:
    """(HEAD's bytes of ``path``, or None if HEAD has none; the working tree's; the
    file's time) when ``git status`` says the file differs from HEAD; else None."""
    status = git.run(["status", "--porcelain", "--untracked-files=all", "--", path], check=False)
    if status.returncode != 0 or not status.stdout.strip():
        return None
    try:
        now = (git.root / path).read_bytes()
        stamp = (git.root / path).stat().st_mtime
    except OSError:  # gone from the working tree: history shows the insight as committed
        return None
    blob = git.run(["rev-parse", "--verify", "-q", f"HEAD:{path}"], check=False).stdout.strip()
    head = git.cat_blobs([blob]).get(blob) if blob else None
    return head, now, format_timestamp(datetime.fromtimestamp(int(stamp), tz=UTC))


def legacy_entry(row: Mapping[str, Any], when: str, sha: str, author: str) -> Entry:
    """A 1.x history row that a migration's or an import's message carries."""

    def text(key: str) -> str | None:
        value = row.get(key)
        return None if value is None else str(value)

    try:
        at = canonical_timestamp("changedAt", row.get("changedAt"))
    except ChitinError:
        at = when
    return Entry(
        str(row["insightId"]),
        text("field") or "*",
        text("oldValue"),
        text("newValue"),
        text("changeType") or "create",
        at,
        text("source"),
        sha,
        author,
    )


def reinforce_source(count: int, trailers: Mapping[str, str]) -> str:
    """The original's form: ``reinforce:<n>|[<evidence>] <source>``."""
    evidence, source = trailers.get("Evidence"), trailers.get("Source")
    detail = " ".join(part for part in (f"[{evidence}]" if evidence else "", source or "") if part)
    return f"reinforce:{count}" + (f"|{detail}" if detail else "")
