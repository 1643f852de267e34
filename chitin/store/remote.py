"""What ``sync`` asks of git: remotes, fetch, merge, push, and the merge driver's setup.

Nothing here forces a push or rewrites a commit: sync integrates by merging, and a
push git refuses is reported, never retried with force.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from chitin.errors import GitError, StoreError
from chitin.format.conflicts import FIX as MARKERS_FIX
from chitin.store import git_network
from chitin.store.files import atomic_write
from chitin.store.git import Git

# .gitattributes lines that send insight files to chitin's merge driver. Archived
# files too: an archive on one side and an edit on the other meet at the new path.
MERGE_ATTRIBUTES: tuple[str, ...] = (
    "insights/**/*.md merge=chitin",
    "archive/**/*.md merge=chitin",
)
DRIVER_NAME = "chitin: merge insight files field by field"
DRIVER_ARGUMENTS = "merge-driver %O %A %B %P"


class Attempt(NamedTuple):
    ok: bool
    output: str


def driver_command(command: Sequence[str]) -> str:
    """The driver line for git's config: git runs it through the shell."""
    return " ".join(shlex.quote(part) for part in command) + " " + DRIVER_ARGUMENTS


def register_driver(git: Git, command: Sequence[str] = ("chitin",)) -> bool:
    """Name the driver in the repository's own config (clones do not copy it), run as
    ``command`` (the running chitin, by absolute path, so git finds it without PATH).
    True if anything changed."""
    changed = False
    wanted = {"merge.chitin.name": DRIVER_NAME, "merge.chitin.driver": driver_command(command)}
    for key, value in wanted.items():
        current = configured(git, key)
        if current != value:
            git.run(["config", "--local", key, value])
            changed = True
    return changed


def driver_wanted(root: Path) -> bool:
    """Whether the store's .gitattributes sends insight files to chitin's driver."""
    try:
        return "merge=chitin" in (root / ".gitattributes").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False


def ensure_driver(git: Git, command: Sequence[str]) -> None:
    """Define the driver .gitattributes names if git's config lacks it: a plain `git
    clone` of a store copies the attributes, not the config, and its `git pull` would
    merge insight files by lines. Two small file reads when it is there (every write)."""
    try:
        config = (git.git_dir() / "config").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        config = ""
    if _DRIVER_SECTION.search(config) is None and driver_wanted(git.root):
        register_driver(git, command)


# [merge "chitin"] with a driver line, as `git config` writes it
_DRIVER_SECTION = re.compile(r'^\s*\[merge\s+"chitin"\][^\[]*^\s*driver\s*=', re.M)


def configured(git: Git, key: str) -> str:
    """A value of the repository's own git config; "" when unset."""
    return git.run(["config", "--local", "--get", key], check=False).stdout.strip()


def missing_attributes(root: Path) -> list[str]:
    path = root / ".gitattributes"
    present = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [line for line in MERGE_ATTRIBUTES if line not in present]


def remotes(git: Git) -> list[str]:
    return [name for name in git.run(["remote"]).stdout.split() if name]


def current_branch(git: Git) -> str | None:
    result = git.run(["symbolic-ref", "--short", "-q", "HEAD"], check=False)
    return result.stdout.strip() or None


def unborn_clone(git: Git) -> str | None:
    """Why a repository is no store yet when it is a clone that checked nothing out:
    the remote's HEAD names a branch the remote does not have (`git init --bare -b
    main` beside a store that pushed master), so HEAD is unborn though the remote has
    branches. `chitin init` there would start an unrelated history: checking out the
    store's branch is the way. None when the repository is not such a clone."""
    if not git.is_repository() or resolve(git, "HEAD") is not None:
        return None
    listed = ["for-each-ref", "--format=%(refname:lstrip=3)", "refs/remotes"]
    named = set(git.run(listed, check=False).stdout.split()) - {"HEAD"}
    branches = sorted(named, key=lambda branch: (branch not in ("main", "master"), branch))
    if not branches:
        return None
    has = f"branch {branches[0]}" if len(branches) == 1 else "branches " + ", ".join(branches)
    other = "" if len(branches) == 1 else " (or the store's branch among them)"
    return (
        f"no store at {git.root}: it is a clone that checked nothing out (the remote's HEAD "
        f"names a branch it does not have); the remote has {has}: run "
        f"`git -C {git.root} checkout {branches[0]}`{other}, then chitin sync"
    )


def upstream_remote(git: Git, branch: str) -> str | None:
    result = git.run(["config", "--get", f"branch.{branch}.remote"], check=False)
    return result.stdout.strip() or None


def resolve(git: Git, ref: str) -> str | None:
    result = git.run(["rev-parse", "-q", "--verify", f"{ref}^{{commit}}"], check=False)
    return result.stdout.strip() or None


def count(git: Git, *revisions: str) -> int:
    return int(git.run(["rev-list", "--count", *revisions]).stdout.strip() or 0)


# A line that opens, splits (diff3's base) or closes a conflict, as format/conflicts.py
# reads one (chitin escapes such a line in the text it writes).
_MARKER_LINE = r"^(<{7}|[|]{7}|>{7})( |$)"


