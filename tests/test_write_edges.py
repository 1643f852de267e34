"""The edges of a write (issue 27, part B): a signal or a dying git right after the
commit, and a disk that fills up on the way. Either all of a write is kept and the
command exits 0, or none of it is, and nothing is left staged."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Run, commit_count, git

CONTRIBUTE = ("contribute", "--type", "skill", "--claim", "Pin the versions", "--confidence", "0.6")


@pytest.fixture
def seeded(run: Run, store: Path) -> Path:
    run("init", "--seed")
    return store


def status(store: Path) -> str:
    return git(store, "status", "--porcelain", "--untracked-files=all")


def chitin_process(store: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """chitin in a process group of its own, as a terminal starts it."""
    return subprocess.run(
        [sys.executable, "-m", "chitin", "--store", str(store), *args],
        capture_output=True,
        text=True,
        start_new_session=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("hook", "said"),
    [
        # Ctrl-C: the terminal signals the whole group, git's commit with chitin.
        ("kill -INT 0", "SIGINT arrived after the change was committed"),
        # git's commit dies by itself once HEAD has moved.
        ("kill -KILL $PPID", ""),
    ],
)
def test_git_dying_right_after_its_commit_keeps_the_write(
    seeded: Path, hook: str, said: str
) -> None:
    post_commit = seeded / ".git" / "hooks" / "post-commit"
    post_commit.write_text(f"#!/bin/sh\n{hook}\n")
    post_commit.chmod(0o755)
    before = commit_count(seeded)
    result = chitin_process(seeded, *CONTRIBUTE)
    post_commit.unlink()
    assert result.returncode == 0, result.stderr
    assert "nothing was changed" not in result.stderr and said in result.stderr
    assert commit_count(seeded) == before + 1
    assert status(seeded) == ""  # the new file is there, as committed
    assert "Pin the versions" in chitin_process(seeded, "list").stdout


# ------------------------------------------------------------------ a full disk


def _sqlite_full_error() -> Exception:
    """A real SQLITE_FULL error, as a cache on a full disk raises it."""
    import sqlite3

    db = sqlite3.connect(":memory:")
    db.execute("PRAGMA max_page_count = 2")
    db.execute("CREATE TABLE t (x)")
    try:
        db.executemany("INSERT INTO t VALUES (?)", [("x" * 4000,)] * 10)
    except sqlite3.OperationalError as error:
        return error
    raise AssertionError("SQLite took more pages than it may")


def test_a_cache_too_full_to_record_a_committed_write_still_exits_0(
    seeded: Path, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chitin.index.cache import Cache

    error = _sqlite_full_error()

    def full(*args: object, **options: object) -> None:
        raise error

    monkeypatch.setattr(Cache, "record", full)
    before = commit_count(seeded)
    result = run(*CONTRIBUTE)  # exit 0, or the run fixture fails
    assert commit_count(seeded) == before + 1
    assert "cannot be written (database or disk is full)" in result.stderr
    monkeypatch.undo()
    assert "Pin the versions" in run("list").stdout  # the next command catches up


def test_a_commit_failing_for_space_leaves_nothing_staged_even_if_git_cannot_unstage(
    seeded: Path, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a full disk `git commit` fails, and so does the `git reset` that unstaged
    chitin's change (it writes a whole new index): the index must come back anyway."""
    from chitin.store import git_commit

    hook = seeded / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'fatal: No space left on device' >&2\nexit 1\n")
    hook.chmod(0o755)
    monkeypatch.setattr(git_commit, "unstage", lambda git, paths: None)  # reset failed, silently
    before = commit_count(seeded)
    result = run(*CONTRIBUTE, expect=1)
    assert "No space left on device" in result.stderr
    assert commit_count(seeded) == before
    assert status(seeded) == ""
    assert not list((seeded / ".git").glob("chitin-*"))


ROOT_ONLY = "mounting a small tmpfs needs root; the injected tests above cover the same paths"


@pytest.mark.skipif(sys.platform != "linux", reason="tmpfs is Linux's")
def test_on_a_real_full_disk_every_write_is_all_or_nothing(seeded: Path, tmp_path: Path) -> None:
    import os
    import shutil

    if os.geteuid() != 0:
        pytest.skip(ROOT_ONLY)
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(disk)])
    if mounted.returncode != 0:
        pytest.skip("mount -t tmpfs failed here (a container without the capability)")
    try:
        for free_kb in (120, 96, 64, 48, 40, 32, 0):
            _write_with_free_space(seeded, disk, free_kb)
    finally:
        shutil.rmtree(disk / "store", ignore_errors=True)
        subprocess.run(["umount", str(disk)], check=False)


