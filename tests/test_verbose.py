"""Issue 28, item 4: `chitin --verbose <command>` says on stderr which store the
command uses and why, in the words of `chitin where`, then runs the command; as every
global option, it may follow the command too."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from conftest import Run, chitin_program

from chitin.cli import cli

FOLDER = (
    "  the store this folder is in (a git repository with chitin's insights/ or .gitattributes)"
)


def chitin(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


@pytest.fixture
def clone(run: Run, store: Path) -> Path:
    run("init")
    run("contribute", "--type", "skill", "--claim", "Pin the versions", "--confidence", "0.8")
    return store


@pytest.mark.parametrize("before", [True, False], ids=["before", "after"])
def test_verbose_says_the_store_and_why_then_runs_the_command(
    clone: Path, monkeypatch: pytest.MonkeyPatch, before: bool
) -> None:
    monkeypatch.chdir(clone / "insights")
    args = ["--verbose", "list", "--format", "json"] if before else ["list", "--format",
                                                                   "json", "--verbose"]  # fmt: skip
    listed = chitin(*args)
    assert listed.exit_code == 0, listed.output
    assert listed.stderr.splitlines() == [str(clone), FOLDER]
    assert listed.stderr.splitlines() == chitin("where").stdout.splitlines()
    assert [i["claim"] for i in json.loads(listed.stdout)] == ["Pin the versions"]
    assert chitin("list", "--format", "json").stderr == ""  # only when asked


def test_verbose_names_the_store_a_later_store_option_chose(clone: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    said = chitin("--verbose", "stats", "--store", str(other)).stderr.splitlines()
    assert said[:3] == [str(other), "  named by --store",
                        "  no store there yet: `chitin init` makes one"]  # fmt: skip
    said = chitin("stats", "--store", str(other), "--verbose", "--store", str(clone)).stderr
    assert said.splitlines() == [str(clone), "  named by --store"]


def test_verbose_reaches_the_commands_of_a_group_and_is_silent_on_a_usage_error(
    clone: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHITIN_STORE", str(clone))
    installed = chitin("hooks", "install", "claude-code", "--dir", str(tmp_path), "--verbose")
    assert installed.exit_code == 0, installed.output
    assert installed.stderr.splitlines() == [str(clone), "  named by $CHITIN_STORE"]
    wrong = chitin("--verbose", "list", "--format", "xml")
    assert wrong.exit_code == 2 and str(clone) not in wrong.stderr


def test_help_documents_verbose() -> None:
    assert "--verbose" in chitin("--help").stdout
    assert "--verbose" in chitin("get", "--help").stdout
    assert "--chitin-announcement" not in chitin("get", "--help").stdout
    assert chitin("get", "x", "--chitin-announcement").exit_code == 2  # no option to give


@pytest.mark.parametrize("front", ["0", "on"])
def test_verbose_through_the_program(clone: Path, tmp_path: Path, front: str) -> None:
    env = {**os.environ, "CHITIN_FRONT": front, "CHITIN_STORE": str(clone)}
    for args in (["--verbose", "get", "pin-the"], ["get", "pin-the", "--verbose"]):
        done = subprocess.run(
            [chitin_program(), *args], capture_output=True, text=True, env=env, timeout=120,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert done.stderr.splitlines() == [str(clone), "  named by $CHITIN_STORE"]
        assert "Pin the versions" in done.stdout


def test_verbose_names_the_store_check_s_own_option_chose(clone: Path, tmp_path: Path) -> None:
    """check has a --store of its own (pre-commit's args); --verbose named the store the
    rule found instead of the one check then checked."""
    for args in (["check", "--store", str(clone), "--verbose"],
                 ["--verbose", "check", "--store", str(clone)]):  # fmt: skip
        checked = chitin(*args)
        assert checked.exit_code == 0, checked.output
        assert checked.stderr.splitlines() == [str(clone), "  named by --store"]
        assert "1 insight file checked" in checked.stdout


def test_verbose_names_the_store_of_a_group_that_runs_itself(clone: Path) -> None:
    """`chitin --verbose quality` (the report: a group run without a subcommand) said
    nothing, while `chitin --verbose quality score ID` named the store."""
    for args in (["--verbose", "quality"], ["quality", "--verbose"],
                 ["quality", "--store", str(clone), "--verbose", "--format", "json"]):  # fmt: skip
        report = chitin(*args, *([] if "--store" in args else ["--store", str(clone)]))
        assert report.exit_code == 0, report.output
        assert report.stderr.splitlines() == [str(clone), "  named by --store"]
    scored = chitin("--verbose", "--store", str(clone), "quality", "score", "pin-the")
    assert scored.exit_code == 0, scored.output
    assert scored.stderr.splitlines() == [str(clone), "  named by --store"]  # once
