"""Reading the store: one insight by id or prefix, lists, counts and history (the
insights that say much the same as a claim: likeness.py)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from chitin.core.session import Session
from chitin.errors import AmbiguousIdError, NotFoundError, StateError, StoreError, ValidationError
from chitin.format.layout import SCANNED_DIRS
from chitin.index import usage
from chitin.index.cache import Cache, Filters, Problem
from chitin.model import arguments
from chitin.model.bounds import MAX_COUNT, MAX_DAYS, MAX_FILTER_TAGS
from chitin.model.ids import check_reference
from chitin.model.insight import TYPES, Insight, check_provenance

if TYPE_CHECKING:
    from chitin.model.history import Entry
    from chitin.store.history import Deleted, MergedAway

MERGES_FOLLOWED = 20  # a chain of merges is said to its end, up to this many
# Results are NamedTuples, not dataclasses: reads would otherwise import dataclasses
# and build three classes for nothing (~2 ms of a session start).


class Stats(NamedTuple):
    total: int
    by_type: dict[str, int]
    average_confidence: float
    archived: int


class Reading:
    """The reads of one store's insights (``chitin.Chitin`` holds one)."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def problems(self) -> list[Problem]:
        """The insight files that could not be read (each is skipped); after a read of
        files the cache vouched for alone (``get``), as the last sync found them."""
        if self.session.missing:
            return []
        return self.session.cache_vouching(lambda cache: cache.vouched).problems()

    def _named(self, ref: str, archived: bool) -> str:
        """The id of the one insight ``ref`` names among the archived (or live) ones,
        ``ref`` itself if it names several, "" if none."""
        ids = sorted({m[0] for m in self.session.cache.ids_matching(ref, archived)})
        return ids[0] if len(ids) == 1 else ref if ids else ""

    def resolve(self, ref: str, archived: bool | None = False, role: str | None = None) -> str:
        """The full id for ``ref`` (an id or a unique prefix of one). ``role`` names
        the insight in the error if there is none."""
        check_reference(ref)
        if self.session.missing:
            raise NotFoundError(f"{role or 'Insight'} not found: {ref}")
        matches = self.session.cache.ids_matching(ref, archived)
        ids = sorted({m[0] for m in matches})
        if len(ids) == 1 and ids[0] != ref:
            unreadable = _unreadable_like(self.session.cache, ref, archived)
            if ref in unreadable:  # the full id of a broken file: that file is meant
                self._refuse_unreadable(ref)
            ids = sorted({*ids, *unreadable})
        if len(ids) > 1:
            raise AmbiguousIdError(ref, ids)
        if ids:
            return ids[0]
        if archived is False and (other := self._named(ref, True)):
            raise StateError(f"Insight {other} is archived; run `chitin unarchive {other}` first")
        if archived is True and (other := self._named(ref, False)):
            raise StateError(f"Insight {other} is not archived")
        self._refuse_unreadable(ref)
        merged, gone = self._gone(ref)
        if merged:
            what = role.lower() if role else "insight"
            steps = ", then into ".join(f"{m.target} ({m.when[:10]})" for m in merged)
            raise NotFoundError(f"no {what} {ref}; it was merged into {steps}")
        if gone is not None:
            raise NotFoundError(
                f"insight {gone.insight_id} was deleted in commit {gone.short} ({gone.day}); "
                f"`chitin history {gone.insight_id}` shows its history"
            )
        raise NotFoundError(f"{role or 'Insight'} not found: {ref}")

    def _refuse_unreadable(self, ref: str) -> None:
        """A file named after ``ref`` that does not read, or that declares another id:
        say that it is there and why it does not answer to ``ref``, rather than that
        there is no such insight."""
        named = [p for p in self.session.cache.problems() if _file_id(p.path).startswith(ref)]
        exact = [p for p in named if _file_id(p.path) == ref]
        for path, error in (exact or named)[:1]:
            raise StoreError(f"{path} exists but cannot be read: {error}")
        for path, declared in self.session.cache.named_like(ref):
            named_as = _file_id(path)
            if named_as.startswith(ref) and declared != named_as:
                raise StoreError(
                    f"{path} declares the id {declared!r}, not the {named_as!r} of its name: "
                    f"rename the file to {declared}.md, or set `id: {named_as}` in it"
                )
        for path in _folders_named(self.session.root, ref):
            raise StoreError(
                f"{path} exists but cannot be read: it is a folder, not an insight file; "
                "fix: move the folder away, and put the insight's file there"
            )

    def _gone(self, ref: str) -> tuple[list[MergedAway], Deleted | None]:
        """The merges that folded ``ref`` into another insight, followed while their
        target is gone too (merged on: A into B, then B into C), to the insight there
        is (or as far as the log tells, never round a cycle); else the commit that
        deleted its file outside chitin. From git history."""
        from chitin.store import history

        git = self.session.store.git
        if not git.is_repository():
            return [], None
        merged = history.merged_away(git, ref)
        if merged is None:
            return [], history.deleted(git, ref)
        chain, seen = [merged], {merged.source, merged.target}
        while len(chain) < MERGES_FOLLOWED and not self._exists(chain[-1].target):
            onward = history.merged_away(git, chain[-1].target)
            if onward is None or onward.target in seen:
                break
            chain.append(onward)
            seen.add(onward.target)
        return chain, None

    def _exists(self, insight_id: str) -> bool:
        return any(
            found[0] == insight_id for found in self.session.cache.ids_matching(insight_id, None)
        )

    def get(self, ref: str) -> Insight:
        """The insight ``ref`` names (an id or a unique prefix), live or archived."""
        check_reference(ref)
        if not self.session.missing:
            # Only its file is read: a cache vouched for that file will do, which spares
            # a large store's sync (Session.cache_vouching). Anything else, the usual way.
            cache = self.session.cache_vouching(lambda cache: _paths_of_one(cache, ref))
            ids = {found[0] for found in cache.ids_matching(ref, None)}
            one = ids.pop() if len(ids) == 1 else None
            if one is not None and one != ref and _unreadable_like(cache, ref, None):
                one = None  # a prefix a broken file shares too: resolve says it is ambiguous
            found = cache.get(one) if one is not None else None
            if found is not None:
                return found
        insight_id = self.resolve(ref, archived=None)
        found = self.session.cache.get(insight_id)
        assert found is not None
        return found

    def path_of(self, insight_id: str) -> str:
        """The insight's file, relative to the store."""
        check_reference(insight_id)  # as get does: a list reached SQLite, a surrogate UTF-8
        cache = self.session.cache_vouching(lambda cache: cache.paths_of(insight_id))
        paths = cache.paths_of(insight_id)
        if len(paths) > 1:
            raise StoreError(
                f"id {insight_id} is used by {len(paths)} files "
                f"({', '.join(paths)}); rename one of them"
            )
        if not paths:
            raise NotFoundError(f"Insight not found: {insight_id}")
        return paths[0]

    def list_insights(
        self,
        types: Iterable[str] = (),
        tags: Iterable[str] = (),
        provenance: str | None = None,
        min_confidence: float | None = None,
        archived: bool = False,
        listed: bool = False,
    ) -> list[Insight]:
        """The insights that pass the filters (no types or tags: any); ``listed``: only
        what a listing shows of each (Queries.select)."""
        filters = filters_of(types, tags, min_confidence, archived)._replace(
            provenance=check_provenance(provenance)
        )
        return [] if self.session.missing else self.session.cache.select(filters, listed=listed)

    def last_retrieved(self, ids: Iterable[str]) -> dict[str, str]:
        """id → when a retrieval last gave it, for those of ``ids`` ever retrieved."""
        asked = arguments.texts("ids", ids)
        times = usage.all_last_retrieved(self.session.root)
        return {i: times[i] for i in asked if i in times}

    def holds_nothing(self) -> bool:
        """No store yet, or one without a single insight file, live or archived."""
        if self.session.missing:
            return True
        counts, _, archived = self.session.cache.counts()
        return not counts and not archived and not self.session.cache.problems()

    def stats(self) -> Stats:
        if self.session.missing:
            return Stats(0, dict.fromkeys(TYPES, 0), 0.0, 0)
        counts, mean, archived = self.session.cache.counts()
        by_type = {kind: counts.get(kind, 0) for kind in TYPES}
        return Stats(sum(by_type.values()), by_type, round(mean, 6), archived)

    def history(self, ref: str, limit: int | None = None) -> tuple[Insight, list[Entry]]:
        """The insight and its changes, newest first, from git's log."""
        from chitin.store import history

        limit = None if limit is None else arguments.count("limit", limit, MAX_COUNT)
        git = self.session.store.git
        try:
            insight = self.get(ref)
        except NotFoundError:  # deleted outside chitin: its history is still git's
            gone = None if self.session.missing else self._gone(ref)[1]
            if gone is None:
                raise
            insight = history.last_version(git, gone)
            return insight, history.insight_history(git, gone.path, limit)
        return insight, history.insight_history(git, self.path_of(insight.id), limit)

    def changelog(self, days: int | None = None, limit: int = 20) -> list[Entry]:
        """The store's changes, newest first (``days``: only those of the last days)."""
        from chitin.store import history

        days = None if days is None else arguments.count("days", days, MAX_DAYS)
        limit = arguments.count("limit", limit, MAX_COUNT)
        if self.session.missing or not self.session.store.git.is_repository():
            return []
        return history.changelog(self.session.store.git, days, limit)

    def shared_as(self, carapace_id: str) -> list[Insight]:
        """The insights promoted to, or imported from, that Carapace contribution."""
        return [] if self.session.missing else self.session.cache.shared_as(carapace_id)


