"""A commit's git processes (store/git_identity.py, git_commit.maintain, git_index.py):
the identity is asked once while git's configuration files stay as they were, git's
auto maintenance runs where it may have work, not after every commit, and what else is
staged is asked only when the index is no longer as chitin's last commit left it. Every process git
runs is read from GIT_TRACE."""

from __future__ import annotations

import hashlib
import os
import zlib
from pathlib import Path
from typing import Any

import pytest
from conftest import Run, git


@pytest.fixture()
def trace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    log = tmp_path / "git-trace.log"
    monkeypatch.setenv("GIT_TRACE", str(log))
    return log


def ran(trace: Path, command: str) -> int:
    """How many git processes ran ``command`` (git's own children included)."""
    if not trace.exists():
        return 0
    lines = trace.read_text(errors="replace").splitlines()
    trace.unlink()
    return sum(f"built-in: git {command}" in line for line in lines)


def test_the_identity_is_asked_once_until_the_configuration_changes(
    run: Run, add: Any, store: Path, trace: Path
) -> None:
    add("skill", "Reproduce a bug before fixing it")  # makes the store (and .chitin/)
    add("skill", "Ask for the original mockup first")
    ran(trace, "config")
    add("skill", "Keep release notes short")
    assert ran(trace, "config --get-regexp") == 0  # remembered
    assert git(store, "log", "-1", "--format=%an <%ae>") == "chitin <chitin@chitin.invalid>\n"
    config = Path(os.environ["GIT_CONFIG_GLOBAL"])
    config.write_text(config.read_text() + "[user]\n\tname = Dana\n\temail = dana@example.org\n")
    add("skill", "Write migrations that can be rolled back")
    assert ran(trace, "config --get-regexp") == 1  # the file changed: asked again
    assert git(store, "log", "-1", "--format=%an <%ae>") == "Dana <dana@example.org>\n"


def test_a_configuration_that_includes_others_is_asked_every_time(
    add: Any, store: Path, trace: Path, tmp_path: Path
) -> None:
    included = tmp_path / "identity.gitconfig"
    included.write_text("[user]\n\tname = Lee\n\temail = lee@example.org\n")
    config = Path(os.environ["GIT_CONFIG_GLOBAL"])
    config.write_text(config.read_text() + f"[include]\n\tpath = {included}\n")
    add("skill", "Reproduce a bug before fixing it")
    ran(trace, "config")
    included.write_text("[user]\n\tname = Kim\n\temail = kim@example.org\n")
    add("skill", "Keep release notes short")
    assert ran(trace, "config --get-regexp") == 1
    assert git(store, "log", "-1", "--format=%an") == "Kim\n"


def test_no_maintenance_after_a_commit_of_a_tidy_store(add: Any, store: Path, trace: Path) -> None:
    add("skill", "Reproduce a bug before fixing it")
    ran(trace, "maintenance")
    add("skill", "Keep release notes short")
    head = git(store, "rev-parse", "HEAD").strip()
    assert ran(trace, "maintenance") == (1 if head.startswith("00") else 0)


def test_maintenance_runs_where_loose_objects_pile_up(add: Any, store: Path, trace: Path) -> None:
    add("skill", "Reproduce a bug before fixing it")
    _loose_objects_in_17(store, 40)
    ran(trace, "maintenance")
    add("skill", "Keep release notes short")
    assert ran(trace, "maintenance run --auto") == 1


def test_the_staged_check_is_skipped_while_the_index_is_as_chitin_left_it(
    add: Any, store: Path, trace: Path
) -> None:
    add("skill", "Reproduce a bug before fixing it")
    add("skill", "Ask for the original mockup first")  # the first commit had no HEAD
    ran(trace, "diff")
    add("skill", "Keep release notes short")
    assert ran(trace, "diff --cached") == 0  # the index holds HEAD's tree: nothing staged
    (store / "notes.txt").write_text("my notes")
    git(store, "add", "notes.txt")
    add("skill", "Write migrations that can be rolled back")
    assert ran(trace, "diff --cached") == 1  # the index changed: asked again
    assert "notes.txt" not in git(store, "show", "--name-only", "--format=", "HEAD")
    assert git(store, "diff", "--cached", "--name-only") == "notes.txt\n"


