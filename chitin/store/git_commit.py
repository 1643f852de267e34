"""A commit of exactly the paths chitin wrote, and the way back when it fails: other
changes a person has staged stay staged and out of it, and a failed or interrupted
commit leaves the index as it was, so that nobody's next ``git commit`` takes
chitin's change."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from chitin.errors import GitError
from chitin.lockfile import derived_folder
from chitin.store import git_index
from chitin.store.git import ARGV_BATCH, Git
from chitin.store.git_failures import explain

if TYPE_CHECKING:
    import subprocess

STDIN_AHEAD = 4096  # bytes written to git's stdin before its output is read: the pipe holds them


def commit(
    git: Git,
    paths: Iterable[str],
    message: str,
    bulk: bool = False,
    before_commit: Callable[[], None] | None = None,
    meanwhile: Callable[[], None] | None = None,
) -> str | None:
    """Commit exactly ``paths`` (relative to the root) with ``message``.

    Other changes a person has staged stay staged and out of this commit.
    Returns the new commit id, or None when the paths hold no change. ``bulk``
    (hundreds of files) writes their objects into one pack instead of a loose
    file each: 0.9 s rather than 4 s for 10,000 files. ``before_commit`` runs
    after staging, last before the commit: an exception there (an interruption)
    stops it. ``meanwhile`` runs while git stages the paths (work of the caller's that
    the commit does not depend on); an exception there stops the commit too.

    If anything fails on the way (a pre-commit hook, gpg signing, an
    interruption), the paths are unstaged again: the index holds HEAD's version of
    them, as before, so that nobody's next ``git commit`` takes chitin's change.
    """
    paths = sorted(set(paths))
    present = [p for p in paths if (git.root / p).exists()]
    gone = [p for p in paths if p not in present]
    if gone:  # a removal is staged only for a file git knows
        present.extend(_tracked(git, gone))
    if not present:
        return None
    before = git.head()
    # Asked before ``keep_index``, whose second name for the index changes its ctime.
    clean = before is not None and git_index.as_left(git.git_dir(), _clean_note(git))
    kept = keep_index(git)
    try:
        return _stage_and_commit(git, present, message, bulk, clean, before_commit, meanwhile)
    except GitError:
        made = _made_since(git, before)
        if made is not None:
            return made
        put_back(git, present, kept)
        raise
    except BaseException:
        put_back(git, present, kept)
        raise
    finally:
        if kept is not None:
            kept.unlink(missing_ok=True)


def _stage_and_commit(
    git: Git,
    present: list[str],
    message: str,
    bulk: bool,
    clean: bool,
    before_commit: Callable[[], None] | None,
    meanwhile: Callable[[], None] | None = None,
) -> str | None:
    # Exact paths through stdin: an import may name more than fits in argv, and
    # `git add` would match each as a pathspec against every file (6 s for 10,000).
    packed = ["-c", "core.bigFileThreshold=1"] if bulk else []
    # `git commit -- paths` builds a temporary index: 350 ms at 100,000 files
    # against 150 ms for a plain commit of the index. The plain commit is right
    # only when nothing but our paths is staged, which one comparison tells. It is
    # asked beside the staging (staging our paths changes nothing it answers), so
    # that two git processes run at once instead of one after the other; not at all
    # when the index is as chitin's last plain commit left it (git_index.py).
    staged = None if clean else _staged_started(git)
    try:
        _stage(
            git, [*packed, "update-index", "--add", "--remove", "-z", "--stdin"], present, meanwhile
        )
        git.ensure_identity()
        if before_commit is not None:
            before_commit()
        if not clean and (
            staged is None or _other_changes_staged(git.finish(staged, STAGED), present)
        ):
            return _commit_only(git, present, message)
    finally:
        if staged is not None and staged.returncode is None:  # not read: interrupted
            staged.kill()
            staged.communicate()
    return _commit_index(git, ["commit", "-q", "--no-edit", "-F", "-"], message, whole=True)


def _stage(
    git: Git, args: list[str], present: list[str], meanwhile: Callable[[], None] | None
) -> None:
    """Stage ``present``, running ``meanwhile`` while git does (a contribute's door
    judges its candidates then: docs/design.md §9k)."""
    listing = "\0".join(present)
    data = os.fsencode(listing)  # the paths' bytes, as git reads them
    if meanwhile is None or len(data) > STDIN_AHEAD:
        git.run(args, input=listing)
        if meanwhile is not None:
            meanwhile()
        return
    reading, writing = os.pipe()
    try:
        try:
            staging = git.start(args, stdin=reading)
        finally:
            os.close(reading)
        with contextlib.suppress(BrokenPipeError):  # git ended early: ``finish`` says why
            os.write(writing, data)  # it fits in the pipe: nobody reads git's output yet
    finally:
        os.close(writing)  # the end of the list: git stages and writes the index
    try:
        meanwhile()
    except BaseException:
        staging.communicate()  # ended, not killed: a killed git may leave index.lock
        raise
    git.finish(staging, args)


def keep_index(git: Git) -> Path | None:
    """A second name for the index as it is before staging: putting it back is then
    a rename, which needs no free space, where `git reset` writes a whole new index
    (on a full disk it fails, and the change stayed staged). None where the file
    system will not link it (``unstage`` is used then)."""
    index = git.git_dir() / "index"
    kept = git.git_dir() / f"chitin-index-{os.getpid()}"
    try:
        kept.unlink(missing_ok=True)
        os.link(index, kept)
    except OSError:
        return None
    return kept


def put_back(git: Git, paths: Sequence[str], kept: Path | None) -> None:
    """Unstage ``paths`` after a failed commit: the index as it was before."""
    if kept is not None:
        try:
            os.replace(kept, git.git_dir() / "index")
            return
        except OSError:
            pass
    unstage(git, paths)


def _made_since(git: Git, before: str | None) -> str | None:
    """The commit that a failed ``git commit`` made all the same, if it did: git
    killed (Ctrl-C reaches it too) or failing after it moved HEAD. We hold the
    store's lock, so a new HEAD whose parent is ``before`` is that commit."""
    after = git.head()
    if after is None or after == before:
        return None
    parent = git.run(["rev-parse", "-q", "--verify", f"{after}^"], check=False)
    return after if parent.stdout.strip() == (before or "") else None


