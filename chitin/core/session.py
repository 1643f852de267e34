"""One store opened for use: its cache, kept in step with the files and repaired when
found damaged, the write lock, and the embedding model. The parts of ``chitin.Chitin``
(``reading``, ``lifecycle``, ``retrieving``, ``embedding``) and the use-case modules
each hold it; ``Chitin`` runs each use case through ``repairing``, once.

Writers hold the store lock from the moment they read until their commit is made,
so two agents writing at once are serialized and neither loses its change.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, Self, TypedDict, TypeVar

from chitin.errors import StoreError, ValidationError
from chitin.format.layout import SCANNED_DIRS
from chitin.index import db as cache_db
from chitin.index import usage
from chitin.index.cache import Cache, Progress
from chitin.location import store_path
from chitin.lockfile import derived_folder
from chitin.model import arguments
from chitin.model.insight import Insight, format_timestamp
from chitin.store.files import not_a_store_folder
from chitin.store.repository import Store
from chitin.store.source import StoreFiles

if TYPE_CHECKING:
    from types import TracebackType

    from chitin.retrieval.scoring import Shape
    from chitin.search import semantic
    from chitin.store.git import Git
    from chitin.store.watch import Watcher

T = TypeVar("T")
Clock = Callable[[], datetime]


class Options(TypedDict, total=False):
    """``Chitin``'s keyword arguments: also ``agent`` (the committer fallback), ``command``
    (git's merge driver), ``signer`` (who reinforces), ``progress`` (told of a rebuild)."""

    now: datetime | Clock | None
    env: Mapping[str, str] | None
    agent: str | None
    command: Sequence[str]
    signer: Callable[[], str] | None
    progress: Progress | None
    shape: Shape | None
    fusion: str
    finishes_commands: bool


class Runner(Protocol):
    """What runs a step of a use case that reads the cache: ``Session.repairing``."""

    def __call__(self, work: Callable[[], T]) -> T: ...


class Session:
    """One store, opened for one caller; see ``chitin.Chitin`` for the arguments."""

    def __init__(
        self,
        store: Path | str | None = None,
        *,
        now: datetime | Clock | None = None,
        env: Mapping[str, str] | None = None,
        agent: str | None = None,
        command: Sequence[str] = ("chitin",),
        signer: Callable[[], str] | None = None,
        progress: Progress | None = None,
        shape: Shape | None = None,
        fusion: str = "blend",
        finishes_commands: bool = False,
    ) -> None:
        """``finishes_commands``: for a front end that runs one command per call and
        then says what it did (the CLI). Once a write is committed, a signal waits until
        the front end has finished the command (it calls ``store.interrupts.release``),
        so that the command is neither cut short nor told that nothing changed."""
        self.env: Mapping[str, str] = arguments.environment(env)
        given = arguments.store(store)  # --store's rule: a relative folder, from here
        self.root = store_path(None if given is None else str(given), self.env)
        arguments.nameable_store(self.root)
        # Checked when a write needs it: a bad name reaches no commit, and stops no read.
        self.agent_given = arguments.agent(agent, self.env)
        self._agent_problem = _agent_problem(self.agent_given)
        self._clock: Clock = arguments.clock(now)
        self.command = arguments.texts("command", command)  # how git runs the merge driver
        # who@host in the evidence log, asked only by reinforce (imports getpass, socket)
        self.signer = arguments.callback("signer", signer) or (lambda: signature(self.agent))
        self.progress = arguments.callback("progress", progress)
        self.shape = arguments.shape(shape)  # these two: for evaluating the scoring only
        self.fusion = arguments.fusion(fusion)  # (shape None: the default, DEFAULT_SHAPE)
        self.store = Store(self.root, None if self._agent_problem else self.agent_given)
        self._cache: Cache | None = None
        self._strength_of: Callable[[Insight], float] | None = None
        self._vectors: tuple[semantic.Choice, semantic.Semantic] | None = None  # (opened for)
        self._repair_depth = 0  # use cases running inside ``repairing``
        self._serial = threading.RLock()  # one use case at a time, from any thread
        self._watcher: Watcher | None = None  # set up by the first ``refresh``
        self._cache_file: tuple[int, int] | None = None  # the cache file opened
        self._usage: usage.Recorder | None = None  # retrieval times, once recorded
        self.finishes_commands = arguments.flag("finishes_commands", finishes_commands)

    @property
    def agent(self) -> str | None:
        """The agent's name, for a commit: a ValidationError if it may not be one."""
        if self._agent_problem is not None:
            raise self._agent_problem
        return self.agent_given

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the cache and the model (the instance may be used again: they open anew)."""
        if self._vectors is not None:
            from chitin.search import semantic

            semantic.close(self._vectors[1])
            self._vectors = None
        if self._cache is not None:
            self._cache.close()
            self._cache = None
        if self._watcher is not None:
            self._watcher.close()
            self._watcher = None
        if self._usage is not None:
            self._usage.close()
            self._usage = None

    def retrieval_times(self) -> usage.Recorder:
        """Where retrievals are noted; its connection stays open until ``close``."""
        if self._usage is None:
            self._usage = usage.Recorder(self.root)
        return self._usage

    def refresh(self) -> None:
        """Whatever changed on disk since the last use (another process's write, a ``git
        pull``, a hand edit) is seen by the next: ``repairing`` runs it before each use
        case of an instance kept open (not a command's). Cheap when the operating system
        says nothing changed (store/watch.py); else one cache sync, as a command's start
        makes. A ``.chitin/`` removed or replaced meanwhile is opened anew."""
        from chitin.store.watch import Watcher

        if self._replaced():  # the cache or the vector sidecar, made anew by another command
            self.close()
        if self._watcher is None:
            self._watcher = Watcher(self.root, SCANNED_DIRS)
        if self._watcher.changed() and self._cache is not None:
            self._cache.sync(self.progress)

    def _replaced(self) -> bool:
        cache, sidecar = self._cache, self._vectors[1].vectors if self._vectors else None
        if sidecar is not None and cache_db.file_identity(sidecar.index_path) != sidecar.opened:
            return True  # a write through it would be refused (SidecarReplaced)
        on_disk = cache is not None and not cache.memory
        return on_disk and cache_db.file_identity(self._cache_path()) != self._cache_file

    def _cache_path(self) -> Path:
        return derived_folder(self.root) / cache_db.CACHE_FILE

    def now(self) -> datetime:
        """The time, by the clock given at construction (a commit made next carries it)."""
        return self.store.git.told(self._clock(), self._clock is not arguments.system_clock)

    def timestamp(self) -> str:
        """``now()`` as the files write it."""
        return format_timestamp(self.now())

    @property
    def missing(self) -> bool:
        """True when there is no store yet: reads then behave as on an empty store.
        Something else where the store should be (a file, a device) is an error."""
        if self.store.exists():
            return False
        if not self.root.is_dir() and (self.root.exists() or self.root.is_symlink()):
            raise StoreError(not_a_store_folder(self.root))
        return True

    @property
    def cache(self) -> Cache:
        """The cache, in step with the files as of the first use in this command (a
        damaged one is rebuilt by the ``repairing`` its use case runs in)."""
        if self._cache is None or not self._cache.synced:  # (opened by cache_vouching)
            opened, self._cache = self._cache, None
            self._cache = self._synced_cache(opened)
        return self._cache

    def cache_vouching(self, paths_of: Callable[[Cache], Collection[str]]) -> Cache:
        """The cache, for a read of the files ``paths_of`` names and of nothing else:
        unsynced if one stat of each folder and of those files vouches for their rows
        (``Cache.vouch``), else as ``cache``. Any other use syncs it first."""
        cache = self._cache
        try:
            if cache is None and not self.missing and self.store.git.is_repository():
                self.store.recover_if_free()
                cache = self._cache = self._open_cache(self.store.git, memory=False)
            if cache is not None and cache.vouch(paths_of(cache)):
                return cache
        except Exception as error:
            if not cache_db.is_unwritable(error):
                raise
        return self.cache

    def _synced_cache(self, opened: Cache | None = None) -> Cache:
        git = self.store.git if self.store.git.is_repository() else None
        if git is not None and opened is None:
            self.store.recover_if_free()  # a write killed half-way is undone first
        try:
            return self._sync(self._open_cache(git, memory=False) if opened is None else opened)
        except Exception as error:
            if not cache_db.is_unwritable(error):
                raise
            # A read-only store (or a full disk): the files are read into a cache in
            # memory, for this command. Git could say nothing a full walk does not.
            cache_db.not_writable(self.root, error)
        return self._sync(self._open_cache(None, memory=True))

    def _open_cache(self, git: Git | None, memory: bool) -> Cache:
        """The one place the cache is made: it is handed the store's files and, in a
        git store, git as the source of what changed."""
        cache = Cache(self.root, self._strength, StoreFiles(self.root), git, memory=memory)
        self._cache_file = None if memory else cache_db.file_identity(self._cache_path())
        return cache

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
            from chitin.retrieval import scoring

            shape = self.shape or scoring.DEFAULT_SHAPE
            self._strength_of = lambda found: scoring.base_strength(found, shape)
        return self._strength_of(insight)

    def repairing(self, work: Callable[[], T]) -> T:
        """``work()``; if the cache turns out damaged on the way (SQLite finds a corrupt
        page only when it reads it, or a table is missing), discard it, rebuild it from
        the files, and run ``work`` once more; an SQLite error that says nothing of damage
        has the file checked (``PRAGMA quick_check``) first. ``chitin.Chitin`` wraps each
        use case in it, whole, and nothing else does, so nothing holds on to the discarded
        cache; only the outermost of nested ones repairs. ``work`` must not have committed
        anything when the damage shows. One use case at a time, whichever thread calls."""
        with self._serial:
            if self._repair_depth:
                return work()
            self._repair_depth += 1
            try:
                try:
                    if self._cache is not None and not self.finishes_commands:
                        self.refresh()  # an open instance sees what changed since its last use
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
        return cache_db.damage_found(derived_folder(self.root) / cache_db.CACHE_FILE, error)

    def _discard_cache(self, error: BaseException) -> None:
        if self._cache is not None:
            self._cache.close()
            self._cache = None
        cache_db.discard(self.root, error)

    @contextlib.contextmanager
    def writing(self) -> Iterator[Cache]:
        """The store, created if need be and locked, with the cache in step with what
        other writers committed while we waited for the lock."""
        from chitin.core import write_gate as gate

        if self.finishes_commands:
            gate.finish_commands()
        self.agent  # noqa: B018 (a bad $CHITIN_AGENT is refused before any commit)
        gate.refuse_broken_settings(self.store)  # as `chitin check` does, before a write
        if self.missing or not self.store.is_initialized():  # (raises for a file there)
            self.store.initialize_for_write(self.command, self.env)
        with self.store.lock():
            self.store.recover()
            self.store.ensure_driver(self.command)  # a plain `git clone` lacks it
            if self._cache is None:
                cache = self.cache
            else:
                cache = self._cache
                cache.sync(self.progress)  # what others wrote while we waited
            with gate.holding():  # Ctrl-C: all of the write or none of it
                yield cache

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
            if cache_db.is_unwritable(error):  # a full disk: the next sync catches up
                self._let_go(cache, error)
                return
            if not self._damaged(error):
                raise
            if cache is not self._cache:
                cache.close()
            self._discard_cache(error)

    def _let_go(self, cache: Cache, error: BaseException) -> None:
        """Close a cache that cannot record a committed write (the disk is full). Its
        rows are as before the write, and the files say otherwise: the next command's
        sync (or this one's next use, in memory if need be) brings it up to date."""
        cache.close()
        if cache is self._cache:
            self._cache = None
        cache_db.not_writable(self.root, error)

    def suspects(self, writes: Mapping[str, str | None]) -> list[str] | None:
        """Those of ``writes`` that the open cache's last sync saw changed against HEAD
        (for ``Store.apply``; None: no cache is open, or it did not ask git)."""
        return self._cache.may_differ_from_head(writes) if self._cache else None

    def semantic(self, picked: semantic.Choice) -> semantic.Semantic:
        """The embedding model and vectors of ``picked``, opened once per session. Another
        choice (`embed --provider`, chitin.yaml edited under a server) closes them: they
        would embed for it with the wrong model, and `embed` record what it never used."""
        from chitin.search import semantic

        if self._vectors is not None and self._vectors[0] != picked:
            semantic.close(self._vectors[1])
            self._vectors = None
        if self._vectors is None:
            opened = semantic.open_semantic(derived_folder(self.root), picked, self.env)
            self._vectors = (picked, opened)
        return self._vectors[1]


def _agent_problem(agent: str | None) -> ValidationError | None:
    if agent is None:  # most reads: the detector's import (~3 ms) is not paid
        return None
    from chitin.model.secrets import check_agent

    try:
        check_agent(agent)
    except ValidationError as problem:
        return problem
    return None


def signature(agent: str | None) -> str:
    """Who reinforces, for the evidence log: the agent ($CHITIN_AGENT) or the user, at
    this host."""
    import getpass
    import socket

    from chitin.model.evidence import signature as evidence_signature

    try:
        who = agent or getpass.getuser()
    except (KeyError, OSError):  # a container user with no passwd entry
        who = "chitin"
    return evidence_signature(who, socket.gethostname())
