"""PERSONALITY.md: the insights for a query, packed into a budget and set in a template.

``chitin render`` and the agent hooks both make it here, so what a hook injects is
exactly what ``render`` writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from chitin.core.retrieving import Query, Retrieving
from chitin.model.insight import well_formed
from chitin.render import budget as marshalling
from chitin.render import personality as templates
from chitin.retrieval.engine import Retrieval


@dataclass
class Personality:
    """A rendered PERSONALITY.md, how many insights it holds, and the retrieval behind
    it (whose notes, such as a fallback to text search, the caller reports)."""

    text: str
    count: int
    found: Retrieval


def render_personality(
    chitin: Retrieving,
    query: Query,
    *,
    template: Path | None = None,
    now: datetime | None = None,
) -> Personality:
    """The file for ``query``. It is a function of the store's commit, the query and
    the budget: decay is measured at the commit's time, so the same three always give
    the same text, which can then be committed, diffed and cached.

    ``now`` is when a session asks for it: the insights' retrieval times are noted as
    then. Without it (another revision's file, for ``diff --render``) nothing is noted."""
    query = query._replace(text=well_formed(query.text))  # it is printed in the header too
    budget = query.budget
    commit, when = chitin.snapshot_time()
    found = chitin.retrieve_at(query, now or when, decay_at=when, record=now is not None)
    packed = marshalling.pack([ranked.insight for ranked in found.ranked], budget)
    values = {
        "header": templates.header(commit, query.text, budget),
        "insights": marshalling.marshal(packed),
        "query": query.text or "(none)",
        "budget": budget,
        "commit": commit or "",
        "category": found.category,
        "count": len(packed.chosen),
        "omitted": packed.omitted,
    }
    path = template or default_template(chitin.root)
    text = templates.render(path.read_text(encoding="utf-8"), values, str(path))
    return Personality(text, len(packed.chosen), found)


def default_template(root: Path) -> Path:
    """The store's own templates/PERSONALITY.md, else the one that ships with chitin."""
    own = root / "templates" / "PERSONALITY.md"
    if own.is_file():
        return own
    from chitin.resources import data_path

    return data_path("templates") / "PERSONALITY.md"