def unstage(git: Git, paths: Sequence[str]) -> None:
    """Put HEAD's version of ``paths`` back in the index (none, for a path HEAD
    lacks). The working tree is left alone."""
    if not paths:
        return
    with _path_list(git, paths) as listing:
        spec = [f"--pathspec-from-file={listing}", "--pathspec-file-nul"]
        if git.head() is None:
            git.run(["rm", "-q", "--cached", "--ignore-unmatch", *spec], check=False)
        else:
            git.run(["reset", "-q", "HEAD", *spec], check=False)


def restore_from_head(git: Git, paths: Sequence[str]) -> None:
    """Make the index and the working tree hold HEAD's version of ``paths``: a
    path HEAD lacks is removed from both. For a write interrupted by kill -9."""
    head = git.head()
    known = set(_tracked_in(git, head, list(paths))) if head else set()
    for path in paths:  # first: on a full disk, what they free lets the rest work
        if path not in known:
            with contextlib.suppress(FileNotFoundError, IsADirectoryError):
                (git.root / path).unlink()
    unstage(git, paths)
    if known:
        with _path_list(git, sorted(known)) as listing:
            git.run(
                [
                    "checkout",
                    "-q",
                    "HEAD",
                    f"--pathspec-from-file={listing}",
                    "--pathspec-file-nul",
                ]
            )


def _tracked_in(git: Git, commit: str, paths: list[str]) -> list[str]:
    found: list[str] = []
    for start in range(0, len(paths), ARGV_BATCH):
        batch = paths[start : start + ARGV_BATCH]
        listed = git.run(["ls-tree", "-r", "-z", "--name-only", commit, "--", *batch])
        found.extend(p for p in listed.stdout.split("\0") if p)
    return found


