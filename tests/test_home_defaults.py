"""Defaults under the home folder with no home (fix80): ``Path.home()`` made an empty
HOME ``/``, so the Carapace key went to /.config/carapace, `reflect` read and cleared
/.config/chitin/pending-reflection.json and `check` read /.claude. A default that is
needed is refused in one line naming the option (or variable) that supplies the path;
one only looked at (1.4.5's queue, 1.x's database for a hint) is none."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import chitin_program


def _env(home: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("HOME", "XDG_DATA_HOME")}
    return env if home is None else {**env, "HOME": home}


def _chitin(
    tmp_path: Path, home: str | None, *args: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    store = ["--store", str(tmp_path / "s")]
    return subprocess.run([chitin_program(), *store, *args], capture_output=True, text=True,
                          env=_env(home), cwd=cwd or tmp_path, check=False)  # fmt: skip


@pytest.fixture
def store(tmp_path: Path) -> Path:
    done = _chitin(tmp_path, str(tmp_path / "home"), "init")
    assert done.returncode == 0, done.stderr
    return tmp_path / "s"


@pytest.mark.parametrize("home", ["", None], ids=["empty", "unset"])
@pytest.mark.parametrize(
    ("args", "supplied_by"),
    [
        (["carapace-register", "--name", "agent"], "--carapace-config"),
        (["carapace-query", "what helps"], "--carapace-config"),
        (["promote", "x"], "--carapace-config"),
        (["check"], "set HOME"),
    ],
)
def test_a_default_under_the_home_needs_a_home(
    tmp_path: Path, store: Path, home: str | None, args: list[str], supplied_by: str
) -> None:
    done = _chitin(tmp_path, home, *args)
    assert done.returncode == 1, done.stderr
    said = done.stderr.strip().splitlines()
    assert len(said) == 1 and said[0].startswith("Error: HOME is not set: "), said
    assert supplied_by in said[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gitconfig", "home", "s"]


def test_reflect_needs_no_home(tmp_path: Path, store: Path) -> None:
    """Without a home there is no 1.4.5 queue to read (it was /.config/chitin's); a
    ready `reflect --done` runs in the agent's shell, which may have no HOME."""
    for args in (["reflect"], ["reflect", "--clear"], ["reflect", "--format", "json"]):
        done = _chitin(tmp_path, "", *args)
        assert done.returncode == 0 and done.stderr == "", done.stderr
    queue = tmp_path / "home" / "queue.json"
    done = _chitin(tmp_path, "", "reflect", "--pending-path", str(queue))
    assert done.returncode == 0, done.stderr
    listed = _chitin(tmp_path, "", "list")  # no 1.x hint to give, and no refusal
    assert listed.returncode == 0 and listed.stderr == "", listed.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["carapace-query", "what helps", "--carapace-config", "~/credentials.json"],
        ["list"],  # with --store ~/s, below
    ],
)
def test_a_leading_tilde_needs_a_home(tmp_path: Path, store: Path, args: list[str]) -> None:
    named = ["--store", "~/s" if args == ["list"] else str(store)]
    done = subprocess.run([chitin_program(), *named, *args], capture_output=True, text=True,
                          env=_env(""), cwd=tmp_path, check=False)  # fmt: skip
    # A path option refuses it as its value (a usage error, GivenPath); --store, as the
    # store it cannot find.
    assert done.returncode == (1 if args == ["list"] else 2), done.stderr
    said = done.stderr.strip().splitlines()
    assert len(said) == 1 and "cannot start with ~" in said[0], said
    assert "absolute path" in said[0]
