"""Sync a store with a git remote: fetch, merge (insights merged by chitin's driver), push.

Merging rather than rebasing keeps every commit as it was made, published or not, and
lets the merge driver see each file's common base, which is what makes concurrent
reinforcements add up instead of clashing. A push git refuses because the remote moved
on meanwhile is retried after another fetch and merge; it is never forced.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from chitin.core.facade import Chitin
from chitin.errors import ChitinError, StateError, StoreError
from chitin.store import remote
from chitin.store.git import Git

PUSH_ATTEMPTS = 3


class NoRemoteError(StoreError):
    """The store has no remote to sync with."""


class SyncConflict(ChitinError):
    """Both sides changed the same thing; the repository is left mid-merge."""

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


def sync(chitin: Chitin, remote_name: str | None) -> Synced:
    store = chitin.store
    if not store.is_initialized():
        raise StoreError(f"no store at {chitin.root}; run `chitin init` first")
    git = store.git
    # A fresh clone has the attributes but not the config; and the driver is this chitin.
    remote.register_driver(git, chitin.command)
    with store.lock():
        branch = _branch(git)
        name = _remote(git, branch, remote_name, chitin.root)
        result = Synced(name, branch)
        if remote.missing_attributes(chitin.root):
            result.notes.append(
                "insight files are not yet merged by chitin's driver here; "
                "run `chitin init` once to add it to .gitattributes"
            )
        for _ in range(PUSH_ATTEMPTS):
            remote.fetch(git, name)
            _integrate(git, name, branch, result)
            if _send(git, name, branch, result):
                return result
    raise StoreError(
        f"{name} kept moving while we pushed; run `chitin sync` again (nothing was lost)"
    )


def _branch(git: Git) -> str:
    if remote.merging(git):
        raise StateError(
            "a merge is in progress: resolve the conflicts, `git add` the files and "
            "`git commit`, then run `chitin sync` again (or `git merge --abort`)"
        )
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


def _integrate(git: Git, name: str, branch: str, result: Synced) -> None:
    theirs = f"refs/remotes/{name}/{branch}"
    if remote.resolve(git, theirs) is None:
        return  # the remote has no such branch yet: the push creates it
    incoming = remote.count(git, f"HEAD..{theirs}")
    if not incoming:
        return
    attempt = remote.merge(git, theirs, f"Sync with {name}/{branch}\n\nChitin-Op: sync\n")
    if not attempt.ok:
        raise _conflict(git, attempt.output, name, branch)
    result.received += incoming
    head = git.head()
    if head != remote.resolve(git, theirs):  # not a fast-forward: a merge commit
        result.merge_commit = head


def _send(git: Git, name: str, branch: str, result: Synced) -> bool:
    theirs = f"refs/remotes/{name}/{branch}"
    known = remote.resolve(git, theirs) is not None
    outgoing = remote.count(git, f"{theirs}..HEAD" if known else "HEAD")
    if not outgoing:
        return True
    attempt = remote.push(
        git, name, branch, set_upstream=remote.upstream_remote(git, branch) is None
    )
    if attempt.ok:
        result.sent += outgoing
        return True
    if "rejected" in attempt.output or "fetch first" in attempt.output:
        return False  # the remote moved on since our fetch: fetch and merge again
    raise StoreError(f"cannot push to {name}: {_last_lines(attempt.output)}")


def _conflict(git: Git, output: str, name: str, branch: str) -> ChitinError:
    paths = remote.unmerged_paths(git)
    if not paths:  # git refused before merging (e.g. local edits in the way)
        return StateError(f"cannot merge {name}/{branch}: {_last_lines(output)}")
    reasons = [line.removeprefix("chitin: ") for line in output.splitlines() if "chitin: " in line]
    detail = "; ".join(reasons) or ", ".join(paths)
    return SyncConflict(
        f"sync stopped: {len(paths)} file(s) changed on both sides ({detail}). Resolve the "
        "conflict markers, `git add` the files and `git commit`, then run `chitin sync` "
        "again; or `git merge --abort` to go back. `git status` lists them.",
        paths,
    )


def _last_lines(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return "; ".join(lines[-3:]) or "git gave no reason"
