"""Sync a store with a git remote: fetch, merge (insights merged by chitin's driver), push.

Merging rather than rebasing keeps every commit as it was made, published or not, and
lets the merge driver see each file's common base, which is what makes concurrent
reinforcements add up instead of clashing. A push git refuses because the remote moved
on meanwhile is retried after another fetch and merge; it is never forced.
"""

from __future__ import annotations

import contextlib
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from chitin.core.session import Session
from chitin.errors import ChitinError, StateError, StoreError
from chitin.format.layout import is_insight_path
from chitin.model.sync_choice import BothSides, unmatched
from chitin.store import conflicts, interrupts, journal, remote
from chitin.store.git import Git
from chitin.store.integrating import PENDING, Chooser, Stopped, integrate

PUSH_ATTEMPTS = 3


class NoRemoteError(StoreError):
    """The store has no remote to sync with."""


class SyncConflict(ChitinError):
    """Both sides changed the same thing; the store stays at its last commit, and the
    conflicted texts wait in .chitin/conflicts/ for ``sync --continue``."""

    def __init__(self, message: str, paths: list[str]) -> None:
        super().__init__(message)
        self.paths = paths


@dataclass
class Synced:
    remote: str
    branch: str
    received: int = 0  # commits merged in from the remote
    sent: int = 0  # commits pushed
    merge_commit: str | None = None
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Resume:
    """How to finish a sync that a conflict stopped: ``resume`` takes the edited files,
    ``ours``/``theirs`` name insights (ids or paths) settled by taking that side, and
    ``abort`` forgets the stopped sync."""

    resume: bool = False
    ours: tuple[str, ...] = ()
    theirs: tuple[str, ...] = ()
    abort: bool = False

    @property
    def given(self) -> bool:
        return self.resume or bool(self.ours) or bool(self.theirs)


def sync(opened: Session, remote_name: str | None, resume: Resume | None = None) -> Synced:
    """Pull and push the store's git remote, merging insight files field by field.

    A conflict stops the sync (``SyncConflict``) with the store at its last commit;
    then ``resume`` takes the person's edited files, ``ours``/``theirs`` (ids or
    paths) take one side, and ``abort`` forgets the stopped sync."""
    store = opened.store
    store.adopt_clone()
    if not store.is_initialized():
        unborn = remote.unborn_clone(store.git)  # a clone of a remote with a wrong HEAD
        raise StoreError(unborn or f"no store at {opened.root}; run `chitin init` first")
    git = store.git
    # A fresh clone has the attributes but not the config; and the driver is this chitin.
    remote.register_driver(git, opened.command)
    if opened.finishes_commands:
        interrupts.finish_commands()
    with store.lock() as held:
        store.recover()  # a sync or write killed half-way is undone first
        branch = _branch(git)
        name = _remote(git, branch, remote_name, opened.root)
        result = Synced(name, branch)
        choose = _chooser(git, resume or Resume(), result)
        if choose is None:
            return result  # --abort
        if remote.missing_attributes(opened.root):
            result.notes.append(
                "insight files are not yet merged by chitin's driver here; "
                "run `chitin init` once to add it to .gitattributes"
            )
        with interrupts.holding() as guard:
            try:
                _rounds(opened, (name, branch, held.fileno()), result, choose, guard)
            except SyncConflict as stop:
                raise _partly(git, stop, resume or Resume()) from None
        _note_hand_edits(git, opened, result)
        return result


def _note_hand_edits(git: Git, opened: Session, result: Synced) -> None:
    """Say which insight files were edited by hand and not committed: chitin commits
    such an edit with its next change of that insight (or a sync's merge that touches
    it), so until then a sync cannot send it, and "in sync" alone would mislead."""
    args = ["--no-optional-locks", "status", "--porcelain", "-z", "--untracked-files=all"]
    args += ["--no-renames", "--", "insights", "archive"]
    records = git.run(args, check=False).stdout.split("\0")
    edited = [record[3:] for record in records if len(record) > 3]
    if not edited:
        return
    shown = ", ".join(edited[:3]) + (f" and {len(edited) - 3} more" if len(edited) > 3 else "")
    git_c = f"git -C {shlex.quote(str(opened.root))}"
    result.notes.append(
        f"edited by hand and not committed, so not sent: {shown}; commit them "
        f"({git_c} add -A insights archive && {git_c} commit) and sync again, or leave "
        "them: chitin commits a hand edit with its next change of that insight"
    )


def _rounds(
    opened: Session,
    where: tuple[str, str, int],
    result: Synced,
    choose: Chooser,
    guard: interrupts.Guard,
) -> Synced:
    """Fetch, merge, push, until the push is taken. A signal stops it before the merge
    (nothing changed), or after it (the merge is kept, nothing is pushed). ``where``:
    the remote, the branch and the store lock's descriptor."""
    git = opened.store.git
    name, branch, held = where
    for _ in range(PUSH_ATTEMPTS):
        with _noted(git):
            _fetch(git, name, held, guard)
        _integrate(opened, where, result, choose, guard)
        guard.check()  # a signal, and nothing merged: nothing changed
        if guard.received is not None:
            result.notes.append("interrupted after the merge was committed: nothing was pushed")
            return result
        with _noted(git):
            if _send(git, (name, branch, held), result, guard):
                return result
    raise StoreError(
        f"{name} kept moving while we pushed; run `chitin sync` again (nothing was lost)"
    )


