"""Issue 28, item 5: an insight whose file a hand edit broke is named, not missing:
the commands that take an id say that the file exists, why it does not parse, and how
to fix it, on every run (not only on the first after the edit)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import Run

BROKEN = "---\nid: {id}\ntype: skill\nclaim: [unclosed\n---\n"


@pytest.fixture
def broken(run: Run, add: Any, store: Path) -> str:
    made = add("skill", "Reproduce the bug before fixing it", 0.8)
    (store / "insights" / "skill" / f"{made['id']}.md").write_text(BROKEN.format(id=made["id"]))
    insight_id: str = made["id"]
    return insight_id


@pytest.mark.parametrize(
    "command",
    [["get"], ["reinforce"], ["update", "--claim", "New"], ["archive"], ["history"]],
    ids=lambda c: c[0],
)
def test_a_broken_file_is_named_with_its_reason_and_fix(
    run: Run, broken: str, command: list[str]
) -> None:
    for _ in range(2):  # every time, not only the first command after the edit
        result = run(command[0], broken, *command[1:], expect=1)
        line = result.stderr.splitlines()[-1]
        assert line.startswith(
            f"Error: insights/skill/{broken}.md exists but cannot be read: "
            "frontmatter YAML does not parse (line 5)"
        )
        assert line.endswith("; fix: correct the YAML between the two '---' lines")
        assert "not found" not in result.stderr


def test_a_prefix_of_a_broken_file_is_named_too(run: Run, broken: str) -> None:
    result = run("get", broken[:8], expect=1)
    named = f"Error: insights/skill/{broken}.md exists but cannot be read"
    assert named in result.stderr


def test_an_id_with_no_file_is_still_not_found(run: Run, broken: str) -> None:
    assert run("get", "zzz", expect=1).stderr.endswith("Error: Insight not found: zzz\n")


@pytest.mark.parametrize("command", [["get"], ["reinforce"], ["archive"]], ids=lambda c: c[0])
def test_a_file_whose_id_was_edited_is_named_by_its_file_name(
    run: Run, add: Any, store: Path, command: list[str]
) -> None:
    made = add("skill", "Reproduce the bug before fixing it", 0.8)
    path = store / "insights" / "skill" / f"{made['id']}.md"
    path.write_text(path.read_text().replace(f"id: {made['id']}", "id: renamed-by-hand"))
    for ref in (made["id"], made["id"][:8]):
        line = run(command[0], ref, *command[1:], expect=1).stderr.splitlines()[-1]
        assert line == (
            f"Error: insights/skill/{made['id']}.md declares the id 'renamed-by-hand', not the "
            f"{made['id']!r} of its name: rename the file to renamed-by-hand.md, or set "
            f"`id: {made['id']}` in it"
        )
    assert run("get", "renamed-by-hand").stdout  # the id it declares still answers


@pytest.mark.parametrize(
    "command", [["get"], ["reinforce"], ["archive"], ["update", "--confidence", "0.5"]],
    ids=lambda c: c[0],
)  # fmt: skip
def test_a_prefix_that_a_broken_file_shares_is_ambiguous_not_the_other_insight(
    run: Run, add: Any, store: Path, broken: str, command: list[str]
) -> None:
    """A prefix that names two insights is ambiguous; a hand edit that breaks one of
    the two files must not make it name the other one, which `reinforce` or `archive`
    would then change in the place of the one meant."""
    other = add("skill", "Reproduce the bug before fixing it, always", 0.6)["id"]
    shared = next(n for n in range(len(broken), 0, -1) if other.startswith(broken[:n]))
    prefix = broken[:shared]
    before = (store / "insights" / "skill" / f"{other}.md").read_text()
    for _ in range(2):  # with the cache synced, and with the cache vouching for a read
        result = run(command[0], prefix, *command[1:], expect=1)
        assert result.stderr.splitlines()[-1] == (
            f"Error: Ambiguous ID prefix: {prefix} matches 2 insights: "
            f"{', '.join(sorted([broken, other]))}"
        )
    assert (store / "insights" / "skill" / f"{other}.md").read_text() == before
    assert run("get", other).stdout  # its full id still answers


def test_the_full_id_of_a_broken_file_names_it_though_a_longer_id_starts_with_it(
    run: Run, add: Any, store: Path
) -> None:
    """As git takes a full name before a prefix: the id of a broken file, typed in
    full, names that file, even when a readable insight's id starts with it."""
    made = add("skill", "Reproduce the bug before fixing it", 0.8)["id"]
    longer = f"{made}-two"
    text = (store / "insights" / "skill" / f"{made}.md").read_text()
    (store / "insights" / "skill" / f"{longer}.md").write_text(
        text.replace(f"id: {made}", f"id: {longer}")
    )
    (store / "insights" / "skill" / f"{made}.md").write_text(BROKEN.format(id=made))
    for command in (["get"], ["reinforce"]):
        line = run(command[0], made, expect=1).stderr.splitlines()[-1]
        assert line.startswith(f"Error: insights/skill/{made}.md exists but cannot be read: ")
    assert run("get", longer).stdout


@pytest.mark.parametrize(
    "command", [["get"], ["reinforce"], ["archive"], ["history"]], ids=lambda c: c[0]
)
def test_a_folder_where_the_insight_file_was_is_named(
    run: Run, add: Any, store: Path, command: list[str]
) -> None:
    """A folder where an insight's file belongs (an editor or a script that made
    insights/skill/ID.md a folder): `get ID` said "Insight not found"."""
    made = add("skill", "Reproduce the bug before fixing it", 0.8)
    path = store / "insights" / "skill" / f"{made['id']}.md"
    path.unlink()
    path.mkdir()
    (path / "notes.txt").write_text("moved here\n")
    result = run(command[0], made["id"], expect=1)
    assert result.stderr.splitlines() == [
        f"Error: insights/skill/{made['id']}.md exists but cannot be read: it is a folder, "
        "not an insight file; fix: move the folder away, and put the insight's file there"
    ]
