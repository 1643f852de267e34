"""The store: a git repository of insight files. The only writer of those files."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chitin.errors import StoreError
from chitin.model.ids import shard_folder
from chitin.model.insight import Insight, format_timestamp
from chitin.store import files
from chitin.store.files import (
    RACY_WINDOW_NS,
    FileStat,
    WriteLock,
    atomic_write,
    bulk_write,
    clear_in_the_way,
    restoring,
    stat_of,
)
from chitin.store.git import Git

if TYPE_CHECKING:  # the file format loads when a file is read or written, not before
    from chitin.store.markdown import Layout

CONFIG_FILE = "chitin.yaml"
# An operation writing more files than this (an import) writes them in bulk: see
# files.bulk_write and Git.commit.
BULK_WRITE = 100
GITIGNORE = ".chitin/\n"
STORE_README = """\
# chitin store

This repository holds an agent's learned insights, one Markdown file per insight
under `insights/<type>/`. Archived insights live under `archive/<type>/`.
Each file has YAML frontmatter (id, type, confidence, tags, provenance, …) and a
body whose first paragraph is the claim, optionally followed by `## Reasoning`,
`## Context` and `## Limitations` sections.

Edit the files freely; the next `chitin` command sees the change. `.chitin/` holds
derived data (a cache and indexes) that is rebuilt whenever it is missing.
"""


class Store:
    """One store on disk. ``agent`` names commit authors when git has no identity."""

    def __init__(self, root: Path, agent: str | None = None) -> None:
        self.root = root
        self.git = Git(root, agent)
        self._config: tuple[FileStat, dict[str, Any]] | None = None

    # -------------------------------------------------------------- life cycle

    def exists(self) -> bool:
        return self.root.is_dir()

    def is_initialized(self) -> bool:
        return self.git.is_repository() and (self.root / files.INSIGHTS_DIR).is_dir()

    def initialize(self, command: Sequence[str] = ("chitin",)) -> str | None:
        """Create the repository and its skeleton; idempotent. Returns the commit made, if
        any. ``command`` runs chitin for git's merge driver (best an absolute path)."""
        if self.root.exists() and not self.root.is_dir():
            raise StoreError(f"store path is not a folder: {self.root}")
        self.root.mkdir(parents=True, exist_ok=True)
        from chitin.store import remote

        if not self.git.is_repository():
            self.git.init()
        (self.root / files.INSIGHTS_DIR).mkdir(exist_ok=True)
        remote.register_driver(self.git, command)
        writes: dict[str, str | None] = {}
        ignore = _appended(self.root / ".gitignore", [GITIGNORE.strip()])
        if ignore is not None:
            writes[".gitignore"] = ignore
        attributes = _appended(self.root / ".gitattributes", remote.MERGE_ATTRIBUTES)
        if attributes is not None:
            writes[".gitattributes"] = attributes
        if not (self.root / "README.md").exists():
            writes["README.md"] = STORE_README
        if not writes:
            return None
        from chitin.store.history import commit_message

        subject = "Initialize chitin store"
        if (self.root / "README.md").exists() and set(writes) == {".gitattributes"}:
            subject = "Merge insight files with chitin's merge driver"
        return self.apply(writes, commit_message("init", subject, [], {}))

    def lock(self) -> WriteLock:
        return WriteLock(self.root / ".chitin" / "lock")

    def config(self) -> dict[str, Any]:
        """Settings from ``chitin.yaml`` at the store root (committed, so shared).

        Parsing YAML costs a session start ~20 ms of imports, so the parsed settings are
        kept in ``.chitin/config.json`` under the file's stat, and read from there while
        the file is unchanged (see ``_remembered``)."""
        path = self.root / CONFIG_FILE
        try:
            stat = stat_of(path)
        except (FileNotFoundError, NotADirectoryError):
            return {}
        if self._config is not None and self._config[0] == stat:
            return dict(self._config[1])
        data = _remembered(self.root, stat)
        if data is None:
            data = _parse_config(path)
            _remember(self.root, stat, data)
        self._config = (stat, data)
        return dict(data)

    # -------------------------------------------------------------- files

    def read(self, path: str) -> tuple[Insight, Layout]:
        return load_file(self.root, path, self.stat(path))

    def path_for(self, insight: Insight, archived: bool = False) -> str:
        """Where a new file for ``insight`` goes: ``insights/<type>/<id>.md``.

        With ``shard: true`` in chitin.yaml, files go one level deeper, in one of 256
        folders named by the id's hash, so that no git tree grows past a few hundred
        entries (each commit rewrites the tree of the folder it touches).
        """
        top = files.ARCHIVE_DIR if archived else files.INSIGHTS_DIR
        if self.config().get("shard") is True:
            return f"{top}/{insight.type}/{shard_folder(insight.id)}/{insight.id}.md"
        return f"{top}/{insight.type}/{insight.id}.md"

    @staticmethod
    def render(insight: Insight, layout: Layout | None = None) -> str:
        from chitin.store.markdown import DEFAULT_LAYOUT, serialize

        return serialize(insight, layout or DEFAULT_LAYOUT)

    def stat(self, path: str) -> FileStat:
        return stat_of(self.root / path)

    def apply(self, writes: Mapping[str, str | None], message: str) -> str | None:
        """Write (text) or delete (None) files, then make one commit of exactly those paths.

        If the commit fails (a hook refuses it, git is missing, …) every file is put
        back as it was, so nothing is left half-done. Returns the commit id.
        """
        targets = [self.root / path for path in writes]
        bulk = len(writes) > BULK_WRITE
        write = bulk_write if bulk else atomic_write
        with restoring(targets):
            for path, text in writes.items():
                target = self.root / path
                if text is None:
                    target.unlink(missing_ok=True)
                    _prune_empty_parents(target.parent, self.root)
                else:
                    write(target, text)
            return self.git.commit(writes.keys(), message, bulk=bulk)


