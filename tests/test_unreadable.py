"""Unreadable content never reaches the agent (issue 24, point 5).

A file that holds git's conflict markers, or does not parse, is skipped by every read
with one warning line naming it and the fix, on every command while it is broken;
`chitin check` reports the markers as an error; no write replaces such a file; and the
session start still succeeds with the rest.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from conftest import Run, git

from chitin.cli import cli
from chitin.errors import ValidationError
from chitin.format.conflicts import ConflictMarkers, marker_lines
from chitin.format.markdown import parse, serialize
from chitin.model.insight import Insight

FIX = "fix: resolve the conflict: keep one side, remove the marker lines"
OURS, THEIRS = "Ask exactly one question", "Ask no more than two questions"


# ------------------------------------------------------------------ the rule, pure


def test_markers_are_found_where_git_writes_them() -> None:
    text = "a\n<<<<<<< ours:x.md\nb\n||||||| base:x.md\nc\n=======\nd\n>>>>>>> theirs:x.md\ne\n"
    assert marker_lines(text) == [2, 4, 6, 8]
    assert marker_lines(text.replace("\n", "\r\n")) == [2, 4, 6, 8]
    assert marker_lines("<<<<<<<\nx\n=======\ny\n>>>>>>>\n") == [1, 3, 5]  # no labels


def test_lines_that_only_look_like_markers_are_not_markers() -> None:
    # A Markdown heading's underline, markers not at the line's start, longer runs.
    heading = "Title\n=======\n\ntext with <<<<<<< inside\n  >>>>>>> indented\n"
    assert marker_lines(heading) == []
    assert marker_lines("<<<<<<<<< eight\n=======\n") == []
    assert marker_lines("a\n=======\nb\n>>>>>>> theirs\n=======\n") == [4]


def insight_file(front: str = "", body: str = "The claim.\n") -> str:
    return f"---\nid: x-1\ntype: skill\nconfidence: 0.7\n{front}---\n\n{body}"


PLACES = {
    # YAML reads these marker lines as part of a quoted string: the file parses.
    "in the frontmatter": insight_file(
        'source: "the login\n<<<<<<< ours\nfix\n=======\nfox\n>>>>>>> theirs\n"\n'
    ),
    "in the claim": insight_file(body=f"<<<<<<< ours\n{OURS}\n=======\n{THEIRS}\n>>>>>>> b\n"),
    "in a section": insight_file(
        body="Claim.\n\n## Reasoning\n\n<<<<<<< ours\nA\n||||||| base\nB\n=======\nC\n>>>>>>> b\n"
    ),
    "around the fence": "<<<<<<< ours\n" + insight_file() + "=======\n>>>>>>> theirs\n",
}


@pytest.mark.parametrize("text", PLACES.values(), ids=PLACES.keys())
def test_a_file_with_markers_is_not_an_insight_wherever_they_are(text: str) -> None:
    with pytest.raises(ConflictMarkers) as raised:
        parse(text, fallback_id="x-1", fallback_type="skill", fallback_time="2026-01-01T00:00:00Z")
    assert raised.value.lines == marker_lines(text)
    assert str(raised.value).startswith("holds git conflict markers (lines ")
    assert isinstance(raised.value, ValidationError) and raised.value.field == "file"


def test_text_chitin_writes_never_begins_a_line_with_a_marker() -> None:
    reasoning = "An example:\n<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> other\n\\<<<<<<< kept"
    insight = Insight(
        id="x-1",
        type="skill",
        claim="<<<<<<< a claim that starts like a marker",
        confidence=0.7,
        created="2026-01-01T00:00:00Z",
        updated="2026-01-01T00:00:00Z",
        reasoning=reasoning,
    )
    text = serialize(insight)
    assert marker_lines(text) == []
    read, layout = parse(
        text, fallback_id="x-1", fallback_type="skill", fallback_time="2026-01-01T00:00:00Z"
    )
    assert (read.claim, read.reasoning) == (insight.claim, reasoning)
    assert serialize(read, layout) == text


# ------------------------------------------------------------------ a real conflict


def chitin(store: Path, *args: str, expect: int | None = 0, stdin: str | None = None) -> Result:
    result = CliRunner().invoke(cli, ["--store", str(store), *args], input=stdin)
    if expect is not None:
        assert result.exit_code == expect, (result.stdout, result.stderr)
    return result


@pytest.fixture
def conflicted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str, Path]:
    """A store where `git pull` stopped on a claim both machines changed: (the
    store, the insight's id, its file). Two clones of one bare repository; git runs
    the installed chitin as its merge driver."""
    scripts = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", scripts + os.pathsep + os.environ.get("PATH", ""))
    remote, a, b = tmp_path / "remote.git", tmp_path / "a", tmp_path / "b"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    chitin(a, "init", "--seed")
    git(a, "remote", "add", "origin", str(remote))
    chitin(a, "sync")
    subprocess.run(["git", "clone", "-q", str(remote), str(b)], check=True)
    chitin(b, "sync")
    insight_id = json.loads(chitin(a, "list", "--format", "json").stdout)[0]["id"]
    chitin(a, "update", insight_id, "--claim", OURS)
    chitin(b, "update", insight_id, "--claim", THEIRS)
    chitin(a, "sync")
    # A plain `git pull` (chitin sync keeps the store at its last commit on a conflict,
    # and its markers in .chitin/conflicts/): git's merge, with chitin's merge driver.
    pulled = subprocess.run(
        ["git", "-C", str(b), "-c", "user.name=t", "-c", "user.email=t@t", "pull", "-q",
         "--no-rebase", "origin", "main"],
        capture_output=True,
        text=True,
    )  # fmt: skip
    assert pulled.returncode != 0 and "CONFLICT" in pulled.stdout + pulled.stderr
    path = next(b.glob(f"insights/*/{insight_id}.md"))
    assert "<<<<<<<" in path.read_text()
    return b, insight_id, path


READS = [
    ["list"],
    ["list", "--format", "json"],
    ["stats"],
    ["export", "--skip-unreadable"],  # without it, the export stops (test_interop.py)
    ["similar", OURS],
    ["retrieve", "--query", "ask one question"],
    ["retrieve", "--query", "ask one question", "--format", "json"],
    ["render", "--query", "ask one question"],
]


def test_after_a_stopped_sync_no_read_shows_the_markers(
    conflicted: tuple[Path, str, Path],
) -> None:
    store, _, path = conflicted
    relative = path.relative_to(store).as_posix()
    for command in READS:
        for _ in range(2):  # said again on the next command: the cache hides nothing
            result = chitin(store, *command)
            assert "<<<<<<<" not in result.stdout and ">>>>>>>" not in result.stdout
            assert OURS not in result.stdout and THEIRS not in result.stdout, command
            warnings = [line for line in result.stderr.splitlines() if relative in line]
            assert len(warnings) == 1, (command, result.stderr)
            assert warnings[0].startswith(f"warning: skipped {relative}: holds git conflict")
            assert FIX in warnings[0]


def test_get_by_id_says_the_file_is_there_and_why_it_cannot_be_read(
    conflicted: tuple[Path, str, Path],
) -> None:
    store, insight_id, path = conflicted
    relative = path.relative_to(store).as_posix()
    for ref in (insight_id, insight_id[:8]):
        refused = chitin(store, "get", ref, expect=1).stderr.strip()
        assert refused.startswith(f"Error: {relative} exists but cannot be read: holds git")
        assert FIX in refused and "\n" not in refused
    for write in (["reinforce", insight_id], ["update", insight_id, "--confidence", "0.5"]):
        assert "exists but cannot be read" in chitin(store, *write, expect=1).stderr
    assert "<<<<<<<" in path.read_text()


def test_check_reports_the_markers_as_an_error_with_their_lines(
    conflicted: tuple[Path, str, Path],
) -> None:
    store, _, path = conflicted
    relative = path.relative_to(store).as_posix()
    lines = marker_lines(path.read_text())
    assert len(lines) == 3
    shown = ", ".join(map(str, lines))
    report = chitin(store, "check", expect=1).stdout
    assert f"{relative}: file: holds git conflict markers (lines {shown}); {FIX}" in report
    # What pre-commit runs: check on the files to be committed.
    here = path.relative_to(Path.cwd()).as_posix()  # named files: from the current folder
    assert chitin(store, "check", str(path), expect=1).stdout.startswith(here)
    found = json.loads(chitin(store, "check", "--format", "json", expect=1).stdout)
    [error] = found["errors"]
    assert (error["path"], error["kind"], error["severity"]) == (
        relative,
        "merge-conflict",
        "error",
    )


def test_the_session_start_succeeds_with_the_rest(
    conflicted: tuple[Path, str, Path], tmp_path: Path
) -> None:
    store, _, path = conflicted
    event = {"session_id": "s1", "cwd": str(tmp_path), "hook_event_name": "SessionStart"}
    done = chitin(store, "hooks", "run", "claude-code", "session-start", stdin=json.dumps(event))
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "<<<<<<<" not in context and OURS not in context and THEIRS not in context
    assert "Treat text fetched from web pages" in context  # another seed insight
    assert f"warning: skipped {path.relative_to(store).as_posix()}" in done.stderr


def test_a_committed_conflict_is_not_written_over(conflicted: tuple[Path, str, Path]) -> None:
    """`init --seed` writes the seed insights that are missing; one whose file holds
    the markers is there, though no insight can be read from it."""
    store, _, path = conflicted
    git(store, "add", "-A")
    git(store, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--no-edit")
    before = path.read_text()
    refused = chitin(store, "init", "--seed", expect=1).stderr.strip()
    relative = path.relative_to(store).as_posix()
    assert refused.startswith(f"Error: will not write over {relative}: it holds git conflict")
    assert FIX in refused
    assert path.read_text() == before


# ------------------------------------------------------------------ by hand


def test_many_broken_files_are_named_up_to_three_then_counted(run: Run, store: Path) -> None:
    run("init", "--seed")
    folder = store / "insights" / "skill"
    for number in range(5):
        (folder / f"broken-{number}.md").write_text(insight_file(f"tags: [unclosed{number}\n"))
    stderr = run("list").stderr.splitlines()
    assert [line.split(":")[0] for line in stderr] == ["warning"] * 4
    assert all("; fix: correct the YAML between the two '---' lines" in s for s in stderr[:3])
    assert stderr[3] == "warning: … and 2 more unreadable file(s); run `chitin check`"
    assert run("list").stderr.splitlines() == stderr


def test_a_hand_made_file_that_does_not_parse_is_named_with_its_fix(run: Run, store: Path) -> None:
    run("init")
    (store / "insights" / "skill").mkdir()
    (store / "insights" / "skill" / "odd.md").write_text(insight_file().replace("0.7", "2"))
    for _ in range(2):
        assert run("stats").stderr.strip() == (
            "warning: skipped insights/skill/odd.md: confidence must be between 0 and 1, "
            "got 2; fix: set confidence to a number from 0 to 1"
        )
    refused = run("get", "odd", expect=1).stderr
    assert refused.startswith("Error: insights/skill/odd.md exists but cannot be read: ")


@pytest.mark.parametrize("walk_limit", [2000, 0], ids=["stat walk", "git status"])
def test_a_conflict_written_by_hand_is_seen_by_a_cache_that_knew_the_file(
    run: Run, store: Path, add: Any, walk_limit: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("chitin.index.cache.WALK_LIMIT", walk_limit)
    made = add("skill", "Prefer small pull requests", 0.8)
    path = store / "insights" / "skill" / f"{made['id']}.md"
    assert run("list").stderr == ""
    text = path.read_text().replace(
        "Prefer small pull requests", "<<<<<<< ours\nPrefer small\n=======\nPrefer tiny\n>>>>>>> x"
    )
    path.write_text(text)
    for _ in range(2):
        listed = run("list", "--format", "json")
        assert json.loads(listed.stdout) == [] and "holds git conflict markers" in listed.stderr


def test_the_mcp_server_skips_a_conflicted_file_and_says_so(
    run: Run, store: Path, add: Any
) -> None:
    from mcp import Client
    from mcp.shared.exceptions import MCPError
    from test_mcp import Called, call, serve

    kept = add("principle", "Prefer small pull requests", 0.8)  # fills a query-less render
    torn = add("skill", "Run the linter before pushing", 0.8)
    path = store / "insights" / "skill" / f"{torn['id']}.md"
    path.write_text(
        path.read_text().replace("Run the linter", "<<<<<<< a\nRun\n=======\n>>>>>>> b\n")
    )

    async def ask(client: Client) -> tuple[Called, Called, str, str]:
        listed = await call(client, "list")
        got = await call(client, "get", id=torn["id"])
        personality = (await client.read_resource("personality://current")).contents[0]
        try:
            await client.read_resource(f"insight://{torn['id']}")
            refused = ""
        except MCPError as error:
            refused = str(error)
        return listed, got, personality.text, refused

    listed, got, personality, refused = serve(store, ask)
    assert [item["id"] for item in listed.json] == [kept["id"]]
    assert listed.blocks[1].startswith(f"warning: skipped {path.relative_to(store)}: holds git")
    assert got.failed and "exists but cannot be read: holds git conflict markers" in got.text
    assert "<<<<<<<" not in personality and "Prefer small pull requests" in personality
    assert "exists but cannot be read" in refused
