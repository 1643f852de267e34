"""What only a write of the store needs: a file's text, the write itself (journal,
signal guard, one commit), the commit of hand edits before it, and the skeleton
``init`` makes. ``Store`` loads this module at its first write (``Store._writer``), so
that a read, served from the cache, loads neither the file format's writer, the secret
detector, the commit messages' wording nor the signal guard."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from chitin.errors import GitError, StoreError
from chitin.format.conflicts import ConflictMarkers, refuse_markers
from chitin.format.layout import INSIGHTS_DIR, is_insight_path
from chitin.format.markdown import DEFAULT_LAYOUT, Layout, serialize
from chitin.model.bounds import MAX_INSIGHT_BYTES, refuse_oversized
from chitin.model.fields import GUARDED
from chitin.model.insight import Insight
from chitin.model.secrets import article, field_text, find_secrets
from chitin.store import conflicts, files, git_commit, interrupts, journal, moves, remote
from chitin.store.files import atomic_write, bulk_write, read_file, restoring
from chitin.store.messages import commit_message

if TYPE_CHECKING:
    from chitin.store.git import Git

# An operation writing more files than this (an import) writes them in bulk: see
# files.bulk_write and git_commit.commit.
BULK_WRITE = 100
# ".chitin/" is the line issue 2 names, but it matches only a folder; ".chitin" (no
# trailing slash) ignores a committed link or file of that name too (see
# lockfile.derived_folder).
GITIGNORE = (".chitin/", ".chitin")
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


class Writer:
    """The write path of one store."""

    def __init__(self, root: Path, git: Git, refuse_unsafe_state: Callable[[], None]) -> None:
        # The store's parts, not the store: this module loads from it, at its first write.
        self.root = root
        self.git = git
        self.refuse_unsafe_state = refuse_unsafe_state

    def initialize(self, command: Sequence[str]) -> tuple[str | None, bool]:
        """The skeleton in a new repository (Store.initialize made it), committed: the
        commit made, if any, and whether git's merge driver was set (Store.initialize)."""
        (self.root / INSIGHTS_DIR).mkdir(exist_ok=True)
        driver_set = remote.register_driver(self.git, command)
        writes: dict[str, str | None] = {}
        ignore = _appended(self.root / ".gitignore", GITIGNORE)
        if ignore is not None:
            writes[".gitignore"] = ignore
        attributes = _appended(self.root / ".gitattributes", remote.MERGE_ATTRIBUTES)
        if attributes is not None:
            writes[".gitattributes"] = attributes
        if not (self.root / "README.md").exists():
            writes["README.md"] = STORE_README
        if not writes:
            return None, driver_set
        subject = "Initialize chitin store"
        if (self.root / "README.md").exists() and set(writes) == {".gitattributes"}:
            subject = "Merge insight files with chitin's merge driver"
        return self.apply(writes, commit_message("init", subject, [], {})), driver_set

    def ensure_driver(self, command: Sequence[str]) -> None:
        remote.ensure_driver(self.git, command)

    @staticmethod
    def render(insight: Insight, layout: Layout | None = None) -> str:
        """The file's text; refused (before anything is written) when it would be
        larger than a reader takes, for such a file would be committed and then never
        read again. Every write of an insight comes through here."""
        layout = layout or DEFAULT_LAYOUT
        text = serialize(insight, layout)
        if len(text) * 4 > MAX_INSIGHT_BYTES:  # only then can it be too large in UTF-8
            refuse_oversized(len(text.encode("utf-8")), _sizes(insight, layout))
        return text

    def apply(
        self,
        writes: Mapping[str, str | None],
        message: str,
        suspects: Sequence[str] | None = None,
        meanwhile: Callable[[], None] | None = None,
    ) -> str | None:
        """Store.apply's work (its docstring says what is guaranteed)."""
        self.refuse_unsafe_state()
        refuse_conflicted(self.root, writes)
        conflicts.refuse_writes(self.git, writes)
        asked = writes if suspects is None else [p for p in suspects if p in writes]
        self.commit_hand_edits([p for p in asked if (self.root / p).exists()])
        targets = [self.root / path for path in writes]
        bulk = len(writes) > BULK_WRITE
        write = bulk_write if bulk else atomic_write
        with interrupts.holding() as guard:
            guard.check()
            note = journal.begin(self.git, list(writes))
            try:
                with restoring(targets):
                    for path, text in writes.items():
                        guard.check()
                        target = self.root / path
                        if text is None:
                            target.unlink(missing_ok=True)
                            _prune_empty_parents(target.parent, self.root)
                        else:
                            write(target, text)
                    commit = git_commit.commit(
                        self.git,
                        writes.keys(),
                        message,
                        bulk=bulk,
                        before_commit=guard.check,
                        meanwhile=meanwhile,
                    )
                    guard.committed()
            except GitError:
                if guard.received is not None:  # the signal reached git too: say so
                    raise interrupts.Interrupted(guard.received, guard.kept) from None
                raise
            finally:
                journal.end(note)
        return commit

    def commit_hand_edits(self, paths: Sequence[str]) -> None:
        """Commit what a person changed by hand in ``paths`` (and not yet committed),
        unless it looks like it holds a credential, or it is in conflict. A file new to
        HEAD that HEAD holds at another path, gone from there (a hand move), is committed
        with that removal, and the other way round: one insight moved (moves.py)."""
        if not paths or not self.git.head():
            return  # before the first commit there is nothing to compare with
        pending = self.git.pending(paths)
        if not pending:
            return
        pending.update(moves.counterparts(self.git, self.root, pending))
        for path, kind in pending.items():
            if kind == "unmerged":
                raise StoreError(f"{path} has a merge conflict; resolve it (and git add it) first")
            if not os.path.lexists(self.root / path):
                continue  # removed: nothing in it to commit
            found = find_secrets(files.read_file(self.root / path).decode(errors="replace"))
            if found:
                raise StoreError(
                    f"{path} was edited by hand and looks like it holds "
                    f"{article(found[0].kind)} {found[0].kind}; "
                    "chitin commits hand edits before its own change, and will not commit "
                    "that. Remove it, or commit the file yourself if it is no secret"
                )
        names = list(dict.fromkeys(Path(path).stem for path in sorted(pending)))
        subject = f"Edit {', '.join(names[:3])}{' and others' if len(names) > 3 else ''} by hand"
        body = ["Changes made to the files outside chitin, committed before chitin's own."]
        git_commit.commit(self.git, sorted(pending), commit_message("edit", subject, body, {}))
        guard = interrupts.HANDOFF.current()
        if guard is not None:  # an interruption from here on undoes chitin's change only
            guard.kept = (
                f"the change was not made, but your hand edit was committed first ({subject})"
            )