def test_a_head_moved_without_the_index_is_asked_about(add: Any, store: Path) -> None:
    add("skill", "Reproduce a bug before fixing it")
    add("skill", "Ask for the original mockup first")
    git(store, "reset", "-q", "--soft", "HEAD~1")  # the mockup's file is staged now
    staged = git(store, "diff", "--cached", "--name-only")
    add("skill", "Keep release notes short")
    assert git(store, "show", "--name-only", "--format=", "HEAD").count("\n") == 1
    assert git(store, "diff", "--cached", "--name-only") == staged


def test_what_a_post_commit_hook_stages_stays_out_of_the_next_commit(add: Any, store: Path) -> None:
    add("skill", "Reproduce a bug before fixing it")
    hook = store / ".git" / "hooks" / "post-commit"
    hook.write_text("#!/bin/sh\necho hook >> hooked.txt\ngit add hooked.txt\n")
    hook.chmod(0o755)
    add("skill", "Ask for the original mockup first")
    hook.unlink()
    add("skill", "Keep release notes short")
    assert "hooked.txt" not in git(store, "show", "--name-only", "--format=", "HEAD")
    assert git(store, "diff", "--cached", "--name-only") == "hooked.txt\n"


def test_a_checkout_that_carries_a_staged_file_is_asked_about(
    add: Any, store: Path, trace: Path
) -> None:
    add("skill", "Reproduce a bug before fixing it")
    add("skill", "Ask for the original mockup first")
    add("skill", "Keep release notes short")
    git(store, "branch", "older", "HEAD~1")
    (store / "notes.txt").write_text("my notes")
    git(store, "add", "notes.txt")
    git(store, "checkout", "-q", "older")  # the staged file comes along
    ran(trace, "diff")
    add("skill", "Write migrations that can be rolled back")
    assert ran(trace, "diff --cached") == 1
    assert git(store, "show", "--name-only", "--format=", "HEAD").count("\n") == 1
    assert git(store, "diff", "--cached", "--name-only") == "notes.txt\n"


def test_after_an_amend_chitin_asks_once_then_trusts_its_own_commit_again(
    add: Any, store: Path, trace: Path
) -> None:
    add("skill", "Reproduce a bug before fixing it")
    add("skill", "Ask for the original mockup first")
    (store / "notes.txt").write_text("my notes")
    git(store, "add", "notes.txt")
    person = ["-c", "user.name=Dana", "-c", "user.email=dana@example.org"]
    git(store, *person, "commit", "-q", "--amend", "--no-edit")  # HEAD moved, nothing staged
    ran(trace, "diff")
    add("skill", "Keep release notes short")
    assert ran(trace, "diff --cached") == 1
    add("skill", "Write migrations that can be rolled back")
    assert ran(trace, "diff --cached") == 0
    assert git(store, "show", "--name-only", "--format=", "HEAD").count("\n") == 1
    assert git(store, "status", "--porcelain") == ""


def _loose_objects_in_17(store: Path, count: int) -> Path:
    """Write loose blobs until objects/17 (git's sample of loose objects) holds
    ``count``, as a store that was never packed would."""
    sample = store / ".git" / "objects" / "17"
    n = 0
    while not sample.is_dir() or len(os.listdir(sample)) < count:
        body = f"loose blob {n}\n".encode()
        raw = b"blob %d\0" % len(body) + body
        digest = hashlib.sha1(raw).hexdigest()
        n += 1
        if not digest.startswith("17"):
            continue
        target = store / ".git" / "objects" / digest[:2] / digest[2:]
        target.parent.mkdir(exist_ok=True)
        target.write_bytes(zlib.compress(raw))
    return sample
