"""Files are the truth: hand edits, git operations and a lost cache are all seen."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import Run, commit_count, git


@pytest.fixture(autouse=True, params=["stat walk", "git status"])
def sync_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test twice: small stores stat every file; above WALK_LIMIT files git says
    what may have changed. Both must see every change."""
    if request.param == "git status":
        monkeypatch.setattr("chitin.index.cache.WALK_LIMIT", 0)
    return str(request.param)


def path_of(store: Path, insight: dict[str, Any]) -> Path:
    return store / "insights" / insight["type"] / f"{insight['id']}.md"


def test_a_hand_edit_is_seen_by_the_next_command(run_json: Any, add: Any, store: Path) -> None:
    made = add("skill", "Original claim", 0.6)
    run_json("list")  # the cache now holds the original
    path = path_of(store, made)
    path.write_text(path.read_text().replace("Original claim", "Edited by hand"))
    assert run_json("get", made["id"])["claim"] == "Edited by hand"


def test_a_same_size_edit_right_after_a_write_is_seen(run_json: Any, add: Any, store: Path) -> None:
    made = add("skill", "Tick", 0.6)
    path = path_of(store, made)
    stat = path.stat()
    path.write_text(path.read_text().replace("confidence: 0.6", "confidence: 0.7"))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same size, same mtime
    assert run_json("get", made["id"])["confidence"] == 0.7


def test_files_added_and_deleted_by_hand_are_seen(run_json: Any, add: Any, store: Path) -> None:
    made = add("skill", "Will be deleted", 0.6)
    run_json("list")
    path_of(store, made).unlink()
    folder = store / "insights" / "team-ana"  # people may organise sub-folders
    folder.mkdir()
    (folder / "handmade.md").write_text(
        "---\ntype: principle\nconfidence: 0.7\n---\n\nWritten in an editor.\n"
    )
    listed = run_json("list")
    assert [(i["id"], i["claim"]) for i in listed] == [("handmade", "Written in an editor.")]


def test_a_broken_file_is_reported_and_everything_else_works(
    run: Run, run_json: Any, add: Any, store: Path
) -> None:
    good = add("skill", "Still readable", 0.6)
    bad = add("skill", "Will break", 0.6)
    path = path_of(store, bad)
    path.write_text(path.read_text().replace("confidence: 0.6", "confidence: [oops"))
    result = run("list", "--format", "json")
    assert [i["id"] for i in __import__("json").loads(result.stdout)] == [good["id"]]
    relative = f"insights/skill/{bad['id']}.md"
    assert result.stderr.startswith(f"warning: skipped {relative}: frontmatter YAML does not parse")
    assert run("get", good["id"]).exit_code == 0
    stats = run("stats", "--format", "json")
    assert '"total": 1' in stats.stdout and relative in stats.stderr
    path.write_text(path.read_text().replace("confidence: [oops", "confidence: 2"))
    assert "confidence must be between 0 and 1" in run("list").stderr
    written = run(
        "contribute", "--type", "skill", "--claim", "Writes still work", "--confidence", "0.6"
    )
    assert written.stdout.startswith("✓ Contributed") and relative in written.stderr


def test_a_git_revert_of_a_contribute_removes_the_insight(
    run_json: Any, add: Any, store: Path
) -> None:
    keep = add("skill", "Keep me", 0.6)
    drop = add("skill", "Revert me", 0.6)
    run_json("list")
    git(store, "-c", "user.name=t", "-c", "user.email=t@t", "revert", "--no-edit", "HEAD")
    assert [i["id"] for i in run_json("list")] == [keep["id"]]
    assert drop["id"] not in {i["id"] for i in run_json("list")}


