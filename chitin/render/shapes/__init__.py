"""The JSON contract: every shape ``--format json`` prints, built here and nowhere else.

Agents parse these shapes (chitin 1.4.5's, plus the keys docs/compatibility.md lists),
so each is one function, and tests/golden/ holds each still. The CLI passes the values
it has; a function returns plain data (dicts, lists, strings, numbers) for
``json.dumps``. An insight's shape is its interchange shape (``to_public_dict``), the
one export and import share; the reflection queue's markers are the queue file's.

The shapes live by subject (insights.py: insights and what is done with them;
reviews.py: quality, check, diff, dedupe; exchange.py: sync, export, import, hooks,
Carapace) and are all named here, so that a front end says ``shapes.<name>``.
These modules import model/ and format/ only (and, for type hints, the value types of
retrieval/), and nothing heavy: ``retrieve`` runs through them at session start.
"""

from chitin.render.shapes.exchange import (
    carapace_answer,
    carapace_imported,
    carapace_registered,
    export,
    hook_installed,
    hook_outcome,
    imported,
    promoted,
    synced,
    where,
)
from chitin.render.shapes.insights import (
    RANKING_FACTORS,
    changed,
    changelog,
    contribution,
    embed_status,
    embedded,
    history,
    history_entry,
    initialised,
    insight,
    insights,
    marker,
    match,
    pending,
    queued,
    reflected,
    reinforced,
    retrieval,
    score,
    score_number,
    session_start,
    similar,
    stats,
)
from chitin.render.shapes.reviews import (
    check_report,
    dedupe,
    diff,
    diff_ends,
    diff_entry,
    finding,
    quality_report,
    quality_score,
    rendered_diff,
)

__all__ = [
    "RANKING_FACTORS",
    "carapace_answer",
    "carapace_imported",
    "carapace_registered",
    "changed",
    "changelog",
    "check_report",
    "contribution",
    "dedupe",
    "diff",
    "diff_ends",
    "diff_entry",
    "embed_status",
    "embedded",
    "export",
    "finding",
    "history",
    "history_entry",
    "hook_installed",
    "hook_outcome",
    "imported",
    "initialised",
    "insight",
    "insights",
    "marker",
    "match",
    "pending",
    "promoted",
    "quality_report",
    "quality_score",
    "queued",
    "reflected",
    "reinforced",
    "rendered_diff",
    "retrieval",
    "score",
    "score_number",
    "session_start",
    "similar",
    "stats",
    "synced",
    "where",
]
