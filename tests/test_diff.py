"""``chitin diff``: the personality's change between revisions, over real commits."""

from __future__ import annotations

import difflib
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import Run, git

from chitin.cli import cli
from chitin.core.diff import Spec, parse_spec
from chitin.errors import ValidationError
from chitin.model.diff import CATEGORIES, Version, compare, value_changes
from chitin.model.insight import Insight

Add = Callable[..., dict[str, Any]]
RunJson = Callable[..., Any]


def diff_json(run: Run, *args: str) -> Any:
    return json.loads(run("diff", *args, "--format", "json").stdout)


def only(data: dict[str, Any], category: str) -> list[dict[str, Any]]:
    """The entries of ``category``, after checking every other category is empty."""
    for other in CATEGORIES:
        if other != category:
            assert data[other] == [], f"unexpected {other}: {data[other]}"
    return list(data[category])


def rel(store: Path, insight: dict[str, Any], top: str = "insights") -> str:
    return f"{top}/{insight['type']}/{insight['id']}.md"


@pytest.fixture
def two(run: Run, add: Add) -> tuple[dict[str, Any], dict[str, Any]]:
    run("init")
    first = add("skill", "Reproduce a bug before fixing it", 0.8, tags="debugging,old")
    second = add("behavioral", "Read the surrounding code first", 0.7)
    return first, second


# ------------------------------------------------------------------ the operations


def test_no_change_says_so(run: Run, two: Any) -> None:
    assert run("diff").stdout == "No changes to the personality.\n"
    data = diff_json(run)
    assert data["from"] == "HEAD" and data["to"] == "working tree"
    assert data["toCommit"] is None and len(data["fromCommit"]) == 40
    assert data["summary"] == dict.fromkeys(CATEGORIES, 0)


def test_contribute_is_added(run: Run, two: Any, store: Path) -> None:
    first, second = two
    data = diff_json(run, "HEAD~2..HEAD")
    added = only(data, "added")
    assert [a["id"] for a in added] == sorted([first["id"], second["id"]])
    entry = next(a for a in added if a["id"] == first["id"])
    assert entry == {
        "id": first["id"],
        "type": "skill",
        "claim": "Reproduce a bug before fixing it",
        "path": rel(store, first),
        "confidence": 0.8,
        "tags": ["debugging", "old"],
        "archived": False,
    }
    assert data["summary"]["added"] == 2
    text = run("diff", "HEAD~2..HEAD").stdout
    assert "Added (2):" in text and text.rstrip().endswith("2 added")
    assert f"  {first['id']} [skill]: Reproduce a bug before fixing it" in text


def test_reinforce_counts_and_logs_evidence(run: Run, two: Any, store: Path) -> None:
    first, _ = two
    run("reinforce", first["id"], "--evidence", "external", "--source", "CI run")
    (changed,) = only(diff_json(run, "HEAD~1..HEAD"), "changed")
    assert changed["id"] == first["id"] and changed["path"] == changed["fromPath"]
    assert changed["changes"] == [
        {"field": "confidence", "old": 0.8, "new": 0.81},
        {"field": "reinforcements", "old": 0, "new": 1},
    ]
    (logged,) = changed["evidence"]
    assert logged.endswith("external")
    text = run("diff", "HEAD~1..HEAD").stdout
    assert "    confidence: 0.8 → 0.81, +1 reinforcement\n" in text
    assert f"    evidence: + {logged}\n" in text
    assert text.rstrip().endswith("1 changed")


def test_reinforcements_are_counted_in_the_plural(run: Run, two: Any) -> None:
    first, _ = two
    for _ in range(3):
        run("reinforce", first["id"])
    assert "+3 reinforcements" in run("diff", "HEAD~3..HEAD").stdout
    assert "−3 reinforcements" in run("diff", "HEAD..HEAD~3").stdout


