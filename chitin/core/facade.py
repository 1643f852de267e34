"""The Chitin facade: the insight life cycle, reading and retrieval over one store.

Writers hold the store lock from the moment they read until their commit is made,
so two agents writing at once are serialized and neither loses its change.
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from chitin.errors import AmbiguousIdError, NotFoundError, StateError, StoreError
from chitin.index import db as cache_db
from chitin.index import usage
from chitin.index.cache import Cache, Filters, Problem, Progress
from chitin.model.ids import check_reference
from chitin.model.insight import (
    TYPES,
    Insight,
    check_carapace_id,
    check_evidence,
    check_provenance,
    check_text,
    format_timestamp,
    parse_tags,
    well_formed,
)
from chitin.model.terms import stemmed_tokens, tokens
from chitin.store.repository import Store
from chitin.store.source import StoreFiles

if TYPE_CHECKING:  # each loads with the use cases that need it: writers, history,
    # the conflict check, retrieval (``get`` and ``stats`` need none of them)
    from chitin.model.history import Entry
    from chitin.retrieval import semantic
    from chitin.retrieval.conflicts import Candidate, Match
    from chitin.retrieval.engine import Retrieval
    from chitin.retrieval.scoring import Settings, Shape
    from chitin.store.history import MergedAway

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])


def _repaired(method: F) -> F:
    """A use case that reads the cache: run through ``Chitin.repairing``, so a cache
    found damaged on the way is rebuilt and the use case run once more."""

    @functools.wraps(method)
    def run(self: Chitin, *args: Any, **options: Any) -> Any:
        return self.repairing(lambda: method(self, *args, **options))

    return run  # type: ignore[return-value]


# Results are NamedTuples, not dataclasses: reads would otherwise import dataclasses
# and build three classes for nothing (~2 ms of a session start).


class Contribution(NamedTuple):
    insight: Insight
    path: str
    commit: str | None
    duplicates: list[Match]
    conflicts: list[Match]


class Change(NamedTuple):
    """The result of an operation on an existing insight."""

    insight: Insight
    path: str
    commit: str | None
    before: Insight | None = None
    notes: tuple[str, ...] = ()


class Stats(NamedTuple):
    total: int
    by_type: dict[str, int]
    average_confidence: float
    archived: int


class Chitin:
    """One store, opened for one command. ``agent`` names the committer fallback."""

    def __init__(
        self,
        root: Path,
        agent: str | None = None,
        progress: Progress | None = None,
        shape: Shape | None = None,
        fusion: str = "blend",
    ) -> None:
        self.root = root
        self.agent = agent
        self.progress = progress
        self.shape = shape  # another shape or fusion is for evaluating the scoring only
        # (None: the default, DEFAULT_SHAPE)
        self.fusion = fusion
        self.store = Store(root, agent)
        self._cache: Cache | None = None
        self._strength_of: Callable[[Insight], float] | None = None
        self._vectors: semantic.Semantic | None = None
        self.env: Mapping[str, str] = {}  # API keys and base URLs, given by the CLI
        # who@host in the evidence log, given by the CLI; asked only by reinforce (finding
        # the user and host name imports getpass and socket)
        self.signer: Callable[[], str] = lambda: "chitin"
        self.command: tuple[str, ...] = ("chitin",)  # how git runs the merge driver
        self.usage_recorded = True
        self._repair_depth = 0  # use cases running inside ``repairing``

    def close(self) -> None:
        if self._vectors is not None:
            from chitin.retrieval import semantic

            semantic.close(self._vectors)
            self._vectors = None
        if self._cache is not None:
            self._cache.close()
            self._cache = None

    @property
    def missing(self) -> bool:
        """True when there is no store yet: reads then behave as on an empty store.
        Something else where the store should be (a file, a device) is an error."""
        if self.store.exists():
            return False
        if self.root.exists() or self.root.is_symlink():
            raise StoreError(_not_a_folder(self.root))
        return True

    @property
    def cache(self) -> Cache:
        """The cache, in step with the files as of the first use in this command."""
        if self._cache is None:
            self._cache = self.repairing(self._synced_cache)
        return self._cache

    def _synced_cache(self) -> Cache:
        git = self.store.git if self.store.git.is_repository() else None
        if git is not None:
            self.store.recover_if_free()  # a write killed half-way is undone first
        try:
            return self._sync(Cache(self.root, self._strength, StoreFiles(self.root), git))
        except Exception as error:
            if not cache_db.is_unwritable(error):
                raise
            # A read-only store (or a full disk): the files are read into a cache in
            # memory, for this command. Git could say nothing a full walk does not.
            cache_db.not_writable(self.root, error)
        return self._sync(Cache(self.root, self._strength, StoreFiles(self.root), memory=True))

    def _sync(self, cache: Cache) -> Cache:
        try:
            cache.sync(self.progress)
        except BaseException:
            cache.close()
            raise
        return cache

    def _strength(self, insight: Insight) -> float:
        """An insight's query-free strength, for the cache (see scoring.base_strength).
        The scoring module loads with the first row the cache (re)reads, not before."""
        if self._strength_of is None:
            from chitin.retrieval.scoring import DEFAULT_SHAPE, base_strength

            shape = self.shape or DEFAULT_SHAPE
            self._strength_of = lambda found: base_strength(found, shape)
        return self._strength_of(insight)

    def repairing(self, work: Callable[[], T]) -> T:
        """``work()``; if the cache turns out damaged on the way (SQLite finds a corrupt
        page only when it reads it, or a table is missing), discard it, rebuild it from
        the files, and run ``work`` once more. An SQLite error that says nothing of
        damage has the file checked (``PRAGMA quick_check``) before it is believed.

        Only the outermost use case repairs: one nested in it (``resolve`` inside
        ``update``) lets the damage through, and the whole use case is run again, so
        that nothing holds on to the discarded cache. ``work`` must not have committed
        anything when the damage shows (``record_written`` never lets it through)."""
        if self._repair_depth:
            return work()
        self._repair_depth += 1
        try:
            try:
                return work()
            except Exception as error:
                if not self._damaged(error):
                    raise
                self._discard_cache(error)
            return work()
        finally:
            self._repair_depth -= 1

    def _damaged(self, error: BaseException) -> bool:
        if cache_db.is_damage(error):
            return True
        if self._cache is not None and self._cache.memory:
            return cache_db.damage_found(self._cache.db, error)
        # A connection of its own: what is on disk, not what this one holds in memory.
        return cache_db.damage_found(self.root / cache_db.CACHE_DIR / cache_db.CACHE_FILE, error)

    def _discard_cache(self, error: BaseException) -> None:
        if self._cache is not None:
            self._cache.close()
            self._cache = None
        cache_db.discard(self.root, error)

    @contextlib.contextmanager
    def writing(self) -> Iterator[Cache]:
        """The store, created if need be and locked, with the cache in step with what
        other writers committed while we waited for the lock."""
        from chitin.store import interrupts

        if self.missing or not self.store.is_initialized():  # (raises for a file there)
            self.store.initialize(self.command)
        with self.store.lock():
            self.store.recover()
            if self._cache is None:
                cache = self.cache
            else:
                cache = self._cache
                cache.sync(self.progress)  # what others wrote while we waited
            with interrupts.holding():  # Ctrl-C: all of the write or none of it
                yield cache

    # -------------------------------------------------------------- set-up

    def init(self, seed: bool, now: str) -> tuple[str | None, list[Insight]]:
        """Create the store (idempotent); with ``seed``, add the starter insights."""
        self.missing  # noqa: B018 (raises if something else stands where the store goes)
        commit = self.store.initialize(self.command)
        seeded: list[Insight] = []
        if seed:
            seeded = self._seed(now)
        return commit, seeded

    @_repaired
    def _seed(self, now: str) -> list[Insight]:
        from chitin.resources import data_path
        from chitin.store import files
        from chitin.store.history import commit_message
        from chitin.store.repository import load_file

        source = data_path("insights")
        with self.writing() as cache:
            fresh: list[tuple[Insight, Any]] = []
            for file in sorted(source.rglob("*.md")):
                rel = file.relative_to(source.parent).as_posix()
                insight, layout = load_file(source.parent, rel, files.stat_of(file))
                if not cache.id_exists(insight.id):
                    fresh.append((insight.with_changes(created=now, updated=now), layout))
            writes = {self.store.path_for(i): self.store.render(i, lay) for i, lay in fresh}
            if not writes:
                return []
            message = commit_message(
                "seed", f"Seed {len(writes)} starter insights", [f"- {i.id}" for i, _ in fresh], {}
            )
            self.store.apply(writes, message)
            self.record_written(cache, {self.store.path_for(i): i for i, _ in fresh})
        return [i for i, _ in fresh]

    # -------------------------------------------------------------- reading

    @_repaired
    def problems(self) -> list[Problem]:
        return [] if self.missing else self.cache.problems()

    @_repaired
    def resolve(self, ref: str, archived: bool | None = False, role: str | None = None) -> str:
        """The full id for ``ref`` (an id or a unique prefix of one). ``role`` names
        the insight in the error if there is none."""
        check_reference(ref)
        if self.missing:
            raise NotFoundError(f"{role or 'Insight'} not found: {ref}")
        matches = self.cache.ids_matching(ref, archived)
        ids = sorted({m[0] for m in matches})
        if len(ids) > 1:
            raise AmbiguousIdError(ref, ids)
        if ids:
            return ids[0]
        if archived is False and self.cache.ids_matching(ref, True):
            raise StateError(f"Insight {ref} is archived; run `chitin unarchive {ref}` first")
        if archived is True and self.cache.ids_matching(ref, False):
            raise StateError(f"Insight {ref} is not archived")
        merged = self._merged_away(ref)
        if merged is not None:
            what = role.lower() if role else "insight"
            raise NotFoundError(
                f"no {what} {ref}; it was merged into {merged.target} ({merged.when[:10]})"
            )
        raise NotFoundError(f"{role or 'Insight'} not found: {ref}")

    def _merged_away(self, ref: str) -> MergedAway | None:
        """The merge that folded ``ref`` into another insight, from git history."""
        from chitin.store import history

        if not self.store.git.is_repository():
            return None
        return history.merged_away(self.store.git, ref)

    @_repaired
    def get(self, ref: str) -> Insight:
        insight_id = self.resolve(ref, archived=None)
        found = self.cache.get(insight_id)
        assert found is not None
        return found

    @_repaired
    def path_of(self, insight_id: str) -> str:
        paths = self.cache.paths_of(insight_id)
        if len(paths) > 1:
            raise StoreError(
                f"id {insight_id} is used by {len(paths)} files "
                f"({', '.join(paths)}); rename one of them"
            )
        if not paths:
            raise NotFoundError(f"Insight not found: {insight_id}")
        return paths[0]

    @_repaired
    def list_insights(
        self,
        *,
        types: str | None = None,
        tags: str | None = None,
        provenance: str | None = None,
        min_confidence: float | None = None,
        archived: bool = False,
    ) -> list[Insight]:
        filters = _filters(types, tags, min_confidence, archived)._replace(
            provenance=check_provenance(provenance)
        )
        return [] if self.missing else self.cache.select(filters)

    @_repaired
    def holds_nothing(self) -> bool:
        """No store yet, or one without a single insight file, live or archived."""
        if self.missing:
            return True
        counts, _, archived = self.cache.counts()
        return not counts and not archived and not self.cache.problems()

    @_repaired
    def stats(self) -> Stats:
        if self.missing:
            return Stats(0, dict.fromkeys(TYPES, 0), 0.0, 0)
        counts, mean, archived = self.cache.counts()
        by_type = {kind: counts.get(kind, 0) for kind in TYPES}
        return Stats(sum(by_type.values()), by_type, round(mean, 6), archived)

    def history(self, ref: str, limit: int | None = None) -> tuple[Insight, list[Entry]]:
        from chitin.store import history

        insight = self.get(ref)
        return insight, history.insight_history(self.store.git, self.path_of(insight.id), limit)

    def changelog(self, days: int | None, limit: int) -> list[Entry]:
        from chitin.store import history

        if self.missing or not self.store.git.is_repository():
            return []
        return history.changelog(self.store.git, days, limit)

    @_repaired
    def similar(self, claim: str, threshold: float) -> list[tuple[Candidate, float]]:
        from chitin.retrieval import conflicts

        if self.missing:
            return []
        if threshold <= 0:
            pool = self._candidates(None)
        else:
            pool = self._candidates(self._overlapping(tokens(claim), threshold))
        return conflicts.similar(claim, pool, threshold)

    @_repaired
    def similar_meaning(self, claim: str, threshold: float) -> list[tuple[Candidate, float]]:
        """Insights whose meaning is close to ``claim`` (cosine similarity ≥ threshold),
        through the configured embedding provider; catches paraphrases words miss."""
        from chitin.providers import DEFAULT_PROVIDER
        from chitin.retrieval import semantic
        from chitin.retrieval.conflicts import Candidate

        if self.missing:
            return []
        picked = semantic.choice(self.store.config())
        if picked.provider == semantic.NO_PROVIDER:
            picked = semantic.Choice(DEFAULT_PROVIDER, None)
        found = semantic.nearest(self.cache, self._semantic(picked), claim, Filters(), strict=True)
        insights = self.cache.by_ids(i for i, _ in found.hits)
        return [
            (Candidate(i, insights[i].type, insights[i].claim), score)
            for i, score in found.hits
            if i in insights and score >= threshold
        ]

    def _overlapping(self, terms: set[str], share: float, limit: int | None = None) -> set[int]:
        """Rows that can reach a Jaccard overlap of ``share`` with ``terms``.

        Jaccard(A, B) ≥ s needs |A ∩ B| ≥ s·|A|, so a row sharing fewer terms cannot
        qualify. Terms too common to look up might be shared too: each one lowers the
        bar by one, so nothing that could qualify on the indexed terms is missed.
        With ``limit``, only that many rows sharing the most terms are kept.
        """
        from chitin.index.fulltext import COMMON_TERM_FLOOR, COMMON_TERM_SHARE
        from chitin.retrieval.conflicts import most_shared

        counts, skipped = self.cache.term_matches(terms, COMMON_TERM_SHARE, COMMON_TERM_FLOOR)
        need = max(1, math.ceil(share * len(terms) - 1e-9) - skipped)
        return most_shared(counts, need, limit)

    def _candidates(self, rowids: set[int] | None) -> list[Candidate]:
        """Live insights with these cache rows (all of them for None)."""
        from chitin.retrieval.conflicts import Candidate

        if rowids is not None and not rowids:
            return []
        found = self.cache.select(rowids=rowids)
        return [Candidate(i.id, i.type, i.claim) for i in found]

    def _conflict_candidates(self, claim: str) -> list[Candidate]:
        """Insights close enough in words to duplicate ``claim``, or using a term that
        pulls against one of its own (``check`` chooses the same ones, in memory:
        chitin.retrieval.neighbours)."""
        from chitin.index.fulltext import COMMON_TERM_FLOOR, COMMON_TERM_SHARE
        from chitin.retrieval import conflicts

        terms = stemmed_tokens(claim)
        limit = conflicts.CONFLICT_CANDIDATES
        rows = self._overlapping(terms, conflicts.OVERLAP_WITHOUT_TENSION, limit)
        opposed, _ = self.cache.term_matches(conflicts.opposite_of(terms), 1.0, 0)

        def shared(_: object) -> dict[int, int]:
            return self.cache.term_matches(terms, COMMON_TERM_SHARE, COMMON_TERM_FLOOR)[0]

        return self._candidates(rows | conflicts.choose_opposed(opposed, shared))

    # -------------------------------------------------------------- retrieval

    def settings(self, config: Mapping[str, Any] | None = None) -> Settings:
        """Scoring settings, with the overrides of the store's chitin.yaml."""
        from dataclasses import replace

        from chitin.retrieval.scoring import DEFAULT_SHAPE, Settings

        if config is None:
            config = self.store.config() if not self.missing else {}
        shape = self.shape or DEFAULT_SHAPE
        return replace(Settings.from_config(config), shape=shape, fusion=self.fusion)

    def retrieve(
        self,
        query: str,
        now: datetime,
        *,
        max_results: int = 15,
        types: str | None = None,
        tags: str | None = None,
        min_confidence: float | None = None,
        decay_at: datetime | None = None,
        record: bool = True,
    ) -> Retrieval:
        """The insights that matter for ``query``, best first. Never commits; with
        ``record``, the retrieval time (``now``) of each result is noted in .chitin/.
        Decay is measured at ``decay_at`` (render: the commit's time), else at ``now``."""
        from chitin.providers import ProviderError
        from chitin.retrieval import engine, semantic
        from chitin.retrieval.context import detect_category
        from chitin.retrieval.engine import Retrieval

        query = well_formed(query)
        filters = _filters(types, tags, min_confidence)
        config = self.store.config() if not self.missing else {}  # read and parsed once
        settings = self.settings(config)
        if self.missing:
            return Retrieval(detect_category(query), [], None)
        picked = semantic.choice(config)
        meaning, failure = None, None
        if picked.provider != semantic.NO_PROVIDER and query.strip():
            try:
                meaning = self._semantic(picked)
            except ProviderError as error:
                failure = f"semantic search unavailable ({error}); ranked by text alone"
        found = self.repairing(
            lambda: engine.retrieve(
                self.cache,
                query,
                now=decay_at or now,
                settings=settings,
                max_results=max_results,
                filters=filters,
                semantic=meaning,
            )
        )
        from chitin.core import background

        if failure:
            found = found._replace(degraded=failure)
        elif found.unembedded:
            note = background.waiting_note(
                self.root, config, self.env, found.unembedded, now.timestamp()
            )
            found = found._replace(degraded=note)
        elif meaning is not None and getattr(meaning.provider, "unprepared", False):
            background.prepare_later(self.root, config, self.env, now.timestamp())
        if record:
            stamp = format_timestamp(now)
            ids = (r.insight.id for r in found.ranked)
            self.usage_recorded = usage.record(self.root, ids, stamp)
        return found

    def _semantic(self, picked: semantic.Choice) -> semantic.Semantic:
        from chitin.retrieval import semantic

        if self._vectors is None:
            self._vectors = semantic.open_semantic(self.root / ".chitin", picked, self.env)
        return self._vectors

    @_repaired
    def embed(
        self, provider: str | None, model: str | None, force: bool, progress: Progress | None = None
    ) -> tuple[semantic.Semantic, int]:
        """Embed every insight lacking a current vector (all with ``force``). A provider
        or model named here is recorded in chitin.yaml, in one commit."""
        from chitin.retrieval import semantic

        current = semantic.choice(self.store.config())
        picked = semantic.Choice(
            provider or current.provider, model if model else (None if provider else current.model)
        )
        meaning = self._semantic(picked)
        if picked != current and (provider or model):
            self._record_choice(picked)
        done, _ = semantic.refresh(self.cache, meaning, None, progress, force)
        prepare = getattr(meaning.provider, "prepare", None)
        if callable(prepare):  # the local model, made quick to load for session starts
            prepare()
        return meaning, done

    @_repaired
    def adopt_vectors(self, known: Mapping[tuple[str, str], bytes]) -> int:
        """Take vectors of the local model made elsewhere (see semantic.adopt), when the
        local model is the one configured."""
        from chitin.providers import DEFAULT_PROVIDER
        from chitin.retrieval import semantic

        picked = semantic.choice(self.store.config())
        if self.missing or not known or picked.provider != DEFAULT_PROVIDER:
            return 0
        return semantic.adopt(self.cache, self._semantic(picked), known)

    @_repaired
    def unembedded(self) -> int:
        """How many insights wait for a vector of the configured provider."""
        from chitin.retrieval import semantic

        picked = semantic.choice(self.store.config())
        if self.missing or picked.provider == semantic.NO_PROVIDER:
            return 0
        return semantic.waiting(self.cache, self._semantic(picked))

    @_repaired
    def embed_status(self) -> tuple[int, int, str | None]:
        """(live insights, those with a current vector, the sidecar's identity)."""
        if self.missing:
            return 0, 0, None
        from chitin.index.vectors import stored_identity

        current = self.cache.text_hashes()
        held, name = stored_identity(self.root / ".chitin")
        fresh = sum(1 for i, h in current.items() if held.get(i) == h)
        return len(current), fresh, name

    def _record_choice(self, picked: semantic.Choice) -> None:
        import yaml

        from chitin.store.history import commit_message

        with self.store.lock():
            config = dict(self.store.config())
            config["embedding"] = {k: v for k, v in picked._asdict().items() if v}
            text = yaml.safe_dump(config, sort_keys=False, default_flow_style=False)
            message = commit_message(
                "config",
                f"Embed with {picked.provider}" + (f"/{picked.model}" if picked.model else ""),
                [],
                {},
            )
            self.store.apply({"chitin.yaml": text}, message)

    def snapshot_time(self) -> tuple[str | None, datetime]:
        """The store's commit and its time: what ``render`` is a function of."""
        remembered = self.root / ".chitin" / "head-time"
        found = None if self.missing else self.store.git.head_and_time(remembered)
        if found is None:
            return None, datetime.fromtimestamp(0, tz=UTC)
        return found

    # -------------------------------------------------------------- writing

    @_repaired
    def contribute(
        self,
        fields: Mapping[str, Any],
        now: str,
        check: bool = True,
        allow_secret: bool = False,
        carapace_id: str | None = None,
    ) -> Contribution:
        """Add an insight in one commit. Text that looks like a credential is refused
        (unless ``allow_secret``) before the store is even created. ``carapace_id``
        names the Carapace contribution it is imported from."""
        from chitin.model import ops
        from chitin.model.ids import new_id
        from chitin.retrieval import conflicts

        if not allow_secret:
            _secrets().refuse_secrets(ops.new_insight(fields, "unsaved", now))
        with self.writing() as cache:
            claim = str(fields.get("claim") or "")
            insight = ops.new_insight(fields, new_id(claim, cache.id_exists), now)
            insight = insight.with_changes(carapace_id=check_carapace_id(carapace_id))
            duplicates: list[Match] = []
            found: list[Match] = []
            if check:
                pool = self._conflict_candidates(insight.claim)
                duplicates, found = conflicts.compare(insight.claim, pool)
            path = self.store.path_for(insight)
            op, subject = "contribute", f"Contribute {insight.type}: {_short(insight.claim)}"
            if carapace_id:
                op = "import-carapace"
                subject = f"Import {insight.type} from Carapace: {_short(insight.claim)}"
            commit = self._commit(
                {path: self.store.render(insight)},
                op,
                subject,
                [insight.claim],
                insight.id,
                {"Source": insight.source, "Carapace": carapace_id},
            )
            self.record_written(cache, {path: insight})
        return Contribution(insight, path, commit, duplicates, found)

    @_repaired
    def update(
        self, ref: str, changes: Mapping[str, Any], now: str, allow_secret: bool = False
    ) -> Change:
        from chitin.model import ops

        with self.writing() as cache:
            insight_id = self.resolve(ref)
            path = self.path_of(insight_id)
            before, layout = self.store.read(path)
            after, notes = ops.updated_insight(before, changes, now)
            if after == before:
                return Change(before, path, None, before, tuple(notes))
            if not allow_secret:  # the fields it changes; the others are committed already
                _secrets().refuse_secrets(after, before)
            from chitin.model.diff import field_changes

            changed = field_changes(before, after)
            target = self.store.path_for(after) if after.type != before.type else path
            writes: dict[str, str | None] = {target: self.store.render(after, layout)}
            if target != path:
                writes[path] = None
            body = [
                f"{c.field}: {_short(c.old or '')!r} → {_short(c.new or '')!r}" for c in changed
            ]
            subject = f"Update {insight_id}: {', '.join(c.field for c in changed) or 'text'}"
            commit = self._commit(writes, "update", subject, body, insight_id, {})
            self.record_written(cache, {target: after}, removed=[path] if target != path else [])
        return Change(after, target, commit, before, tuple(notes))

    @_repaired
    def reinforce(
        self,
        ref: str,
        now: str,
        source: str | None = None,
        evidence_kind: str | None = None,
        allow_secret: bool = False,
    ) -> Change:
        """One more confirmation, logged in the file's evidence list with a fresh token,
        so that no two reinforcements are ever the same change (see model/evidence.py).
        The source goes into the commit, so it is refused if it looks like a credential."""
        from chitin.model import evidence, ops

        kind = check_evidence(evidence_kind)
        if source:
            check_text("source", source)  # it goes into the commit message
        if source and not allow_secret:
            _secrets().refuse_secret_text("source", source)
        with self.writing() as cache:
            insight_id = self.resolve(ref)
            path = self.path_of(insight_id)
            before, layout = self.store.read(path)
            after = ops.reinforced(before, now)
            logged = evidence.entry(now, self.signer(), evidence.new_token(), kind)
            layout = layout._replace(evidence=evidence.appended(layout.evidence, logged))
            subject = (
                f"Reinforce {insight_id}: confidence {before.confidence} → "
                f"{after.confidence} ({after.reinforcements}×)"
            )
            commit = self._commit(
                {path: self.store.render(after, layout)},
                "reinforce",
                subject,
                [],
                insight_id,
                {"Source": source, "Evidence": kind},
            )
            self.record_written(cache, {path: after})
        return Change(after, path, commit, before)

    @_repaired
    def shared_as(self, carapace_id: str) -> list[Insight]:
        """The insights promoted to, or imported from, that Carapace contribution."""
        return [] if self.missing else self.cache.shared_as(carapace_id)

    @_repaired
    def record_promotion(self, ref: str, carapace_id: str) -> Change:
        """Note in the insight's file the contribution it was promoted to, in one commit.
        Its ``updated`` time stays: what the insight says has not changed."""
        with self.writing() as cache:
            insight_id = self.resolve(ref, archived=None)
            path = self.path_of(insight_id)
            before, layout = self.store.read(path)
            after = before.with_changes(carapace_id=check_carapace_id(carapace_id))
            subject = f"Promote {insight_id} to Carapace as {carapace_id}"
            commit = self._commit(
                {path: self.store.render(after, layout)},
                "promote",
                subject,
                [],
                insight_id,
                {"Carapace": carapace_id},
            )
            self.record_written(cache, {path: after})
        return Change(after, path, commit, before)

    def archive(self, ref: str) -> Change:
        return self._move(ref, to_archive=True)

    def unarchive(self, ref: str) -> Change:
        return self._move(ref, to_archive=False)

    @_repaired
    def _move(self, ref: str, to_archive: bool) -> Change:
        op = "archive" if to_archive else "unarchive"
        with self.writing() as cache:
            insight_id = self.resolve(ref, archived=None)
            insight = cache.get(insight_id)
            assert insight is not None
            path = self.path_of(insight_id)
            if insight.archived == to_archive:
                return Change(insight, path, None, insight, (f"already {op}d",))
            from chitin.store import files

            text = files.read_text(self.root / path)
            moved = insight.with_changes(archived=to_archive)
            target = self.store.path_for(moved, archived=to_archive)
            commit = self._commit(
                {target: text, path: None},
                op,
                f"{op.capitalize()} {insight_id}: {_short(insight.claim)}",
                [],
                insight_id,
                {},
            )
            self.record_written(cache, {target: moved}, removed=[path])
        return Change(moved, target, commit, insight)

    @_repaired
    def merge(
        self,
        source_ref: str,
        target_ref: str,
        claim: str | None,
        now: str,
        allow_secret: bool = False,
    ) -> Change:
        from chitin.model import evidence, ops

        with self.writing() as cache:
            source_id = self._resolve_role(source_ref, "Source")
            target_id = self._resolve_role(target_ref, "Target")
            source_path, target_path = self.path_of(source_id), self.path_of(target_id)
            source, source_layout = self.store.read(source_path)
            target, layout = self.store.read(target_path)
            result = ops.merged(source, target, claim, now)
            if not allow_secret:
                _secrets().refuse_secrets(result, target)
            layout = layout._replace(
                evidence=evidence.united(layout.evidence, source_layout.evidence)
            )
            subject = f"Merge {source_id} into {target_id}"
            commit = self._commit(
                {target_path: self.store.render(result, layout), source_path: None},
                "merge",
                subject,
                [f"merged: {source.claim}", f"into: {result.claim}"],
                target_id,
                {"Merged": source_id},
            )
            self.record_written(cache, {target_path: result}, removed=[source_path])
        return Change(result, target_path, commit, target)

    def _resolve_role(self, ref: str, role: str) -> str:
        return self.resolve(ref, role=f"{role} insight")

    # -------------------------------------------------------------- helpers

    def _commit(
        self,
        writes: Mapping[str, str | None],
        op: str,
        subject: str,
        body: list[str],
        insight_id: str,
        extra: Mapping[str, str | None],
    ) -> str | None:
        from chitin.store.history import commit_message

        trailers = {"Insight": insight_id, **extra, "Agent": self.agent}
        suspects = self._cache.may_differ_from_head(writes) if self._cache else None
        return self.store.apply(writes, commit_message(op, subject, body, trailers), suspects)

    def record_written(
        self,
        cache: Cache,
        written: Mapping[str, Insight],
        removed: list[str] | tuple[str, ...] = (),
    ) -> None:
        """Tell the cache what we wrote, so the next command need not parse it again.

        The write is committed by now: a cache found damaged here is discarded (the
        next use rebuilds it from the files), never a failure of the write."""
        try:
            with cache.batch():
                for path in removed:
                    cache.forget(path)
                for path, insight in written.items():
                    cache.record(path, insight, self.store.stat(path))
        except Exception as error:
            if not self._damaged(error):
                raise
            if cache is not self._cache:
                cache.close()
            self._discard_cache(error)


def _not_a_folder(root: Path) -> str:

    try:
        mode = root.stat().st_mode
    except OSError:
        kind = "a symlink to nothing"
    else:
        from chitin.store.files import kind_of

        kind = kind_of(mode, "not a folder")
    return (
        f"the store path {root} is {kind}, not a folder "
        "(--store and $CHITIN_STORE name the store's folder)"
    )


def _filters(
    types: str | None, tags: str | None, min_confidence: float | None, archived: bool = False
) -> Filters:
    """Filters from the command line's comma lists, validated."""
    from chitin.model.insight import check_type

    kinds = tuple(check_type(t.strip()) for t in (types or "").split(",") if t.strip())
    return Filters(
        archived=archived, types=kinds, min_confidence=min_confidence, tags=parse_tags(tags)
    )


def _short(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"


def _secrets() -> Any:
    """The credential detector, loaded by writes only: its patterns cost reads ~2 ms."""
    from chitin.model import secrets

    return secrets
