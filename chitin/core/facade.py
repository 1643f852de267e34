"""``Chitin``: the public Python API, one method per use case over one store. It holds one
opened store (``session.Session``) and the parts over it (``Reading``, ``Lifecycle``,
``Retrieving``, ``Embedding``), and hands each use case to the part or module that does it.
A damaged cache is repaired here alone (``_run``); parts load on first use (lazy.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cached_property
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self, TextIO, TypeVar, Unpack, overload

from chitin.core.reading import Reading, Stats
from chitin.core.session import Options, Session
from chitin.index.cache import Problem, Progress
from chitin.model.arguments import switches_checked, sync_ways
from chitin.model.insight import Insight

# Every name an annotation uses is there at run time, for typing.get_type_hints: those
# above are loaded already; the modules below load on first use (lazy.py).
if TYPE_CHECKING:
    from chitin.core import agent as agents
    from chitin.core import (
        background,
        carapace,
        check,
        dedupe,
        diff,
        embedding,
        interop,
        lifecycle,
        likeness,
        personality,
        quality,
        retrieving,
        sync,
    )
    from chitin.model import history as histories
    from chitin.model import interchange, reflection, results
    from chitin.retrieval import conflicts
    from chitin.retrieval import quality as scores
    from chitin.search import semantic
else:  # the same names, each a module loaded on first use
    from chitin.core.lazy import *  # noqa: F403

__all__ = ["Chitin"]

T = TypeVar("T")


@switches_checked
class Chitin:
    """One store, opened for one caller, and closed by ``close()`` or ``with``::

        with Chitin(store=path, now=clock, env=os.environ) as chitin:
            chitin.contribute({"type": "skill", "claim": "...", "confidence": 0.8})

    ``store``: the store's folder (default: $CHITIN_STORE, else the XDG data home's
    chitin); ``now``: a fixed datetime, or a clock called for each operation (default:
    the system clock, UTC); ``env``: all the environment chitin reads (``os.environ``):
    $CHITIN_STORE and HOME/$XDG_DATA_HOME (else give ``store=``), $CHITIN_AGENT, keys and
    URLs (add: ``{**os.environ, "VOYAGE_API_KEY": key}``); the rest: ``session.Options``."""

    def __init__(self, store: Path | str | None = None, **options: Unpack[Options]) -> None:
        self._session = Session(store, **options)
        self._reading = Reading(self._session)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exited: object) -> None:
        self.close()

    def _run(self, work: Callable[[], T]) -> T:
        """The one place a damaged cache is repaired: ``work`` is a whole use case."""
        return self._session.repairing(work)

    @cached_property
    def _lifecycle(self) -> lifecycle.Lifecycle:
        return lifecycle.Lifecycle(self._session, self._reading)

    @cached_property
    def _retrieving(self) -> retrieving.Retrieving:
        return retrieving.Retrieving(self._session)

    @cached_property
    def _embedding(self) -> embedding.Embedding:
        return embedding.Embedding(self._session)

    # ---------------------------------------------------------- the store (session.py)
    @property
    def root(self) -> Path:
        """The store's folder, absolute."""
        return self._session.root

    @property
    def missing(self) -> bool:
        """True when there is no store yet (``Session.missing``)."""
        return self._session.missing

    def close(self) -> None:
        """Close the cache and the embedding model (they open anew if used again)."""
        self._session.close()

    def refresh(self) -> None:
        """See what changed on disk since the last use (``Session.refresh``)."""
        self._run(self._session.refresh)

    # ---------------------------------------------------------- life cycle (lifecycle.py)
    def init(self, seed: bool = False) -> lifecycle.Initialized:
        """Create the store (idempotent); with ``seed``, add the starter insights."""
        made = self._lifecycle.create()  # unpacks as (commit, seeded); .merge_driver_set
        return made.seeding(self._run(self._lifecycle.seed) if seed else [])

    def contribute(
        self,
        fields: Mapping[str, Any],
        *,
        check: bool = True,
        allow_secret: bool = False,
        carapace_id: str | None = None,
    ) -> lifecycle.Contribution:
        """Add an insight in one commit (``Lifecycle.contribute``)."""
        add, secret = self._lifecycle.contribute, allow_secret
        return self._run(lambda: add(fields, check, secret, carapace_id))

    def update(
        self, ref: str, changes: Mapping[str, Any], *, allow_secret: bool = False
    ) -> lifecycle.Change:
        """Change the fields named in ``changes`` (an empty value clears an optional one)."""
        return self._run(lambda: self._lifecycle.update(ref, changes, allow_secret))

    def reinforce(
        self,
        ref: str,
        *,
        source: str | None = None,
        evidence_kind: str | None = None,
        allow_secret: bool = False,
    ) -> lifecycle.Change:
        """One more confirmation, logged in the file's evidence list."""
        again, secret = self._lifecycle.reinforce, allow_secret
        return self._run(lambda: again(ref, source, evidence_kind, secret))

    def archive(self, ref: str) -> lifecycle.Change:
        """Move the insight to the archive: kept, but no longer retrieved."""
        return self._run(lambda: self._lifecycle.archive(ref))

    def unarchive(self, ref: str) -> lifecycle.Change:
        """Move an archived insight back among the live ones."""
        return self._run(lambda: self._lifecycle.unarchive(ref))

    def merge(
        self,
        source_ref: str | Sequence[str],
        target_ref: str,
        claim: str | None = None,
        *,
        allow_secret: bool = False,
    ) -> lifecycle.Change:
        """Fold the source insights into the target, in one commit (``Lifecycle.merge``)."""
        return self._run(lambda: self._lifecycle.merge(source_ref, target_ref, claim, allow_secret))

    def dedupe(self, apply: bool = False, allow_secret: bool = False) -> list[lifecycle.Deduped]:
        """The store's duplicate clusters; with ``apply``, merged (``allow_secret``: merge's)."""
        found = self._run(lambda: dedupe.duplicate_clusters(self._session))
        part, secret = self._lifecycle, allow_secret
        return self._run(lambda: dedupe.apply(part, found, secret)) if apply else found

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
        listed: bool = False,
    ) -> list[Insight]:
        """The insights passing the filters (none: any); ``listed``: what `list` shows."""
        kept = self._reading.list_insights
        return self._run(lambda: kept(types, tags, provenance, min_confidence, archived, listed))

    def last_retrieved(self, ids: Iterable[str]) -> dict[str, str]:
        """Each id → when it was last retrieved (those never retrieved are left out)."""
        return self._reading.last_retrieved(ids)

    def holds_nothing(self) -> bool:
        """No store yet, or one without a single insight file, live or archived."""
        return self._run(self._reading.holds_nothing)

    def stats(self) -> Stats:
        """The live insights counted: in all, by type, and their mean confidence."""
        return self._run(self._reading.stats)

    def history(self, ref: str, limit: int | None = None) -> tuple[Insight, list[histories.Entry]]:
        """The insight and its changes, newest first, from git's log."""
        return self._run(lambda: self._reading.history(ref, limit))

    def changelog(self, days: int | None = None, limit: int = 20) -> list[histories.Entry]:
        """The store's changes, newest first (``days``: only those of the last days)."""
        return self._reading.changelog(days, limit)

    def similar(
        self, claim: str, threshold: float | None = None, *, semantic: bool = False
    ) -> list[tuple[conflicts.Candidate, float]]:
        """Insights near ``claim``: by words (default ≥ 0.2), ``semantic``: meaning (0.5)."""
        find = likeness.by_meaning if semantic else likeness.by_words
        return self._run(lambda: find(self._session, claim, threshold))

    # ---------------------------------------------------------- retrieval (retrieving.py)
    def retrieve(self, query: retrieving.Query | str, *, record: bool = True) -> results.Retrieval:
        """The insights that matter for ``query``, best first (``Retrieving.retrieve``)."""
        return self._run(lambda: self._retrieving.retrieve(query, record=record))

    def render(
        self,
        query: retrieving.Query | str = "",
        *,
        template: Path | None = None,
        record: bool = True,
        limit: int | None = None,
        mcp: bool = False,
        reader: Path | None = None,
    ) -> personality.Personality:
        """PERSONALITY.md for ``query`` (``personality.render_personality``); ``reader``:
        the folder the agent reading it works in (``personality.instructions``)."""
        asked, at = retrieving.as_query(query), self._session.now() if record else None
        made, part, how = personality.render_personality, self._retrieving, (mcp, reader)
        return self._run(lambda: made(part, asked, template=template, now=at, limit=limit, how=how))

    @overload
    def diff(self, revision: str | None = None) -> diff.PersonalityDiff: ...
    @overload
    def diff(
        self, revision: str | None, *, render: retrieving.Query | str
    ) -> diff.RenderedDiff: ...
    def diff(
        self, revision: str | None = None, *, render: retrieving.Query | str | None = None
    ) -> diff.PersonalityDiff | diff.RenderedDiff:
        """What changed in the insights over ``revision`` (a git range; diff.py), read from
        files and git; ``render``: PERSONALITY.md for that query on each side instead."""
        if render is None:
            return diff.personality_diff(self._session, revision)
        asked, part = retrieving.as_query(render), self._retrieving
        return self._run(lambda: diff.rendered_diff(part, revision, asked.text, asked.budget))

    # ---------------------------------------------------------- embedding (embedding.py)
    def embed(
        self,
        provider: str | None = None,
        model: str | None = None,
        *,
        force: bool = False,
        progress: Progress | None = None,
    ) -> tuple[semantic.Semantic, int]:
        """Embed every insight lacking a current vector (``Embedding.embed``)."""
        embed = self._embedding.embed
        return self._run(lambda: embed(provider, model, force=force, progress=progress))

    def warm(self) -> None:
        """Have ready what a retrieval needs, before it is asked (``Embedding.warm``)."""
        self._run(self._embedding.warm)

    def embed_status(self) -> tuple[int, int, str | None]:
        """(live insights, those with a current vector, the sidecar's identity)."""
        return self._run(self._embedding.embed_status)

    def prepare_vectors(
        self, foreground: bool, progress: Progress | None = None
    ) -> background.Prepared:
        """After a bulk write: vectors now (``foreground``), else in the background."""
        part, env = self._embedding, self._session.env
        return self._run(lambda: background.prepare_vectors(part, env, foreground, progress))

    # ---------------------------------------------------------- interop, check (their .py)
    def export(self, skip_unreadable: bool = False) -> list[interchange.Exported]:
        """Every insight, with its retrieval time, evidence, history (exporting.py)."""
        return self._run(lambda: interop.export(self._reading, skip_unreadable))

    def import_insights(
        self,
        source: str | PathLike[str] | TextIO | object,
        *,
        origin: str | None = None,
        merge: bool = False,
        allow_secret: bool = False,
    ) -> interop.Imported:
        """Import, all or nothing, a 1.x database (ids, history kept), a JSON file or stream, or
        an export parsed; ``origin`` names it in the commit (``interop.import_source``)."""
        load, opened, secret = interop.import_source, self._session, allow_secret
        return self._run(lambda: load(opened, source, origin, merge, secret))

    def check(self, paths: Sequence[Path] | None = None, home: Path | None = None) -> check.Report:
        """The insight files (or ``paths``) against the rules, and the setup (check.py)."""
        return check.check(self._session.root, self._session.env, paths, home)

    def sync(
        self,
        remote: str | None = None,
        *,
        resume: bool = False,
        ours: Sequence[str] = (),
        theirs: Sequence[str] = (),
        abort: bool = False,
    ) -> sync.Synced:
        """Pull and push the store's git remote (sync.py)."""
        how = sync.Resume(*sync_ways(remote, resume, ours, theirs, abort))  # checked first
        return sync.sync(self._session, remote, how)

    @overload
    def quality(self, ref: str) -> scores.QualityScore: ...
    @overload
    def quality(self, *, top: int | None = None) -> scores.QualityReport: ...
    def quality(
        self, ref: str | None = None, *, top: int | None = None
    ) -> scores.QualityScore | scores.QualityReport:
        """The quality of the insight ``ref`` names; without ``ref``, the store's report:
        the insights that most need attention (``top`` of them), and the mean."""
        if ref is not None:
            return self._run(lambda: quality.score(self._reading, ref))
        return self._run(lambda: quality.report(self._reading, top))

    # ---------------------------------------------------------- Carapace (carapace.py)
    def register_carapace(
        self, credentials: Path, name: str, description: str | None = None, home: Path | None = None
    ) -> carapace.Registration:
        """Register with Carapace; the API key is saved to ``credentials`` (0600)."""
        opened = self._session  # home None: $HOME's, if any (never Path.home()'s "/")
        return carapace.register(opened, credentials, home, name, description, opened.timestamp())

    def ask_carapace(
        self, credentials: Path, question: carapace.CarapaceQuestion
    ) -> dict[str, Any]:
        """Carapace's answers to ``question``, as its server sent them (checked, capped)."""
        return carapace.query(self._session, credentials, question)

    def promote(
        self, ref: str, credentials: Path, domain_tags: Sequence[str] | None, force: bool = False
    ) -> carapace.Promotion:
        """Share the insight with Carapace; not run whole: see ``carapace.promote``."""
        return carapace.promote(self._lifecycle, ref, credentials, domain_tags, force, self._run)

    def import_contribution(
        self, contribution_id: str, kind: str, force: bool = False
    ) -> carapace.Imported:
        """One Carapace contribution as an insight of this store, of type ``kind``."""
        part = self._lifecycle
        return self._run(lambda: carapace.import_contribution(part, contribution_id, kind, force))

    # ---------------------------------------------------------- reflection (agent.py)
    def queue_reflection(
        self,
        session_key: str,
        reason: str,
        session_id: str | None = None,
        where: reflection.Where | None = None,
    ) -> reflection.Marker:
        """Queue a session for reflection (``agent.queue_reflection``)."""
        opened = self._session
        return agents.queue_reflection(opened, session_key, reason, opened.now(), session_id, where)

    def note_session_start(self, session: str, injected: list[str] | None) -> None:
        """Note the insights a session was given at its start (None: check the name only)."""
        agents.note_session_start(self._session, session, injected)

    def reflection_digests(
        self,
        markers: list[reflection.Marker],
        characters: int,
        shell: bool = False,
        cleared: bool = False,
    ) -> list[agents.SessionDigest]:
        """Each marker's digest in ~``characters`` (agent.digests); ``shell``: shell commands."""
        shown, part = personality.agent_command(self._session) if shell else "chitin", self._reading
        return self._run(lambda: agents.digests(part, markers, characters, shown, cleared))

    def reflection_done(self, session: str, legacy: Path | None = None) -> int:
        """Remove the markers of one session (its key or id) from the queues."""
        return agents.done(self._session, legacy, session)

    def pending_reflections(
        self, legacy: Path | None = None, clear: bool = False
    ) -> agents.Pending:
        """The sessions queued for reflection (``legacy``: 1.4.5's too); ``clear``: emptied."""
        return agents.pending(self._session, legacy, clear)
