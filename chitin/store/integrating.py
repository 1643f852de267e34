"""sync's merge as a journaled write: all of it, or the store as it was.

``git merge`` writes the index and the working tree file by file, then commits. Killed
on the way (by a signal to the process group, or by SIGPIPE once its reader, chitin,
is gone) it leaves its locks, its merge state and a half-merged working tree, which
every later command then trips over. So the merge runs under the write journal
(journal.py) with the paths it may touch: whatever stops it, the next command (or
this one, on a failure it sees) ends git's merge state and puts those paths back as
HEAD holds them, which is the store before the sync or the merge commit.

A conflict is not left to git either: the conflicted texts are kept for the person
(conflicts.py), and the store goes back to its last commit, readable and writable.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from chitin.errors import StateError
from chitin.model.secrets import article, find_secrets
from chitin.store import conflicts, folding, followed, git_commit, journal, merging, remote

if TYPE_CHECKING:
    from chitin.store.git import Git
    from chitin.store.repository import Store

# How a conflicted path is to be settled: "ours", "theirs", "edited" (the person's
# version in .chitin/conflicts/), or not: None (the sync stops there, with git's
# markers) or PENDING (it stops there, keeping the person's text as it is).
Chooser = Callable[[str], str | None]
PENDING = "pending"


class Merged(NamedTuple):
    received: int  # commits merged in
    merge_commit: str | None  # None for a fast-forward


class Stopped(StateError):
    """Files changed on both sides and nothing settles them: kept for the person."""

    def __init__(self, paths: list[str], reasons: list[str]) -> None:
        super().__init__(", ".join(paths))
        self.paths = paths
        self.reasons = reasons


def integrate(
    store: Store,
    theirs: str,
    message: str,
    choose: Chooser,
    where: tuple[str, str],
    holding: int | None = None,
) -> Merged:
    """Merge the commit ``theirs`` into HEAD, committing the merge; ``where`` is (remote,
    branch), kept with a conflict; ``holding``, the store lock's descriptor, is held by
    git's processes too (WriteLock.fileno). Raises ``Stopped`` on a conflict ``choose`` does not
    settle (the store is back at HEAD), StateError when git refuses to merge."""
    git = store.git
    head = git.head()
    incoming = remote.count(git, f"HEAD..{theirs}")
    paths = remote.changed_since_base(git, theirs)
    paths += followed.same_names(git, paths)  # where this side moved what theirs changed
    # A hand edit in the merge's way is committed first, as every write does, so that
    # undoing the merge can never take it away.
    store.commit_hand_edits(paths)
    note = journal.begin(git, paths, "sync")
    kept = git_commit.keep_index(git)  # put back by a rename: see keep_index
    try:
        _merge(store, theirs, message, choose, where, holding)
    except BaseException:
        _undo(store, paths, note, kept)
        raise
    finally:
        if kept is not None:
            kept.unlink(missing_ok=True)
    journal.end(note)
    after = git.head()
    return Merged(incoming, None if after in (theirs, head) else after)


def _undo(store: Store, paths: list[str], note: Path, kept: Path | None) -> None:
    """Undo the merge now; if that fails too (a full disk), the note stays, and the next
    command undoes it."""
    try:
        journal.undo_merge(store.git, paths, kept)
    except Exception:  # the merge's own error is the one to tell
        return
    journal.end(note)


def _merge(
    store: Store,
    theirs: str,
    message: str,
    choose: Chooser,
    where: tuple[str, str],
    holding: int | None,
) -> None:
    git = store.git
    attempt = remote.merge(git, theirs, message, holding)
    if attempt.ok:
        return
    unmerged = remote.unmerged_paths(git)
    if not unmerged:  # git refused before merging, or failed on the way
        raise StateError(_refusal(store, where, attempt.output))
    unmerged = [path for path in unmerged if not followed.follow(git, path)]
    unsettled: dict[str, bytes] = {}
    settled: dict[str, bytes | None] = {}
    drops: list[folding.Dropped] = []
    for path in unmerged:
        how = choose(path)
        if how is None:
            unsettled[path] = _marked(store, path)
        elif how == PENDING:
            unsettled[path] = _persons(store, path)
        else:
            settled[path] = _version(store, path, how)
            if settled[path] is None:
                drops.append(folding.dropped(git, path, how))
            else:  # kept here: a copy the other side moved elsewhere goes
                followed.drop_copy(git, path)
            remote.settle(git, path, settled[path])
    if unsettled:
        removed = tuple((drop.path, drop.how) for drop in drops)
        stopped = conflicts.Stopped(where[0], where[1], theirs, tuple(unmerged), removed)
        _stop(git, stopped, (unsettled, settled), attempt.output)
    for drop in drops:  # all settled: what a dropped side added follows its merge
        folding.fold_dropped(store, drop, theirs)
    remote.commit_merge(git, message, holding)


def _stop(
    git: Git,
    stopped: conflicts.Stopped,
    texts: tuple[dict[str, bytes], dict[str, bytes | None]],
    output: str,
) -> None:
    """Keep what the person has to settle (``texts[0]``) and what this run settled
    (``texts[1]``, so the choice holds when the sync goes on), then stop."""
    unsettled, settled = texts
    kept = {**unsettled, **{p: text for p, text in settled.items() if text is not None}}
    conflicts.save(git, stopped._replace(paths=tuple(sorted(stopped.paths))), kept)
    reasons = [
        line.removeprefix("chitin: ")
        for line in output.splitlines()
        if "chitin: " in line and not any(f" {p}:" in f" {line}" for p in settled)
    ]
    said = " ".join(reasons)
    reasons += [_removed(git, p) for p in sorted(unsettled) if f"{p}:" not in said]
    raise Stopped(sorted(unsettled), reasons)


def _removed(git: Git, path: str) -> str:
    """Why ``path`` is in conflict when chitin's driver said nothing of it: one side
    removed it (merged it into another, or archived or deleted it by hand)."""
    if remote.stage(git, path, 2) is None:
        return f"{path}: removed here, changed on the remote"
    if remote.stage(git, path, 3) is None:
        return f"{path}: changed here, removed on the remote (merged away, or archived)"
    return f"{path}: changed on both sides"


def _persons(store: Store, path: str) -> bytes:
    """The person's text of a conflicted file, as it is now; git's markers if none."""
    try:
        return conflicts.text_path(store.root, path).read_bytes()
    except OSError:
        return _marked(store, path)


def _marked(store: Store, path: str) -> bytes:
    """The conflicted file as git left it: with markers (or one side's version, when
    the other side deleted it)."""
    try:
        return (store.root / path).read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        return b""


def _version(store: Store, path: str, how: str) -> bytes | None:
    """The text that settles ``path`` (None: the file goes)."""
    if how == "edited":
        data = conflicts.edited(store.root, path)
        sides = [remote.stage(store.git, path, stage) for stage in (2, 3)]
        _refuse_new_secrets(store.root, path, data, sides)
        return data
    ours, theirs = (remote.stage(store.git, path, stage) for stage in (2, 3))
    if ours is None or theirs is None:  # one side removed it: that side, whole
        return ours if how == "ours" else theirs
    # the conflicting text by that side, what merges cleanly merged (issue 6)
    return merging.keep_side(remote.stage(store.git, path, 1), ours, theirs, path, how)


def _refuse_new_secrets(root: Path, path: str, data: bytes, sides: list[bytes | None]) -> None:
    """Refuse an edit that holds a likely credential neither side held: finishing
    commits it and pushes it to every machine. One a side already had (kept there
    knowingly, with --allow-secret) is no news, and stays allowed."""
    text = data.decode("utf-8", "replace")
    known = [side.decode("utf-8", "replace") for side in sides if side]
    for secret in find_secrets(text):
        if not any(text[secret.start : secret.end] in side for side in known):
            stem = Path(path).stem
            raise StateError(
                f"{conflicts.text_path(root, path)} looks like it holds "
                f"{article(secret.kind)} {secret.kind}; finishing the sync would commit and "
                f"push it. Remove it and run `chitin sync --continue` again, or keep one "
                f"side: chitin sync --ours {stem} (or --theirs {stem})"
            )


def _refusal(store: Store, where: tuple[str, str], output: str) -> str:
    """Why git would not merge. A remote of another history (a host made it with a
    README, or another `chitin init` pushed to it) is said with how to join the two
    once, by hand: chitin never merges a history it does not share on its own, as the
    remote could be any repository."""
    ref = f"{where[0]}/{where[1]}"
    if "unrelated histories" not in output:
        return f"cannot merge {ref}: {remote.last_lines(output)}"
    return (
        f"cannot merge {ref}: it shares no commit with this store (a repository made "
        "elsewhere, not a clone of this store); if it is meant to hold this store, join "
        f"them once: git -C {store.root} merge --allow-unrelated-histories {ref}, "
        "then chitin sync"
    )