def test_update_of_several_fields(run: Run, two: Any) -> None:
    first, _ = two
    run(
        "update",
        first["id"],
        "--claim",
        "Reproduce every bug before fixing it",
        "--tags",
        "debugging,testing",
        "--reasoning",
        "A fix for an unseen failure is a guess",
        "--provenance",
        "correction",
    )
    (changed,) = only(diff_json(run, "HEAD~1"), "changed")  # REV: the working tree vs REV
    assert changed["changes"] == [
        {
            "field": "claim",
            "old": "Reproduce a bug before fixing it",
            "new": "Reproduce every bug before fixing it",
        },
        {"field": "tags", "old": ["debugging", "old"], "new": ["debugging", "testing"]},
        {"field": "provenance", "old": None, "new": "correction"},
        {"field": "reasoning", "old": None, "new": "A fix for an unseen failure is a guess"},
    ]
    text = run("diff", "HEAD~1..HEAD").stdout
    assert (
        '    claim: "Reproduce a bug before fixing it" → "Reproduce every bug before fixing it"\n'
    ) in text
    assert "    tags: +testing −old\n" in text
    assert "    provenance: (none) → correction\n" in text


def test_type_change_moves_the_file_but_is_one_insight(run: Run, two: Any, store: Path) -> None:
    first, _ = two
    run("update", first["id"], "--type", "trigger", "--condition", "a bug report arrives")
    (changed,) = only(diff_json(run, "HEAD~1..HEAD"), "changed")
    assert changed["fromPath"] == rel(store, first)
    assert changed["path"] == f"insights/trigger/{first['id']}.md"
    fields = {c["field"]: (c["old"], c["new"]) for c in changed["changes"]}
    assert fields["type"] == ("skill", "trigger")
    assert fields["condition"] == (None, "a bug report arrives")
    assert "avoid" not in fields  # false before (no trigger) and after
    assert "    type: skill → trigger\n" in run("diff", "HEAD~1..HEAD").stdout


def test_archive_and_unarchive(run: Run, two: Any, store: Path) -> None:
    _, second = two
    run("archive", second["id"])
    (archived,) = only(diff_json(run, "HEAD~1..HEAD"), "archived")
    assert archived == {
        "id": second["id"],
        "type": "behavioral",
        "claim": "Read the surrounding code first",
        "path": rel(store, second, "archive"),
        "fromPath": rel(store, second),
        "changes": [],
        "evidence": [],
    }
    run("unarchive", second["id"])
    (unarchived,) = only(diff_json(run, "HEAD~1..HEAD"), "unarchived")
    assert unarchived["path"] == rel(store, second)
    # Archived, then brought back: no change at all across both commits.
    assert diff_json(run, "HEAD~2..HEAD")["summary"] == dict.fromkeys(CATEGORIES, 0)
    text = run("diff", "HEAD~2..HEAD~1").stdout
    assert "Archived (1):" in text and text.rstrip().endswith("1 archived")


def test_merge_reports_the_source_as_merged_into_the_target(
    run: Run, two: Any, add: Add, store: Path
) -> None:
    first, _ = two
    source = add("skill", "Reproduce bugs with a failing test", 0.9, tags="testing")
    run("merge", source["id"], first["id"])
    data = diff_json(run, "HEAD~1..HEAD")
    assert data["summary"] == {**dict.fromkeys(CATEGORIES, 0), "merged": 1, "changed": 1}
    assert data["merged"] == [
        {
            "id": source["id"],
            "type": "skill",
            "claim": "Reproduce bugs with a failing test",
            "path": rel(store, source),
            "into": first["id"],
        }
    ]
    (target,) = data["changed"]
    assert target["id"] == first["id"]
    assert {"field": "confidence", "old": 0.8, "new": 0.9} in target["changes"]
    text = run("diff", "HEAD~1..HEAD").stdout
    assert f"  {source['id']} → {first['id']}: Reproduce bugs with a failing test" in text
    # Contributed and merged within the range: the source was never on either side.
    assert diff_json(run, "HEAD~2..HEAD")["merged"] == []


def test_a_merge_is_found_among_other_commits(run: Run, two: Any, add: Add) -> None:
    first, second = two
    source = add("skill", "Reproduce bugs with a failing test", 0.9)
    run("reinforce", second["id"])
    run("merge", source["id"], first["id"])
    run("reinforce", first["id"])
    data = diff_json(run, "HEAD~3..HEAD")
    assert [(m["id"], m["into"]) for m in data["merged"]] == [(source["id"], first["id"])]
    assert data["summary"]["changed"] == 2