@contextlib.contextmanager
def _noted(git: Git) -> Iterator[None]:
    """A fetch or a push, noted in the journal (with no paths): killed, it can leave a
    lock on a remote-tracking ref, which the next command then removes."""
    note = journal.begin(git, [], "sync")
    try:
        yield
    finally:
        journal.end(note)


def _fetch(git: Git, name: str, held: int, guard: interrupts.Guard) -> None:
    guard.check()
    try:
        remote.fetch(git, name, held)
    except StoreError:
        guard.check()  # Ctrl-C reaches git's own process too: say so, not git's failure
        raise
    guard.check()


def _chooser(git: Git, resume: Resume, result: Synced) -> Chooser | None:
    """How conflicts are settled in this sync; None for ``--abort`` (done here)."""
    stopped = conflicts.load(git)
    if resume.abort:
        if stopped is None:
            raise StateError("no sync was stopped by a conflict; nothing to abort")
        conflicts.clear(git)
        result.notes.append(
            "forgot the stopped sync; the store is as it was. The next `chitin sync` "
            "merges the remote again"
        )
        return None
    if stopped is None:
        if resume.given:
            raise StateError("no sync was stopped by a conflict; run `chitin sync`")
        return lambda path: None
    if not resume.given:
        # the insights already settled (by --ours, --theirs or an edit) wait for no one
        chosen = dict(stopped.removed)
        waiting = [p for p in stopped.paths if p not in chosen and conflicts.marked(git.root, p)]
        raise StateError(
            f"a sync stopped on a conflict in {_named(waiting or stopped.paths)}; "
            + _how_to_finish(git, waiting or stopped.paths)
        )
    choose = _settling(git.root, stopped, resume)
    _refuse_overwriting(git, stopped, choose)
    return choose


def _refuse_overwriting(git: Git, stopped: conflicts.Stopped, choose: Chooser) -> None:
    """Refuse to finish over a conflicted file edited by hand since the stop (chitin's
    own writes to it are refused meanwhile, conflicts.refuse_writes): taking the edited
    version or the remote's would drop that edit without a word."""
    for path in git.pending(list(stopped.paths)):
        if choose(path) in ("edited", "theirs"):
            name = _id_of(path)
            raise StateError(
                f"{path} was edited after the sync stopped, and finishing would overwrite "
                f"that edit; make it in {conflicts.text_path(git.root, path)} instead and "
                f"undo it here (`git checkout -- {path}`), or keep this store's version with "
                f"`chitin sync --ours {name}`"
            )


def _settling(root: Path, stopped: conflicts.Stopped, resume: Resume) -> Chooser:
    """``--continue`` takes every edited file; ``--ours``/``--theirs`` alone settle the
    insights they name and leave the others waiting, unless the person's edit of one
    is already free of markers. A side chosen before that removes its file holds."""
    paths = stopped.paths
    named = {**_matched(paths, resume.ours, "ours"), **_matched(paths, resume.theirs, "theirs")}
    sides = {**dict(stopped.removed), **named}
    if both := set(_matched(paths, resume.ours, "ours")) & set(_matched(paths, resume.theirs, "t")):
        raise BothSides(_id_of(path) for path in both)  # the CLI's usage error, exit 2

    def choose(path: str) -> str | None:
        if path in sides:
            return sides[path]
        if path not in paths:
            return None
        if resume.resume or not conflicts.marked(root, path):
            return "edited"
        return PENDING  # settled one insight at a time: this one waits, as it is

    return choose