def test_a_git_revert_of_the_first_archive_brings_the_insight_back_once(
    run_json: Any, add: Any, store: Path
) -> None:
    """The first archive makes archive/<type>/; its revert removes that folder again.
    The cache had no row for a folder chitin made, so no later walk looked for it, and
    the archived copy stayed: "id … is used by 2 files" on `get`, in both lists."""
    made = add("skill", "Check the logs before restarting a service", 0.7)["id"]
    run_json("archive", made)
    git(store, "-c", "user.name=t", "-c", "user.email=t@t", "revert", "--no-edit", "HEAD")
    assert not (store / "archive" / "skill").exists()
    assert run_json("get", made)["id"] == made
    assert [i["id"] for i in run_json("list")] == [made]
    assert run_json("list", "--archived") == []


def test_a_git_checkout_of_an_older_version_is_seen(
    run_json: Any, run: Run, add: Any, store: Path
) -> None:
    made = add("skill", "Versioned", 0.6)
    run("reinforce", made["id"])
    assert run_json("get", made["id"])["reinforcementCount"] == 1
    git(store, "checkout", "-q", "HEAD~1", "--", ".")
    assert run_json("get", made["id"])["reinforcementCount"] == 0


def test_deleting_the_cache_changes_nothing_but_time(run: Run, add: Any, store: Path) -> None:
    add("skill", "One", 0.6)
    add("trigger", "Two", 0.7, condition="always")
    before = [run(*cmd).stdout for cmd in (("list",), ("stats",), ("list", "--format", "json"))]
    shutil.rmtree(store / ".chitin")
    after = [run(*cmd).stdout for cmd in (("list",), ("stats",), ("list", "--format", "json"))]
    assert after == before


def test_a_corrupt_cache_is_rebuilt(run: Run, add: Any, store: Path) -> None:
    add("skill", "Survives corruption", 0.6)
    cache = store / ".chitin" / "cache.sqlite3"
    for suffix in ("-wal", "-shm"):
        Path(f"{cache}{suffix}").unlink(missing_ok=True)
    cache.write_bytes(b"this is not a database" * 100)
    assert "Survives corruption" in run("list").stdout


def test_an_unwritable_cache_folder_falls_back_to_memory(run: Run, add: Any, store: Path) -> None:
    add("skill", "Readable anyway", 0.6)
    shutil.rmtree(store / ".chitin")
    (store / ".chitin").write_text("a file where the cache folder should be")
    assert "Readable anyway" in run("list").stdout


def test_what_a_person_staged_stays_out_of_chitin_commits(run: Run, add: Any, store: Path) -> None:
    add("skill", "First", 0.6)
    (store / "notes.txt").write_text("my notes")
    git(store, "add", "notes.txt")
    add("skill", "Second", 0.6)
    assert "notes.txt" not in git(store, "show", "--name-only", "--format=", "HEAD")
    assert git(store, "diff", "--cached", "--name-only") == "notes.txt\n"


def _edit_and_stage(store: Path, path: str) -> str:
    """A person's edit of the insight at ``path``, and a file of their own, both
    staged; the edited text."""
    edited = (store / path).read_text().replace("Run the linter", "Run the formatter")
    (store / path).write_text(edited)
    (store / "notes.txt").write_text("my notes")
    git(store, "add", path, "notes.txt")
    return edited


def test_a_staged_hand_edit_of_an_insight_stays_staged_through_every_write(
    run: Run, add: Any, store: Path
) -> None:
    """fix70b item 2: a person edits insight A and `git add`s it (and another file);
    chitin's next contribute, reinforce, update or archive of another insight commits
    that insight alone, and leaves A and the other file staged as they were."""
    a = add("skill", "Run the linter before pushing", 0.8)
    b = add("skill", "Write the failing test first", 0.8)
    path_a = f"insights/skill/{a['id']}.md"
    edited = _edit_and_stage(store, path_a)
    staged = f"M  {path_a}\nA  notes.txt\n"
    assert git(store, "status", "--short") == staged
    for command in (
        [
            "contribute",
            "--type",
            "principle",
            "--claim",
            "Deploy after staging",
            "--confidence=0.7",
        ],
        ["reinforce", b["id"]],
        ["update", b["id"], "--context", "on CI"],
        ["archive", b["id"]],
    ):
        run(*command)
        assert git(store, "status", "--short") == staged, command
        assert path_a not in git(store, "show", "--name-only", "--format=", "HEAD"), command
    assert git(store, "show", f"HEAD:{path_a}") != edited


