"""``Chitin``: the public Python API, one method per use case over one store.

A composition, not a stack: ``Chitin`` holds one opened store (``session.Session``)
and the parts built on it — ``reading.Reading``, ``lifecycle.Lifecycle``,
``retrieving.Retrieving``, ``embedding.Embedding`` — and hands each use case to the
part or the use-case module (interop, sync, quality, diff, carapace, agent, ...) that
does it. Each method here only delegates; what it does is said where it is done.

Two things happen here and nowhere else:

- a damaged cache is repaired: every use case that may read the cache runs in
  ``Session.repairing``, whole, once (``_run``);
- parts and use-case modules load on first use (``_lazy``), so that ``chitin get``
  does not import the writers, retrieval or the use cases it never runs.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self, TypeVar

from chitin.core.reading import Reading, Stats
from chitin.core.session import Session

if TYPE_CHECKING:
    from chitin.core import (
        agent,
        background,
        carapace,
        check,
        claude_session,
        dedupe,
        diff,
        embedding,
        interop,
        lifecycle,
        openclaw,
        personality,
        quality,
        retrieving,
        sync,
    )
    from chitin.core.agent import Pending, SessionDigest
    from chitin.core.background import Prepared
    from chitin.core.carapace import CarapaceQuestion, Promotion, Registration
    from chitin.core.carapace import Imported as CarapaceImport
    from chitin.core.check import Report
    from chitin.core.diff import PersonalityDiff, RenderedDiff
    from chitin.core.embedding import Embedding
    from chitin.core.interop import Imported
    from chitin.core.lifecycle import Change, Contribution, Deduped, Lifecycle
    from chitin.core.personality import Personality
    from chitin.core.retrieving import Query, Retrieving
    from chitin.core.sync import Synced
    from chitin.index.cache import Problem, Progress
    from chitin.model.history import Entry
    from chitin.model.insight import Insight
    from chitin.model.interchange import Exported
    from chitin.model.reflection import Marker, Where
    from chitin.retrieval.conflicts import Candidate
    from chitin.retrieval.quality import QualityReport, QualityScore
    from chitin.retrieval.scoring import Shape
    from chitin.search import semantic
    from chitin.search.engine import Retrieval
else:

    class _Lazy:
        """A module of ``chitin.core``, imported when first asked for a name (the one
        lazy-part mechanism: type checkers see the real modules above)."""

        def __init__(self, name: str) -> None:
            self._name = f"chitin.core.{name}"

        def __getattr__(self, name: str) -> Any:
            return getattr(importlib.import_module(self._name), name)

    _LAZY = "agent background carapace check claude_session dedupe diff embedding interop"
    _LAZY += " lifecycle openclaw personality quality retrieving sync"
    for _name in _LAZY.split():
        globals()[_name] = _Lazy(_name)

__all__ = ["Chitin"]

T = TypeVar("T")


class Chitin:
    """One store, opened for one caller, and closed by ``close()`` or ``with``::

        with Chitin(store=path, now=clock, env=os.environ) as chitin:
            chitin.contribute({"type": "skill", "claim": "..."})

    ``store``: the store's folder (default: $CHITIN_STORE, else the XDG data home's
    chitin); ``now``: a fixed datetime, or a clock called for each operation (default:
    the system clock, UTC); ``env``: API keys and base URLs of the embedding providers
    and Carapace, $CHITIN_AGENT (default: ``os.environ``). ``agent`` names the
    committer fallback; ``command`` is how git runs chitin as its merge driver;
    ``signer`` says who reinforces, for the evidence log; ``progress`` hears of a large
    cache rebuild. Errors are the ``chitin.errors.ChitinError`` family; nothing prints.
    """

    def __init__(
        self,
        store: Path | str | None = None,
        *,
        now: datetime | Callable[[], datetime] | None = None,
        env: Mapping[str, str] | None = None,
        agent: str | None = None,
        command: Sequence[str] = ("chitin",),
        signer: Callable[[], str] | None = None,
        progress: Progress | None = None,
        shape: Shape | None = None,
        fusion: str = "blend",
        finishes_commands: bool = False,
    ) -> None:
        """``shape`` and ``fusion`` are for evaluating the scoring only;
        ``finishes_commands``: see ``Session``."""
        self._session = Session(
            store,
            now=now,
            env=env,
            agent=agent,
            command=command,
            signer=signer,
            progress=progress,
            shape=shape,
            fusion=fusion,
            finishes_commands=finishes_commands,
        )
        self._reading = Reading(self._session)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exited: object) -> None:
        self.close()

    def _run(self, work: Callable[[], T]) -> T:
        """The one place a damaged cache is repaired: ``work`` is a whole use case."""
        return self._session.repairing(work)

    @cached_property
    def _lifecycle(self) -> Lifecycle:
        return lifecycle.Lifecycle(self._session, self._reading)

    @cached_property
    def _retrieving(self) -> Retrieving:
        return retrieving.Retrieving(self._session)

    @cached_property
    def _embedding(self) -> Embedding:
        return embedding.Embedding(self._session)

    # ---------------------------------------------------------- the store

    @property
    def root(self) -> Path:
        """The store's folder."""
        return self._session.root

    @property
    def missing(self) -> bool:
        """True when there is no store yet (``Session.missing``)."""
        return self._session.missing

    @property
    def agent(self) -> str | None:
        """The agent's name for commits (a ValidationError if it may not be one)."""
        return self._session.agent

    def close(self) -> None:
        """Close the cache and the embedding model (they open anew on the next use)."""
        self._session.close()

    def refresh(self) -> None:
        """See what changed on disk since the last use (``Session.refresh``)."""
        self._run(self._session.refresh)

    # ---------------------------------------------------------- life cycle (lifecycle.py)

    def init(self, seed: bool = False) -> tuple[str | None, list[Insight]]:
        """Create the store (idempotent); with ``seed``, add the starter insights.
        Returns the commit made, if any, and the insights seeded."""
        commit = self._lifecycle.create()
        return commit, self._run(self._lifecycle.seed) if seed else []

    def contribute(
        self,
        fields: Mapping[str, Any],
        *,
        check: bool = True,
        allow_secret: bool = False,
        carapace_id: str | None = None,
    ) -> Contribution:
        """Add an insight in one commit (``Lifecycle.contribute``)."""
        part = self._lifecycle
        return self._run(
            lambda: part.contribute(
                fields, check=check, allow_secret=allow_secret, carapace_id=carapace_id
            )
        )

    def update(self, ref: str, changes: Mapping[str, Any], *, allow_secret: bool = False) -> Change:
        """Change the fields named in ``changes`` (an empty value clears an optional one)."""
        part = self._lifecycle
        return self._run(lambda: part.update(ref, changes, allow_secret=allow_secret))

    def reinforce(
        self,
        ref: str,
        *,
        source: str | None = None,
        evidence_kind: str | None = None,
        allow_secret: bool = False,
    ) -> Change:
        """One more confirmation, logged in the file's evidence list."""
        part = self._lifecycle
        return self._run(
            lambda: part.reinforce(
                ref, source=source, evidence_kind=evidence_kind, allow_secret=allow_secret
            )
        )

    def archive(self, ref: str) -> Change:
        """Move the insight to the archive: kept, but no longer retrieved."""
        return self._run(lambda: self._lifecycle.archive(ref))

    def unarchive(self, ref: str) -> Change:
        return self._run(lambda: self._lifecycle.unarchive(ref))

    def merge(
        self,
        source_ref: str | Sequence[str],
        target_ref: str,
        claim: str | None = None,
        *,
        allow_secret: bool = False,
    ) -> Change:
        """Fold the source insight (or each of several, in order) into the target, in
        one commit (``claim``: the merged wording)."""
        part = self._lifecycle
        return self._run(
            lambda: part.merge(source_ref, target_ref, claim, allow_secret=allow_secret)
        )

    def dedupe(self, apply: bool = False) -> list[Deduped]:
        """The store's clusters of duplicates, strongest first, each with the ``chitin
        merge`` that folds it into its strongest member; with ``apply``, merged so,
        one commit per cluster (``Deduped.change`` is then the merge)."""
        found = self._run(lambda: dedupe.duplicate_clusters(self._session))
        return self._run(lambda: dedupe.apply(self._lifecycle, found)) if apply else found

    # ---------------------------------------------------------- reading (reading.py)

    def problems(self) -> list[Problem]:
        """The insight files that could not be read (each is skipped)."""
        return self._run(self._reading.problems)

    def get(self, ref: str) -> Insight:
        """The insight ``ref`` names (an id or a unique prefix), live or archived."""
        return self._run(lambda: self._reading.get(ref))

    def path_of(self, insight_id: str) -> str:
        """The insight's file, relative to the store."""
        return self._run(lambda: self._reading.path_of(insight_id))

    def list_insights(
        self,
        *,
        types: Iterable[str] = (),
        tags: Iterable[str] = (),
        provenance: str | None = None,
        min_confidence: float | None = None,
        archived: bool = False,
    ) -> list[Insight]:
        """The insights that pass the filters (no types or tags: any)."""
        read = self._reading
        return self._run(
            lambda: read.list_insights(
                types=types,
                tags=tags,
                provenance=provenance,
                min_confidence=min_confidence,
                archived=archived,
            )
        )

    def holds_nothing(self) -> bool:
        """No store yet, or one without a single insight file, live or archived."""
        return self._run(self._reading.holds_nothing)

    def stats(self) -> Stats:
        return self._run(self._reading.stats)

    def history(self, ref: str, limit: int | None = None) -> tuple[Insight, list[Entry]]:
        """The insight and its changes, newest first, from git's log."""
        return self._run(lambda: self._reading.history(ref, limit))

    def changelog(self, days: int | None = None, limit: int = 50) -> list[Entry]:
        """The store's changes, newest first (``days``: only those of the last days)."""
        return self._reading.changelog(days, limit)

    def similar(self, claim: str, threshold: float) -> list[tuple[Candidate, float]]:
        """Insights sharing at least ``threshold`` of ``claim``'s words (Jaccard)."""
        return self._run(lambda: self._reading.similar(claim, threshold))

    def similar_meaning(self, claim: str, threshold: float) -> list[tuple[Candidate, float]]:
        """Insights whose meaning is close to ``claim`` (cosine similarity ≥ threshold)."""
        return self._run(lambda: self._reading.similar_meaning(claim, threshold))

    # ---------------------------------------------------------- retrieval (retrieving.py)

    def retrieve(self, query: Query | str, *, record: bool = True) -> Retrieval:
        """The insights that matter for ``query``, best first, and (``packed``) those of
        them that fit its budget. Never commits; with ``record``, the retrieval time
        of each result is noted in .chitin/."""
        return self._run(lambda: self._retrieving.retrieve(query, record=record))

    def render(
        self,
        query: Query | str = "",
        *,
        template: Path | None = None,
        record: bool = True,
        limit: int | None = None,
        mcp: bool = False,
    ) -> Personality:
        """PERSONALITY.md for ``query`` (``personality.render_personality``).
        ``template``: a string.Template file (default: the store's
        templates/PERSONALITY.md, else chitin's own); ``limit``: the most characters
        the whole text may take; ``mcp``: it is for an MCP client."""
        asked = retrieving.as_query(query)
        now = self._session.now() if record else None
        part = self._retrieving
        return self._run(
            lambda: personality.render_personality(
                part, asked, template=template, now=now, limit=limit, mcp=mcp
            )
        )

    # ---------------------------------------------------------- embedding (embedding.py)

    def embed(
        self,
        provider: str | None = None,
        model: str | None = None,
        *,
        force: bool = False,
        progress: Progress | None = None,
    ) -> tuple[semantic.Semantic, int]:
        """Embed every insight lacking a current vector (all with ``force``); a provider
        or model named here is recorded in chitin.yaml. The model used, and how many."""
        part = self._embedding
        return self._run(lambda: part.embed(provider, model, force=force, progress=progress))

    def warm(self) -> None:
        """Have ready what a retrieval needs, before it is asked (``Embedding.warm``)."""
        self._run(self._embedding.warm)

    def embed_status(self) -> tuple[int, int, str | None]:
        """(live insights, those with a current vector, the sidecar's identity)."""
        return self._run(self._embedding.embed_status)

    def prepare_vectors(self, foreground: bool, progress: Progress | None = None) -> Prepared:
        """After a bulk write: vectors now (``foreground``), else in the background."""
        env = self._session.env
        part = self._embedding
        return self._run(lambda: background.prepare_vectors(part, env, foreground, progress))

    def run_embed_worker(self) -> int | None:
        """The background embedding, run in this process (None: another one runs)."""
        return self._run(lambda: background.run_worker(self._embedding))

    # ---------------------------------------------------------- interop (interop.py)

    def export(self) -> list[Exported]:
        """Every insight, live and archived, newest first, with when it was last
        retrieved, its evidence log and its history."""
        return self._run(lambda: interop.export(self._reading))

    def import_document(
        self, document: object, *, origin: str, merge: bool = False, allow_secret: bool = False
    ) -> Imported:
        """Import an exported document (parsed JSON); ``origin`` names it in the commit."""
        opened = self._session
        return self._run(
            lambda: interop.import_document(
                opened,
                document,
                origin=origin,
                merge=merge,
                now=opened.timestamp(),
                allow_secret=allow_secret,
            )
        )

    @staticmethod
    def is_database(path: Path) -> bool:
        """Whether ``path`` is a chitin 1.x database (rather than an export's JSON)."""
        return interop.is_database(path)

    def import_database(
        self, path: Path, *, merge: bool = False, allow_secret: bool = False
    ) -> Imported:
        """Migrate a chitin 1.x database, with its ids and history."""
        opened = self._session
        return self._run(
            lambda: interop.import_database(
                opened, path, merge=merge, now=opened.timestamp(), allow_secret=allow_secret
            )
        )

    # ---------------------------------------------------------- check, hosts

    def check(self, paths: Sequence[Path] | None = None, home: Path | None = None) -> Report:
        """The insight files as they are on disk (only ``paths``, if given) against the
        rules; with ``home``, also the hooks, MCP server entries and merge driver that
        run a chitin that is gone. Reads the files, not the cache, and writes nothing."""
        root, env = self._session.root, self._session.env
        report = check.check_store(root, list(paths) if paths is not None else None)
        if home is not None:
            openclaw_folder = openclaw.openclaw_hooks_dir(home, env)
            report.warnings.extend(check.setup_findings(root, home, openclaw_folder, env))
        return report

    def claude_code_session_start(self, event: str, budget: int) -> Personality:
        """Claude Code's SessionStart hook: the personality for the session its event
        (the hook's stdin) describes, within ``budget`` tokens and, whole, within
        ``claude_code.CLAUDE_CONTEXT_LIMIT`` characters (``claude_code.session_start``)."""
        part = self._retrieving
        return self._run(lambda: claude_session.session_start(part, event, budget))

    def claude_code_reflect(self, event: str) -> None:
        """Claude Code's SessionEnd/PreCompact hook: queue the session for reflection."""
        claude_session.queue_for_reflection(self._session, event)

    # ---------------------------------------------------------- sync, quality, diff

    def sync(
        self,
        remote: str | None = None,
        *,
        resume: bool = False,
        ours: Sequence[str] = (),
        theirs: Sequence[str] = (),
        abort: bool = False,
    ) -> Synced:
        """Pull and push the store's git remote, merging insight files field by field.

        A conflict stops the sync (``SyncConflict``) with the store at its last commit;
        then ``resume`` takes the person's edited files, ``ours``/``theirs`` (ids or
        paths) take one side, and ``abort`` forgets the stopped sync."""
        how = sync.Resume(resume, tuple(ours), tuple(theirs), abort)
        return sync.sync(self._session, remote, how)

    def quality_report(self, top: int | None = None) -> QualityReport:
        """The insights that most need attention (``top`` of them), and the store's mean."""
        now = self._session.now()
        return self._run(lambda: quality.report(self._reading, now, top))

    def quality_score(self, ref: str) -> QualityScore:
        now = self._session.now()
        return self._run(lambda: quality.score(self._reading, ref, now))

    def diff(self, revision: str | None = None) -> PersonalityDiff:
        """What changed in the insights between two commits (``revision``: a git range)."""
        return diff.personality_diff(self._session, revision)

    def rendered_diff(self, revision: str | None, query: Query | str) -> RenderedDiff:
        """PERSONALITY.md for ``query`` on each side of ``revision``."""
        asked = retrieving.as_query(query)
        part = self._retrieving
        return self._run(lambda: diff.rendered_diff(part, revision, asked.text, asked.budget))

    # ---------------------------------------------------------- Carapace (carapace.py)

    def register_carapace(
        self, credentials: Path, name: str, description: str | None = None, home: Path | None = None
    ) -> Registration:
        """Register with Carapace; the API key is saved to ``credentials`` (0600)."""
        home = Path.home() if home is None else home
        opened = self._session
        return carapace.register(opened, credentials, home, name, description, opened.timestamp())

    def ask_carapace(self, credentials: Path, question: CarapaceQuestion) -> dict[str, Any]:
        return carapace.query(self._session, credentials, question)

    def promote(
        self, ref: str, credentials: Path, domain_tags: Sequence[str] | None, force: bool = False
    ) -> Promotion:
        """Share the insight with Carapace (``carapace.NotPromotable`` if it may not be).
        Not run whole in ``_run``: the server's answer must not be asked twice, so the
        use case runs its reading and its recording each through ``_run``."""
        return carapace.promote(self._lifecycle, ref, credentials, domain_tags, force, self._run)

    def import_contribution(
        self, contribution_id: str, kind: str, force: bool = False
    ) -> CarapaceImport:
        part = self._lifecycle
        return self._run(lambda: carapace.import_contribution(part, contribution_id, kind, force))

    # ---------------------------------------------------------- reflection (agent.py)

    def queue_reflection(
        self,
        session_key: str,
        reason: str,
        session_id: str | None = None,
        where: Where | None = None,
    ) -> Marker:
        """Note that a session wants reflecting on (what agent hooks do); ``session_id``
        names the session that ended where ``session_key`` names the chat; ``where``
        says where its events are and what it was given at its start."""
        opened = self._session
        return agent.queue_reflection(opened, session_key, reason, opened.now(), session_id, where)

    def note_session_start(self, session: str, injected: list[str]) -> None:
        """Note the insights a session was given at its start (in ``.chitin/``), so
        that its reflection marker names them; never fails the session's start."""
        agent.note_session_start(self._session, session, injected)

    def reflection_digests(self, markers: list[Marker], characters: int) -> list[SessionDigest]:
        """A digest of each marker's session, read where the host keeps it, each
        within about ``characters`` characters."""
        return self._run(lambda: agent.digests(self._reading, markers, characters))

    def reflection_done(self, session: str, legacy: Path | None = None) -> int:
        """Remove the markers of one session (its key or id) from the queues."""
        return agent.done(self._session, legacy, session)

    def pending_reflections(self, legacy: Path | None = None, clear: bool = False) -> Pending:
        return agent.pending(self._session, legacy, clear)
