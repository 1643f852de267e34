"""Quality scoring over a store: live insights with the times they were last retrieved."""

from __future__ import annotations

from chitin.core.reading import Reading
from chitin.index import usage
from chitin.model import arguments
from chitin.model.bounds import MAX_COUNT
from chitin.retrieval import quality
from chitin.retrieval.quality import DEFAULT_TOP, QualityReport, QualityScore


def report(reading: Reading, top: int | None = None) -> QualityReport:
    """The quality report over every live insight (the ``top`` that most need
    attention, default ``DEFAULT_TOP``); a missing store reports nothing."""
    top = DEFAULT_TOP if top is None else arguments.count("top", top, MAX_COUNT)
    now = reading.session.now()
    if reading.session.missing:
        return quality.report([], top)
    retrieved = usage.all_last_retrieved(reading.session.root)
    scores = [quality.score(i, now, retrieved.get(i.id)) for i in reading.list_insights()]
    return quality.report(scores, top)


def score(reading: Reading, ref: str) -> QualityScore:
    """The quality of one insight, by id or unique id prefix (archived ones too)."""
    now = reading.session.now()
    insight = reading.get(ref)
    return quality.score(insight, now, usage.last_retrieved(reading.session.root, insight.id))
