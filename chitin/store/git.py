"""The one place that runs git. Argument lists only, a scrubbed environment, and an
identity that works on a machine where nobody ever configured one.

Beside it: git_commit.py commits exactly chitin's paths (and undoes a failed commit),
git_head.py reads HEAD from git's files, git_failures.py words a failure, and
git_merge.py merges three texts."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from chitin.errors import GitError
from chitin.process import PREFETCHED, status_key
from chitin.store import git_children
from chitin.store.git_failures import DUBIOUS, NOT_INSIDE, explain, said
from chitin.store.git_head import read_head, remember_time, remembered_time

if TYPE_CHECKING:  # loaded when git first runs: a small store's reads never start it
    import subprocess

# Variables that would point git at some other repository or index than the store's.
SCRUBBED = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
    "GIT_CEILING_DIRECTORIES",
)
FALLBACK_NAME = "chitin"


# Operations in progress that a commit must not join: (marker in the git dir, what it
# is, how to finish it).
_OPERATIONS = (
    (
        "rebase-merge",
        "a rebase",
        "Finish it (git rebase --continue) or abort it (git rebase --abort)",
    ),
    ("rebase-apply", "a rebase or git am", "Finish it (--continue) or abort it (--abort)"),
    ("MERGE_HEAD", "a merge", "Finish it (git commit) or abort it (git merge --abort)"),
    ("CHERRY_PICK_HEAD", "a cherry-pick", "Finish it or abort it (git cherry-pick --abort)"),
    ("REVERT_HEAD", "a revert", "Finish it or abort it (git revert --abort)"),
    ("BISECT_LOG", "a bisect", "End it (git bisect reset)"),
)

# How many paths one command line takes where git cannot read them from stdin.
ARGV_BATCH = 1000


def _argv(root: Path, args: Sequence[str]) -> list[str]:
    return ["git", "-C", str(root), "-c", "core.quotepath=off", *args]


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["GIT_LITERAL_PATHSPECS"] = "1"  # a path chitin names is that path, never a glob
    env["LC_ALL"] = "C"
    return env


def _status_args(paths: Sequence[str]) -> list[str]:
    return [
        "--no-optional-locks",
        "status",
        "--porcelain=v2",
        "-z",
        "--branch",
        "--no-ahead-behind",  # a synced store has an upstream: never count to it
        "--untracked-files=no",
        "--no-renames",
        "--",
        *paths,
    ]


# ------------------------------------------------------------------ status, ahead of time


def prefetch_status(root: Path, paths: Sequence[str]) -> None:
    """Start the ``git status`` that this command's cache sync will ask for, now, so that
    git works on another core while Python loads the command (~20-60 ms of imports,
    against ~25 ms of status at 10,000 insights). The first ``Git.status`` for the
    same store and paths takes its answer; the command's end drops any not taken
    (chitin/process.py holds them).

    Only a command that only reads may prefetch: a writer must see what other writers
    committed while it waited for the store's lock."""
    key = status_key(root, paths)
    if key in PREFETCHED:
        return
    import subprocess

    try:
        # One thread: git's default preloads the index with a thread per core, which
        # competes with the imports it runs beside on a two-core machine for no gain
        # (the answer is ready before it is needed either way).
        process = subprocess.Popen(
            _argv(root, ["-c", "core.preloadIndex=false", *_status_args(paths)]),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=_environment(),
        )
    except OSError:
        return  # no git: the cache finds out, and says so, the usual way
    PREFETCHED.started(key, process)


