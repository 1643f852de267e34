"""``chitin dedupe``: the duplicate clusters of a store, strongest first, each with
the ``chitin merge`` that folds it into its strongest member; with ``apply``, those
merges, one commit per cluster.

The clusters are ``check``'s (chitin.retrieval.clusters, the contribute judgement, by
meaning from the stored vectors where they are current, else by words), over the live
insights of the cache.
"""

from __future__ import annotations

import shlex

from chitin.core.facade import Chitin
from chitin.core.lifecycle import Deduped
from chitin.model.insight import Insight


def duplicate_clusters(chitin: Chitin) -> list[Deduped]:
    """The store's clusters of duplicates, strongest first."""
    if chitin.missing:
        return []
    from chitin.core.check import stored_meaning
    from chitin.index.cache import Filters
    from chitin.retrieval.clusters import group
    from chitin.retrieval.judgement import side_of
    from chitin.search.door import strength

    insights = chitin.repairing(lambda: chitin.cache.select(Filters()))
    meaning, _ = stored_meaning(chitin.root, insights)
    grouping = group([side_of(i) for i in insights], [strength(i) for i in insights], meaning)
    found = []
    for cluster in grouping.clusters:
        keep, *others = (insights[m] for m in cluster.members)
        found.append(Deduped(keep, tuple(others), cluster.exact, _command(keep, others)))
    return found


def _command(keep: Insight, others: list[Insight]) -> str:
    return "chitin merge " + " ".join(shlex.quote(i.id) for i in (*others, keep))


def apply(chitin: Chitin, clusters: list[Deduped]) -> list[Deduped]:
    """Merge each cluster into its strongest member, one commit per cluster: the
    merge keeps the highest confidence, every tag, the sum of reinforcements and every
    evidence line (``Chitin.merge``)."""
    return [
        found._replace(change=chitin.merge([i.id for i in found.others], found.keep.id))
        for found in clusters
    ]