def _write_with_free_space(seeded: Path, disk: Path, free_kb: int) -> None:
    import os
    import shutil

    store, filler = disk / "store", disk / "filler"
    shutil.rmtree(store, ignore_errors=True)
    filler.unlink(missing_ok=True)
    shutil.copytree(seeded, store, symlinks=True)
    chitin_process(store, "list")
    left = os.statvfs(disk)
    with open(filler, "wb") as handle:
        handle.write(b"\0" * max(left.f_bavail * left.f_frsize - free_kb * 1024, 0))
    before = git(store, "rev-parse", "HEAD")
    result = chitin_process(store, *CONTRIBUTE)
    filler.unlink()  # what the write left is looked at with room to look
    committed = git(store, "rev-parse", "HEAD") != before
    assert committed == (result.returncode == 0), (free_kb, result.stderr)
    assert "Traceback" not in result.stderr and result.returncode in (0, 1), result.stderr
    assert status(store) == "", (free_kb, status(store))
    assert not list((store / ".git").glob("chitin-*")), free_kb


@pytest.mark.skipif(sys.platform != "linux", reason="tmpfs is Linux's")
def test_a_write_refused_by_a_full_disk_names_the_file_and_what_to_do(
    seeded: Path, tmp_path: Path
) -> None:
    """The journal and the insight file are written through Python's buffered files,
    whose ENOSPC carries no file name: the line said only "no space left on device"."""
    import os
    import shutil

    if os.geteuid() != 0:
        pytest.skip(ROOT_ONLY)
    disk = tmp_path / "disk"
    disk.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(disk)]).returncode:
        pytest.skip("mount -t tmpfs failed here (a container without the capability)")
    try:
        store = disk / "store"
        shutil.copytree(seeded, store, symlinks=True)
        chitin_process(store, "list")
        left = os.statvfs(disk)
        with open(disk / "filler", "wb") as handle:
            handle.write(b"\0" * (left.f_bavail * left.f_frsize))
        for command in (CONTRIBUTE, ("reinforce", "lead-with-the-answer")):
            result = chitin_process(store, *command)
            assert result.returncode == 1, result.stderr
            assert result.stderr.startswith(f"Error: no space left on device: {store}/")
            assert result.stderr.endswith("(free some space and run the command again)\n")
    finally:
        shutil.rmtree(disk / "store", ignore_errors=True)
        subprocess.run(["umount", str(disk)], check=False)


@pytest.mark.parametrize("kind", ["sqlite", "oserror"])
def test_an_import_whose_vectors_find_the_disk_full_still_exits_0(
    seeded: Path, run: Run, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, kind: str
) -> None:
    """The vectors an import makes after its commit are derived data: a full disk there
    (a real tmpfs gave SQLITE_FULL at ~80 KB free, ENOSPC at ~64 KB) is said, and the
    import, committed, exits 0 (it exited 3 or 1)."""
    import errno

    from chitin.index.vectors import VectorStore

    error = _sqlite_full_error() if kind == "sqlite" else OSError(errno.ENOSPC, "No space left")

    def full(*args: object, **options: object) -> None:
        raise error

    monkeypatch.setattr(VectorStore, "put", full)
    source = tmp_path / "two.json"
    source.write_text(
        '[{"type": "skill", "claim": "Cache the lookups", "confidence": 0.5},'
        ' {"type": "skill", "claim": "Log the retries", "confidence": 0.5}]'
    )
    before = commit_count(seeded)
    result = run("import", str(source))  # exit 0, or the run fixture fails
    assert commit_count(seeded) == before + 1
    assert "no vectors made" in result.stdout and "chitin embed" in result.stdout
    monkeypatch.undo()
    assert "Cache the lookups" in run("list").stdout


NEW_FILE = "insights/skill/pin-the-versions-ab12.md"
NEW_TEXT = "---\nid: pin-the-versions-ab12\n---\nPin the versions\n"


def test_what_runs_while_git_stages_finds_the_file_written_and_nothing_committed(
    seeded: Path,
) -> None:
    """A contribute judges its candidates while git stages its file (``meanwhile``):
    the file is written, not committed yet; the commit follows, of that file alone."""
    from chitin.store.repository import Store

    before = commit_count(seeded)
    seen: list[tuple[int, bool]] = []

    def meanwhile() -> None:
        seen.append((commit_count(seeded), (seeded / NEW_FILE).is_file()))

    made = Store(seeded).apply({NEW_FILE: NEW_TEXT}, "Add a skill", meanwhile=meanwhile)
    assert seen == [(before, True)]
    assert made is not None and commit_count(seeded) == before + 1
    assert git(seeded, "show", "--name-only", "--format=", "HEAD").split() == [NEW_FILE]
    assert status(seeded) == ""


def test_a_failure_while_git_stages_leaves_nothing_written_or_staged(seeded: Path) -> None:
    from chitin.store.repository import Store

    before = commit_count(seeded)

    def meanwhile() -> None:
        raise RuntimeError("the judgement failed")

    with pytest.raises(RuntimeError, match="the judgement failed"):
        Store(seeded).apply({NEW_FILE: NEW_TEXT}, "Add a skill", meanwhile=meanwhile)
    assert commit_count(seeded) == before
    assert not (seeded / NEW_FILE).exists() and status(seeded) == ""
    assert not (seeded / ".git" / "index.lock").exists()
