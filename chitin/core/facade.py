"""``Chitin``: the public Python API, one method per use case over one store.

A thin composition: the insight life cycle (``lifecycle``), reading (``reading``),
retrieval and rendering (``retrieving``) and embedding (``embedding``) all build on
one opened store (``session``); the use cases that stand apart (interop, sync,
quality, reflection, diff) live in their own modules and are reached from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chitin.core.embedding import Embedding
from chitin.core.lifecycle import Change, Contribution, Deduped, Lifecycle
from chitin.core.reading import Stats
from chitin.core.retrieving import Query, Retrieving

if TYPE_CHECKING:
    from chitin.core.agent import Pending, SessionDigest
    from chitin.core.background import Prepared
    from chitin.core.carapace import CarapaceQuestion, Promotion, Registration
    from chitin.core.carapace import Imported as CarapaceImport
    from chitin.core.check import Report
    from chitin.core.diff import PersonalityDiff, RenderedDiff
    from chitin.core.interop import Imported
    from chitin.core.personality import Personality
    from chitin.core.sync import Synced
    from chitin.index.cache import Progress
    from chitin.model.interchange import Exported
    from chitin.model.reflection import Marker, Where
    from chitin.retrieval.quality import QualityReport, QualityScore

__all__ = ["Change", "Chitin", "Contribution", "Deduped", "Query", "Stats"]


class Chitin(Lifecycle, Retrieving, Embedding):
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

    # ---------------------------------------------------------- interop

    def export(self) -> list[Exported]:
        """Every insight, live and archived, newest first, with when it was last
        retrieved, its evidence log and its history (render/shapes/ gives it the
        interchange shape)."""
        from chitin.core import interop

        return interop.export(self)

    def import_document(
        self, document: object, *, origin: str, merge: bool = False, allow_secret: bool = False
    ) -> Imported:
        """Import an exported document (parsed JSON); ``origin`` names it in the commit."""
        from chitin.core import interop

        return interop.import_document(
            self,
            document,
            origin=origin,
            merge=merge,
            now=self.timestamp(),
            allow_secret=allow_secret,
        )

    @staticmethod
    def is_database(path: Path) -> bool:
        """Whether ``path`` is a chitin 1.x database (rather than an export's JSON)."""
        from chitin.core.interop import is_database

        return is_database(path)

    def dedupe(self, apply: bool = False) -> list[Deduped]:
        """The store's clusters of duplicates, strongest first, each with the ``chitin
        merge`` that folds it into its strongest member; with ``apply``, merged so,
        one commit per cluster (``Deduped.change`` is then the merge)."""
        from chitin.core import dedupe

        found = dedupe.duplicate_clusters(self)
        return dedupe.apply(self, found) if apply else found

    def check(self, paths: Sequence[Path] | None = None, home: Path | None = None) -> Report:
        """The insight files as they are on disk (only ``paths``, if given) against the
        rules; with ``home``, also the hooks, MCP server entries and merge driver that
        run a chitin that is gone. Reads the files, not the cache, and writes nothing."""
        from chitin.core.check import check_store, setup_findings

        report = check_store(self.root, list(paths) if paths is not None else None)
        if home is not None:
            from chitin.core.openclaw import openclaw_hooks_dir

            openclaw = openclaw_hooks_dir(home, self.env)
            report.warnings.extend(setup_findings(self.root, home, openclaw, self.env))
        return report

    def claude_code_session_start(self, event: str, budget: int) -> Personality:
        """Claude Code's SessionStart hook: the personality for the session that its
        event (the JSON text on the hook's stdin) describes, within ``budget`` tokens
        and, whole, within ``claude_code.CLAUDE_CONTEXT_LIMIT`` characters (under Claude
        Code's cap for a hook's context): the budget is lowered to fit."""
        from chitin.core import agent, claude_code
        from chitin.core.personality import characters

        details = claude_code.parse_hook_input(event)
        query = claude_code.coding_session_query(details)
        limit = claude_code.CLAUDE_CONTEXT_LIMIT
        made = self.render(Query(query, budget=min(budget, limit // 4)), limit=limit)
        agent.note_session_start(self, claude_code.session_key(details), list(made.ids))
        if characters(made.text) > limit:
            from chitin.notices import notice

            notice(
                f"the PERSONALITY.md template alone is {characters(made.text)} characters, "
                f"over the {limit} kept for Claude Code's context (it shows a preview of "
                f"more than {claude_code.CLAUDE_CONTEXT_CAP}); shorten the template"
            )
        return made

    def claude_code_reflect(self, event: str) -> None:
        """Claude Code's SessionEnd/PreCompact hook: queue the session for reflection."""
        from chitin.core import claude_code

        details = claude_code.parse_hook_input(event)
        self.queue_reflection(
            claude_code.session_key(details),
            claude_code.reflection_reason(details),
            where=claude_code.session_place(details),
        )

    def import_database(
        self, path: Path, *, merge: bool = False, allow_secret: bool = False
    ) -> Imported:
        """Migrate a chitin 1.x database, with its ids and history."""
        from chitin.core import interop

        return interop.import_database(
            self, path, merge=merge, now=self.timestamp(), allow_secret=allow_secret
        )

    def prepare_vectors(self, foreground: bool, progress: Progress | None = None) -> Prepared:
        """After a bulk write: vectors now (``foreground``), else in the background."""
        from chitin.core import background

        return background.prepare_vectors(self, self.env, foreground, progress)

    def run_embed_worker(self) -> int | None:
        """The background embedding, run in this process (None: another one runs)."""
        from chitin.core import background

        return background.run_worker(self)

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
        from chitin.core import sync

        how = sync.Resume(resume, tuple(ours), tuple(theirs), abort)
        return sync.sync(self, remote, how)

    def quality_report(self, top: int | None = None) -> QualityReport:
        """The insights that most need attention (``top`` of them), and the store's mean."""
        from chitin.core import quality
        from chitin.retrieval.quality import DEFAULT_TOP

        return quality.report(self, self.now(), DEFAULT_TOP if top is None else top)

    def quality_score(self, ref: str) -> QualityScore:
        from chitin.core import quality

        return quality.score(self, ref, self.now())

    def diff(self, revision: str | None = None) -> PersonalityDiff:
        """What changed in the insights between two commits (``revision``: a git range)."""
        from chitin.core import diff

        return diff.personality_diff(self, revision)

    def rendered_diff(self, revision: str | None, query: Query | str) -> RenderedDiff:
        """PERSONALITY.md for ``query`` on each side of ``revision``."""
        from chitin.core import diff
        from chitin.core.retrieving import as_query

        asked = as_query(query)
        return diff.rendered_diff(self, revision, asked.text, asked.budget)

    # ---------------------------------------------------------- Carapace

    def register_carapace(
        self, credentials: Path, name: str, description: str | None = None, home: Path | None = None
    ) -> Registration:
        """Register with Carapace; the API key is saved to ``credentials`` (0600)."""
        from chitin.core import carapace

        home = Path.home() if home is None else home
        return carapace.register(self, credentials, home, name, description, self.timestamp())

    def ask_carapace(self, credentials: Path, question: CarapaceQuestion) -> dict[str, Any]:
        from chitin.core import carapace

        return carapace.query(self, credentials, question)

    def promote(
        self, ref: str, credentials: Path, domain_tags: Sequence[str] | None, force: bool = False
    ) -> Promotion:
        """Share the insight with Carapace (``carapace.NotPromotable`` if it may not be)."""
        from chitin.core import carapace

        return carapace.promote(self, ref, credentials, domain_tags, force)

    def import_contribution(
        self, contribution_id: str, kind: str, force: bool = False
    ) -> CarapaceImport:
        from chitin.core import carapace

        return carapace.import_contribution(self, contribution_id, kind, force)

    # ---------------------------------------------------------- reflection

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
        from chitin.core import agent
        from chitin.model.reflection import Where

        return agent.queue_reflection(
            self, session_key, reason, self.now(), session_id, where or Where()
        )

    def note_session_start(self, session: str, injected: list[str]) -> None:
        """Note the insights a session was given at its start (in ``.chitin/``), so
        that its reflection marker names them; never fails the session's start."""
        from chitin.core import agent

        agent.note_session_start(self, session, injected)

    def reflection_digests(self, markers: list[Marker], characters: int) -> list[SessionDigest]:
        """A digest of each marker's session, read where the host keeps it, each
        within about ``characters`` characters."""
        from chitin.core import agent

        return agent.digests(self, markers, characters)

    def reflection_done(self, session: str, legacy: Path | None = None) -> int:
        """Remove the markers of one session (its key or id) from the queues."""
        from chitin.core import agent

        return agent.done(self, legacy, session)

    def pending_reflections(self, legacy: Path | None = None, clear: bool = False) -> Pending:
        from chitin.core import agent

        return agent.pending(self, legacy, clear)
