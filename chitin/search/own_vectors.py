"""A contribute gives its new insight its vectors itself.

Before, the new insight was stored without vectors, and the next command that searched
by meaning embedded it inline (``semantic.refresh``) before its search: for a
contribute after a contribute, that was in the door's first half, on the way to git's
commit (14-37 ms at perf-vs-orig's 1,000: docs/design.md §9p). The door embeds the
new insight's whole text for its judgement anyway; it asks for the insight's other
parts beside it (search/door.py, ``Found.own``), of the same provider the refresh
would ask, while git stages and commits. The contribute stores them once the insight
is recorded: the rows the refresh would store, for the same text hash, so nothing
later embeds it again. Where the door did not embed (nothing near to compare, no
provider), nothing is stored here, as before; nor where more insights wait for a
vector than a search embeds inline: the background embedding gives them theirs, and
the new one's with them. There, a write to the sidecar would only wait for the
background run's lock (it writes at the lowest priority: at perf-vs-orig's 1,000
without vectors, a contribute went from ~0.14 to ~0.23 s with it).

It is an optimisation, never a condition of the write: anything failing on the way (a
sidecar replaced, damaged or unwritable) leaves the insight to the next search, as
before. The commit is made by then, and stays.
"""

from __future__ import annotations

from collections.abc import Sequence

from chitin.errors import StoreError
from chitin.index.db import is_damage, is_unwritable
from chitin.model.insight import Insight
from chitin.model.search_text import vector_hash
from chitin.providers import ProviderError
from chitin.search.semantic import Semantic


def keep(semantic: Semantic, insight: Insight, rows: Sequence[Sequence[float]]) -> None:
    """Store ``rows``, the vectors of ``insight``'s parts (search_text.embedding_texts)
    that the door made or found, as the insight's own; once it is recorded."""
    parts = [(insight.id, vector_hash(insight), part) for part in range(len(rows))]
    try:
        semantic.vectors.put(parts, rows)
    except Exception as error:  # the next search by meaning embeds it, as before
        if not _passing(error):
            raise


def _passing(error: Exception) -> bool:
    """A failure that leaves the insight to the next search: the provider's, a sidecar
    replaced, damaged or unwritable, rows that are not its vectors."""
    known = (ProviderError, StoreError, OSError, ValueError)
    return isinstance(error, known) or is_damage(error) or is_unwritable(error)