def test_a_staged_edit_of_the_insight_chitin_writes_is_committed_first_as_on_disk(
    run: Run, add: Any, store: Path
) -> None:
    """fix70b item 2, the same insight: A staged with one edit and edited again on top.
    chitin commits the file as it is on disk as the person's own commit ("Edit ... by
    hand"), then its reinforce over it; the other staged file stays staged."""
    a = add("skill", "Run the linter before pushing", 0.8)
    path_a = f"insights/skill/{a['id']}.md"
    text = _edit_and_stage(store, path_a)
    (store / path_a).write_text(text.replace("before pushing", "before a push"))
    run("reinforce", a["id"])
    assert git(store, "status", "--short") == "A  notes.txt\n"
    subjects = git(store, "log", "-2", "--format=%s").splitlines()
    assert subjects[0].startswith(f"Reinforce {a['id']}")
    assert subjects[1] == f"Edit {a['id']} by hand"
    assert "Run the formatter before a push" in git(store, "show", f"HEAD~1:{path_a}")
    assert "Run the formatter before a push" in (store / path_a).read_text()


def test_a_refused_commit_leaves_no_file_behind(run: Run, store: Path) -> None:
    run("init")
    hook = store / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'policy: no commits today' >&2\nexit 1\n")
    hook.chmod(0o755)
    result = run(
        "contribute", "--type", "skill", "--claim", "Refused", "--confidence", "0.5", expect=1
    )
    assert "policy: no commits today" in result.stderr
    assert list((store / "insights").rglob("*.md")) == []
    assert commit_count(store) == 1
    hook.unlink()
    assert run("list").stdout == "No insights found.\n"


def test_commits_work_without_any_git_identity(run: Run, add: Any, store: Path) -> None:
    add("skill", "Anonymous", 0.6)
    assert git(store, "log", "-1", "--format=%an <%ae>|%cn") == (
        "chitin <chitin@chitin.invalid>|chitin\n"
    )


def test_chitin_agent_names_the_author_and_a_configured_identity_wins(
    run: Run, add: Any, store: Path, monkeypatch: Any, tmp_path: Path
) -> None:
    monkeypatch.setenv("CHITIN_AGENT", "Scout Bot")
    add("skill", "By an agent", 0.6)
    assert git(store, "log", "-1", "--format=%an <%ae>") == "Scout Bot <scout-bot@chitin.invalid>\n"
    assert "Chitin-Agent: Scout Bot" in git(store, "log", "-1", "--format=%B")
    (tmp_path / "gitconfig").write_text("[user]\n\tname = Ana\n\temail = ana@example.org\n")
    add("skill", "By a person", 0.6)
    assert git(store, "log", "-1", "--format=%an <%ae>") == "Ana <ana@example.org>\n"


@pytest.mark.parametrize("agent", [" ", ".", "<>"])
def test_an_agent_name_git_cannot_use_falls_back_to_chitin(
    run: Run, add: Any, store: Path, monkeypatch: Any, agent: str
) -> None:
    """Without a git identity, $CHITIN_AGENT names the author; a name of only what git
    strips from a name made every commit fail ("name consists only of disallowed
    characters", qa38)."""
    monkeypatch.setenv("CHITIN_AGENT", agent)
    add("skill", "By a nameless agent", 0.6)
    assert git(store, "log", "-1", "--format=%an <%ae>") == "chitin <chitin@chitin.invalid>\n"


