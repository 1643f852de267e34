"""A merge is in its target's history even when it leaves the target's file as it was
(issue 25): history follows the commits that name the insight, not only its path."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from conftest import Run, git

from chitin import Chitin

SECOND = datetime(2026, 11, 5, 9, 30, 0, tzinfo=UTC)
ENV = {"CHITIN_BACKGROUND_EMBED": "off", "CHITIN_AGENT": "tests"}


def test_a_merge_that_leaves_the_target_unchanged_is_in_its_history(tmp_path: Path) -> None:
    # One clock for every write: the merge's "updated" is the target's own, and a
    # source with nothing the target lacks changes no byte of the target's file.
    with Chitin(store=tmp_path / "store", env=ENV, now=SECOND) as chitin:
        chitin.init()
        target = chitin.contribute(
            {"type": "skill", "claim": "Reproduce a bug before fixing it", "confidence": 0.9},
            check=False,
        ).insight
        source = chitin.contribute(
            {"type": "skill", "claim": "Reproduce the bug before you fix it", "confidence": 0.5},
            check=False,
        ).insight
        target_file = next((tmp_path / "store").rglob(f"{target.id}.md"))
        before = target_file.read_bytes()
        chitin.merge(source.id, target.id)
        assert target_file.read_bytes() == before  # the case: no byte changed
        _, entries = chitin.history(target.id)
    assert [e.change_type for e in entries] == ["create", "merge"]
    merge = entries[-1]
    assert (merge.insight_id, merge.source) == (target.id, f"merge:{source.id}")
    assert merge.commit != entries[0].commit and merge.change_type == "merge"


def test_history_with_a_limit_counts_the_merge_too(tmp_path: Path) -> None:
    with Chitin(store=tmp_path / "store", env=ENV, now=SECOND) as chitin:
        chitin.init()
        claims = ["Pin dependency versions", "Pin the dependency versions", "Pin versions"]
        made = [
            chitin.contribute({"type": "skill", "claim": c, "confidence": 0.9}, check=False)
            for c in claims
        ]
        keep = made[0].insight.id
        chitin.merge(made[1].insight.id, keep)
        chitin.merge(made[2].insight.id, keep)
        _, newest = chitin.history(keep, limit=1)
        _, every = chitin.history(keep)
    assert [e.source for e in newest] == [f"merge:{made[2].insight.id}"]
    assert [e.change_type for e in every] == ["create", "merge", "merge"]


def test_a_new_insight_like_another_has_only_its_own_history(tmp_path: Path) -> None:
    """git's --follow also follows copies: a new file much like an older one (two
    short insights share most of their frontmatter) was read as a copy of it, and the
    history of one showed the other's creation, then a change of claim to its own."""
    with Chitin(store=tmp_path / "store", env=ENV, now=SECOND) as chitin:
        chitin.init()
        chitin.contribute({"type": "skill", "claim": "JSON stdin lesson", "confidence": 0.7})
        made = chitin.contribute(
            {"type": "skill", "claim": "Lesson two", "confidence": 0.5, "tags": ["x"]}
        ).insight
        _, entries = chitin.history(made.id)
        chitin.reinforce(made.id)
        _, later = chitin.history(made.id)
    assert [(e.change_type, e.field, e.new) for e in entries] == [("create", "*", "Lesson two")]
    assert [e.change_type for e in later] == ["create", "reinforce"]


def test_a_merges_rows_come_in_the_originals_field_order(tmp_path: Path) -> None:
    """1.4.5 wrote a merge's rows on the target in the order claim, confidence, tags,
    reinforcement_count, reasoning (reference §1.5), so its changelog (newest first)
    leads with reasoning (§2.10); an update's rows keep the update order."""
    with Chitin(store=tmp_path / "store", env=ENV, now=SECOND) as chitin:
        chitin.init()
        insight = {"type": "behavioral", "claim": "Target claim", "confidence": 0.8}
        target = chitin.contribute(insight | {"tags": ["a"], "reasoning": "TR"}, check=False)
        source = chitin.contribute(
            {"type": "skill", "claim": "Source", "confidence": 0.9, "tags": ["b"]}
            | {"reasoning": "SR"},
            check=False,
        )
        chitin.reinforce(source.insight.id)
        chitin.merge(source.insight.id, target.insight.id, claim="Merged claim")
        _, entries = chitin.history(target.insight.id)
    fields = [e.field for e in entries if e.change_type == "merge"]
    assert fields == ["claim", "confidence", "tags", "reinforcement_count", "reasoning"]


def test_history_with_a_limit_shows_that_many_changes_not_commits(tmp_path: Path) -> None:
    """`--limit N` shows the newest N changes (docs/compatibility.md), as 1.x's SQL
    LIMIT counted rows: an update of three fields is three changes, not one."""
    with Chitin(store=tmp_path / "store", env=ENV, now=SECOND) as chitin:
        chitin.init()
        made = chitin.contribute(
            {"type": "skill", "claim": "Pin versions", "confidence": 0.9}, check=False
        ).insight
        chitin.update(made.id, {"claim": "Pin every version", "confidence": 0.8, "tags": ["x"]})
        _, newest = chitin.history(made.id, limit=2)
        _, one = chitin.history(made.id, limit=1)
        _, every = chitin.history(made.id, limit=9)
    assert [e.field for e in newest] == ["confidence", "tags"]
    assert [e.field for e in one] == ["tags"]
    assert [e.field for e in every] == ["*", "claim", "confidence", "tags"]


