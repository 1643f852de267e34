"""The one place that runs git. Argument lists only, a scrubbed environment, and an
identity that works on a machine where nobody ever configured one."""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chitin.errors import GitError
from chitin.process import PREFETCHED, status_key

if TYPE_CHECKING:  # loaded when git first runs: a small store's reads never start it
    import subprocess

# Variables that would point git at some other repository or index than the store's.
_SCRUBBED = (
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
_ARGV_BATCH = 1000


def _argv(root: Path, args: Sequence[str]) -> list[str]:
    return ["git", "-C", str(root), "-c", "core.quotepath=off", *args]


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED}
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


# ------------------------------------------------------------------ HEAD, from git's files

_OID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def read_head(git_dir: Path) -> str | None:
    """The commit HEAD names, read from a plain ``.git`` folder: HEAD itself (detached),
    or the loose or packed ref it points to. None whenever that is not plainly so."""
    try:
        head = (git_dir / "HEAD").read_text(encoding="ascii").strip()
        if not head.startswith("ref: "):
            return head if _OID.fullmatch(head) else None
        ref = head[5:]
        if not ref.startswith("refs/") or ".." in ref:
            return None
        loose = git_dir / ref
        if loose.is_file():
            found = loose.read_text(encoding="ascii").strip()
            return found if _OID.fullmatch(found) else None
        for line in (git_dir / "packed-refs").read_text(encoding="ascii").splitlines():
            oid, _, name = line.partition(" ")
            if name == ref and _OID.fullmatch(oid):
                return oid
    except (OSError, UnicodeDecodeError):
        return None
    return None


def _remembered_time(path: Path, commit: str) -> datetime | None:
    try:
        kept, stamp = path.read_text(encoding="ascii").split()
        return datetime.fromtimestamp(int(stamp), tz=UTC) if kept == commit else None
    except (OSError, ValueError, UnicodeDecodeError, OverflowError):
        return None