class Git:
    """git for one store. ``agent`` names the author when git has no identity configured."""

    def __init__(self, root: Path, agent: str | None = None) -> None:
        self.root = root
        self.agent = agent
        self._env: dict[str, str] | None = None
        self.date: str | None = None  # Chitin(now=...)'s time, as an operation last read it

    def told(self, moment: datetime, given: bool) -> datetime:
        """``moment``, read from a clock the caller ``given``: the next commits' date."""
        if given:  # then a commit and its insight's file agree; else git's own time
            self.date = f"@{int(moment.timestamp())} {moment.strftime('%z') or '+0000'}"
        return moment

    # -------------------------------------------------------------- plumbing

    def run(
        self,
        args: Sequence[str],
        *,
        input: str | bytes | None = None,
        check: bool = True,
        text: bool = True,
        holding: int | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """``holding``: the store lock's descriptor, for a git command that must keep
        the lock while it runs, even after a kill of chitin alone (see WriteLock)."""
        fds = () if holding is None else (holding,)
        try:
            result = git_children.run(_argv(self.root, args), input, text, self._environment(), fds)
        except FileNotFoundError:
            raise GitError("git is not installed or not on PATH; chitin stores need git") from None
        if result.returncode != 0:
            # `config --local` says only "not inside a repository", even unchecked (check's
            # "no merge driver"): ask git why, which raises if it is ownership.
            if NOT_INSIDE in said(result) and args[:1] != ["rev-parse"]:
                self.run(["rev-parse", "--git-dir"], check=False)
            if check or DUBIOUS in said(result):
                raise GitError(explain(args, result))  # refused ownership: never "no history"
        return result

    def start(self, args: Sequence[str], stdin: int | None = None) -> subprocess.Popen[str]:
        """Start git without waiting for it; ``finish`` reads its answer. ``stdin``: a
        descriptor for its standard input (the read end of the caller's pipe)."""
        import subprocess

        try:
            process = subprocess.Popen(
                _argv(self.root, args),
                stdin=subprocess.DEVNULL if stdin is None else stdin,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=self._environment(),
            )
        except FileNotFoundError:
            raise GitError("git is not installed or not on PATH; chitin stores need git") from None
        git_children.RUNNING.add(process)  # an interruption reaches it (``finish`` forgets it)
        return process

    @staticmethod
    def finish(process: subprocess.Popen[str], args: Sequence[str]) -> str:
        """What git started with ``args`` printed; GitError if it failed."""
        import subprocess

        out, err = git_children.communicate(process)
        if process.returncode != 0:
            done = subprocess.CompletedProcess(list(args), process.returncode, out, err)
            raise GitError(explain(args, done))
        return str(out)

    def _environment(self) -> dict[str, str]:
        if self._env is None:
            self._env = _environment()
        return self._env

    # -------------------------------------------------------------- repository

    def is_repository(self) -> bool:
        return (self.root / ".git").exists()

    def git_dir(self) -> Path:
        """The repository's own folder: ``.git``, or where a worktree's ``.git`` file
        points. Read from the files, without starting git."""
        dot_git = self.root / ".git"
        if dot_git.is_file():
            try:
                line = dot_git.read_text(encoding="utf-8").strip()
            except (OSError, UnicodeDecodeError):
                return dot_git
            if line.startswith("gitdir:"):
                return (self.root / line[7:].strip()).resolve()
        return dot_git

    def unsafe_to_commit(self) -> str | None:
        """Why a commit made now would be lost or would mix with someone's work in
        progress, or None when committing is safe. Read from git's files."""
        git_dir = self.git_dir()
        for marker, what, finish in _OPERATIONS:
            if (git_dir / marker).exists():
                return (
                    f"the store is in the middle of {what}; a commit now would be mixed "
                    f"into it. {finish} in {self.root}, then try again"
                )
        try:
            head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            return None  # let git itself say what is wrong
        if not head.startswith("ref:"):
            return (
                f"the store's HEAD is detached (at {head[:12]}), so a commit would be lost "
                f"at the next checkout. Switch to a branch first: git -C {self.root} "
                "switch <branch>"
            )
        return None

    def init(self) -> None:
        self.run(["init", "-q"])

    def enclosing(self) -> tuple[str, bool] | None:
        """For a folder without a ``.git`` of its own: the repository it lies in, as
        (its top folder, or the folder itself if it is a bare repository; whether it
        is bare), or None when it lies in none."""
        bare = self.run(["rev-parse", "--is-bare-repository"], check=False)
        if bare.returncode != 0:
            return None
        if bare.stdout.strip() == "true":
            return str(self.root), True
        top = self.run(["rev-parse", "--show-toplevel"], check=False).stdout.strip()
        return top or str(self.root), False

    def tracks_files(self) -> bool:
        """Whether the repository the root lies in tracks any file under the root."""
        result = self.run(["ls-files", "-z", "--", "."], check=False)
        return result.returncode == 0 and bool(result.stdout)

    def head(self) -> str | None:
        """The commit HEAD names: from git's files when they are the plain kind (no
        process to start), else from git."""
        found = read_head(self.git_dir())
        if found is not None:
            return found
        result = self.run(["rev-parse", "-q", "--verify", "HEAD"], check=False)
        return result.stdout.strip() or None

    # -------------------------------------------------------------- what changed

    def status(self, paths: Sequence[str]) -> tuple[str | None, set[str]] | None:
        """(HEAD, tracked paths whose index or work-tree version differs from HEAD), or
        None if git cannot tell. Untracked files are not listed; no lock is taken, so a
        reader never gets in a writer's way. A status started by ``prefetch_status``
        for the same question is waited for instead of asking again."""
        started = PREFETCHED.take(status_key(self.root, paths))
        if started is not None:
            out, _ = started.communicate()
            code, text = started.returncode, out.decode("utf-8", "replace")
        else:
            result = self.run(_status_args(paths), check=False)
            code, text = result.returncode, result.stdout
        if code != 0:
            return None
        head: str | None = None
        dirty: set[str] = set()
        for record in text.split("\0"):
            if record.startswith("# branch.oid "):
                oid = record.split(" ", 2)[2]
                head = None if oid == "(initial)" else oid
            elif record[:2] in ("1 ", "u "):
                dirty.add(record.split(" ", 8 if record[0] == "1" else 10)[-1])
        return head, dirty

    def pending(self, paths: Sequence[str]) -> dict[str, str]:
        """Those of ``paths`` whose index or working tree differs from HEAD, untracked ones
        too: path → ``modified``, ``added`` (new to HEAD), ``untracked`` or ``unmerged``."""
        if not paths:
            return {}
        listed = (
            list(paths) if len(paths) <= ARGV_BATCH else sorted({p.split("/")[0] for p in paths})
        )
        args = _status_args(listed)
        args[args.index("--untracked-files=no")] = "--untracked-files=all"
        text = self.run(args).stdout
        wanted = set(paths)
        found: dict[str, str] = {}
        for record in text.split("\0"):
            kind = {"1": "modified", "u": "unmerged", "?": "untracked"}.get(record[:1])
            if kind is None or record[1:2] != " ":
                continue
            fields = 8 if kind == "modified" else 10 if kind == "unmerged" else 1
            path = record.split(" ", fields)[-1]
            if path in wanted:
                found[path] = "added" if kind == "modified" and record[2] == "A" else kind
        return found

    def changed_between(self, old: str, new: str, paths: Sequence[str]) -> set[str] | None:
        """Paths that differ between two commits, or None if git cannot tell."""
        result = self.run(
            ["diff", "--name-only", "-z", "--no-renames", old, new, "--", *paths], check=False
        )
        if result.returncode != 0:
            return None
        return {path for path in result.stdout.split("\0") if path}

    def untracked(self, paths: Sequence[str]) -> set[str]:
        """Files git does not track, ignored ones included."""
        result = self.run(["ls-files", "--others", "-z", "--", *paths])
        return {path for path in result.stdout.split("\0") if path}

    def commit_time(self, commit: str) -> datetime:
        stamp = self.run(["show", "-s", "--format=%ct", commit]).stdout.strip()
        return datetime.fromtimestamp(int(stamp), tz=UTC)

    def head_and_time(self, remembered: Path | None = None) -> tuple[str, datetime] | None:
        """HEAD's commit and its time; None before the first commit.

        ``render`` asks this at every session start. HEAD is read from the repository's
        own files when they are the plain kind (a ``.git`` folder, a loose or packed
        ref), and the commit's time is kept in the file ``remembered`` by commit, so a
        session start runs no git at all; anything unusual (a worktree, reftable, a
        damaged file) asks git, which always knows."""
        commit = read_head(self.root / ".git")
        kept = remembered_time(remembered, commit) if commit and remembered else None
        if commit and kept is not None:
            return commit, kept
        result = self.run(["log", "-1", "--format=%H %ct", "HEAD"], check=False)
        found = result.stdout.split()
        if result.returncode != 0 or len(found) != 2:
            return None
        moment = datetime.fromtimestamp(int(found[1]), tz=UTC)
        if remembered is not None:
            remember_time(remembered, found[0], int(found[1]))
        return found[0], moment

    def ensure_identity(self) -> None:
        """Fall back to ``chitin`` (or the agent's name) when git has no identity."""
        env = self._environment()
        if self.date is not None:
            env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = self.date
        if "GIT_AUTHOR_NAME" in env and "GIT_AUTHOR_EMAIL" in env:
            return
        from chitin.store import git_identity

        keys = git_identity.configured(self.root, self.git_dir(), env, self._identity_keys)
        name = git_identity.author_name(self.agent, FALLBACK_NAME)
        for role in ("AUTHOR", "COMMITTER"):
            if "user.name" not in keys:
                env.setdefault(f"GIT_{role}_NAME", name)
            if "user.email" not in keys:
                env.setdefault(
                    f"GIT_{role}_EMAIL", f"{git_identity.email_local(name)}@chitin.invalid"
                )

    def _identity_keys(self) -> set[str]:
        found = self.run(["config", "--get-regexp", r"^user\.(name|email)$"], check=False)
        return {line.split(" ", 1)[0] for line in found.stdout.splitlines()}

    def cat_blobs(self, shas: Iterable[str]) -> dict[str, bytes]:
        """Read many blobs through one ``git cat-file --batch`` process."""
        wanted = sorted({s for s in shas if s and set(s) != {"0"}})
        if not wanted:
            return {}
        result = self.run(
            ["cat-file", "--batch"], input=("\n".join(wanted) + "\n").encode(), text=False
        )
        return _parse_batch(result.stdout)


def _parse_batch(data: bytes | str) -> dict[str, bytes]:
    assert isinstance(data, bytes)
    blobs: dict[str, bytes] = {}
    position = 0
    while position < len(data):
        header_end = data.index(b"\n", position)
        header = data[position:header_end].decode().split()
        position = header_end + 1
        if len(header) < 3 or header[1] == "missing":
            continue
        size = int(header[2])
        blobs[header[0]] = data[position : position + size]
        position += size + 1
    return blobs
