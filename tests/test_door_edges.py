"""Edges at chitin's doors (fix70a): a mistyped --dir or store path is refused instead
of created, an explicitly empty choice is bad input, a home that is not set names no
default store, and a slug keeps the letters NFKD cannot take apart."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Run

# ------------------------------------------------------------------ hooks install --dir


@pytest.mark.parametrize(
    "host", ["openclaw", "claude-code", "claude-desktop", "cursor", "claude-code-mcp"]
)
def test_install_into_a_folder_that_does_not_exist_is_refused(
    run: Run, tmp_path: Path, host: str
) -> None:
    typo = tmp_path / "typo" / "does" / "not" / "exist"
    done = run("hooks", "install", host, "--dir", str(typo), expect=1)
    said = done.stderr.strip().splitlines()
    assert len(said) == 1 and str(typo) in said[0] and "does not exist" in said[0], said
    assert done.stdout == ""
    assert not (tmp_path / "typo").exists()  # nothing of the chain was made


def test_install_makes_the_hosts_own_folder_inside_an_existing_dir(
    run: Run, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    run("hooks", "install", "claude-code", "--dir", str(project))
    assert (project / ".claude" / "settings.json").is_file()
    run("hooks", "install", "cursor", "--dir", str(project))
    assert (project / ".cursor" / "mcp.json").is_file()
