"""The store: a git repository of insight files. The only writer of those files."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chitin.errors import StoreError
from chitin.format.layout import ARCHIVE_DIR, INSIGHTS_DIR, FileStat, moved_path
from chitin.location import chitins, default_store, file_in_path, inside_scanned
from chitin.lockfile import WriteLock, derived_folder
from chitin.model.ids import shard_folder
from chitin.model.insight import TYPES, Insight
from chitin.notices import notice
from chitin.store import config, journal
from chitin.store.config import CONFIG_FILE
from chitin.store.files import stat_of
from chitin.store.git import Git
from chitin.store.loading import load_file

if TYPE_CHECKING:  # the file format loads when a file is read or written, not before
    from chitin.format.markdown import Layout
    from chitin.store.writing import Writer


class Store:
    """One store on disk. ``agent`` names commit authors when git has no identity."""

    def __init__(self, root: Path, agent: str | None = None) -> None:
        self.root = root
        self.git = Git(root, agent)
        self._config: tuple[FileStat, dict[str, Any]] | None = None

    # -------------------------------------------------------------- life cycle

    def exists(self) -> bool:
        """Whether a store, or the start of one, is here: a folder holding insights/,
        archive/ or a git repository. An empty folder (or one holding only a .chitin/
        that a read left) is no store yet: reads say so, and write nothing there."""
        return self.root.is_dir() and any(
            (self.root / name).exists() for name in (INSIGHTS_DIR, ARCHIVE_DIR, ".git")
        )

    def is_initialized(self) -> bool:
        return self.git.is_repository() and (self.root / INSIGHTS_DIR).is_dir()

    def adopt_clone(self) -> None:
        """Make insights/ in a clone of a store that had no insight yet (git keeps no
        empty folder): the clone is one, as `chitin init`'s .gitattributes says."""
        if not self.is_initialized() and chitins(self.root) and self.git.is_repository():
            with contextlib.suppress(OSError):  # then sync says there is no store
                (self.root / INSIGHTS_DIR).mkdir()

    def initialize(self, command: Sequence[str] = ("chitin",)) -> tuple[str | None, bool]:
        """Create the repository and its skeleton; idempotent. Returns the commit made, if
        any, and whether git's merge driver was set in the repository's config (a plain
        clone lacks it; another chitin ran it). ``command`` runs chitin for git's merge
        driver (best an absolute path)."""
        if self.root.exists() and not self.root.is_dir():
            raise StoreError(f"store path is not a folder: {self.root}")
        self._refuse_insights_folder()
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreError(_cannot_create(self.root, error)) from None
        if not self.git.is_repository():
            self._refuse_foreign_repository()
            self.git.init()
        return self._writer.initialize(command)

    def initialize_for_write(self, command: Sequence[str], env: Mapping[str, str]) -> None:
        """A write where no store is yet makes one, and says so once (a notice). A named
        folder whose parent does not exist is most likely a typo (``--store
        /tmp/typo/x``): refused, as git refuses ``git -C`` of a missing folder; `chitin
        init` makes one on purpose. The default store's folders are made as needed (a
        fresh machine has no ~/.local/share)."""
        made = not self.exists()
        self._refuse_insights_folder()  # the more telling refusal, when both apply
        if made and not self.root.parent.is_dir() and not self._is_default(env):
            if file_in_path(self.root) is not None:  # not missing: a file stands in the way
                raise StoreError(_cannot_create(self.root, NotADirectoryError()))
            raise StoreError(
                f"there is no store at {self.root}, and its folder {self.root.parent} does "
                f"not exist: check the path, or make the store on purpose with "
                f"`chitin --store {self.root} init`"
            )
        self.initialize(command)
        if made:
            notice(f"created a new store at {self.root}")

    def _is_default(self, env: Mapping[str, str]) -> bool:
        try:
            return self.root.absolute() == default_store(env)
        except StoreError:  # no home: there is no default store
            return False

    def ensure_driver(self, command: Sequence[str]) -> None:
        """Before a write: git's config defines the merge driver .gitattributes names
        (a plain clone's does not). Writers only: it loads the write path."""
        self._writer.ensure_driver(command)

    @functools.cached_property
    def _writer(self) -> Writer:
        # The write path's modules (the file format's writer, the secret detector, the
        # commit wording, the signal guard) load at the first write: a read needs none.
        from chitin.store.writing import Writer

        return Writer(self.root, self.git, self.refuse_unsafe_state)

    def _refuse_insights_folder(self) -> None:
        """A store inside another store's insights/ or archive/, where that store's
        every file is an insight (its walk passes over a nested repository, as git's
        does, but a folder named there is most likely a slip for the store itself), or
        inside its .chitin/ or .git/, that store's own: refuse it, before a folder is
        made."""
        if self.git.is_repository():
            return  # already a store: nothing new is made
        try:  # as named, and where its links lead: the folder made is the latter
            resolved = self.root.resolve()
        except (OSError, RuntimeError):  # a loop of links: RuntimeError before 3.13
            raise StoreError(
                f"cannot create the store at {self.root}: its path runs into a loop of "
                "symbolic links"
            ) from None
        for named in dict.fromkeys((self.root.absolute(), resolved)):
            self._refuse_inside(named)

    def _refuse_inside(self, named: Path) -> None:
        problem = inside_scanned(self.root, named)  # a read's warning says it too
        if problem is not None:
            raise StoreError(problem)

    def _refuse_foreign_repository(self) -> None:
        """A store is a repository of its own. A folder that another repository tracks
        files in, or a bare repository, would get a second repository nested inside
        it: the first would then see a foreign repository where its files were, and
        the store's history would start empty. Refuse both, saying what to do."""
        enclosing = self.git.enclosing()
        if enclosing is None:
            return
        top, bare = enclosing
        if bare:
            raise StoreError(
                f"{self.root} is a bare git repository, which has no files to edit; clone "
                f"it and use the clone as the store (git clone {self.root} <folder>)"
            )
        if self.git.tracks_files():
            raise StoreError(
                f"{self.root} is a folder of the git repository {top}, which tracks files "
                "in it; a chitin store is a repository of its own and cannot commit into "
                f"another's folder. Keep the store in a repository of its own (git init "
                f"<folder>, or clone one), or use a folder that {top} does not track"
            )

    def lock(self) -> WriteLock:
        return WriteLock(derived_folder(self.root) / "lock")

    def recover(self) -> None:
        """Undo a write that was killed half-way (see journal.py); the caller holds the
        lock. One stat when there is nothing to undo."""
        if not self.git.is_repository() or not journal.pending(self.git):
            return
        journal.recover_and_say(self.git)

    def recover_if_free(self) -> None:
        """``recover`` for a reader: only if an interrupted write is noted, and only if
        no writer holds the lock (a live writer's files are its own business)."""
        if not self.git.is_repository() or not journal.pending(self.git):
            return
        # A git merge outliving a killed sync holds the lock till done (WriteLock.fileno)
        wait = journal.READER_WAIT_SECONDS if journal.touches_files(self.git) else 0.0
        lock = WriteLock(derived_folder(self.root) / "lock", timeout=wait)
        with contextlib.suppress(StoreError, OSError), lock:
            self.recover()

    def config(self) -> dict[str, Any]:
        """Settings from ``chitin.yaml`` at the store root (committed, so shared).

        Parsing YAML costs a session start ~20 ms of imports, so the parsed settings are
        kept in ``.chitin/config.json`` under the file's stat, and read from there while
        the file is unchanged (see ``config.remembered``)."""
        path = self.root / CONFIG_FILE
        try:
            stat = stat_of(path)
        except (FileNotFoundError, NotADirectoryError):
            return {}
        if self._config is not None and self._config[0] == stat:
            return dict(self._config[1])
        data = config.remembered(self.root, stat)
        if data is None:
            data = config.parse_config(path)
            config.remember(self.root, stat, data)
        self._config = (stat, data)
        return dict(data)

    def set_config(self, key: str, value: Any, message: str) -> str | None:
        """Set one top-level setting of ``chitin.yaml``, the others kept, in one
        commit under the store lock. Returns the commit made."""
        import yaml

        with self.lock():
            config = dict(self.config())
            config[key] = value
            text = yaml.safe_dump(config, sort_keys=False, default_flow_style=False)
            return self.apply({CONFIG_FILE: text}, message)

    # -------------------------------------------------------------- files

    def read(self, path: str) -> tuple[Insight, Layout]:
        return load_file(self.root, path, self.stat(path))

    def path_for(self, insight: Insight, archived: bool = False) -> str:
        """Where a new file for ``insight`` goes: ``insights/<type>/<id>.md``.

        With ``shard: true`` in chitin.yaml, files go one level deeper, in one of 256
        folders named by the id's hash, so that no git tree grows past a few hundred
        entries (each commit rewrites the tree of the folder it touches).
        """
        top = ARCHIVE_DIR if archived else INSIGHTS_DIR
        if self.config().get("shard") is True:
            return f"{top}/{insight.type}/{shard_folder(insight.id)}/{insight.id}.md"
        return f"{top}/{insight.type}/{insight.id}.md"

    @staticmethod
    def moved_to(path: str, insight: Insight) -> str:
        """Where the file at ``path`` goes now that it holds ``insight`` (a new type,
        archived or live): its type folder and top change, the folders a person made
        stay (format/layout.py's ``moved_path``)."""
        return moved_path(path, insight.type, insight.archived, TYPES)

    def render(self, insight: Insight, layout: Layout | None = None) -> str:
        """The file's text (Writer.render: refused when too large for a reader)."""
        return self._writer.render(insight, layout)

    def stat(self, path: str) -> FileStat:
        return stat_of(self.root / path)

    def apply(
        self,
        writes: Mapping[str, str | None],
        message: str,
        suspects: Sequence[str] | None = None,
        meanwhile: Callable[[], None] | None = None,
    ) -> str | None:
        """Write (text) or delete (None) files, then make one commit of exactly those paths.

        All or nothing, whatever happens on the way:
        - a commit that would be lost or mixed into someone's work (a detached HEAD, a
          rebase or merge in progress) is refused before anything is written;
        - edits a person made by hand to these files are committed first, as their
          own commit, so that chitin's commit holds only chitin's change;
        - if the commit fails (a hook refuses it, gpg cannot sign, git is missing) or
          Ctrl-C or SIGTERM comes before it, every file and the index are put back as
          they were (see interrupts.py);
        - if the process is killed, the journal lets the next command undo it.

        ``suspects``, when the caller knows them (the cache's last git status), are the
        paths that may hold hand edits; the others are not asked about (a ``git status``
        costs 55 ms at 100,000 files). ``meanwhile`` runs while git stages the paths, and
        fails the write as a failed commit does. Returns the commit id.
        """
        return self._writer.apply(writes, message, suspects, meanwhile)

    def refuse_unsafe_state(self) -> None:
        """Refuse to write where the write would be lost or mixed into other work."""
        if not self.git.is_repository():
            return
        problem = self.git.unsafe_to_commit()
        if problem is not None:
            raise StoreError(problem)

    def commit_hand_edits(self, paths: Sequence[str]) -> None:
        """Commit what a person changed by hand in ``paths`` (Writer.commit_hand_edits)."""
        self._writer.commit_hand_edits(paths)


def _cannot_create(root: Path, error: OSError) -> str:
    """Why the store's folder cannot be made, naming a file that stands in its path
    (``$XDG_DATA_HOME`` or ``--store`` naming a file, say)."""
    blocker = file_in_path(root)
    if blocker is not None:
        return f"cannot create the store at {root}: {blocker} is a file, not a folder"
    return f"cannot create the store at {root}: {error.strerror or error}"
