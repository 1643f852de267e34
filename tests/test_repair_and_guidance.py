"""Issue 11, items 7, 13, 14 and 16: every damage of .chitin/ is repaired, a read-only
store is read, --output writes only regular files, and what goes wrong is said plainly
(a chitin 1.x database nearby, git's safe.directory refusal, a store path that is a file,
an internal error)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Run

QUERY = "fix the failing test before the release"
AS_ROOT = os.geteuid() == 0


@pytest.fixture(scope="module")
def populated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A seeded store whose .chitin/ holds the cache, the usage file and the vectors."""
    from click.testing import CliRunner

    from chitin.cli import cli

    root = tmp_path_factory.mktemp("populated") / "store"
    for step in (["init", "--seed"], ["retrieve", "--query", QUERY], ["list"]):
        result = CliRunner().invoke(cli, ["--store", str(root), *step])
        assert result.exit_code == 0, result.output
    for name in ("cache.sqlite3", "usage.sqlite3", "vectors/index.sqlite3"):
        assert (root / ".chitin" / name).is_file(), name
    return root


@pytest.fixture
def seeded(populated: Path, store: Path) -> Path:
    shutil.copytree(populated, store, symlinks=True)
    return store


def live_ids(run: Run) -> list[str]:
    return sorted(i["id"] for i in json.loads(run("list", "--format", "json").stdout))


def warnings_of(*results: Any) -> list[str]:
    return [line for result in results for line in result.stderr.splitlines() if line]


def sql(path: Path, *statements: str) -> None:
    connection = sqlite3.connect(path)
    try:
        for statement in statements:
            connection.execute(statement)
        connection.commit()
    finally:
        connection.close()


def schema_objects(path: Path) -> list[tuple[str, str, int]]:
    """(type, name, root page) of every table and index chitin made in ``path``."""
    connection = sqlite3.connect(path)
    try:
        rows = connection.execute(
            "SELECT type, name, rootpage FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
        ).fetchall()
    finally:
        connection.close()
    return [(kind, name, int(page or 0)) for kind, name, page in rows]


# The commands a damaged cache must not stop: reads of every kind, and writes.
def use_every_way(run: Run) -> list[Any]:
    return [
        run("list", "--format", "json"),
        run("stats"),
        run("get", "ask-one"),
        run("retrieve", "--query", QUERY, "--format", "json"),
        run("similar", "Ask one focused question when a request is ambiguous"),
        run("contribute", "--type", "skill", "--claim", "Name the page", "--confidence", "0.6"),
        run("reinforce", "ask-one"),
    ]  # fmt: skip


# ------------------------------------------------------------------ unexpected errors


def failing(monkeypatch: pytest.MonkeyPatch, error: BaseException) -> None:
    from chitin import core

    def explode(*_: object, **__: object) -> None:
        raise error

    monkeypatch.setattr(core.Chitin, "stats", explode)


@pytest.mark.parametrize(
    "error, line",
    [
        (RuntimeError("disk on fire"), "internal error: RuntimeError: disk on fire"),
        (RecursionError("too deep"), "internal error: RecursionError: too deep"),
        (KeyError("id"), "internal error: KeyError: 'id'"),
        (ValueError(), "internal error: ValueError"),
    ],
    ids=["RuntimeError", "RecursionError", "KeyError", "empty"],
)  # fmt: skip
def test_an_unexpected_error_is_an_internal_error_exit_3(
    run: Run, seeded: Path, monkeypatch: pytest.MonkeyPatch, error: Exception, line: str
) -> None:
    failing(monkeypatch, error)
    result = run("stats", expect=3)
    assert result.stderr == f"Error: {line} (run again with --debug for the traceback)\n"
    debug = run("--debug", "stats", expect=1)  # the exception itself, for the traceback
    assert debug.exception is error


def test_an_internal_error_never_names_chitins_temporary_files(
    run: Run, seeded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = seeded / "insights" / "skill" / ".chitin-k2j4x9.tmp"
    failing(monkeypatch, FileNotFoundError(2, "No such file or directory", str(scratch)))
    result = run("stats", expect=3)
    assert ".chitin-k2j4x9" not in result.stderr
    assert result.stderr == (
        f"Error: internal error: FileNotFoundError: [Errno 2] No such file or directory: "
        f"'{seeded}/insights/skill/' (run again with --debug for the traceback)\n"
    )
    failing(monkeypatch, OSError("cannot merge in /tmp/chitin-merge-x1y2/ours.md: gone"))
    merged = run("stats", expect=3)
    assert "chitin-merge-x1y2" not in merged.stderr and "a temporary folder" in merged.stderr


@pytest.mark.parametrize(
    "errno, said",
    [
        (13, "permission denied: {folder}/ (check its owner and permissions)"),
        (28, "no space left on device: {folder}/ (free some space and run the command again)"),
        (30, "read-only file system: {folder}/ (the store must be on a writable file system)"),
    ],
    ids=["EACCES", "ENOSPC", "EROFS"],
)  # fmt: skip
def test_a_plain_os_error_names_the_path_and_exits_1(
    run: Run, seeded: Path, monkeypatch: pytest.MonkeyPatch, errno: int, said: str
) -> None:
    folder = seeded / "insights" / "skill"
    error = OSError(errno, os.strerror(errno), str(folder / ".chitin-abcd1234.tmp"))
    failing(monkeypatch, error)
    result = run("stats", expect=1)
    assert result.stderr == f"Error: {said.format(folder=folder)}\n"


def test_a_hook_says_the_same_line(run: Run, seeded: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from chitin.core import personality

    def explode(*_: object, **__: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(personality, "render_personality", explode)
    result = run("hooks", "run", "claude-code", "session-start", input="{}")
    assert result.stdout == ""
    assert result.stderr == (
        "chitin: the session-start hook did nothing: internal error: RuntimeError: disk on fire\n"
    )


def test_the_old_generic_message_is_gone() -> None:
    """One function says every front end's errors (the CLI's and the hooks')."""
    source = (Path(__file__).parents[1] / "chitin" / "cli").rglob("*.py")
    assert not [p for p in source if "unexpected {type(error)" in p.read_text()]