CONFIG_CACHE = ".chitin/config.json"


def _parse_config(path: Path) -> dict[str, Any]:
    from chitin.errors import ValidationError
    from chitin.store.frontmatter import load_yaml

    try:  # without anchors and aliases, as frontmatter (a pulled file can be a YAML bomb)
        data = load_yaml(path.read_text(encoding="utf-8"), CONFIG_FILE, "config", first_line=1)
    except ValidationError as error:
        raise StoreError(str(error)) from None
    except UnicodeDecodeError as error:
        raise StoreError(f"{CONFIG_FILE} does not parse: {error}") from None
    except OSError as error:
        raise StoreError(f"cannot read {CONFIG_FILE}: {error.strerror or error}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise StoreError(f"{CONFIG_FILE} must be a mapping of settings")
    return data


def _remembered(root: Path, stat: FileStat) -> dict[str, Any] | None:
    """The settings parsed when chitin.yaml had this ``stat``; None if unknown. A damaged
    or foreign file reads as unknown, and is written over."""
    import json

    try:
        kept = json.loads((root / CONFIG_CACHE).read_bytes())
        if kept["stat"] == list(stat) and isinstance(kept["config"], dict):
            return dict(kept["config"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def _remember(root: Path, stat: FileStat, data: dict[str, Any]) -> None:
    """Keep the parsed settings, unless the file is racily recent (it could change again
    within the same mtime tick) or the settings do not survive JSON as they are."""
    import json
    import time

    if stat[0] >= time.time_ns() - RACY_WINDOW_NS:
        return
    try:
        text = json.dumps({"stat": list(stat), "config": data})
        if json.loads(text)["config"] != data:  # dates, sets, number keys: keep no copy
            return
    except (TypeError, ValueError):
        return
    target = root / CONFIG_CACHE
    if not target.parent.is_dir():
        return  # no .chitin/ yet: a reader does not create it
    with contextlib.suppress(OSError):
        clear_in_the_way(target)
        atomic_write(target, text, durable=False)


def _appended(path: Path, lines: Sequence[str]) -> str | None:
    """The file with the ``lines`` it lacks added at its end, or None if it has them all."""
    existing = path.read_text(encoding="utf-8") if path.exists() else ""
    missing = [line for line in lines if line not in existing.split("\n")]
    if not missing:
        return None
    separator = "" if not existing or existing.endswith("\n") else "\n"
    return existing + separator + "\n".join(missing) + "\n"


def _prune_empty_parents(directory: Path, root: Path) -> None:
    """Remove folders an archive or merge left empty, below the top insight folders."""
    while directory != root and directory.parent != root:
        try:
            directory.rmdir()
        except OSError:
            return
        directory = directory.parent


def load_file(root: Path, path: str, stat: FileStat) -> tuple[Insight, Layout]:
    """Parse the insight file at ``path`` (relative to ``root``), layout and all.

    A hand-made file may leave out its id (the file name is used), its type (the
    type folder is used) and its creation time (the file's modification time). A file
    that is not a regular one, or is too large, is refused (``files.read_file``).
    """
    from chitin.store.markdown import parse

    insight, layout = parse(files.read_text(root / path), **_fallbacks(path, stat))
    return insight.with_changes(archived=path.startswith(files.ARCHIVE_DIR + "/")), layout


def load_insight(root: Path, path: str, stat: FileStat) -> Insight:
    """The insight at ``path``, for readers such as the cache that never write it back."""
    from chitin.store.markdown import read_insight

    insight = read_insight(files.read_text(root / path), **_fallbacks(path, stat))
    return insight.with_changes(archived=path.startswith(files.ARCHIVE_DIR + "/"))


def _fallbacks(path: str, stat: FileStat) -> dict[str, Any]:
    from datetime import UTC, datetime

    parts = path.split("/")
    modified = datetime.fromtimestamp(stat[0] / 1e9, tz=UTC)
    return {
        "fallback_id": Path(path).stem,
        "fallback_type": parts[1] if len(parts) > 2 else None,
        "fallback_time": format_timestamp(modified),
    }