def test_a_chain_of_merges_ends_at_the_last_target(run: Run, two: Any, add: Add) -> None:
    first, second = two
    third = add("skill", "Write the failing test first", 0.6)
    run("merge", third["id"], second["id"])
    run("merge", second["id"], first["id"])
    merged = diff_json(run, "HEAD~2..HEAD")["merged"]
    assert {m["id"]: m["into"] for m in merged} == {
        second["id"]: first["id"],
        third["id"]: first["id"],
    }


def test_a_merge_of_several_sources_reports_each_as_merged(run: Run, two: Any, add: Add) -> None:
    """qa39: `merge a b target` and `dedupe --apply` write one commit whose trailer
    lists the sources (`Chitin-Merged: a, b`); diff read the list as one id, so each
    source was shown as removed, and a later merge of the target was not followed."""
    first, second = two
    one = add("skill", "Reproduce bugs with a failing test", 0.6)
    other = add("skill", "Write the failing test first", 0.6)
    run("merge", one["id"], other["id"], second["id"])
    data = diff_json(run, "HEAD~1..HEAD")
    assert data["removed"] == [] and data["summary"]["merged"] == 2
    assert {m["id"]: m["into"] for m in data["merged"]} == dict.fromkeys(
        (one["id"], other["id"]), second["id"]
    )
    run("merge", second["id"], first["id"])  # followed to the last target
    assert {m["id"]: m["into"] for m in diff_json(run, "HEAD~2..HEAD")["merged"]} == {
        one["id"]: first["id"],
        other["id"]: first["id"],
        second["id"]: first["id"],
    }


def test_a_deleted_file_is_removed(run: Run, two: Any, store: Path) -> None:
    _, second = two
    git(store, "rm", "-q", rel(store, second))
    git(store, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "drop one")
    (removed,) = only(diff_json(run, "HEAD~1..HEAD"), "removed")
    assert removed["id"] == second["id"] and removed["archived"] is False
    assert "Removed (1):" in run("diff", "HEAD~1..HEAD").stdout


# ------------------------------------------------------------------ the working tree


def test_hand_edit_untracked_file_and_deletion_in_the_working_tree(
    run: Run, two: Any, store: Path
) -> None:
    first, second = two
    path = store / rel(store, first)
    path.write_text(path.read_text().replace("confidence: 0.8", "confidence: 0.6"))
    (store / rel(store, second)).unlink()
    new = store / "insights" / "principle" / "say-what-you-verified.md"
    new.parent.mkdir(parents=True)
    new.write_text("---\nconfidence: 0.7\n---\n\nSay what you verified and what you assumed.\n")
    data = diff_json(run)
    assert data["summary"] == {
        **dict.fromkeys(CATEGORIES, 0),
        "added": 1,
        "removed": 1,
        "changed": 1,
    }
    (added,) = data["added"]
    assert added["id"] == "say-what-you-verified" and added["type"] == "principle"
    assert data["removed"][0]["id"] == second["id"]
    assert data["changed"][0]["changes"] == [{"field": "confidence", "old": 0.8, "new": 0.6}]
    text = run("diff").stdout
    assert text.startswith("From HEAD (") and "to the working tree:" in text.splitlines()[0]
    assert text.rstrip().endswith("1 added, 1 removed, 1 changed")
    # Against an older revision, the working tree's changes add to the committed ones.
    assert diff_json(run, "HEAD~1")["summary"]["added"] == 1


def test_a_staged_change_and_a_file_git_forgot_are_seen(run: Run, two: Any, store: Path) -> None:
    first, second = two
    path = store / rel(store, first)
    path.write_text(path.read_text().replace("confidence: 0.8", "confidence: 0.5"))
    git(store, "add", rel(store, first))
    git(store, "rm", "-q", "--cached", rel(store, second))  # untracked, still on disk
    data = diff_json(run)
    assert data["changed"][0]["changes"] == [{"field": "confidence", "old": 0.8, "new": 0.5}]
    assert data["removed"] == [] and data["added"] == []