def filters_of(
    types: Iterable[str],
    tags: Iterable[str],
    min_confidence: float | None,
    archived: bool = False,
) -> Filters:
    """Filters from types and tags, validated (a single string is one value)."""
    kinds = arguments.kinds(_values("types", types))
    chosen = arguments.tags(list(_values("tags", tags)))
    if len(chosen) > MAX_FILTER_TAGS:
        raise ValidationError(
            "tags",
            f"a filter takes at most {MAX_FILTER_TAGS} tags (an insight with any of them "
            f"matches), got {len(chosen)}",
        )
    floor = arguments.lowest("min_confidence", min_confidence)
    if not isinstance(archived, bool):  # "no" was int()ed in SQL: a ValueError
        raise ValidationError("archived", f"archived must be true or false, got {archived!r:.60}")
    return Filters(archived=archived, types=kinds, min_confidence=floor, tags=chosen)


def _paths_of_one(cache: Cache, ref: str) -> list[str]:
    """The files of the one insight ``ref`` names, or [] if it names none or several."""
    ids = {found[0] for found in cache.ids_matching(ref, None)}
    return cache.paths_of(ids.pop()) if len(ids) == 1 else []


def _unreadable_like(cache: Cache, prefix: str, archived: bool | None) -> list[str]:
    """The ids of the files that do not read (ids by their names) starting with
    ``prefix``, in the scope ``archived`` says: a prefix one of them shares with a
    readable insight is ambiguous, as it was before the hand edit broke the file."""
    tops = {None: ("insights/", "archive/"), False: ("insights/",), True: ("archive/",)}
    return [
        _file_id(problem.path)
        for problem in cache.problems()
        if problem.path.startswith(tops[archived]) and _file_id(problem.path).startswith(prefix)
    ]


def _folders_named(root: Path, ref: str) -> list[str]:
    """The folders where ``ref``'s file would be (``insights/<type>/<ref>.md``, or in
    archive/), which the walk neither reads nor enters: a dozen lstats, and only for an
    id that names no insight."""
    paths = (f"{top}/{kind}/{ref}.md" for top in SCANNED_DIRS for kind in TYPES)
    return [path for path in paths if (root / path).is_dir() and not (root / path).is_symlink()]


def _file_id(path: str) -> str:
    """The id a file is named after (``insights/skill/<id>.md``)."""
    return path.rsplit("/", 1)[-1].removesuffix(".md")


def _values(name: str, given: Iterable[str] | None) -> tuple[str, ...]:
    if isinstance(given, str) or given is None:
        return (given,) if given else ()
    if not isinstance(given, Iterable):  # a number: "'int' object is not iterable"
        raise ValidationError(name, f"{name} must be a text or a list of texts, got {given!r:.60}")
    return tuple(given)
