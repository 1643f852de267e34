"""A chitin.yaml that `chitin check` refuses is refused by every write, with check's
own line, before anything is written; reads go on (docs/compatibility.md)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from conftest import Run, commit_count, git

CONTRIBUTE = ("contribute", "--type", "skill", "--claim", "Keep diffs small", "--confidence", "0.7")
BROKEN = {
    "unparsed": "half_lives: [\n",
    "negative": "half_lives: {social: -1}\n",
    "not a mapping": "embedding: 5\n",
}


@pytest.fixture
def two(add: Any) -> tuple[str, str]:
    first = add("skill", "Pin the versions of every dependency", 0.7)["id"]
    second = add("skill", "Run the linters before each commit", 0.7)["id"]
    return first, second


def writes(store: Path, first: str, second: str) -> list[list[str]]:
    exported = store.parent / "export.json"
    exported.write_text(
        json.dumps([{"type": "skill", "claim": "Imported claim here", "confidence": 0.5}])
    )
    return [
        ["contribute", "--type", "skill", "--claim", "Keep diffs small", "--confidence", "0.7"],
        ["reinforce", first],
        ["update", first, "--confidence", "0.9"],
        ["archive", first],
        ["merge", first, second],
        ["import", str(exported)],
    ]


@pytest.mark.parametrize("broken", BROKEN)
def test_every_write_refuses_what_check_refuses(
    run: Run, store: Path, two: tuple[str, str], broken: str
) -> None:
    (store / "chitin.yaml").write_text(BROKEN[broken])
    (said,) = run("check", expect=1).stdout.splitlines()[:1]
    assert said.startswith("chitin.yaml: ")
    before = commit_count(store)
    for command in writes(store, *two):
        refused = run(*command, expect=1)
        assert refused.stderr == f"Error: {said}\n", command
    assert commit_count(store) == before
    assert git(store, "status", "--porcelain") == "?? chitin.yaml\n"
    assert run("list").stdout  # reads go on


def test_unarchive_refuses_it_too(run: Run, store: Path, two: tuple[str, str]) -> None:
    run("archive", two[0])
    (store / "chitin.yaml").write_text(BROKEN["negative"])
    before = commit_count(store)
    refused = run("unarchive", two[0], expect=1)
    assert refused.stderr.startswith("Error: chitin.yaml: half_lives: social must be")
    assert commit_count(store) == before


def test_a_setting_nobody_reads_does_not_stop_a_write(run: Run, store: Path) -> None:
    run("init")
    (store / "chitin.yaml").write_text("embedding: {provider: none}\nhalf_live: {social: 3}\n")
    run("contribute", "--type", "skill", "--claim", "Keep diffs small", "--confidence", "0.7")


@pytest.mark.parametrize("name", [".gitattributes", ".gitignore", "chitin.yaml"])
@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_a_write_refuses_a_store_file_git_opens_that_is_no_regular_file(
    run: Run, store: Path, name: str, kind: str
) -> None:
    """A FIFO there hung every write for ever (git blocks opening it): refused first."""
    run("init")
    before = commit_count(store)
    (store / name).unlink(missing_ok=True)
    os.mkfifo(store / name) if kind == "fifo" else (store / name).mkdir()
    refused = run(*CONTRIBUTE, expect=1)
    what = "a FIFO (named pipe)" if kind == "fifo" else "a folder"
    assert refused.stderr == (
        f"Error: {name} in the store {store} is {what}, which git would wait on for "
        "ever; replace it with a regular file, or remove it\n"
    )
    assert commit_count(store) == before