def test_a_broken_file_is_reported_not_fatal(run: Run, two: Any, store: Path) -> None:
    first, _ = two
    (store / rel(store, first)).write_text("no frontmatter here\n")
    result = run("diff", "--format", "json")
    data = json.loads(result.stdout)
    fix = "begin the file with a '---' line, then 'key: value' lines, then '---'"
    assert data["unreadable"] == [
        {
            "path": rel(store, first),
            "side": "to",
            "error": "file does not start with a '---' frontmatter line",
            "fix": fix,
        }
    ]
    # One line naming the file and the fix, as every other read's warning (issue 24).
    assert (
        f"warning: skipped {rel(store, first)} in the working tree: file does not start "
        f"with a '---' frontmatter line; fix: {fix}\n"
    ) in result.stderr


def test_conflict_markers_are_skipped_with_their_fix_on_each_side(
    run: Run, two: Any, store: Path
) -> None:
    """A conflicted file committed as it was (`git commit -a` after a stopped sync) is
    unreadable in the commit and the working tree alike: each warning says the fix."""
    first, _ = two
    path = store / rel(store, first)
    path.write_text(
        path.read_text().replace("\n---\n\n", "\n---\n\n<<<<<<< ours\n=======\n>>>>>>> theirs\n")
    )
    git(store, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "conflicted")
    result = run("diff", "HEAD~1")
    [line] = [line for line in result.stderr.splitlines() if rel(store, first) in line]
    assert "holds git conflict markers" in line and "; fix: resolve the conflict" in line
    assert "<<<<<<<" not in result.stdout


def test_a_store_without_commits_compares_with_nothing(
    run: Run, store: Path, tmp_path: Path
) -> None:
    assert run("diff").stdout == "No changes to the personality.\n"  # no store at all
    store.mkdir()
    git(store, "init", "-q")
    (store / "insights" / "skill").mkdir(parents=True)
    (store / "insights" / "skill" / "x.md").write_text("---\nconfidence: 0.5\n---\n\nA claim.\n")
    data = diff_json(run)
    assert data["from"] is None and data["fromCommit"] is None
    assert [a["id"] for a in data["added"]] == ["x"]
    assert run("diff").stdout.startswith("From an empty store to the working tree:")


# ------------------------------------------------------------------ ranges


def test_ranges_and_the_merge_base(run: Run, two: Any, add: Add, store: Path) -> None:
    first, _ = two
    git(store, "branch", "feature")
    run("reinforce", first["id"])  # on main
    git(store, "checkout", "-q", "feature")
    topic = add("trigger", "stop and ask", 0.7, condition="the task grew twice as big")
    git(store, "checkout", "-q", "main")
    two_dot = diff_json(run, "main..feature")  # tree against tree: the reinforce undone too
    assert two_dot["summary"]["added"] == 1 and two_dot["summary"]["changed"] == 1
    three_dot = diff_json(run, "main...feature")  # only what feature did since it left main
    assert [a["id"] for a in only(three_dot, "added")] == [topic["id"]]
    assert three_dot["mergeBase"] is True
    assert three_dot["fromCommit"] == git(store, "merge-base", "main", "feature").strip()
    assert three_dot["toCommit"] == git(store, "rev-parse", "feature").strip()
    assert run("diff", "main...feature").stdout.startswith("From the merge base of main and ")
    assert diff_json(run, "feature..")["to"] == "HEAD"  # an empty end is HEAD
    assert diff_json(run, "..feature")["from"] == "HEAD"


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        (None, Spec("HEAD", None)),
        ("HEAD~2", Spec("HEAD~2", None)),
        ("a..b", Spec("a", "b")),
        ("a...b", Spec("a", "b", True)),
        ("a..", Spec("a", "HEAD")),
        ("...b", Spec("HEAD", "b", True)),
    ],
)
def test_revision_specs(text: str | None, spec: Spec) -> None:
    assert parse_spec(text) == spec


@pytest.mark.parametrize("text", ["", "..", "a..b..c", "a...b...c", "a....b"])
def test_unreadable_specs(text: str) -> None:
    with pytest.raises(ValidationError):
        parse_spec(text)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope"], "Error: unknown revision 'nope': the store has no commit by that name\n"),
        (["HEAD..nope"], "Error: unknown revision 'nope': the store has no commit by that name\n"),
        (["--", "-x"], "Error: unknown revision '-x': the store has no commit by that name\n"),
        (["a..b..c"], "Error: cannot read 'a..b..c' as REV, A..B or A...B\n"),
    ],
)
def test_bad_revisions_are_one_line_errors(
    run: Run, two: Any, args: list[str], message: str
) -> None:
    result = run("diff", *args, expect=1)
    assert result.stderr == message and result.stdout == ""


