"""Quality scoring over a store: live insights with the times they were last retrieved."""

from __future__ import annotations

from datetime import datetime

from chitin.core.facade import Chitin
from chitin.index import usage
from chitin.retrieval import quality
from chitin.retrieval.quality import DEFAULT_TOP, QualityReport, QualityScore


def report(chitin: Chitin, now: datetime, top: int = DEFAULT_TOP) -> QualityReport:
    """The quality report over every live insight; a missing store reports nothing."""
    if chitin.missing:
        return quality.report([], top)
    retrieved = usage.all_last_retrieved(chitin.root)
    scores = [quality.score(i, now, retrieved.get(i.id)) for i in chitin.list_insights()]
    return quality.report(scores, top)


def score(chitin: Chitin, ref: str, now: datetime) -> QualityScore:
    """The quality of one insight, by id or unique id prefix (archived ones too)."""
    insight = chitin.get(ref)
    return quality.score(insight, now, usage.last_retrieved(chitin.root, insight.id))