def test_git_log_shows_one_readable_commit_per_operation(run: Run, add: Any, store: Path) -> None:
    one = add("skill", "Readable history", 0.6)
    two = add("skill", "Merged away", 0.6)
    run("reinforce", one["id"])
    run("update", one["id"], "--tags", "git")
    run("merge", two["id"], one["id"])
    run("archive", one["id"])
    subjects = git(store, "log", "--format=%s").splitlines()
    assert subjects == [
        f"Archive {one['id']}: Readable history",
        f"Merge {two['id']} into {one['id']}",
        f"Update {one['id']}: tags",
        f"Reinforce {one['id']}: confidence 0.6 → 0.62 (1×)",
        "Contribute skill: Merged away",
        "Contribute skill: Readable history",
        "Initialize chitin store",
    ]


def test_a_settled_entry_still_sees_an_edit_that_restores_mtime(
    run_json: Any, add: Any, store: Path, monkeypatch: Any
) -> None:
    from chitin.format import layout

    made = add("skill", "Settles", 0.6)
    monkeypatch.setattr(layout, "RACY_WINDOW_NS", 0)
    monkeypatch.setattr(layout, "FINE_RACY_WINDOW_NS", 0)
    time.sleep(0.01)
    run_json("list")
    path = path_of(store, made)
    stat = path.stat()
    path.write_text(path.read_text().replace("Settles", "Changed"))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))
    assert run_json("get", made["id"])["claim"] == "Changed"


def test_sharded_layout_writes_one_level_deeper_and_reads_everything(
    run: Run, run_json: Any, add: Any, store: Path
) -> None:
    flat = add("skill", "Written before sharding", 0.6)
    (store / "chitin.yaml").write_text("shard: true\n")
    sharded = add("skill", "Written after sharding", 0.6)
    (deep,) = list((store / "insights" / "skill").glob(f"*/{sharded['id']}.md"))
    assert len(deep.parent.name) == 2 and path_of(store, flat).exists()
    run("archive", sharded["id"])
    assert not deep.parent.exists()  # the emptied shard folder is removed
    assert list((store / "archive" / "skill").glob(f"*/{sharded['id']}.md"))
    run("unarchive", sharded["id"])
    assert {i["id"] for i in run_json("list")} == {flat["id"], sharded["id"]}
    assert git(store, "status", "--porcelain") == "?? chitin.yaml\n"


def test_an_id_used_by_two_files_is_named_not_guessed(run: Run, add: Any, store: Path) -> None:
    made = add("skill", "Copied by hand", 0.6)
    copy = store / "insights" / "team" / f"{made['id']}.md"
    copy.parent.mkdir()
    copy.write_text(path_of(store, made).read_text())
    result = run("reinforce", made["id"], expect=1)
    assert result.stderr == (
        f"Error: id {made['id']} is used by 2 files (insights/skill/{made['id']}.md, "
        f"insights/team/{made['id']}.md); rename one of them\n"
    )


def test_rebuilding_the_cache_reports_progress(add: Any, store: Path) -> None:
    from chitin.core import Chitin

    for n in range(3):
        add("skill", f"Progress {n}", 0.6)
    shutil.rmtree(store / ".chitin")
    calls: list[tuple[int, int]] = []
    chitin = Chitin(store, progress=lambda done, total: calls.append((done, total)))
    assert len(chitin.list_insights()) == 3
    chitin.close()
    assert calls and calls[-1] == (3, 3)


# ------------------------------------------------------------------ git-assisted syncs
# In a git store the cache asks git what changed instead of statting every file; these
# cover the cases git alone would not report.

HANDMADE = "---\ntype: skill\nconfidence: 0.7\n---\n\n{claim}\n"


def test_an_untracked_file_edited_in_place_is_seen(run_json: Any, add: Any, store: Path) -> None:
    add("skill", "Tracked", 0.6)
    loose = store / "insights" / "skill" / "loose.md"
    loose.write_text(HANDMADE.format(claim="First words"))
    assert run_json("get", "loose")["claim"] == "First words"
    loose.write_text(HANDMADE.format(claim="Other words"))  # in place: the folder is unchanged
    assert run_json("get", "loose")["claim"] == "Other words"


