"""What ``history`` and ``changelog`` report: one field change of one insight, as a value."""

from __future__ import annotations

from typing import Any, NamedTuple


class Reverted(NamedTuple):
    """The commit a ``git revert`` undid: its sha, its ``Chitin-Op`` (None for one
    made by hand) and its subject line."""

    commit: str
    op: str | None
    subject: str | None

    def shape(self) -> dict[str, Any]:
        return {"commit": self.commit, "op": self.op, "subject": self.subject}

    def said(self) -> str:
        what = f"{self.op} " if self.op else ""
        subject = f": {self.subject}" if self.subject else ""
        return f"reverts {what}{self.commit[:8]}{subject}"


class Entry(NamedTuple):
    """One field change of one insight in one commit, in the original's history shape."""

    insight_id: str
    field: str
    old: str | None
    new: str | None
    change_type: str
    changed_at: str
    source: str | None
    commit: str
    author: str
    reverts: Reverted | None = None  # made by `git revert` of that commit
    uncommitted: bool = False  # in the working tree only (commit and author "")

    def row(self) -> dict[str, Any]:
        """The change as chitin 1.x's history row (its JSON keys, in its order): what an
        export keeps, and what ``history``'s JSON adds its number and commit to."""
        return {
            "insightId": self.insight_id,
            "field": self.field,
            "oldValue": self.old,
            "newValue": self.new,
            "changeType": self.change_type,
            "changedAt": self.changed_at,
            "source": self.source,
        }