@contextlib.contextmanager
def _path_list(git: Git, paths: Sequence[str]) -> Iterator[Path]:
    """A NUL-separated list of ``paths`` in a file of the repository's own folder,
    for the commands whose stdin is taken (or that read pathspecs only so)."""
    listing = git.git_dir() / f"chitin-pathspec-{os.getpid()}"
    try:
        listing.write_text("\0".join(paths), encoding="utf-8")
        yield listing
    finally:
        listing.unlink(missing_ok=True)


def _commit_only(git: Git, paths: list[str], message: str) -> str | None:
    """Commit just ``paths``, leaving what else is staged staged. The message takes
    stdin, so the paths go through a file."""
    with _path_list(git, paths) as listing:
        args = [
            "commit",
            "-q",
            "--no-edit",
            "-F",
            "-",
            "--only",
            f"--pathspec-from-file={listing}",
        ]
        return _commit_index(git, [*args, "--pathspec-file-nul"], message)


def _commit_index(git: Git, args: list[str], message: str, whole: bool = False) -> str | None:
    """``whole``: a commit of the whole index, which then holds HEAD's tree."""
    # git's own `maintenance run --auto` after every commit is one more process
    # (~4 ms); chitin runs it where it may have work instead (``maintain``).
    result = git.run(["-c", "maintenance.auto=false", *args], input=message, check=False)
    if result.returncode != 0:
        if "no changes added" in result.stdout or "nothing to commit" in result.stdout:
            return None
        raise GitError(explain(["commit"], result))
    made = git.head()
    if whole:
        git_index.remember(git.git_dir(), _clean_note(git))
    maintain(git, made)
    return made


def _clean_note(git: Git) -> Path:
    return derived_folder(git.root) / git_index.KEPT


# git's `gc --auto` counts the loose objects in objects/17 and packs above
# gc.auto / 256 of them (6,700 by default: 27).
LOOSE_SAMPLE = "17"
LOOSE_LIMIT = 6700 // 256


def maintain(git: Git, commit: str | None) -> None:
    """Run git's auto maintenance when it may have work: the sample folder git itself
    reads holds more loose objects than its default limit, or, for the tasks that
    count other things (commit-graph, packs; by the user's maintenance.strategy), one
    commit in 256 at random (its id's first two digits). git then decides, by the
    user's configuration (gc.auto, maintenance.*, the pre-auto-gc hook), as it would
    after its own commit."""
    try:
        loose = len(os.listdir(git.git_dir() / "objects" / LOOSE_SAMPLE))
    except OSError:
        loose = 0
    if loose > LOOSE_LIMIT or (commit or "").startswith("00"):
        git.run(["maintenance", "run", "--auto", "--quiet"], check=False)


def _tracked(git: Git, paths: list[str]) -> list[str]:
    """Those of ``paths`` in the index or in HEAD: a removal already staged (``git rm``,
    ``git mv``) is committed too, not left staged beside the commit."""
    found: list[str] = []
    head = ["--with-tree=HEAD"] if git.head() else []
    for start in range(0, len(paths), ARGV_BATCH):
        listed = git.run(["ls-files", "-z", *head, "--", *paths[start : start + ARGV_BATCH]])
        found.extend(p for p in listed.stdout.split("\0") if p)
    return found


STAGED = ["--no-optional-locks", "diff", "--cached", "--name-only", "-z", "--no-renames", "HEAD"]


def _staged_started(git: Git) -> subprocess.Popen[str] | None:
    """The paths staged against HEAD, asked now (without the optional index refresh,
    which would take the index's lock from the staging beside it); None before the
    first commit, where `--only` sorts it out."""
    if git.head() is None:
        return None
    return git.start(STAGED)


def _other_changes_staged(staged: str, paths: list[str]) -> bool:
    ours = set(paths)
    return any(path and path not in ours for path in staged.split("\0"))