def test_a_git_ignored_file_is_still_an_insight(run_json: Any, add: Any, store: Path) -> None:
    add("skill", "Tracked", 0.6)
    (store / ".gitignore").write_text(".chitin/\ninsights/private/\n")
    private = store / "insights" / "private" / "secret-habit.md"
    private.parent.mkdir()
    private.write_text(HANDMADE.format(claim="Kept out of git"))
    assert run_json("get", "secret-habit")["claim"] == "Kept out of git"
    private.write_text(HANDMADE.format(claim="Changed out of git"))
    assert run_json("get", "secret-habit")["claim"] == "Changed out of git"


def test_committed_stashed_and_restored_hand_edits_are_seen(
    run_json: Any, add: Any, store: Path
) -> None:
    made = add("skill", "Original text", 0.6)
    path = path_of(store, made)
    path.write_text(path.read_text().replace("Original text", "Edited text"))
    assert run_json("get", made["id"])["claim"] == "Edited text"
    git(store, "stash", "-q")
    assert run_json("get", made["id"])["claim"] == "Original text"
    git(store, "stash", "pop", "-q")
    assert run_json("get", made["id"])["claim"] == "Edited text"
    git(store, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "by hand")
    assert run_json("get", made["id"])["claim"] == "Edited text"
    git(store, "reset", "-q", "--hard", "HEAD~1")
    assert run_json("get", made["id"])["claim"] == "Original text"


def test_a_new_branch_checkout_is_seen(run_json: Any, add: Any, store: Path) -> None:
    add("skill", "On main", 0.6)
    git(store, "checkout", "-q", "-b", "other")
    on_branch = add("skill", "Only on the branch", 0.6)
    git(store, "checkout", "-q", "main")
    assert on_branch["id"] not in {i["id"] for i in run_json("list")}
    git(store, "checkout", "-q", "other")
    assert on_branch["id"] in {i["id"] for i in run_json("list")}


@pytest.mark.parametrize("how", ["rm", "checkout"])
def test_a_file_chitin_wrote_into_a_settled_folder_is_seen_going(
    run_json: Any, add: Any, store: Path, monkeypatch: Any, how: str
) -> None:
    """A folder whose files were all settled (not racily recent) when it was last
    walked keeps a fingerprint of them; a file chitin writes there, then removed (by
    hand, or by a checkout), gives that fingerprint back: the write unsettles the folder."""
    from chitin.format import layout

    monkeypatch.setattr(layout, "RACY_WINDOW_NS", 0)  # every stat settled at once
    monkeypatch.setattr(layout, "FINE_RACY_WINDOW_NS", 0)
    kept = add("skill", "Kept", 0.6)
    time.sleep(0.01)
    run_json("list")
    if how == "checkout":
        git(store, "checkout", "-q", "-b", "other")
    gone = add("skill", "Gone again", 0.6)
    if how == "rm":
        path_of(store, gone).unlink()
    else:
        git(store, "checkout", "-q", "main")
    assert [i["id"] for i in run_json("list")] == [kept["id"]]


def test_a_removed_folder_and_a_file_put_in_place_of_a_folder(
    run_json: Any, add: Any, store: Path
) -> None:
    add("skill", "Stays", 0.6)
    team = store / "insights" / "team"
    team.mkdir()
    (team / "a.md").write_text(HANDMADE.format(claim="Team insight"))
    assert len(run_json("list")) == 2
    shutil.rmtree(team)
    assert [i["claim"] for i in run_json("list")] == ["Stays"]