def _remember_time(path: Path, commit: str, stamp: int) -> None:
    """Keep the commit's time for the next session start (a lost write costs one git)."""
    if not path.parent.is_dir():
        return
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(f"{commit} {stamp}\n", encoding="ascii")
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink()


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
        import subprocess

        try:
            result = subprocess.run(
                _argv(self.root, args),
                input=input,
                capture_output=True,
                text=text,
                env=self._environment(),
                check=False,
                pass_fds=() if holding is None else (holding,),
            )
        except FileNotFoundError:
            raise GitError("git is not installed or not on PATH; chitin stores need git") from None
        if result.returncode != 0 and (check or _DUBIOUS in _said(result)):
            if _NOT_INSIDE in _said(result) and args[:1] != ["rev-parse"]:
                self.run(["rev-parse", "--git-dir"], check=False)  # raises if it is ownership
            raise GitError(_explain(args, result))  # refused ownership: never "no history"
        return result

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
        """Those of ``paths`` whose index or working-tree version differs from HEAD's,
        untracked ones included: path → ``modified``, ``untracked`` or ``unmerged``."""
        if not paths:
            return {}
        listed = (
            list(paths) if len(paths) <= _ARGV_BATCH else sorted({p.split("/")[0] for p in paths})
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
                found[path] = kind
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
        kept = _remembered_time(remembered, commit) if commit and remembered else None
        if commit and kept is not None:
            return commit, kept
        result = self.run(["log", "-1", "--format=%H %ct", "HEAD"], check=False)
        found = result.stdout.split()
        if result.returncode != 0 or len(found) != 2:
            return None
        moment = datetime.fromtimestamp(int(found[1]), tz=UTC)
        if remembered is not None:
            _remember_time(remembered, found[0], int(found[1]))
        return found[0], moment

    def commit(
        self,
        paths: Iterable[str],
        message: str,
        bulk: bool = False,
        before_commit: Callable[[], None] | None = None,
    ) -> str | None:
        """Commit exactly ``paths`` (relative to the root) with ``message``.

        Other changes a person has staged stay staged and out of this commit.
        Returns the new commit id, or None when the paths hold no change. ``bulk``
        (hundreds of files) writes their objects into one pack instead of a loose
        file each: 0.9 s rather than 4 s for 10,000 files. ``before_commit`` runs
        after staging, last before the commit: an exception there (an interruption)
        stops it.

        If anything fails on the way (a pre-commit hook, gpg signing, an
        interruption), the paths are unstaged again: the index holds HEAD's version of
        them, as before, so that nobody's next ``git commit`` takes chitin's change.
        """
        paths = sorted(set(paths))
        present = [p for p in paths if (self.root / p).exists()]
        gone = [p for p in paths if p not in present]
        if gone:  # a removal is staged only for a file git knows
            present.extend(self._tracked(gone))
        if not present:
            return None
        before = self.head()
        kept = self.keep_index()
        try:
            return self._stage_and_commit(present, message, bulk, before_commit)
        except GitError:
            made = self._made_since(before)
            if made is not None:
                return made
            self.put_back(present, kept)
            raise
        except BaseException:
            self.put_back(present, kept)
            raise
        finally:
            if kept is not None:
                kept.unlink(missing_ok=True)

    def _stage_and_commit(
        self,
        present: list[str],
        message: str,
        bulk: bool,
        before_commit: Callable[[], None] | None,
    ) -> str | None:
        # Exact paths through stdin: an import may name more than fits in argv, and
        # `git add` would match each as a pathspec against every file (6 s for 10,000).
        packed = ["-c", "core.bigFileThreshold=1"] if bulk else []
        self.run(
            [*packed, "update-index", "--add", "--remove", "-z", "--stdin"],
            input="\0".join(present),
        )
        self.ensure_identity()
        if before_commit is not None:
            before_commit()
        # `git commit -- paths` builds a temporary index: 350 ms at 100,000 files
        # against 150 ms for a plain commit of the index. The plain commit is right
        # only when nothing but our paths is staged, which one comparison tells.
        if self._other_changes_staged(present):
            return self._commit_only(present, message)
        return self._commit_index(["commit", "-q", "--no-edit", "-F", "-"], message)

    def keep_index(self) -> Path | None:
        """A second name for the index as it is before staging: putting it back is then
        a rename, which needs no free space, where `git reset` writes a whole new index
        (on a full disk it fails, and the change stayed staged). None where the file
        system will not link it (``unstage`` is used then)."""
        index = self.git_dir() / "index"
        kept = self.git_dir() / f"chitin-index-{os.getpid()}"
        try:
            kept.unlink(missing_ok=True)
            os.link(index, kept)
        except OSError:
            return None
        return kept

    def put_back(self, paths: Sequence[str], kept: Path | None) -> None:
        """Unstage ``paths`` after a failed commit: the index as it was before."""
        if kept is not None:
            try:
                os.replace(kept, self.git_dir() / "index")
                return
            except OSError:
                pass
        self.unstage(paths)

    def _made_since(self, before: str | None) -> str | None:
        """The commit that a failed ``git commit`` made all the same, if it did: git
        killed (Ctrl-C reaches it too) or failing after it moved HEAD. We hold the
        store's lock, so a new HEAD whose parent is ``before`` is that commit."""
        after = self.head()
        if after is None or after == before:
            return None
        parent = self.run(["rev-parse", "-q", "--verify", f"{after}^"], check=False)
        return after if parent.stdout.strip() == (before or "") else None

    def unstage(self, paths: Sequence[str]) -> None:
        """Put HEAD's version of ``paths`` back in the index (none, for a path HEAD
        lacks). The working tree is left alone."""
        if not paths:
            return
        with self._path_list(paths) as listing:
            spec = [f"--pathspec-from-file={listing}", "--pathspec-file-nul"]
            if self.head() is None:
                self.run(["rm", "-q", "--cached", "--ignore-unmatch", *spec], check=False)
            else:
                self.run(["reset", "-q", "HEAD", *spec], check=False)

    def restore_from_head(self, paths: Sequence[str]) -> None:
        """Make the index and the working tree hold HEAD's version of ``paths``: a
        path HEAD lacks is removed from both. For a write interrupted by kill -9."""
        head = self.head()
        known = set(self._tracked_in(head, list(paths))) if head else set()
        for path in paths:  # first: on a full disk, what they free lets the rest work
            if path not in known:
                with contextlib.suppress(FileNotFoundError, IsADirectoryError):
                    (self.root / path).unlink()
        self.unstage(paths)
        if known:
            with self._path_list(sorted(known)) as listing:
                self.run(
                    [
                        "checkout",
                        "-q",
                        "HEAD",
                        f"--pathspec-from-file={listing}",
                        "--pathspec-file-nul",
                    ]
                )

    def _tracked_in(self, commit: str, paths: list[str]) -> list[str]:
        found: list[str] = []
        for start in range(0, len(paths), _ARGV_BATCH):
            batch = paths[start : start + _ARGV_BATCH]
            listed = self.run(["ls-tree", "-r", "-z", "--name-only", commit, "--", *batch])
            found.extend(p for p in listed.stdout.split("\0") if p)
        return found

    @contextlib.contextmanager
    def _path_list(self, paths: Sequence[str]) -> Iterator[Path]:
        """A NUL-separated list of ``paths`` in a file of the repository's own folder,
        for the commands whose stdin is taken (or that read pathspecs only so)."""
        listing = self.git_dir() / f"chitin-pathspec-{os.getpid()}"
        try:
            listing.write_text("\0".join(paths), encoding="utf-8")
            yield listing
        finally:
            listing.unlink(missing_ok=True)

    def _commit_only(self, paths: list[str], message: str) -> str | None:
        """Commit just ``paths``, leaving what else is staged staged. The message takes
        stdin, so the paths go through a file."""
        with self._path_list(paths) as listing:
            args = [
                "commit",
                "-q",
                "--no-edit",
                "-F",
                "-",
                "--only",
                f"--pathspec-from-file={listing}",
            ]
            return self._commit_index([*args, "--pathspec-file-nul"], message)

    def _commit_index(self, args: list[str], message: str) -> str | None:
        result = self.run(args, input=message, check=False)
        if result.returncode != 0:
            if "no changes added" in result.stdout or "nothing to commit" in result.stdout:
                return None
            raise GitError(_explain(["commit"], result))
        return self.head()

    def _tracked(self, paths: list[str]) -> list[str]:
        found: list[str] = []
        for start in range(0, len(paths), _ARGV_BATCH):
            listed = self.run(["ls-files", "-z", "--", *paths[start : start + _ARGV_BATCH]])
            found.extend(p for p in listed.stdout.split("\0") if p)
        return found

    def _other_changes_staged(self, paths: list[str]) -> bool:
        if self.head() is None:
            return True  # first commit: let `--only` sort it out
        staged = self.run(["diff", "--cached", "--name-only", "-z", "--no-renames", "HEAD"])
        ours = set(paths)
        return any(path and path not in ours for path in staged.stdout.split("\0"))

    def ensure_identity(self) -> None:
        """Fall back to ``chitin`` (or the agent's name) when git has no identity."""
        env = self._environment()
        if "GIT_AUTHOR_NAME" in env and "GIT_AUTHOR_EMAIL" in env:
            return
        configured = self.run(
            ["config", "--get-regexp", r"^user\.(name|email)$"], check=False
        ).stdout
        keys = {line.split(" ", 1)[0] for line in configured.splitlines()}
        name = self.agent or FALLBACK_NAME
        for role in ("AUTHOR", "COMMITTER"):
            if "user.name" not in keys:
                env.setdefault(f"GIT_{role}_NAME", name)
            if "user.email" not in keys:
                env.setdefault(f"GIT_{role}_EMAIL", f"{_email_local(name)}@chitin.invalid")

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


def _email_local(name: str) -> str:
    local = "".join(ch if ch.isalnum() or ch in "._-" else "-" for ch in name.lower())
    return local.strip("-.") or FALLBACK_NAME


# git (2.35.2 on) refuses a repository owned by another user, unless safe.directory
# names it: every command fails, which must not read as "no history" or "no repository".
# (`git config --local` says only that it is not inside a repository.)
_DUBIOUS = "detected dubious ownership in repository at '"
_NOT_INSIDE = "can only be used inside a git repository"


def _said(result: subprocess.CompletedProcess[Any]) -> str:
    said = result.stderr or ""
    return said.decode("utf-8", "replace") if isinstance(said, bytes) else str(said)


_LOCKED = re.compile(r"Unable to create '(?P<path>[^']+\.lock)': File exists")


def _explain(args: Sequence[str], result: subprocess.CompletedProcess[str]) -> str:
    output = (result.stderr or result.stdout or "").strip()
    if _DUBIOUS in _said(result):
        said = _said(result)
        where = said.split(_DUBIOUS, 1)[1].split("'", 1)[0]
        return (
            f"git refuses to work in {where}: the repository is owned by another user "
            f"(git's safe.directory check). If you trust it, run: "
            f"git config --global --add safe.directory {where}"
        )
    locked = _LOCKED.search(str(output))
    if locked:
        path = locked["path"]
        return (
            f"git's lock file {path} exists: another git command is running in this "
            f"repository, or one was killed there. If none is running, remove it "
            f"(rm '{path}') and try again"
        )
    lines = [line for line in str(output).splitlines() if line.strip()]
    reason = "; ".join(lines[-3:]) if lines else f"exit code {result.returncode}"
    return f"git {_command_name(args)} failed: {reason}"


def _command_name(args: Sequence[str]) -> str:
    """The git command in ``args``, past any ``-c key=value`` before it."""
    rest = list(args)
    while rest[:1] == ["-c"]:
        rest = rest[2:]
    return rest[0] if rest else ""


def merge_file(ours: str, base: str, theirs: str, labels: tuple[str, str, str]) -> tuple[str, int]:
    """git's line-based three-way merge of three texts: (result, number of conflicts).

    Conflicts are marked in the result as git marks them. No repository is needed.
    """
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(prefix="chitin-merge-") as folder:
        paths = []
        for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = Path(folder) / name
            path.write_text(text, encoding="utf-8")
            paths.append(str(path))
        label_args = [arg for label in labels for arg in ("-L", label)]
        try:
            result = subprocess.run(
                ["git", "merge-file", "-p", *label_args, *paths],
                capture_output=True,
                env={k: v for k, v in os.environ.items() if k not in _SCRUBBED},
                check=False,
            )
        except FileNotFoundError:
            raise GitError("git is not installed or not on PATH") from None
    if result.returncode < 0 or result.returncode > 127:
        raise GitError(f"git merge-file failed: {result.stderr.decode(errors='replace').strip()}")
    return result.stdout.decode("utf-8"), result.returncode
