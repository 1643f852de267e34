"""export: every insight with what the store keeps of it, or a refusal naming the
files a backup would miss (the rest only when asked)."""

from __future__ import annotations

from typing import Any

from chitin.core.reading import Reading
from chitin.core.session import Session
from chitin.errors import StoreError
from chitin.format.markdown import Layout
from chitin.index import usage
from chitin.index.cache import Filters
from chitin.index.queries import Problem
from chitin.model.insight import Insight
from chitin.model.interchange import Exported
from chitin.store import history


def export(reading: Reading, skip_unreadable: bool = False) -> list[Exported]:
    """Every insight, archived ones included, newest first, with when it was last
    retrieved, its file's evidence log and its history: what an export holds
    (render/shapes/ gives it the interchange shape).

    An insight file that does not read would be missing from it, so the export is
    refused, naming each, unless ``skip_unreadable`` asks for the rest (the caller
    names the files left out: ``Chitin.problems()``)."""
    if reading.session.missing:
        return []
    insights = reading.session.cache.select(Filters(archived=None))
    if not skip_unreadable:
        _refuse_unreadable(reading.session.cache.problems())
    retrieved = usage.all_last_retrieved(reading.session.root)
    history = _histories(reading.session)
    return [
        Exported(i, retrieved.get(i.id), layout.evidence, rows, layout.extra_keys, body)
        for i in insights
        for layout in [_layout_of(reading, i)]
        for rows in [tuple(history.get(i.id, ()))]
        for body in [layout.body if any(kind == "text" for kind, _ in layout.body) else ()]
    ]


def _refuse_unreadable(problems: list[Problem]) -> None:
    """One line naming every file an export would miss, and the fix."""
    if problems:
        paths = ", ".join(problem.path for problem in problems)
        raise StoreError(
            f"cannot export: {len(problems)} insight file(s) cannot be read and would be "
            f"missing from it: {paths}; fix: run `chitin check`, which says what is wrong "
            "with each, and mend them (or export the rest with skip_unreadable=True)"
        )


def _layout_of(reading: Reading, insight: Insight) -> Layout:
    """What the file keeps beside the fields: its evidence log, hand-added keys and text."""
    return reading.session.store.read(reading.path_of(insight.id))[1]


def _histories(opened: Session) -> dict[str, list[dict[str, Any]]]:
    """Every insight's history, oldest first, as 1.x history rows (one pass of git log)."""

    if not opened.store.git.is_repository():
        return {}
    rows: dict[str, list[dict[str, Any]]] = {}
    for entry in reversed(history.changelog(opened.store.git, None, _EVERY_CHANGE)):
        rows.setdefault(entry.insight_id, []).append(entry.row())
    return rows


_EVERY_CHANGE = 2**31 - 1  # git log -n takes an int
