"""``.chitin`` is chitin's own plain folder, never followed (issue 27, item 5).

A committed ``.chitin`` link arrives by ``git clone`` or ``chitin sync`` (.gitignore's
``.chitin/`` matched only a folder): chitin would write its cache, lock and vectors
wherever it points. Now the link (or a file) is replaced by a folder, said once, its
target untouched; ``check`` reports it; and the ignore pattern matches a link too.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from click.testing import CliRunner
from conftest import Run, git

from chitin.cli import cli


def planted_clone(tmp_path: Path, target: Path) -> Path:
    """A clone of a store whose history holds ``.chitin``, a link to ``target``."""
    origin = tmp_path / "origin"
    CliRunner().invoke(cli, ["--store", str(origin), "init"])
    subprocess.run(["rm", "-rf", str(origin / ".chitin")], check=True)
    (origin / ".chitin").symlink_to(target)
    git(origin, "add", "-f", ".chitin")
    git(origin, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "link")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(origin), str(clone)], check=True)
    assert (clone / ".chitin").is_symlink()
    return clone


def test_a_cloned_chitin_link_is_replaced_never_followed(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.mkdir()
    clone = planted_clone(tmp_path, target)

    def run(*args: str) -> tuple[int, str]:
        result = CliRunner().invoke(cli, ["--store", str(clone), *args])
        return result.exit_code, result.stderr

    code, said = run("contribute", "--type", "skill", "--claim", "Links are not followed.",
                     "--confidence", "0.8")  # fmt: skip
    assert code == 0, said
    assert said.count(".chitin was a link") == 1, said
    assert list(target.iterdir()) == []  # nothing was written where it pointed
    assert (clone / ".chitin").is_dir() and not (clone / ".chitin").is_symlink()
    assert (clone / ".chitin" / "cache.sqlite3").is_file()
    code, said = run("retrieve", "--query", "links")
    assert code == 0 and ".chitin" not in said  # said once: the next command is quiet


def test_a_file_named_chitin_is_left_alone_and_reported(run: Run, store: Path) -> None:
    run("init")
    subprocess.run(["rm", "-rf", str(store / ".chitin")], check=True)
    (store / ".chitin").write_text("not a folder")
    run("list")  # a reader uses no cache (a writer refuses: test_cli_errors.py)
    assert (store / ".chitin").read_text() == "not a folder"
    result = run("check", expect=1)
    assert ".chitin: file: is not a folder" in result.output


def test_check_says_truly_what_becomes_of_a_file_named_chitin(run: Run, store: Path) -> None:
    """A file is left alone (a link is replaced): check must not promise that the next
    command replaces it, for the next write refuses it and it stays."""
    run("init")
    subprocess.run(["rm", "-rf", str(store / ".chitin")], check=True)
    (store / ".chitin").write_text("not a folder")
    said = run("check", expect=1).output
    assert "replaces it" not in said, said
    assert "writes refuse it" in said, said
    run("contribute", "--type", "skill", "--claim", "Files are not replaced.",
        "--confidence", "0.8", expect=1)  # fmt: skip
    assert (store / ".chitin").read_text() == "not a folder"


def test_check_reports_a_chitin_link_and_follows_nothing(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.mkdir()
    clone = planted_clone(tmp_path, target)
    result = CliRunner().invoke(cli, ["--store", str(clone), "check"])
    assert result.exit_code == 1
    assert ".chitin: file: is a symbolic link" in result.output
    assert (clone / ".chitin").is_symlink()  # check writes nothing
    assert list(target.iterdir()) == []


def test_the_ignore_pattern_init_writes_matches_a_link(run: Run, store: Path) -> None:
    run("init")
    subprocess.run(["rm", "-rf", str(store / ".chitin")], check=True)
    (store / ".chitin").symlink_to(store.parent)
    ignored = subprocess.run(
        ["git", "-C", str(store), "check-ignore", "-q", ".chitin"], check=False
    )
    assert ignored.returncode == 0
    assert git(store, "status", "--porcelain") == ""


def test_check_still_reports_the_committed_link_once_it_is_replaced(tmp_path: Path) -> None:
    """Once a command has replaced the link with a folder, the link is still in the
    history, and the next clone or sync brings it back: check says so until it is
    removed from git, then says nothing."""
    target = tmp_path / "elsewhere"
    target.mkdir()
    clone = planted_clone(tmp_path, target)
    CliRunner().invoke(cli, ["--store", str(clone), "list"])  # replaces the link
    assert (clone / ".chitin").is_dir() and not (clone / ".chitin").is_symlink()
    result = CliRunner().invoke(cli, ["--store", str(clone), "check"])
    assert result.exit_code == 1, result.output
    assert ".chitin: file: is committed" in result.output
    assert "git rm -r --cached .chitin" in result.output
    git(clone, "rm", "-r", "-q", "--cached", ".chitin")
    git(clone, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "unlink")
    result = CliRunner().invoke(cli, ["--store", str(clone), "check"])
    # (a plain clone is also warned of its missing merge driver, "merge.chitin")
    findings = [line for line in result.output.splitlines() if line.startswith(".chitin")]
    assert result.exit_code == 0 and not findings, result.output