def test_query_and_budget_need_render(run: Run, two: Any) -> None:
    result = run("diff", "--budget", "10", expect=2)
    assert "--budget applies only with --render" in result.stderr
    assert "--query applies only with --render" in run("diff", "--query", "x", expect=2).stderr


def test_a_folder_that_is_not_a_repository(run: Run, store: Path) -> None:
    (store / "insights").mkdir(parents=True)
    result = run("diff", "HEAD~1", expect=1)
    assert "is not a git repository, so it has no revisions to compare" in result.stderr
    assert run("diff", expect=1).stderr.count("\n") == 1


def test_a_store_in_a_folder_of_a_larger_repository(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "team" / "insights" / "skill").mkdir(parents=True)
    git(repo, "init", "-q")
    file = repo / "team" / "insights" / "skill" / "x.md"
    file.write_text("---\nconfidence: 0.5\n---\n\nA claim.\n")
    commit = ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm"]
    git(repo, "add", ".")
    git(repo, *commit, "one")
    file.write_text("---\nconfidence: 0.6\n---\n\nA claim.\n")
    git(repo, *commit, "two", "-a")
    result = CliRunner().invoke(
        cli, ["--store", str(repo / "team"), "diff", "HEAD~1..HEAD", "--format", "json"]
    )
    (changed,) = json.loads(result.stdout)["changed"]
    assert changed["path"] == "insights/skill/x.md"
    assert changed["changes"] == [{"field": "confidence", "old": 0.5, "new": 0.6}]


# ------------------------------------------------------------------ --render


def render_at(run: Run) -> str:
    return str(run("render").stdout)


def hunks(patch: str) -> list[str]:
    """The diff without its two file header lines."""
    return patch.splitlines()[2:]


def test_render_compares_what_render_gave_at_each_commit(
    run: Run, two: Any, add: Add, store: Path
) -> None:
    first, second = two
    before = render_at(run)
    run("archive", second["id"])
    add("principle", "Separate what you verified from what you assumed", 0.9)
    run("update", first["id"], "--claim", "Reproduce every bug before fixing it")
    after = render_at(run)
    patch = run("diff", "--render", "HEAD~3..HEAD").stdout
    expected = difflib.unified_diff(before.splitlines(True), after.splitlines(True))
    assert hunks(patch) == hunks("".join(expected))
    assert re.search(r"^-- \[read\] Read the surrounding code first$", patch, re.M)
    assert re.search(r"^\+- \[sepa\] Separate what you verified from what", patch, re.M)
    head = git(store, "rev-parse", "HEAD").strip()
    assert patch.splitlines()[1] == f"+++ b/PERSONALITY.md\tHEAD ({head[:12]})"
    assert (
        f"-<!-- Generated by chitin from commit {git(store, 'rev-parse', 'HEAD~3')[:12]}" in patch
    )


def test_render_of_the_working_tree_and_json(run: Run, two: Any, store: Path) -> None:
    first, _ = two
    query = ("--query", "reproduce the bug")  # a skill shows only for a query it matches
    assert run("diff", "--render", *query).stdout == "No changes to PERSONALITY.md.\n"
    path = store / rel(store, first)
    path.write_text(path.read_text().replace("Reproduce a bug", "Reproduce each bug"))
    patch = run("diff", "--render", *query).stdout
    assert "-- [repr] Reproduce a bug before fixing it\n" in patch
    assert "+- [repr] Reproduce each bug before fixing it\n" in patch
    assert patch.splitlines()[1] == "+++ b/PERSONALITY.md\tworking tree"
    data = json.loads(run("diff", "--render", *query, "--format", "json", "--budget", "500").stdout)
    assert data["changed"] is True and data["budget"] == 500
    assert data["query"] == "reproduce the bug"
    assert data["from"] == "HEAD" and data["to"] == "working tree"
    assert "+- [repr] Reproduce each bug before fixing it\n" in data["diff"]