def _matched(paths: tuple[str, ...], names: tuple[str, ...], side: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for name in names:
        hits = [p for p in paths if name in (p, _id_of(p))]
        prefixed = [p for p in paths if name and _id_of(p).startswith(name)]
        if not hits and len(prefixed) > 1:
            raise StateError(
                f"{name!r} starts {len(prefixed)} conflicted insights ({_named(prefixed)}); "
                "give more of the id"
            )
        hits = hits or prefixed  # a unique prefix, as every command takes one
        if not hits:  # an empty id is the CLI's usage error (sync_choice.NoId)
            raise unmatched(name, side, _named(paths))
        found.update(dict.fromkeys(hits, side))
    return found


def _partly(git: Git, stop: SyncConflict, resume: Resume) -> SyncConflict:
    """A stop after ``--ours``/``--theirs`` settled some insights but not all: say
    which were settled (the choice is kept) and which still wait."""
    if resume.resume or not (resume.ours or resume.theirs):
        return stop
    paths = tuple(p for p in (conflicts.load(git) or stop).paths if p not in stop.paths)
    said = [
        f"{words} {_named(sorted(_matched(paths, names, side)))}"
        for names, side, words in (
            (resume.ours, "ours", "kept this store's version of"),
            (resume.theirs, "theirs", "took the remote's version of"),
        )
        if names
    ]
    return SyncConflict(
        f"{'; '.join(said)} (kept for when the sync goes on); {len(stop.paths)} "
        f"insight(s) still in conflict: {_named(stop.paths)}; " + _how_to_finish(git, stop.paths),
        stop.paths,
    )


def _files(paths: list[str]) -> str:
    """What the paths are, in a stop's words ("insight file(s)", or a README as well)."""
    return "insight file(s)" if all(map(is_insight_path, paths)) else "file(s)"


def _named(paths: tuple[str, ...] | list[str]) -> str:
    return ", ".join(_id_of(p) for p in paths)


def _id_of(path: str) -> str:
    return path.rsplit("/", 1)[-1].removesuffix(".md")


def _how_to_finish(git: Git, paths: tuple[str, ...] | list[str]) -> str:
    first = paths[0].rsplit("/", 1)[-1].removesuffix(".md")
    if len(paths) == 1:
        edit = f"Edit {conflicts.text_path(git.root, paths[0])}"
    else:
        edit = f"Edit the marked files under {git.root / conflicts.FOLDER}"
    return (
        f"the store keeps your last committed version meanwhile. {edit} into the "
        "version to keep and run `chitin sync --continue`; or keep one side per insight: "
        f"`chitin sync --ours {first}` (or --theirs); `chitin sync --abort` forgets the "
        "incoming change"
    )


def _branch(git: Git) -> str:
    if remote.merging(git):  # a merge a person started with git: theirs to finish
        raise StateError(
            "a git merge is in progress in the store: finish it (git commit) or abort it "
            "(git merge --abort), then run `chitin sync` again"
        )
    problem = git.unsafe_to_commit()  # a rebase, cherry-pick … in progress, or a detached HEAD
    if problem is not None:
        raise StateError(problem)
    branch = remote.current_branch(git)
    if branch is None:
        raise StateError("the store is not on a branch (detached HEAD); check one out first")
    return branch


def _remote(git: Git, branch: str, wanted: str | None, root: object) -> str:
    names = remote.remotes(git)
    if wanted is not None:
        if wanted not in names:
            known = ", ".join(names) or "none"
            raise NoRemoteError(f"no remote named {wanted!r} (remotes: {known})")
        return wanted
    chosen = remote.upstream_remote(git, branch)
    if chosen in names:
        return str(chosen)
    if "origin" in names:
        return "origin"
    if len(names) == 1:
        return names[0]
    if not names:
        raise NoRemoteError(
            "this store has no remote to sync with; add one, then sync: "
            f"git -C {root} remote add origin <url>   (GitHub, GitLab, any git server, "
            "or a bare repository on disk)"
        )
    raise NoRemoteError(f"several remotes ({', '.join(names)}); choose one with --remote")


def _integrate(
    opened: Session,
    where: tuple[str, str, int],
    result: Synced,
    choose: Chooser,
    guard: interrupts.Guard,
) -> None:
    git = opened.store.git
    name, branch, held = where
    theirs = remote.resolve(git, f"refs/remotes/{name}/{branch}")
    if theirs is None:
        return  # the remote has no such branch yet: the push creates it
    if not remote.count(git, f"HEAD..{theirs}"):
        conflicts.clear(git)  # merged meanwhile (by git itself): nothing is left to settle
        return
    message = f"Sync with {name}/{branch}\n\nChitin-Op: sync\n"
    try:
        merged = integrate(opened.store, theirs, message, choose, (name, branch), held)
    except Stopped as stop:
        detail = "; ".join(stop.reasons) or _named(stop.paths)
        raise SyncConflict(
            f"sync stopped: {len(stop.paths)} {_files(stop.paths)} changed on both sides "
            f"({detail}); nothing was merged, and {_how_to_finish(git, stop.paths)}",
            stop.paths,
        ) from None
    except StoreError:
        guard.check()  # a signal that reached git: the merge was undone
        raise
    guard.committed()
    conflicts.clear(git)  # a stopped sync, if any, is finished by this merge
    result.received += merged.received
    result.merge_commit = merged.merge_commit


def _send(git: Git, where: tuple[str, str, int], result: Synced, guard: interrupts.Guard) -> bool:
    name, branch, held = where
    theirs = f"refs/remotes/{name}/{branch}"
    known = remote.resolve(git, theirs) is not None
    # A branch the remote lacks is pushed, but what its other branches hold is not sent.
    sent = [f"{theirs}..HEAD"] if known else ["HEAD", "--not", f"--remotes={name}"]
    outgoing = remote.count(git, *sent)
    if known and not outgoing:
        return True
    remote.refuse_marked(git, f"{theirs}..HEAD" if known else None)
    upstream = remote.upstream_remote(git, branch)
    attempt = remote.push(git, name, branch, set_upstream=upstream is None, holding=held)
    if attempt.ok:
        result.sent += outgoing
        return True
    if remote.moved_on(attempt.output):
        return False  # the remote moved on since our fetch: fetch and merge again
    if guard.received is not None:
        result.notes.append("interrupted while pushing: run `chitin sync` again to send")
        return True
    raise StoreError(f"cannot push to {name}: {remote.refusal(attempt.output)}")
