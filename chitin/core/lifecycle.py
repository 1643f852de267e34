"""The life cycle of an insight: contribute, update, reinforce, promote, archive and
unarchive, merge; each is one commit, worded by ``chitin.store.messages``.

Only writes load this module (the facade imports it on the first), so it imports
what writes need at its top, the credential detector (~2 ms of patterns) included."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from chitin.core import seeding
from chitin.core.door_check import DoorCheck
from chitin.core.reading import Reading
from chitin.core.results import Change as Change  # re-exported: the facade's, dedupe's
from chitin.core.results import Contribution as Contribution
from chitin.core.results import Deduped as Deduped
from chitin.core.results import Initialized as Initialized
from chitin.core.session import Session
from chitin.errors import ValidationError
from chitin.format.folded import folded_layout
from chitin.model import evidence, ops, secrets
from chitin.model.ids import new_id
from chitin.model.insight import (
    Insight,
    check_carapace_id,
    check_evidence,
    check_text,
    normalize_claim,
)
from chitin.retrieval.judgement import exact_key, side_of
from chitin.search import door
from chitin.store import files
from chitin.store.messages import (
    contribute_words,
    merge_words,
    move_words,
    promote_words,
    reinforce_words,
    update_words,
    worded,
)

if TYPE_CHECKING:
    from chitin.index.cache import Cache
    from chitin.store.messages import Words


class Lifecycle:
    """The writes of one store's insights (``chitin.Chitin`` holds one); it finds
    what it changes through ``reading``."""

    def __init__(self, session: Session, reading: Reading) -> None:
        self.session = session
        self.reading = reading
        self.door = DoorCheck(session)

    def create(self) -> Initialized:
        """Create the store (idempotent): the commit made, if any, and whether git's merge
        driver was set in this clone (none seeded: ``seed`` does)."""
        self.session.missing  # noqa: B018 (raises if something else stands where the store goes)
        self.session.agent  # noqa: B018 (a bad $CHITIN_AGENT is refused before any commit)
        return Initialized.made(*self.session.store.initialize(self.session.command), [])

    def seed(self) -> list[Insight]:
        """Add the starter insights the store lacks (core/seeding.py)."""
        return seeding.seed(self.session)

    def contribute(
        self,
        fields: Mapping[str, Any],
        check: bool = True,
        allow_secret: bool = False,
        carapace_id: str | None = None,
    ) -> Contribution:
        """Add an insight in one commit. Text that looks like a credential is refused
        (unless ``allow_secret``) before the store is even created. ``carapace_id``
        names the Carapace contribution it is imported from. With ``check``, an exact
        duplicate of a stored insight is refused (DuplicateError) before anything is
        written, and the stored insights it nearly duplicates or conflicts with are
        returned (chitin.search.door)."""

        now = self.session.timestamp()
        if not allow_secret:
            secrets.refuse_secrets(ops.new_insight(fields, "unsaved", now))
        with self.session.writing() as cache:
            claim = str(fields.get("claim") or "")
            fresh = new_id(claim, lambda i: cache.id_ignoring_case(i) is not None)
            insight = ops.new_insight(fields, fresh, now)
            insight = insight.with_changes(carapace_id=check_carapace_id(carapace_id))
            # An exact duplicate is refused before anything is written. The rest is
            # judged in two halves (search/door.py): the candidates, and the question
            # for their missing vectors, while git stages the file; the verdicts after
            # the commit, while which a resident embedder embeds (design.md §9k).
            if check:
                self.door.refuse_exact(insight)
            halves: list[Callable[[], door.Found]] = []
            path = self.session.store.path_for(insight)
            commit = self._commit(
                {path: self.session.store.render(insight)},
                contribute_words(insight, bool(carapace_id)),
                insight.id,
                {"Source": insight.source, "Carapace": carapace_id},
                (lambda: halves.append(self.door.judging(insight))) if check else None,
            )
            if check and not halves:  # nothing was staged: a new file always is
                halves.append(self.door.judging(insight))
            judged = self.door.judged(halves[0]) if check else None
            self.session.record_written(cache, {path: insight})
            if judged is not None and judged.own is not None:
                self.door.keep_vectors(insight, judged.own)
        if judged is None:
            return Contribution(insight, path, commit, [], [])
        return Contribution(
            insight, path, commit, judged.duplicates, judged.conflicts, judged.degraded
        )

    def update(self, ref: str, changes: Mapping[str, Any], allow_secret: bool = False) -> Change:
        """Change the fields named in ``changes`` (an empty value clears an optional one)."""

        ops.checked_changes(changes)  # before the store is read, as every call's arguments
        with self.session.writing() as cache:
            insight_id = self.reading.resolve(ref)
            path = self.reading.path_of(insight_id)
            before, layout = self.session.store.read(path)
            after, notes = ops.updated_insight(before, changes, self.session.timestamp())
            if after == before:
                return Change(before, path, None, before, tuple(notes))
            same = self._now_the_same(cache, before, after)
            notes += _same_notes(after, same)
            if not allow_secret:  # the fields it changes; the others are committed already
                secrets.refuse_secrets(after, before)
            target = self.session.store.moved_to(path, after)
            writes: dict[str, str | None] = {target: self.session.store.render(after, layout)}
            if target != path:
                writes[path] = None
            commit = self._commit(writes, update_words(insight_id, before, after), insight_id, {})
            self.session.record_written(
                cache, {target: after}, removed=[path] if target != path else []
            )
        lost = ops.dropped_fields(before, after.type)
        cleared = ops.cleared_fields(before, after, changes)
        return Change(after, target, commit, before, tuple(notes), lost, cleared, same)

    @staticmethod
    def _now_the_same(cache: Cache, before: Insight, after: Insight) -> tuple[Insight, ...]:
        """The live insights an update makes the insight the same as (contribute
        refuses that at the door): one lesson in two files, to fold into one."""
        if exact_key(side_of(before)) == exact_key(side_of(after)):
            return ()
        return _same_as_another(cache, after)

    def reinforce(
        self,
        ref: str,
        source: str | None = None,
        evidence_kind: str | None = None,
        allow_secret: bool = False,
    ) -> Change:
        """One more confirmation, logged in the file's evidence list with a fresh token,
        so that no two reinforcements are ever the same change (see model/evidence.py).
        The source goes into the commit, so it is refused if it looks like a credential."""

        kind = check_evidence(evidence_kind)
        if source:
            check_text("source", source)  # it goes into the commit message
        if source and not allow_secret:
            secrets.refuse_secret_text("source", source)
        with self.session.writing() as cache:
            insight_id = self.reading.resolve(ref)
            path = self.reading.path_of(insight_id)
            before, layout = self.session.store.read(path)
            now = self.session.timestamp()
            after = ops.reinforced(before, now)
            logged = evidence.entry(now, self.session.signer(), evidence.new_token(), kind)
            layout = layout._replace(evidence=evidence.appended(layout.evidence, logged))
            commit = self._commit(
                {path: self.session.store.render(after, layout)},
                reinforce_words(insight_id, before, after),
                insight_id,
                {"Source": source, "Evidence": kind},
            )
            self.session.record_written(cache, {path: after})
        return Change(after, path, commit, before)

    def record_promotion(self, ref: str, carapace_id: str) -> Change:
        """Note in the insight's file the contribution it was promoted to, in one commit.
        Its ``updated`` time stays: what the insight says has not changed."""

        with self.session.writing() as cache:
            insight_id = self.reading.resolve(ref, archived=None)
            path = self.reading.path_of(insight_id)
            before, layout = self.session.store.read(path)
            after = before.with_changes(carapace_id=check_carapace_id(carapace_id))
            commit = self._commit(
                {path: self.session.store.render(after, layout)},
                promote_words(insight_id, carapace_id),
                insight_id,
                {"Carapace": carapace_id},
            )
            self.session.record_written(cache, {path: after})
        return Change(after, path, commit, before)

    def archive(self, ref: str) -> Change:
        """Move the insight to the archive: kept, but no longer retrieved."""
        return self._move(ref, to_archive=True)

    def unarchive(self, ref: str) -> Change:
        return self._move(ref, to_archive=False)

    def _move(self, ref: str, to_archive: bool) -> Change:

        with self.session.writing() as cache:
            insight_id = self.reading.resolve(ref, archived=None)
            insight = cache.get(insight_id)
            assert insight is not None
            path = self.reading.path_of(insight_id)
            if insight.archived == to_archive:
                op = "archive" if to_archive else "unarchive"
                return Change(insight, path, None, insight, (f"already {op}d",))

            text = files.read_text(self.session.root / path)
            moved = insight.with_changes(archived=to_archive)
            target = self.session.store.moved_to(path, moved)
            commit = self._commit(
                {target: text, path: None},
                move_words(insight_id, insight.claim, to_archive),
                insight_id,
                {},
            )
            self.session.record_written(cache, {target: moved}, removed=[path])
            # an insight contributed again while this one was archived
            notes = () if to_archive else _same_notes(moved, _same_as_another(cache, moved))
        return Change(moved, target, commit, insight, notes)

    def merge(
        self,
        source_ref: str | Sequence[str],
        target_ref: str,
        claim: str | None = None,
        allow_secret: bool = False,
    ) -> Change:
        """Fold the source insight (or each of several, in order) into the target, in
        one commit (``claim``: the merged wording)."""

        if not isinstance(source_ref, str | list | tuple):  # else a TypeError from list()
            raise ValidationError(
                "source",
                f"source_ref must be an id or a list of ids, got {type(source_ref).__name__}",
            )
        refs = [source_ref] if isinstance(source_ref, str) else list(source_ref)
        if not refs:  # else the target came back as if merged, and nothing was committed
            raise ValidationError("source", "merge needs at least one source insight")
        if claim:  # checked before the store is read (ops.merged takes it)
            normalize_claim(claim)
        with self.session.writing() as cache:
            source_ids = [self._resolve_role(ref, "Source") for ref in refs]
            target_id = self._resolve_role(target_ref, "Target")
            if len(set(source_ids)) != len(source_ids):
                raise ValidationError("source", "Each source insight can be merged only once")
            target_path = self.reading.path_of(target_id)
            target, layout = self.session.store.read(target_path)
            result, logs, paths, claims = target, [layout.evidence], [], []
            notes: list[str] = []
            dropped: tuple[str, ...] = ()
            hand: list[tuple[str, str]] = []  # the sources' hand-added keys and body texts
            for number, source_id in enumerate(source_ids, 1):
                paths.append(self.reading.path_of(source_id))
                source, source_layout = self.session.store.read(paths[-1])
                wording = claim if number == len(source_ids) else None
                result = ops.merged(source, result, wording, self.session.timestamp())
                notes += [
                    n for n in ops.dropped_trigger_fields(source, target.type) if n not in notes
                ]
                dropped = dropped or ops.dropped_fields(source, target.type)
                logs.append(source_layout.evidence)
                carried = folded_layout(layout, source_layout)
                layout = carried.layout
                hand += carried.placed()
                claims.append(source.claim)
            if not allow_secret:
                secrets.refuse_secrets(result, target)
                for place, text in hand:  # the folded file's own lines, new to the target's
                    secrets.refuse_secret_text(place, text)
            layout = layout._replace(evidence=evidence.united(*logs))
            writes: dict[str, str | None] = {target_path: self.session.store.render(result, layout)}
            writes.update(dict.fromkeys(paths))
            commit = self._commit(
                writes,
                merge_words(source_ids, target_id, claims, result.claim),
                target_id,
                {"Merged": ", ".join(source_ids)},
            )
            self.session.record_written(cache, {target_path: result}, removed=paths)
        return Change(result, target_path, commit, target, tuple(notes), dropped)

    def _resolve_role(self, ref: str, role: str) -> str:
        return self.reading.resolve(ref, role=f"{role} insight")

    def _commit(
        self,
        writes: Mapping[str, str | None],
        words: Words,
        insight_id: str,
        extra: Mapping[str, str | None],
        meanwhile: Callable[[], None] | None = None,
    ) -> str | None:

        trailers = {"Insight": insight_id, **extra, "Agent": self.session.agent}
        suspects = self.session.suspects(writes)
        return self.session.store.apply(writes, worded(words, trailers), suspects, meanwhile)


def _same_as_another(cache: Cache, insight: Insight) -> tuple[Insight, ...]:
    """The live insights ``insight`` is now the same as (contribute refuses that at the
    door), strongest first."""
    return tuple(i for i in door.exact_duplicates(cache, side_of(insight)) if i.id != insight.id)


def _same_notes(insight: Insight, same: Sequence[Insight]) -> tuple[str, ...]:
    """The note on the first of ``same``: one lesson in two files, to fold into one."""
    if not same:
        return ()
    other = same[0].id
    return (
        f"now the same insight as {other}: fold one into the other: "
        f"chitin merge {insight.id} {other}",
    )