def test_a_removed_folder_forgets_no_other_folder_of_a_like_name(
    run_json: Any, add: Any, store: Path, sync_mode: str
) -> None:
    """qa60: in a store past WALK_LIMIT files (git says what changed), removing the
    folder insights/team_a dropped the insights of insights/teamBa/sub and
    insights/TEAM_A/sub from the cache too, for good: the folder's rows were matched
    with SQL LIKE, where "_" is any character and case is ignored. list, get and
    stats lost them; check, which reads the files, still counted them."""
    add("skill", "Stays", 0.6)
    folders = {"team_a": "Goes with its folder", "teamBa/sub": "Alike", "TEAM_A/sub": "Cased"}
    for number, (folder, claim) in enumerate(folders.items()):
        (store / "insights" / folder).mkdir(parents=True)
        (store / "insights" / folder / f"n{number}.md").write_text(HANDMADE.format(claim=claim))
    git(store, "add", "-A")
    git(store, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "by hand")
    assert len(run_json("list")) == 4
    shutil.rmtree(store / "insights" / "team_a")
    assert sorted(i["claim"] for i in run_json("list")) == ["Alike", "Cased", "Stays"]


def test_an_edit_of_chitin_yaml_is_seen_though_its_settings_are_kept_parsed(
    run: Run, add: Any, store: Path
) -> None:
    """The parsed settings are kept in .chitin/config.json under the file's stat (YAML
    costs a session start ~20 ms); an edit changes the stat, so it is read again."""
    import json

    add("relational", "Priya wants a summary first", 0.8, provenance="social")
    settings = store / "chitin.yaml"

    def half_life() -> Any:
        found = run("retrieve", "--query", "Priya summary", "--format", "json", "--explain")
        return json.loads(found.stdout)["insights"][0]["basis"]["halfLifeDays"]

    settings.write_text("half_lives: {social: 45}\n")
    os.utime(settings, ns=(1_700_000_000_000_000_000,) * 2)  # older than the racy window
    assert half_life() == 45
    assert json.loads((store / ".chitin" / "config.json").read_text())["config"] == {
        "half_lives": {"social": 45}
    }
    settings.write_text("half_lives: {social: 46}\n")  # same size
    os.utime(settings, ns=(1_700_000_000_000_000_000,) * 2)  # and same mtime: ctime moved
    assert half_life() == 46
    settings.write_text("half_lives: {social: 47}\n")  # just now: never kept
    assert half_life() == 47
    settings.unlink()
    assert half_life() == 30


def test_a_prefetched_status_is_taken_by_its_command_or_ended_with_it(
    run: Run, run_json: Any, add: Any, store: Path, sync_mode: str
) -> None:
    """In a store synced by git, the console starts git status before the CLI loads
    (chitin/console/); the command's sync takes that answer, or it is ended."""
    from chitin import console
    from chitin.process import PREFETCHED

    made = add("skill", "Prefetched claim", 0.6)
    run_json("list")
    path = path_of(store, made)
    path.write_text(path.read_text().replace("Prefetched claim", "Edited before the read"))
    argv = ["--store", str(store), "list", "--format", "json"]
    console.prefetch(argv, os.environ)
    assert len(PREFETCHED) == (1 if sync_mode == "git status" else 0)
    assert run_json("list")[0]["claim"] == "Edited before the read"
    assert len(PREFETCHED) == 0  # taken by the sync
    console.prefetch(["--store", str(store), "list", "--min-confidence", "x"], os.environ)
    run("list", "--min-confidence", "x", expect=2)  # stops before its sync: ended
    assert len(PREFETCHED) == 0
    console.prefetch(["--store", str(store), "get", made["id"]], os.environ)
    assert len(PREFETCHED) == 0  # get stats its own file instead (Cache.vouch)


def age(store: Path) -> None:
    """Date every insight file and folder an hour back: past the racy window, so the
    next sync remembers the folders' mtimes and ``get`` may vouch for a file by its
    stat (Cache.vouch) instead of syncing."""
    old = time.time() - 3600
    for path in [store / "insights", *(store / "insights").rglob("*")]:
        os.utime(path, (old, old))


