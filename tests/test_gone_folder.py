"""A command run from a folder that was removed under it (a shell left standing in a
deleted build folder): a path relative to it names nothing. Each such path is refused
in one line, exit 1, front or no front; never a traceback or an "internal error"."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import pytest
from conftest import chitin_program


def from_gone_folder(
    tmp_path: Path, args: list[str], front: str
) -> subprocess.CompletedProcess[str]:
    gone = tmp_path / "gone"
    gone.mkdir()
    line = " ".join(shlex.quote(a) for a in [chitin_program(), *args])
    script = f"cd {shlex.quote(str(gone))} && rmdir {shlex.quote(str(gone))} && exec {line}"
    env = {**os.environ, "CHITIN_FRONT": front}
    return subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, env=env, timeout=120,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip


@pytest.mark.parametrize("front", ["0", "on"])
@pytest.mark.parametrize(
    "args",
    [["--store", "rel", "list"], ["--store", "rel", "contribute", "--type", "skill",
     "--claim", "x", "--confidence", "0.5"]],
    ids=["read", "write"],
)  # fmt: skip
def test_a_relative_store_from_a_removed_folder_is_one_line(
    tmp_path: Path, args: list[str], front: str
) -> None:
    """The console's look ahead for a reading command placed the store before the CLI
    began, and Path.absolute() raised FileNotFoundError there: a traceback."""
    done = from_gone_folder(tmp_path, args, front)
    assert done.returncode == 1, done.stderr
    assert done.stderr == (
        "Error: cannot find the store 'rel': the current folder no longer exists, and the "
        "path is relative to it; name the store by its absolute path\n"
    )


@pytest.mark.parametrize(
    "args",
    [["render", "--output", "P.md"], ["check", "insights/skill/x.md"],
     ["reflect", "--queue", "--session-key", "k", "--reason", "new", "--transcript", "t.jsonl"]],
    ids=["render-output", "check-file", "reflect-transcript"],
)  # fmt: skip
def test_a_relative_file_from_a_removed_folder_is_one_line(tmp_path: Path, args: list[str]) -> None:
    """os.getcwd()'s FileNotFoundError, met where a relative path is made absolute,
    was an "internal error" (exit 3)."""
    store = tmp_path / "store"
    subprocess.run(
        [chitin_program(), "--store", str(store), "init"], check=True, capture_output=True
    )
    done = from_gone_folder(tmp_path, ["--store", str(store), *args], "0")
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("Error: the current folder no longer exists") and (
        done.stderr.count("\n") == 1
    ), done.stderr