def test_a_change_after_such_a_merge_in_the_same_second_comes_after_it(
    tmp_path: Path,
) -> None:
    """Issue 25's backup: merge a copy into the kept insight, then reinforce it, within
    one second (a script, a test). The merge is found by its trailer, not in the file's
    log, and at a tie of seconds it was put last, after the reinforcement that followed
    it; git knows which came first (the export, from one git log, had it right)."""
    claim = {"type": "skill", "claim": "Reproduce a bug before fixing it"}
    with Chitin(store=tmp_path / "store", env=ENV, now=SECOND) as chitin:
        chitin.init()
        kept = chitin.contribute({**claim, "confidence": 0.8}).insight.id
        copy = chitin.contribute({**claim, "confidence": 0.6}, check=False).insight.id
        chitin.merge(copy, kept)
        chitin.reinforce(kept, source="the login fix")
        chitin.update(kept, {"limitations": "Not for typos"})
        _, entries = chitin.history(kept)
        _, newest = chitin.history(kept, limit=2)
    assert [e.change_type for e in entries] == ["create", "merge", "reinforce", "update"]
    assert [e.change_type for e in newest] == ["reinforce", "update"]


def test_a_chain_of_merges_is_followed_to_the_insight_there_is(run: Run, add: Any) -> None:
    """A merged into B, then B into C: `get A` named B, which is gone too (fix70b)."""
    a = add("skill", "Reproduce bugs with a failing test", 0.7)["id"]
    b = add("skill", "Keep commits small and focused", 0.85)["id"]
    c = add("principle", "Deploy only after the staging checks pass", 0.8)["id"]
    run("merge", a, b)
    run("merge", b, c)
    day = datetime.now(UTC).strftime("%Y-%m-%d")  # the merges' commit dates (UTC)
    both = f"it was merged into {b} ({day}), then into {c} ({day})\n"
    for command in (["get", a], ["history", a], ["get", a, "--format", "json"]):
        assert run(*command, expect=1).stderr == f"Error: no insight {a}; {both}", command
    assert (
        run("get", b, expect=1).stderr == f"Error: no insight {b}; it was merged into {c} ({day})\n"
    )
    assert run("merge", a, c, expect=1).stderr == f"Error: no source insight {a}; {both}"


def test_a_cycle_of_merges_in_the_log_is_said_once(run: Run, add: Any, store: Path) -> None:
    """A merged into B, B into C, and a commit (by hand) saying C was merged into A:
    the chain stops before it comes round again."""
    a = add("skill", "Reproduce bugs with a failing test", 0.7)["id"]
    b = add("skill", "Keep commits small and focused", 0.85)["id"]
    c = add("principle", "Deploy only after the staging checks pass", 0.8)["id"]
    run("merge", a, b)
    run("merge", b, c)
    git(store, "rm", "-q", f"insights/principle/{c}.md")
    message = f"Merge by hand\n\nChitin-Op: merge\nChitin-Insight: {a}\nChitin-Merged: {c}\n"
    git(store, "-c", "user.name=P", "-c", "user.email=p@example.com", "commit", "-qm", message)
    day = datetime.now(UTC).strftime("%Y-%m-%d")
    assert run("get", a, expect=1).stderr == (
        f"Error: no insight {a}; it was merged into {b} ({day}), then into {c} ({day})\n"
    )
    assert run("get", c, expect=1).stderr == (
        f"Error: no insight {c}; it was merged into {a} ({day}), then into {b} ({day})\n"
    )


def test_an_insight_a_git_revert_brought_back_keeps_its_whole_history(
    run_json: Any, add: Any, store: Path
) -> None:
    """`git revert` of a merge brings the merged-away insight back. Its history cut at
    that revert (a re-creation looked like a new file much like another), so it showed
    a second "create" and, from the commit naming it, a first one without its claim,
    and the merge itself was gone."""
    source = add("skill", "Reproduce bugs with a failing test", 0.7)["id"]
    target = add("skill", "Reproduce a bug before fixing it", 0.85, force=True)["id"]
    run_json("merge", source, target)
    git(store, "-c", "user.name=t", "-c", "user.email=t@t", "revert", "--no-edit", "HEAD")
    rows = run_json("history", source)["history"]

    assert [(r["changeType"], r["newValue"]) for r in rows] == [
        ("create", "Reproduce bugs with a failing test"),
        ("merge", f"merged into {target}"),
        ("create", "Reproduce bugs with a failing test"),
    ]


def test_an_archive_undone_outside_chitin_says_so_in_history(
    run_json: Any, add: Any, store: Path
) -> None:
    """`git revert` of an archive (or a `git mv` back) moves the file from archive/ to
    insights/: its row said "[edit]" and nothing else."""
    made = add("skill", "Check the logs before restarting a service", 0.7)["id"]
    run_json("archive", made)
    git(store, "-c", "user.name=t", "-c", "user.email=t@t", "revert", "--no-edit", "HEAD")
    rows = run_json("history", made)["history"]
    assert [(r["changeType"], r["field"], r["oldValue"], r["newValue"]) for r in rows[1:]] == [
        ("archive", "archived", "false", "true"),
        ("edit", "archived", "true", "false"),
    ]
    assert run_json("changelog", "--limit", "1")[0]["field"] == "archived"