def test_render_uses_each_sides_template_and_budget(run: Run, two: Any, store: Path) -> None:
    (store / "templates").mkdir()
    (store / "templates" / "PERSONALITY.md").write_text("# Mine ($count)\n$insights\n")
    git(store, "add", "templates")
    git(store, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "template")
    query = ("--query", "reproduce the bug, reading the code")
    patch = run("diff", "--render", "HEAD~1..HEAD", "--budget", "28", *query).stdout
    assert "+# Mine (1)\n" in patch  # 28 tokens hold one of the two insights, ids included
    assert re.search(r"^-# Personality$", patch, re.M)
    assert "within 28 tokens" in patch


def test_render_of_a_store_without_commits(run: Run, store: Path) -> None:
    store.mkdir()
    git(store, "init", "-q")
    (store / "insights" / "principle").mkdir(parents=True)
    (store / "insights" / "principle" / "x.md").write_text(
        "---\nconfidence: 0.5\n---\n\nA claim.\n"
    )
    patch = run("diff", "--render").stdout
    assert "+- [x] A claim.\n" in patch
    assert patch.splitlines()[0] == "--- a/PERSONALITY.md\tan empty store"


# ------------------------------------------------------------------ the model


def insight(**fields: Any) -> Insight:
    base: dict[str, Any] = {
        "id": "x",
        "type": "skill",
        "claim": "A claim",
        "confidence": 0.5,
        "created": "2026-01-01T00:00:00Z",
        "updated": "2026-01-01T00:00:00Z",
    }
    return Insight(**{**base, **fields})


def version(
    path: str = "insights/skill/x.md", evidence: tuple[str, ...] = (), **fields: Any
) -> Any:
    return Version(insight(**fields), path, evidence)


def test_timestamps_and_moves_alone_are_no_change() -> None:
    old = {"x": version()}
    new = {"x": version("insights/skill/sub/x.md", updated="2026-02-01T00:00:00Z")}
    assert compare(old, new, {}) == []


def test_evidence_alone_is_a_change() -> None:
    (delta,) = compare({"x": version(evidence=("a",))}, {"x": version(evidence=("a", "b"))}, {})
    assert delta.category == "changed" and delta.evidence == ("b",) and delta.changes == ()


def test_categories_come_in_order_then_by_id() -> None:
    old = {"b": version(id="b"), "m": version(id="m"), "z": version(id="z")}
    new = {
        "a": version(id="a"),
        "m": version("archive/skill/m.md", id="m", archived=True),
        "z": version(id="z", confidence=0.9),
    }
    deltas = compare(old, new, {"b": "z"})
    assert [(d.category, d.id) for d in deltas] == [
        ("added", "a"),
        ("archived", "m"),
        ("merged", "b"),
        ("changed", "z"),
    ]
    assert deltas[2].merged_into == "z"


def test_value_changes_keep_types() -> None:
    changes = value_changes(insight(tags=("a",)), insight(tags=("b",), reinforcements=2))
    assert [(c.field, c.old, c.new) for c in changes] == [
        ("reinforcements", 0, 2),
        ("tags", ("a",), ("b",)),
    ]


# ------------------------------------------------------------------ a process


def test_diff_runs_as_a_process(run: Run, two: Any, store: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "chitin", "--store", str(store), "diff", "HEAD~1..HEAD"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0 and result.stdout.rstrip().endswith("1 added")


def test_a_change_past_the_shortened_width_shows_where_the_texts_part(run: Run, two: Any) -> None:
    """A merge appends the source's reasoning, an edit may fix a word at the end: the
    two sides, each cut at 80 characters, would read the same on both sides of →."""
    first, _ = two
    start = "A fix for a failure nobody has seen is a guess, and a guess that passes review"
    run("update", first["id"], "--reasoning", start + " stays a guess.")
    said = run("update", first["id"], "--reasoning", start + " hides the real bug.").stdout
    text = run("diff", "HEAD~1..HEAD").stdout
    for output in (said, text):
        (line,) = [x.strip() for x in output.splitlines() if x.strip().startswith("reasoning:")]
        old, new = line.removeprefix("reasoning: ").split(" → ")
        assert old != new, line
        assert "stays a guess." in old and "hides the real bug." in new, line