def marked_files(git: Git, revisions: str | None) -> list[str]:
    """The insight files changed in ``revisions`` (every one, for None) whose text at
    HEAD holds git's conflict markers: a merge that stopped, committed as it was."""
    grep = ["grep", "-l", "-z", "-E", _MARKER_LINE, "HEAD", "--", "insights", "archive"]
    found = [p.removeprefix("HEAD:") for p in git.run(grep, check=False).stdout.split("\0") if p]
    if not found or revisions is None:
        return found
    diff = ["diff", "--name-only", "-z", "--no-renames", revisions, "--", "insights", "archive"]
    changed = set(git.run(diff).stdout.split("\0"))
    return [path for path in found if path in changed]


def refuse_marked(git: Git, revisions: str | None) -> None:
    """Refuse to send a file committed with git's conflict markers (a `git pull` that
    stopped, then `git commit -a`): every machine would skip it, and the insight would
    leave every context until someone resolved it."""
    marked = marked_files(git, revisions)
    if marked:
        shown = ", ".join(marked[:3]) + (f" and {len(marked) - 3} more" if len(marked) > 3 else "")
        verb = "holds" if len(marked) == 1 else "hold"
        raise StoreError(f"not sent: {shown} {verb} git conflict markers; fix: {MARKERS_FIX}")


# A fetch's or merge's own `gc --auto` (or maintenance) would run in the background,
# holding the store's lock (see ``merge``) for as long as it takes: the next commit of
# a write starts it instead.
_NO_GC = ["-c", "gc.auto=0", "-c", "maintenance.auto=false"]


def fetch(git: Git, remote: str, holding: int | None = None) -> None:
    """Fetch ``remote``; ``holding`` as for ``merge``."""
    try:
        args = [*_NO_GC, *git_network.options(git), "fetch", "--quiet", "--no-tags", remote]
        git.run(args, holding=holding)
    except GitError as error:
        raise GitError(f"cannot fetch from {remote}: {error}") from None


def merge(git: Git, ref: str, message: str, holding: int | None = None) -> Attempt:
    """Merge ``ref``; ``holding`` (the store lock's descriptor) goes to git, so that a
    git that outlives a killed chitin keeps the lock until it is done."""
    git.ensure_identity()  # a merge commit needs an author, as any commit does
    # --ff on the command line overrides a user's merge.ff (only: every diverged
    # sync would be refused; false: a merge commit for every plain catch-up).
    args = [*_NO_GC, "merge", "--ff", "--no-edit", "-m", message, ref]
    result = git.run(args, check=False, holding=holding)
    return Attempt(result.returncode == 0, (result.stdout + result.stderr).strip())


def push(
    git: Git, remote: str, branch: str, set_upstream: bool, holding: int | None = None
) -> Attempt:
    """Push HEAD to ``branch``; ``holding`` as for ``merge``."""
    args = [*git_network.options(git), "push", "--porcelain"]
    args += [*(["-u"] if set_upstream else []), remote]
    result = git.run([*args, f"HEAD:refs/heads/{branch}"], check=False, holding=holding)
    return Attempt(result.returncode == 0, (result.stdout + result.stderr).strip())


def merging(git: Git) -> bool:
    return (git.root / ".git" / "MERGE_HEAD").exists()


def unmerged_paths(git: Git) -> list[str]:
    result = git.run(["diff", "--name-only", "-z", "--diff-filter=U"])
    return sorted(path for path in result.stdout.split("\0") if path)


def changed_since_base(git: Git, theirs: str) -> list[str]:
    """The paths ``theirs`` changed since it parted from HEAD: all a merge may touch."""
    base = git.run(["merge-base", "HEAD", theirs], check=False).stdout.strip()
    if not base:  # unrelated histories: any path of theirs
        listed = git.run(["ls-tree", "-r", "-z", "--name-only", theirs]).stdout
        return sorted(p for p in listed.split("\0") if p)
    changed = git.changed_between(base, theirs, [])
    return sorted(changed or ())


def stage(git: Git, path: str, number: int) -> bytes | None:
    """One side of a conflicted path as the merge found it (2: ours, 3: theirs), or
    None when that side deleted it."""
    result = git.run(["show", f":{number}:{path}"], check=False, text=False)
    if result.returncode != 0:
        return None
    data = result.stdout
    return data if isinstance(data, bytes) else str(data).encode()


def settle(git: Git, path: str, text: bytes | None) -> None:
    """Take ``text`` (None: no file) as the merged version of a conflicted path."""
    target = git.root / path
    if text is None:
        target.unlink(missing_ok=True)
    else:
        atomic_write(target, text.decode("utf-8", "replace"))
    git.run(["update-index", "--add", "--remove", "-z", "--stdin"], input=path)


def commit_merge(git: Git, message: str, holding: int | None = None) -> None:
    """Commit the merge in progress, its conflicts settled (any identity will do)."""
    git.ensure_identity()
    git.run([*_NO_GC, "commit", "-q", "--no-edit", "-F", "-"], input=message, holding=holding)


def moved_on(output: str) -> bool:
    """Whether a push was refused because the remote has commits we lack (fetch, merge
    and push again), not declined by the remote itself (``[remote rejected]``: a
    protected branch, a hook), which no retry gets past."""
    return "(fetch first)" in output or "(non-fast-forward)" in output


def refusal(output: str) -> str:
    """Why a push failed: the refused ref and the remote's first words, else git's last lines."""
    said = [" ".join(line.split()) for line in output.splitlines()]
    refused = [line for line in said if line.startswith("! ")]
    words = [line for line in said if line.startswith("remote: ")]
    return "; ".join(refused + words[:2]) or last_lines(output)


def last_lines(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return "; ".join(lines[-3:]) or "git gave no reason"