def test_get_in_a_settled_store_still_sees_every_edit_of_what_it_shows(
    run: Run, run_json: Any, add: Any, store: Path
) -> None:
    made = add("skill", "Settled claim", 0.6)
    other = add("skill", "Another settled claim", 0.6)
    age(store)
    run_json("list")  # the cache remembers the folders (and, above the limit, HEAD)
    assert run_json("get", made["id"])["claim"] == "Settled claim"
    path = path_of(store, made)
    stat = path.stat()
    path.write_text(path.read_text().replace("Settled claim", "Edited in place"))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # even with its mtime kept
    assert run_json("get", made["id"])["claim"] == "Edited in place"
    assert run_json("get", made["id"][:-1])["claim"] == "Edited in place"  # a prefix
    age(store)
    run_json("list")
    path.write_text(path.read_text().replace(f"id: {made['id']}", "id: renamed-by-hand"))
    assert run_json("get", "renamed-by-hand")["claim"] == "Edited in place"
    run("get", made["id"], expect=1)
    assert run_json("get", other["id"])["claim"] == "Another settled claim"
    path_of(store, other).unlink()
    run("get", other["id"], expect=1)


def test_only_reading_commands_prefetch(store: Path, tmp_path: Path) -> None:
    from chitin.console.ahead import reading_store

    env = {"CHITIN_STORE": str(store), "HOME": str(tmp_path)}
    at = ["--store", str(tmp_path / "other")]
    assert reading_store(["retrieve", "--query", "x"], env) == store
    assert reading_store(["--debug", *at, "render"], env) == tmp_path / "other"
    assert reading_store([f"--store={tmp_path / 'other'}", "stats"], env) == tmp_path / "other"
    assert reading_store(["hooks", "run", "claude-code", "session-start"], env) == store
    for writer in (
        ["contribute", "--type", "skill"],
        ["reinforce", "x"],
        ["import", "f.json"],
        ["embed"],
        ["hooks", "run", "claude-code", "reflect"],
        ["--store", "get", "contribute"],  # the store is named "get"
        ["--version"],
        ["--unknown", "get"],
        [],
    ):
        assert reading_store(writer, env) is None, writer


def test_render_names_the_commit_it_was_made_from_however_git_keeps_head(
    run: Run, add: Any, store: Path, tmp_path: Path
) -> None:
    """render reads HEAD from git's own files when they are plain (a loose ref, packed
    refs, a detached HEAD) and asks git otherwise (a worktree); it is always HEAD."""

    def rendered_commit(root: Path) -> str:
        from click.testing import CliRunner

        from chitin.cli import cli

        text = CliRunner().invoke(cli, ["--store", str(root), "render"]).stdout
        return text.split("from commit ")[1][:12]

    def head(root: Path) -> str:
        return git(root, "rev-parse", "HEAD").strip()[:12]

    add("skill", "First claim", 0.6)
    assert rendered_commit(store) == head(store)
    add("skill", "Second claim", 0.6)  # HEAD moved: the kept commit time is not used
    assert rendered_commit(store) == head(store)
    git(store, "pack-refs", "--all")  # the branch ref now lives in packed-refs only
    assert not (store / ".git" / "refs" / "heads" / "main").exists()
    assert rendered_commit(store) == head(store)
    git(store, "checkout", "-q", "--detach", "HEAD~1")
    assert rendered_commit(store) == head(store)
    git(store, "checkout", "-q", "main")
    (store / ".chitin" / "head-time").write_bytes(b"\xff garbage")
    assert rendered_commit(store) == head(store)
    worktree = tmp_path / "worktree"
    git(store, "worktree", "add", "-q", "--detach", str(worktree), "HEAD~1")
    assert (worktree / ".git").is_file() and rendered_commit(worktree) == head(worktree)
