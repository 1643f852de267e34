"""``chitin dedupe``: the duplicate clusters of a store, strongest first, each with
the ``chitin merge`` that folds it into its strongest member; with ``apply``, those
merges, one commit per cluster.

The clusters are ``check``'s (chitin.retrieval.clusters, the contribute judgement, by
meaning from the stored vectors where they are current, else by words, with the
alignment of their own words where a verdict depends on it: chitin.search.aligned),
over the live insights of the cache.
"""

from __future__ import annotations

import shlex
import signal
from collections.abc import Iterable

from chitin.core import write_gate
from chitin.core.check_related import copies_of, judged_grouping
from chitin.core.lifecycle import Deduped, Lifecycle
from chitin.core.session import Session
from chitin.errors import ChitinError
from chitin.index.cache import Filters
from chitin.model.insight import Insight
from chitin.render.text import counted
from chitin.store import interrupts


class Clusters(list[Deduped]):
    """The clusters, strongest first, and how many pairs were judged by the cosine alone
    although their verdict depends on the alignment of their own words (past the
    budget of chitin.search.aligned, or the model failed)."""

    def __init__(self, found: Iterable[Deduped] = (), without_alignment: int = 0) -> None:
        super().__init__(found)
        self.without_alignment = without_alignment


def duplicate_clusters(opened: Session) -> Clusters:
    """The store's clusters of duplicates, strongest first."""
    if opened.missing:
        return Clusters()

    insights = opened.cache.select(Filters())
    grouped, _ = judged_grouping(opened.root, insights, opened.env)
    found = Clusters(without_alignment=grouped.without_alignment)
    for cluster in grouped.grouping.clusters:
        keep, *others = (insights[m] for m in cluster.members)
        command = _command(keep, others)
        copies, said = copies_of(keep, others)
        found.append(
            Deduped(keep, tuple(others), cluster.exact, command, None, cluster.claim, copies, said)
        )
    return found


def _sources(others: Iterable[Insight]) -> list[str]:
    """The ids to fold, each once: two files holding one id (a copy made by hand, which
    check reports) are two members, and merge refuses that id with its own fix."""
    return list(dict.fromkeys(i.id for i in others))


def _command(keep: Insight, others: list[Insight]) -> str:
    return "chitin merge " + " ".join(shlex.quote(i) for i in (*_sources(others), keep.id))


def apply(lifecycle: Lifecycle, clusters: list[Deduped], allow_secret: bool = False) -> Clusters:
    """Merge each cluster into its strongest member, one commit per cluster: the
    merge keeps the highest confidence, every tag, the sum of reinforcements and every
    evidence line (``Chitin.merge``). A merge refused (a likely credential a copy
    holds, a hand edit chitin will not commit) stops here, saying which cluster and
    how many were merged before it; so does Ctrl-C (or SIGTERM), at the next cluster,
    or undoing the merge it stopped. What stops every write (a chitin.yaml check
    refuses, a bad $CHITIN_AGENT) is the store's, not a cluster's: refused once, first."""
    done = Clusters(without_alignment=getattr(clusters, "without_alignment", 0))
    if clusters:
        lifecycle.session.agent  # noqa: B018 (raises for a bad $CHITIN_AGENT)
        write_gate.refuse_broken_settings(lifecycle.session.store)
    with interrupts.holding() as guard:  # one guard for all: the merges share it
        for found in clusters:
            sources = _sources(found.others)
            try:
                if guard.received is not None:  # came during or after the last merge
                    raise interrupts.Interrupted(guard.received)
                change = lifecycle.merge(sources, found.keep.id, allow_secret=allow_secret)
            except ChitinError as refused:  # a likely credential, a hand edit, the lock
                where = f"{refused} (the cluster of {found.keep.id}: {found.command}"
                before = f"{len(done)} of {counted(len(clusters), 'cluster')} merged before it"
                refused.args = (f"{where}; {before})",)
                raise  # as it was (its kind, its field), saying where it stopped
            except KeyboardInterrupt as stopped:
                if not done:
                    raise
                kept = f"{len(done)} of {counted(len(clusters), 'cluster')} merged, each in its own"
                raise interrupts.Interrupted(
                    getattr(stopped, "signum", signal.SIGINT),
                    f"{kept} commit; the others are as they were (`chitin dedupe` lists them)",
                ) from stopped
            done.append(found._replace(keep=change.insight, change=change))  # as merged
    return done
