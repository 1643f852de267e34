"""What ``history`` and ``changelog`` report: one field change of one insight, as a value."""

from __future__ import annotations

from typing import NamedTuple


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
