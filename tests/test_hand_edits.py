"""Hand edits of an insight's frontmatter that YAML reads in its own way (qa34): a
bare date, and a key written twice. Each is read as the person meant it or named with
its fix, by every command, never silently taken for something else."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import Run


def edit(store: Path, made: dict[str, Any], old: str, new: str) -> Path:
    path = store / "insights" / made["type"] / f"{made['id']}.md"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    return path


def test_a_bare_date_is_that_day_at_midnight_as_in_an_import(
    run: Run, add: Any, run_json: Any, store: Path
) -> None:
    made = add("skill", "Reproduce the bug before fixing it", 0.8)
    edit(store, made, f"created: {made['createdAt']}", "created: 2026-01-15")
    assert run_json("get", made["id"])["createdAt"] == "2026-01-15T00:00:00Z"
    assert "Reinforced" in run("reinforce", made["id"]).stdout
    assert run("check").exit_code == 0


@pytest.mark.parametrize("key", ["created", "updated"])
@pytest.mark.parametrize("value", ["0", "[]", "false"])
def test_a_time_that_is_no_time_is_named_not_read_as_now(
    run: Run, add: Any, store: Path, key: str, value: str
) -> None:
    """`created: -1` was named, but 0, [] and false (empty to Python's `or`) were read
    as the time of reading (or as created), silently, and check said no problems."""
    made = add("skill", "Reproduce the bug before fixing it", 0.8)
    stamp = made["createdAt" if key == "created" else "updatedAt"]
    edit(store, made, f"{key}: {stamp}", f"{key}: {value}")
    line = run("get", made["id"], expect=1).stderr.splitlines()[-1]
    assert f"{key} must be a time, got {value}" in line
    assert f"{key} must be a time" in run("check", expect=1).stdout


def test_a_key_written_twice_is_named_not_silently_the_last(
    run: Run, add: Any, store: Path
) -> None:
    """YAML keys are unique; PyYAML kept the last of two, so a `confidence: 0.5` added
    above the old line changed nothing, and the next rewrite dropped it unsaid."""
    made = add("skill", "Reproduce the bug before fixing it", 0.8)
    edit(store, made, "confidence: 0.8\n", "confidence: 0.5\nconfidence: 0.8\n")
    for command in (["get"], ["reinforce"], ["update", "--source", "s"]):
        line = run(command[0], made["id"], *command[1:], expect=1).stderr.splitlines()[-1]
        assert line.startswith(f"Error: insights/skill/{made['id']}.md exists but cannot be read")
        assert "confidence is written twice (lines 4 and 5)" in line
    assert "confidence is written twice" in run("check", expect=1).stdout
    assert (
        "confidence: 0.5\nconfidence: 0.8\n"
        in (store / "insights" / "skill" / f"{made['id']}.md").read_text()
    )  # nothing was rewritten


def test_an_evidence_log_that_is_no_list_is_named_by_every_rewrite_and_the_export(
    run: Run, add: Any, store: Path
) -> None:
    """Reads take a file whose `evidence:` is one line or a mapping (the log is only
    needed to write the file back), and `check` names it; a rewrite or the export
    said only "evidence must be a list of lines", leaving the person to find the file."""
    made = add("skill", "Reproduce the bug before fixing it", 0.8)
    edit(store, made, "confidence: 0.8\n", "confidence: 0.8\nevidence: reinforced by hand\n")
    assert run("get", made["id"]).exit_code == 0
    for command in (["reinforce", made["id"]], ["update", made["id"], "--source", "s"], ["export"]):
        refused = run(*command, expect=1).stderr
        assert refused == (
            f"Error: insights/skill/{made['id']}.md cannot be read: evidence must be a list of "
            "lines, one per reinforcement; fix: write evidence as a list, one '- <time> "
            "<who>@<host> <token>' line each, or remove it\n"
        ), command
    assert f"insights/skill/{made['id']}.md: evidence: " in run("check", expect=1).stdout


def test_comments_in_the_frontmatter_stay_where_they_were_over_every_rewrite(
    run: Run, add: Any, store: Path
) -> None:
    """A `# comment` a person wrote in the frontmatter was moved to its end by the first
    rewrite, or dropped (one below a known key), and the second rewrite dropped the rest.
    Each stays above the key it was above; one below every key stays last."""
    made = add("skill", "Reproduce the bug before fixing it", 0.8, tags="debugging")
    other = add("skill", "Write the failing test before the fix", 0.6)
    edit(store, made, "---\nid:", "---\n# written by ana\nid:")
    edit(store, made, "tags:\n", "# why 0.8: a guess\ntags:\n")
    edit(store, made, "\n---\n\n", "\n  # the end\n---\n\n")
    ids = made["id"]
    for command in (
        ["reinforce", ids],
        ["update", ids, "--confidence", "0.7"],
        ["archive", ids],
        ["unarchive", ids],
        ["reinforce", ids],
        ["merge", other["id"], ids],
    ):
        run(*command)
        path = next(store.glob(f"*/**/{ids}.md"))  # insights/ or archive/
        front = path.read_text().split("---\n")[1].splitlines()
        assert front[:2] == ["# written by ana", f"id: {ids}"], command
        assert front[front.index("tags:") - 1] == "# why 0.8: a guess", command
        assert front[-1] == "  # the end", command
        assert sum(line.lstrip().startswith("#") for line in front) == 3, command
    assert run("check").exit_code == 0


def test_a_hash_line_inside_a_multiline_value_is_the_value_not_a_comment(
    run: Run, add: Any, run_json: Any, store: Path
) -> None:
    """A line starting with # inside a block scalar (``source: |``) or a quoted value
    written over lines is part of the value, as YAML reads it. The first rewrite took it
    for a comment too, and wrote it a second time, as a comment line of its own."""
    made = add("skill", "Reproduce the bug before fixing it", 0.8)
    block = "source: |\n  the CI guide\n  # step 3: read the log\n"
    edit(store, made, "confidence: 0.8\n", f"confidence: 0.8\n{block}")
    other = add("skill", "Write the failing test before the fix", 0.6)
    edit(store, other, "confidence: 0.6\n", 'confidence: 0.6\nsource: "the guide,\n  # step 4"\n')
    wanted = {
        made["id"]: "the CI guide\n# step 3: read the log",
        other["id"]: "the guide, # step 4",
    }
    for ids, source in wanted.items():
        assert run_json("get", ids)["source"] == source
        for _ in range(2):
            run("reinforce", ids)
        path = store / "insights" / "skill" / f"{ids}.md"
        front = path.read_text().split("---\n")[1].splitlines()
        assert not [line for line in front if line.lstrip().startswith("#")], front
        assert run_json("get", ids)["source"] == source
    assert run("check").exit_code == 0


@pytest.mark.parametrize("value", ["~", "null", ""])
def test_a_null_avoid_is_absent_as_in_contribute(
    run: Run, add: Any, run_json: Any, store: Path, value: str
) -> None:
    """`avoid: ~` was refused as "avoid must be true or false, got None" (Python's
    word), by every command and by check; a null avoid is absent (not avoid), as
    contribute --json reads {"avoid": null}."""
    made = add("trigger", "Run ruff first", 0.7, condition="before a commit")
    path = edit(store, made, "avoid: false", f"avoid: {value}".rstrip())
    assert run_json("get", made["id"])["avoid"] is False
    assert run("check").exit_code == 0
    run("reinforce", made["id"])
    assert "avoid: false\n" in path.read_text()


def test_an_avoid_that_is_no_flag_is_named_as_yaml_writes_it(
    run: Run, add: Any, store: Path
) -> None:
    made = add("trigger", "Run ruff first", 0.7, condition="before a commit")
    edit(store, made, "avoid: false", "avoid: {a: 1}")
    line = run("get", made["id"], expect=1).stderr.splitlines()[-1]
    assert 'avoid must be true or false, got {"a": 1}' in line  # not Python's {'a': 1}
