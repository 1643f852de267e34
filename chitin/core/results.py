"""What the life cycle's writes return (``chitin.core.lifecycle``): a contribution, a
change of an existing insight, a cluster of duplicates (``chitin.Chitin`` hands them on)."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from chitin.model.insight import Insight

if TYPE_CHECKING:
    from chitin.retrieval.conflicts import Match


class Contribution(NamedTuple):
    insight: Insight
    path: str
    commit: str | None
    duplicates: list[Match]
    conflicts: list[Match]
    degraded: str | None = None  # why duplicates were judged by words alone, if they were


class Change(NamedTuple):
    """The result of an operation on an existing insight."""

    insight: Insight
    path: str
    commit: str | None
    before: Insight | None = None
    notes: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()  # fields lost to another type (condition, avoid)
    cleared: tuple[str, ...] = ()  # fields an update's empty value cleared
    same: tuple[Insight, ...] = ()  # live insights an update made it the same as


class _Initialized(NamedTuple):
    commit: str | None
    seeded: list[Insight]


class Initialized(_Initialized):
    """What ``Chitin.init`` did: it unpacks as ``(commit, seeded)``, as it always has;
    ``merge_driver_set`` (an attribute, not a third item) says it set git's merge driver
    for insights in this clone's config (a plain clone lacks it; another chitin ran it)."""

    merge_driver_set: bool = False

    @classmethod
    def made(cls, commit: str | None, driver_set: bool, seeded: list[Insight]) -> Initialized:
        done = cls(commit, seeded)
        done.merge_driver_set = driver_set
        return done

    def seeding(self, seeded: list[Insight]) -> Initialized:
        """The same, with the starter insights ``seeded`` since."""
        return Initialized.made(self.commit, self.merge_driver_set, seeded)


class Deduped(NamedTuple):
    """A cluster of duplicates (``Chitin.dedupe``): the insight that stays (once merged,
    as merged), those folded into it, the ``chitin merge`` that does it (``change``)."""

    keep: Insight
    others: tuple[Insight, ...]
    exact: bool  # all the same insight, not only near duplicates
    command: str
    change: Change | None = None
    same_claim: bool = False  # all the very same claim, if under other types
    copies: int = 0  # of the others, exact copies of keep (all of them when exact)
    claim_copies: int = 0  # of the others, keep's very claim under another type