def refuse_conflicted(root: Path, paths: Iterable[str]) -> None:
    """Refuse to write over an insight file that holds git's conflict markers: both
    sides of a merge are in it, and only a person may choose between them. Any other
    file, or one that cannot be read, is left to the write's own checks."""
    for path in paths:
        if not is_insight_path(path):
            continue
        try:
            text = read_file(root / path).decode("utf-8", "replace")
        except (OSError, StoreError):
            continue
        try:
            refuse_markers(text)
        except ConflictMarkers as error:
            raise StoreError(f"will not write over {path}: it {error}; fix: {error.fix}") from None


def _appended(path: Path, lines: Sequence[str]) -> str | None:
    """The file with the ``lines`` it lacks added at its end, or None if it has them all."""
    existing = path.read_text(encoding="utf-8") if path.exists() else ""
    missing = [line for line in lines if line not in existing.split("\n")]
    if not missing:
        return None
    separator = "" if not existing or existing.endswith("\n") else "\n"
    return existing + separator + "\n".join(missing) + "\n"


def _sizes(insight: Insight, layout: Layout) -> dict[str, int]:
    """The bytes each text of ``insight`` takes in its file: what a refusal names."""
    sizes = {name: len(field_text(insight, name).encode("utf-8")) for name in GUARDED}
    sizes["evidence"] = sum(len(line.encode("utf-8")) + 3 for line in layout.evidence)
    hand = [*layout.extra_keys, *(lines for _, lines in layout.comments)]
    sizes["frontmatter"] = sum(len(chunk.encode("utf-8")) for chunk in hand)
    return sizes


def _prune_empty_parents(directory: Path, root: Path) -> None:
    """Remove folders an archive or merge left empty, below the top insight folders."""
    while directory != root and directory.parent != root:
        try:
            directory.rmdir()
        except OSError:
            return
        directory = directory.parent
