"""``chitin diff``: how the personality changed between two revisions of the store.

The two sides are named the way git names them: nothing (the working tree against
HEAD), ``REV`` (the working tree against REV), ``A..B`` (commit A against commit B)
or ``A...B`` (B against its merge base with A, what a pull request changes).
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from chitin.core.personality import render_personality
from chitin.core.retrieving import Query, Retrieving
from chitin.core.session import Session
from chitin.errors import ValidationError
from chitin.lockfile import derived_folder
from chitin.model import arguments
from chitin.model.diff import WORKING_TREE, Delta, Ends, Unreadable, compare
from chitin.store import revisions


class Spec(NamedTuple):
    """What the user asked to compare: revision names, None for the working tree."""

    old: str | None
    new: str | None
    merge_base: bool = False


@dataclass
class PersonalityDiff:
    ends: Ends
    deltas: list[Delta]
    unreadable: list[Unreadable]


@dataclass
class RenderedDiff:
    """PERSONALITY.md as ``chitin render`` makes it on each side."""

    ends: Ends
    old_text: str
    new_text: str
    query: str
    budget: int


MAX_REVISION = 10_000  # characters: any git revision, range or expression fits


def parse_spec(text: str | None) -> Spec:
    """``None`` | ``REV`` | ``A..B`` | ``A...B``; an empty end of a range is HEAD."""
    if text is None:
        return Spec("HEAD", None)
    text = arguments.text("revision", text)
    if len(text) > MAX_REVISION:  # past what one argument of git's command line may hold
        raise ValidationError(
            "revision", f"the revision is {len(text):,} characters long (at most {MAX_REVISION:,})"
        )
    separator = "..." if "..." in text else ".." if ".." in text else None
    if separator is None:
        if not text.strip():
            raise ValidationError("revision", "the revision is empty (try HEAD~1 or main..HEAD)")
        return Spec(text, None)
    old, new = text.split(separator, 1)
    ends = (old[:1], old[-1:], new[:1], new[-1:])
    if ".." in old or ".." in new or not (old or new) or "." in ends:
        raise ValidationError("revision", f"cannot read {text!r} as REV, A..B or A...B")
    return Spec(old or "HEAD", new or "HEAD", separator == "...")


def resolve_ends(opened: Session, spec: Spec, given: bool) -> Ends:
    """The commits of ``spec``. With no revision given, a store without commits (or
    without a folder yet) compares its working tree with nothing."""
    git = opened.store.git
    new_label = spec.new or WORKING_TREE
    if not given and (opened.missing or _unborn(opened)):
        return Ends(None, None, new_label, None)
    if opened.missing:
        raise ValidationError("revision", f"unknown revision {spec.old!r}: there is no store yet")
    revisions.check_repository(git)
    old = revisions.resolve(git, spec.old or "HEAD")
    new = revisions.resolve(git, spec.new) if spec.new is not None else None
    if spec.merge_base:
        old = revisions.merge_base(git, old, new or revisions.resolve(git, "HEAD"))
    return Ends(spec.old, old, new_label, new, spec.merge_base)


def _unborn(opened: Session) -> bool:
    revisions.check_repository(opened.store.git)
    return opened.store.git.head() is None


def personality_diff(opened: Session, revision: str | None) -> PersonalityDiff:
    """Every insight that differs between the two sides, matched by id."""
    ends = resolve_ends(opened, parse_spec(revision), revision is not None)
    if opened.missing:
        return PersonalityDiff(ends, [], [])
    git = opened.store.git
    changed = revisions.changed_files(git, ends.old_commit, ends.new_commit)
    sides = revisions.versions(changed)
    merged: dict[str, str] = {}
    if sides.old.keys() - sides.new.keys():  # something is gone: was it merged?
        newest = ends.new_commit or git.head()
        if newest is not None:
            merged = revisions.merged_between(git, ends.old_commit, newest)
    return PersonalityDiff(ends, compare(sides.old, sides.new, merged), sides.unreadable)


def rendered_diff(live: Retrieving, revision: str | None, query: str, budget: int) -> RenderedDiff:
    """PERSONALITY.md for ``query`` and ``budget`` on each side, as ``chitin render``
    gives it at that commit (or for the working tree, as it gives it now)."""
    ends = resolve_ends(live.session, parse_spec(revision), revision is not None)
    with tempfile.TemporaryDirectory(prefix="chitin-diff-") as scratch:
        old = _render_side(live.session, ends.old_commit, Path(scratch) / "old", query, budget)
        if ends.new_commit is None:
            new = render_personality(live, Query(query, budget=budget)).text
        else:
            new = _render_side(live.session, ends.new_commit, Path(scratch) / "new", query, budget)
    return RenderedDiff(ends, old, new, query, budget)


def _render_side(live: Session, commit: str | None, folder: Path, query: str, budget: int) -> str:
    """The file at ``commit``, rendered from a store written out from it: the commit
    names the file and its time measures decay, though the store has no history.
    Before the first commit, what ``render`` gives an empty store."""
    if commit is None:
        side, at = Session(folder, env=live.env, agent=live.agent_given), None
    else:
        folder.mkdir()
        revisions.write_snapshot(live.store.git, commit, folder)
        _share_vectors(live.root, folder, query)
        at = (commit, live.store.git.commit_time(commit))
        side = Session(
            folder,
            env=live.env,
            agent=live.agent_given,
            command=live.command,
            progress=live.progress,
        )
    try:
        asked = Query(query, budget=budget)
        return render_personality(Retrieving(side, at), asked, store=live.root).text
    finally:
        side.close()


def _share_vectors(root: Path, folder: Path, query: str) -> None:
    """Give the snapshot the store's embeddings: rows are keyed by the text they embed,
    so those still current are reused, and only the others are embedded again."""
    vectors = derived_folder(root) / "vectors"
    if query.strip() and vectors.is_dir():
        shutil.copytree(vectors, folder / ".chitin" / "vectors")
