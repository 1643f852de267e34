"""Sync between machines: two clones of one bare repository, on local disk.

git runs `chitin merge-driver` during merges, so the installed console script must be
on PATH; every reinforcement made on either side must survive every sync.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from chitin.cli import cli
from tests.conftest import git


@pytest.fixture(autouse=True)
def chitin_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    scripts = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", scripts + os.pathsep + os.environ.get("PATH", ""))


def chitin(store: Path, *args: str, expect: int | None = 0, agent: str | None = None) -> Result:
    env = {"CHITIN_AGENT": agent} if agent else {}
    result = CliRunner().invoke(cli, ["--store", str(store), *args], env=env)
    if expect is not None:
        assert result.exit_code == expect, (result.stdout, result.stderr)
    return result


def as_json(store: Path, *args: str) -> Any:
    return json.loads(chitin(store, *args, "--format", "json").stdout)


class Machines:
    """A bare remote and two stores cloned from it, ``a`` and ``b``."""

    def __init__(self, root: Path) -> None:
        self.remote = root / "remote.git"
        subprocess.run(["git", "init", "-q", "--bare", str(self.remote)], check=True)
        self.a, self.b = root / "a", root / "b"
        chitin(self.a, "init", "--seed")
        git(self.a, "remote", "add", "origin", str(self.remote))
        chitin(self.a, "sync")
        subprocess.run(["git", "clone", "-q", str(self.remote), str(self.b)], check=True)
        chitin(self.b, "sync")
        self.id = as_json(self.a, "list")[0]["id"]

    def insight(self, store: Path, insight_id: str | None = None) -> Any:
        return as_json(store, "get", insight_id or self.id)

    def remote_head(self) -> str:
        return git(self.remote, "rev-parse", "HEAD").strip()


@pytest.fixture
def machines(tmp_path: Path) -> Machines:
    return Machines(tmp_path)


def evidence_of(store: Path, insight_id: str) -> list[str]:
    text = next(store.glob(f"insights/*/{insight_id}.md")).read_text()
    front = text.split("---\n")[1]
    return [line[2:] for line in front.splitlines() if line.startswith("- 20")]


def test_concurrent_reinforcements_add_up(machines: Machines) -> None:
    before = machines.insight(machines.a)
    chitin(machines.a, "reinforce", machines.id, "--evidence", "external", agent="alpha")
    chitin(machines.b, "reinforce", machines.id, agent="beta")
    chitin(machines.b, "reinforce", machines.id, agent="beta")
    chitin(machines.a, "sync")
    merged = as_json(machines.b, "sync")
    assert merged["received"] == 1 and merged["mergeCommit"]
    chitin(machines.a, "sync")
    a, b = machines.insight(machines.a), machines.insight(machines.b)
    assert a == b
    assert a["reinforcementCount"] == before["reinforcementCount"] + 3
    expected = before["confidence"]
    for _ in range(3):
        expected = round(min(1.0, expected + (1 - expected) * 0.05), 6)
    assert a["confidence"] == expected
    log = evidence_of(machines.a, machines.id)
    authors = sorted(entry.split()[1].split("@")[0] for entry in log)
    assert authors == ["alpha", "beta", "beta"]
    assert sum(entry.endswith(" external") for entry in log) == 1
    assert git(machines.a, "status", "--porcelain") == ""


def test_identical_reinforcements_in_the_same_second_both_count(
    machines: Machines, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same second, same author, same message: without the evidence token the two
    commits would be one and the same, and a reinforcement would vanish."""
    moment = datetime(2026, 11, 30, 9, tzinfo=UTC)
    monkeypatch.setattr("chitin.cli.context.now", lambda: moment)
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_DATE", "2026-11-30T09:00:00Z")
    base = machines.insight(machines.a)["reinforcementCount"]
    chitin(machines.a, "reinforce", machines.id, agent="twin")
    chitin(machines.b, "reinforce", machines.id, agent="twin")
    assert git(machines.a, "rev-parse", "HEAD") != git(machines.b, "rev-parse", "HEAD")
    chitin(machines.a, "sync")
    chitin(machines.b, "sync")
    chitin(machines.a, "sync")
    assert machines.insight(machines.a)["reinforcementCount"] == base + 2
    assert machines.insight(machines.b)["reinforcementCount"] == base + 2


def test_a_plain_git_pull_rebase_keeps_both_reinforcements(machines: Machines) -> None:
    base = machines.insight(machines.a)["reinforcementCount"]
    chitin(machines.a, "reinforce", machines.id)
    chitin(machines.b, "reinforce", machines.id)
    chitin(machines.a, "sync")
    who = ["-c", "user.name=Bee", "-c", "user.email=bee@example.org"]
    git(machines.b, *who, "pull", "-q", "--rebase", "origin", "main")
    assert git(machines.b, "rev-list", "--merges", "--count", "HEAD").strip() == "0"
    assert machines.insight(machines.b)["reinforcementCount"] == base + 2


def test_different_insights_from_both_sides_meet(machines: Machines) -> None:
    one = as_json(
        machines.a,
        "contribute",
        "--type",
        "skill",
        "--claim",
        "Bisect first",
        "--confidence",
        "0.7",
    )["insight"]["id"]
    two = as_json(
        machines.b,
        "contribute",
        "--type",
        "principle",
        "--claim",
        "Say no early",
        "--confidence",
        "0.8",
    )["insight"]["id"]
    chitin(machines.a, "sync")
    chitin(machines.b, "sync")
    chitin(machines.a, "sync")
    for store in (machines.a, machines.b):
        ids = {i["id"] for i in as_json(store, "list")}
        assert {one, two} <= ids
    assert git(machines.a, "rev-parse", "HEAD") == git(machines.b, "rev-parse", "HEAD")


def test_an_archive_meets_an_edit_the_insight_stays_archived_with_the_edit(
    machines: Machines,
) -> None:
    chitin(machines.a, "archive", machines.id)
    chitin(machines.b, "update", machines.id, "--context", "Only in long sessions")
    chitin(machines.a, "sync")
    chitin(machines.b, "sync")
    chitin(machines.a, "sync")
    for store in (machines.a, machines.b):
        insight = machines.insight(store)
        assert insight["archived"] is True
        assert insight["context"] == "Only in long sessions"
        assert not list(store.glob(f"insights/*/{machines.id}.md"))


def _claim_conflict(machines: Machines) -> tuple[str, Path]:
    """Both machines change the claim differently; a syncs first, b's sync stops."""
    chitin(machines.a, "update", machines.id, "--claim", "Ask exactly one question")
    chitin(machines.b, "update", machines.id, "--claim", "Ask no more than two questions")
    chitin(machines.a, "sync")
    pushed = machines.remote_head()
    head = git(machines.b, "rev-parse", "HEAD").strip()
    stopped = chitin(machines.b, "sync", expect=1)
    message = stopped.stderr.strip()
    assert message.startswith("Error: sync stopped: 1 insight file(s) changed on both sides")
    assert "claim changed on both sides" in message and "chitin sync --continue" in message
    assert machines.remote_head() == pushed  # nothing half-merged was sent
    # The store is as it was: no merge state, a clean tree, b's version served.
    assert git(machines.b, "rev-parse", "HEAD").strip() == head
    assert not (machines.b / ".git" / "MERGE_HEAD").exists()
    assert git(machines.b, "status", "--porcelain") == ""
    assert machines.insight(machines.b)["claim"] == "Ask no more than two questions"
    path = next(machines.b.glob(f"insights/*/{machines.id}.md"))
    edited = machines.b / ".chitin" / "conflicts" / path.relative_to(machines.b)
    assert "<<<<<<<" in edited.read_text() and "Ask exactly one question" in edited.read_text()
    return pushed, edited


def test_a_true_claim_conflict_stops_and_continues_without_git_knowledge(
    machines: Machines,
) -> None:
    # No git identity here (conftest): chitin commits the merge anyway.
    assert "user." not in git(machines.b, "config", "--list")
    _, edited = _claim_conflict(machines)
    again = chitin(machines.b, "sync", expect=1)
    assert "a sync stopped on a conflict" in again.stderr
    other = next(i["id"] for i in as_json(machines.b, "list") if i["id"] != machines.id)
    chitin(machines.b, "reinforce", other)  # the store stays writable meanwhile
    premature = chitin(machines.b, "sync", "--continue", expect=1)
    assert "still holds conflict markers" in premature.stderr

    text = edited.read_text()
    resolved = text.split("<<<<<<<")[0] + "Ask one question, two at most.\n"
    resolved += text.split(">>>>>>>")[1].split("\n", 1)[1]
    edited.write_text(resolved)
    chitin(machines.b, "sync", "--continue")
    assert not edited.exists() and not (machines.b / ".git" / "chitin-sync.json").exists()
    assert git(machines.b, "status", "--porcelain") == ""
    chitin(machines.a, "sync")
    assert machines.insight(machines.a)["claim"] == "Ask one question, two at most."
    parents = git(machines.a, "log", "-1", "--format=%P", "HEAD").split()
    assert len(parents) == 2


@pytest.mark.parametrize(("side", "claim"), [("--ours", "two"), ("--theirs", "one")])
def test_a_conflict_is_settled_per_insight_by_one_side(
    machines: Machines, side: str, claim: str
) -> None:
    _claim_conflict(machines)
    wrong = chitin(machines.b, "sync", side, "nosuchid", expect=1)
    assert "'nosuchid' is not in conflict" in wrong.stderr
    chitin(machines.b, "sync", side, machines.id)
    chitin(machines.a, "sync")
    for store in (machines.a, machines.b):
        assert claim in machines.insight(store)["claim"]
        assert git(store, "status", "--porcelain") == ""


def test_a_conflict_is_settled_by_a_short_id_as_every_command_takes_one(
    machines: Machines,
) -> None:
    """The ids the agent reads are short prefixes (issue 24); `sync --ours` and
    `--theirs` take one too, when it names one conflicted insight."""
    _claim_conflict(machines)
    chitin(machines.b, "sync", "--theirs", machines.id[:6])
    assert "one" in machines.insight(machines.b)["claim"]
    assert git(machines.b, "status", "--porcelain") == ""


def test_an_edit_that_does_not_read_as_an_insight_is_not_merged(machines: Machines) -> None:
    """`--continue` takes the person's edit only if it reads as the insight: a slip
    (the markers gone, the YAML broken) would otherwise be committed in the merge and
    pushed to every machine."""
    pushed, edited = _claim_conflict(machines)
    text = edited.read_text()
    kept = text.split("<<<<<<<")[0] + "Ask one question, two at most.\n"
    kept += text.split(">>>>>>>")[1].split("\n", 1)[1]
    edited.write_text(kept.replace("confidence: ", "confidence: [", 1))
    refused = chitin(machines.b, "sync", "--continue", expect=1)
    assert f"{edited} does not read as the insight" in refused.stderr
    assert "frontmatter YAML does not parse" in refused.stderr
    assert machines.remote_head() == pushed and git(machines.b, "status", "--porcelain") == ""
    edited.write_text(kept.replace(f"id: {machines.id}", "id: another-id"))
    assert (
        "declares the id 'another-id'" in chitin(machines.b, "sync", "--continue", expect=1).stderr
    )
    edited.write_text(kept)
    chitin(machines.b, "sync", "--continue")
    assert machines.insight(machines.b)["claim"] == "Ask one question, two at most."


def test_an_edit_holding_a_new_credential_is_not_merged_or_pushed(machines: Machines) -> None:
    """The edited conflict file is committed in the merge and pushed: a token typed
    into it is refused there, as a hand edit holding one is before any write."""
    token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    pushed, edited = _claim_conflict(machines)
    text = edited.read_text()
    kept = text.split("<<<<<<<")[0] + "Ask one question, two at most.\n"
    kept += text.split(">>>>>>>")[1].split("\n", 1)[1]
    edited.write_text(kept.replace("two at most.", f"two at most. {token}"))
    refused = chitin(machines.b, "sync", "--continue", expect=1)
    assert f"{edited} looks like it holds a GitHub token" in refused.stderr
    assert "ghp_" not in refused.stderr
    assert machines.remote_head() == pushed and git(machines.b, "status", "--porcelain") == ""
    assert "ghp_" not in git(machines.b, "log", "-p", "-m", "--all")
    edited.write_text(kept)
    chitin(machines.b, "sync", "--continue")
    assert machines.insight(machines.b)["claim"] == "Ask one question, two at most."


def test_a_conflict_in_a_file_that_is_no_insight_is_settled_by_an_edit(
    machines: Machines,
) -> None:
    for store, text in ((machines.a, "Ours, says A.\n"), (machines.b, "Ours, says B.\n")):
        (store / "README.md").write_text(text)
        git(store, "-c", "user.name=P", "-c", "user.email=p@example.org", "commit", "-qam", text)
    chitin(machines.a, "sync")
    stopped = chitin(machines.b, "sync", expect=1).stderr
    assert "1 file(s) changed on both sides (README.md: changed on both sides)" in stopped
    (machines.b / ".chitin" / "conflicts" / "README.md").write_text("Both of ours.\n")
    chitin(machines.b, "sync", "--continue")
    assert (machines.b / "README.md").read_text() == "Both of ours.\n"


def test_a_stop_says_which_side_removed_an_insight_the_other_changed(
    machines: Machines,
) -> None:
    """Merged away (or archived by hand) on one machine, reinforced on the other: the
    stop names the file and says what each side did, beside the claim conflicts."""
    gone, into = (i["id"] for i in as_json(machines.a, "list")[1:3])
    chitin(machines.a, "merge", gone, into)
    chitin(machines.b, "reinforce", gone)
    chitin(machines.a, "update", machines.id, "--claim", "Ask exactly one question")
    chitin(machines.b, "update", machines.id, "--claim", "Ask no more than two questions")
    chitin(machines.a, "sync")
    stopped = chitin(machines.b, "sync", expect=1).stderr
    assert "2 insight file(s) changed on both sides" in stopped
    assert f"{gone}.md: changed here, removed on the remote" in stopped
    assert f"{machines.id}.md: claim changed on both sides" in stopped
    # settled one at a time, the removal chosen first holds (it has no text to keep)
    took = chitin(machines.b, "sync", "--theirs", gone, expect=1).stderr
    assert f"1 insight(s) still in conflict: {machines.id};" in took
    assert gone not in chitin(machines.b, "sync", expect=1).stderr
    chitin(machines.b, "sync", "--ours", machines.id)
    assert not list(machines.b.glob(f"insights/*/{gone}.md"))
    assert machines.insight(machines.b)["claim"] == "Ask no more than two questions"


def test_several_conflicts_are_settled_one_insight_at_a_time(machines: Machines) -> None:
    """With three insights in conflict, the command the stop names (`--ours ID`, one
    insight) settles that one and keeps the choice; the others wait, each as it was
    (a person's half-done edit included), until the last is settled."""
    first, second, third = (i["id"] for i in as_json(machines.a, "list")[:3])
    for store, side in ((machines.a, "A"), (machines.b, "B")):
        for insight_id in (first, second, third):
            chitin(store, "update", insight_id, "--claim", f"{insight_id} by {side}")
    chitin(machines.a, "sync")
    assert "3 insight file(s) changed on both sides" in chitin(machines.b, "sync", expect=1).stderr
    conflicts = machines.b / ".chitin" / "conflicts"
    [half_done] = [p for p in conflicts.rglob("*.md") if p.stem == third]
    half_done.write_text(half_done.read_text().replace("=======", "=======\nmy note"))

    kept = chitin(machines.b, "sync", "--ours", first, expect=1)
    assert f"kept this store's version of {first}" in kept.stderr
    assert f"2 insight(s) still in conflict: {second}, {third};" in kept.stderr.replace(
        f"{third}, {second}", f"{second}, {third}"
    )
    waiting = chitin(machines.b, "sync", expect=1).stderr
    assert f"stopped on a conflict in {first}" not in waiting and first not in waiting
    assert "my note" in half_done.read_text()  # the person's edit is not thrown away
    taken = chitin(machines.b, "sync", "--theirs", second, expect=1)
    assert f"took the remote's version of {second}" in taken.stderr
    chitin(machines.b, "sync", "--theirs", third)

    chitin(machines.a, "sync")
    for store in (machines.a, machines.b):
        assert machines.insight(store, first)["claim"] == f"{first} by B"
        assert machines.insight(store, second)["claim"] == f"{second} by A"
        assert machines.insight(store, third)["claim"] == f"{third} by A"
        assert git(store, "status", "--porcelain") == ""


def test_history_ends_at_what_the_sync_kept(
    machines: Machines, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The other machine's change comes in with the sync; when the sync settled on an
    older version than the newest change history shows, history says so at the sync,
    so that it always ends at the insight as it is."""
    chitin(machines.a, "update", machines.id, "--claim", "Ask exactly one question")
    with monkeypatch.context() as newer:  # b's change is the newer one, for sure
        later = datetime.now(UTC) + timedelta(hours=1)
        for name in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
            newer.setenv(name, later.strftime("%Y-%m-%dT%H:%M:%SZ"))
        chitin(machines.b, "update", machines.id, "--claim", "Ask no more than two questions")
    chitin(machines.a, "sync")
    chitin(machines.b, "sync", expect=1)
    chitin(machines.b, "sync", "--theirs", machines.id)
    rows = as_json(machines.b, "history", machines.id)["history"]
    claims = [
        (r["changeType"], r["oldValue"], r["newValue"]) for r in rows if r["field"] == "claim"
    ]
    assert sorted(c[2] for c in claims if c[0] == "update") == [
        "Ask exactly one question",  # a's change, which came with the sync
        "Ask no more than two questions",
    ]
    assert claims[-1] == ("sync", "Ask no more than two questions", "Ask exactly one question")
    assert [r["changeType"] for r in rows].count("create") == 1
    assert "[sync] claim:" in chitin(machines.b, "history", machines.id).stdout
    chitin(machines.a, "sync")  # a fast-forward: a's own change is the newest there
    last = as_json(machines.a, "history", machines.id)["history"][-1]
    assert last["newValue"] == machines.insight(machines.a)["claim"]


def test_a_stopped_sync_can_be_forgotten(machines: Machines) -> None:
    _claim_conflict(machines)
    chitin(machines.b, "sync", "--abort")
    assert not (machines.b / ".chitin" / "conflicts").exists()
    assert "nothing to abort" in chitin(machines.b, "sync", "--abort", expect=1).stderr
    assert "changed on both sides" in chitin(machines.b, "sync", expect=1).stderr


def test_without_a_remote_it_says_how_to_add_one(tmp_path: Path) -> None:
    store = tmp_path / "lonely"
    chitin(store, "init")
    result = chitin(store, "sync", expect=1)
    assert "no remote to sync with" in result.stderr
    assert f"git -C {store} remote add origin <url>" in result.stderr
    unknown = chitin(store, "sync", "--remote", "upstream", expect=1)
    assert "no remote named 'upstream'" in unknown.stderr


def test_sync_needs_a_store(tmp_path: Path) -> None:
    result = chitin(tmp_path / "none", "sync", expect=1)
    assert "run `chitin init` first" in result.stderr
    assert not (tmp_path / "none" / ".git").exists()


def test_a_remote_of_another_history_is_refused_with_how_to_join_them(tmp_path: Path) -> None:
    """qa39: a remote made elsewhere (a second `chitin init` pushed it, or a host made
    it with a README) shares no commit with the store: git's "refusing to merge
    unrelated histories" came through alone, with nothing on what to do."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    other = tmp_path / "other"  # as a host makes a repository, with a README
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    (other / "README.md").write_text("# my agent's personality\n")
    git(other, "add", "README.md")
    git(other, "-c", "user.name=Ana", "-c", "user.email=ana@example.com", "commit", "-qm", "Init")
    git(other, "push", "-q", str(remote), "HEAD:refs/heads/main")
    store = tmp_path / "store"
    chitin(store, "init")
    git(store, "remote", "add", "origin", str(remote))
    before = git(store, "rev-parse", "HEAD")
    refused = chitin(store, "sync", expect=1).stderr
    assert refused.count("\n") == 1 and "shares no commit with this store" in refused
    assert f"git -C {store} merge --allow-unrelated-histories origin/" in refused
    assert git(store, "rev-parse", "HEAD") == before and git(store, "status", "--porcelain") == ""


def test_init_registers_the_merge_driver_once(tmp_path: Path) -> None:
    store = tmp_path / "s"
    chitin(store, "init")
    attributes = (store / ".gitattributes").read_text().splitlines()
    assert "insights/**/*.md merge=chitin" in attributes
    from chitin.cli.context import running_chitin

    assert git(store, "config", "merge.chitin.driver").strip() == (
        f"{running_chitin()[0]} merge-driver %O %A %B %P"
    )
    commits = git(store, "rev-list", "--count", "HEAD")
    chitin(store, "init")
    assert git(store, "rev-list", "--count", "HEAD") == commits
    assert git(store, "check-attr", "merge", "insights/skill/x.md").strip().endswith("chitin")


def test_init_adds_the_driver_to_an_older_store(tmp_path: Path) -> None:
    store = tmp_path / "old"
    chitin(store, "init")
    git(store, "rm", "-q", ".gitattributes")
    git(store, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "older store")
    git(store, "config", "--unset", "merge.chitin.driver")
    chitin(store, "init")
    assert git(store, "log", "-1", "--format=%s").strip() == (
        "Merge insight files with chitin's merge driver"
    )
    driver = git(store, "config", "merge.chitin.driver").strip()
    program, arguments = driver.split(" ", 1)
    assert arguments == "merge-driver %O %A %B %P"
    assert Path(program).is_absolute() and Path(program).is_file()  # this very chitin


def test_the_merge_driver_runs_without_chitin_on_path(
    machines: Machines, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git runs the driver named in .git/config: the absolute path of the chitin that
    set it up, so a chitin in a virtual environment merges too (plain git pull as well)."""
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    before = machines.insight(machines.a)
    chitin(machines.a, "reinforce", machines.id)
    chitin(machines.b, "reinforce", machines.id)
    chitin(machines.a, "sync")
    assert as_json(machines.b, "sync")["mergeCommit"]
    count = machines.insight(machines.b)["reinforcementCount"]
    assert count == before["reinforcementCount"] + 2


def test_a_hand_edit_not_committed_is_said_not_to_be_sent(machines: Machines) -> None:
    """chitin commits a hand edit with its next change of that insight; until then,
    `sync` cannot send it, and says so rather than only "Already in sync"."""
    path = next(machines.a.glob(f"insights/*/{machines.id}.md"))
    path.write_text(path.read_text() + "\nA line added in an editor.\n")
    said = chitin(machines.a, "sync")
    assert said.stdout.startswith("✓ Already in sync")
    relative = path.relative_to(machines.a).as_posix()
    assert f"not committed, so not sent: {relative}" in said.stderr
    assert "A line added" not in next(machines.b.glob(f"insights/*/{machines.id}.md")).read_text()
    git(machines.a, "-c", "user.name=T", "-c", "user.email=t@x", "commit", "-qam", "By hand")
    again = chitin(machines.a, "sync")
    assert "not committed" not in again.stderr and "sent 1 commit(s)" in again.stdout


def test_a_commit_holding_conflict_markers_is_not_sent(machines: Machines) -> None:
    """qa33: a plain `git pull` that stopped, then `git commit -a`, commits both sides
    between marker lines; sync must not hand that file to every other machine (each
    would skip it: the insight would vanish from every context)."""
    chitin(machines.a, "update", machines.id, "--claim", "Side A of the story")
    chitin(machines.a, "sync")
    chitin(machines.b, "update", machines.id, "--claim", "Side B of the story")
    git(machines.b, "config", "--remove-section", "merge.chitin")  # as in a plain clone
    identity = ["-c", "user.name=Mel", "-c", "user.email=mel@example.org"]
    pulled = subprocess.run(
        ["git", "-C", str(machines.b), *identity, "pull", "--no-rebase"],
        capture_output=True,
        text=True,
    )
    assert "CONFLICT" in pulled.stdout, (pulled.stdout, pulled.stderr)
    git(machines.b, *identity, "commit", "-qam", "merged, markers and all")
    before = machines.remote_head()
    refused = chitin(machines.b, "sync", expect=1)
    path = git(machines.b, "ls-files", f"*{machines.id}.md").strip()
    assert refused.stderr.count("\n") == 1, refused.stderr
    assert f"Error: not sent: {path} holds git conflict markers" in refused.stderr
    assert "keep one side, remove the marker lines" in refused.stderr
    assert machines.remote_head() == before


def test_the_first_sync_of_a_clone_of_a_store_with_no_insights_yet_works(tmp_path: Path) -> None:
    """docs/sync.md: `git clone` the repository, then `chitin sync` sets up the rest. A
    store with no insight yet has no insights/ folder in git, and sync said there was
    no store (every other command took the clone as one)."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    a, b = tmp_path / "a", tmp_path / "b"
    chitin(a, "init")
    git(a, "remote", "add", "origin", str(remote))
    chitin(a, "sync")
    subprocess.run(["git", "clone", "-q", str(remote), str(b)], check=True)
    assert not (b / "insights").exists()
    chitin(b, "sync")
    chitin(b, "contribute", "--type", "skill", "--claim", "Sync a new clone.", "--confidence", "1")
    chitin(b, "sync")
    chitin(a, "sync")
    assert [i["claim"] for i in as_json(a, "list")] == ["Sync a new clone."]
    plain = tmp_path / "plain"
    subprocess.run(["git", "init", "-q", str(plain)], check=True)
    refused = chitin(plain, "sync", expect=1)  # a repository that is no store's clone
    assert "run `chitin init` first" in refused.stderr


def test_a_push_the_remote_refuses_is_reported_with_its_reason(machines: Machines) -> None:
    """A remote that declines the push (a protected branch, a server hook) has not moved:
    "kept moving; run `chitin sync` again" sent people round a loop that never ends."""
    hook = machines.remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'master is protected here' >&2\nexit 1\n")
    hook.chmod(0o755)
    chitin(machines.a, "reinforce", machines.id)
    result = chitin(machines.a, "sync", expect=1)
    assert result.stderr.startswith("Error: cannot push to origin: ")
    assert "master is protected here" in result.stderr
    assert "kept moving" not in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_a_push_to_a_checked_out_branch_says_so(tmp_path: Path) -> None:
    """A non-bare remote refuses a push to its checked-out branch, in a dozen lines
    whose last ones say nothing: the refused ref and the first of them are kept."""
    machines = Machines(tmp_path)
    shared = tmp_path / "shared"
    subprocess.run(["git", "clone", "-q", str(machines.remote), str(shared)], check=True)
    git(machines.a, "remote", "set-url", "origin", str(shared))
    chitin(machines.a, "sync")
    chitin(machines.a, "reinforce", machines.id)
    stderr = chitin(machines.a, "sync", expect=1).stderr
    assert "[remote rejected] (branch is currently checked out)" in stderr
    assert "refusing to update checked out branch" in stderr


def test_a_remote_that_moves_during_the_push_is_fetched_and_merged_again(
    machines: Machines,
) -> None:
    """The other side of the test above: a push refused because the remote moved on
    since the fetch is fetched, merged and pushed again, with nothing to do."""
    chitin(machines.b, "reinforce", machines.id, agent="beta")
    chitin(machines.b, "sync")
    chitin(machines.b, "reinforce", machines.id, agent="beta")  # pushed by the hook
    flag = machines.a.parent / "pushed-once"
    hook = machines.a / ".git" / "hooks" / "reference-transaction"
    hook.write_text(  # b pushes after a has fetched, before a pushes
        f'#!/bin/sh\n[ "$1" = committed ] || exit 0\n'
        f"grep -q refs/remotes/origin/ || exit 0\n[ -e '{flag}' ] && exit 0\n"
        f"touch '{flag}'\n"
        f"env -u GIT_DIR -u GIT_INDEX_FILE git -C '{machines.b}' push -q origin HEAD\n"
    )
    hook.chmod(0o755)
    chitin(machines.a, "reinforce", machines.id, agent="alpha")
    synced = as_json(machines.a, "sync")
    assert flag.exists()
    assert (
        synced["mergeCommit"]
        == machines.remote_head()
        == git(machines.a, "rev-parse", "HEAD").strip()
    )
    assert machines.insight(machines.a)["reinforcementCount"] == 3


def test_the_first_sync_of_a_new_branch_counts_only_the_commits_it_sends(
    machines: Machines,
) -> None:
    """A branch the remote lacks: the commits it already has on another branch are not
    sent again (it said "sent 33 commit(s)" for one new reinforcement)."""
    git(machines.b, "checkout", "-q", "-b", "experiment")
    chitin(machines.b, "reinforce", machines.id)
    synced = as_json(machines.b, "sync")
    assert (synced["branch"], synced["sent"]) == ("experiment", 1)
    assert git(machines.remote, "rev-parse", "experiment") == git(machines.b, "rev-parse", "HEAD")
    # A new branch with no commit of its own is still made on the remote.
    git(machines.b, "checkout", "-q", "-b", "copy")
    assert as_json(machines.b, "sync")["sent"] == 0
    assert git(machines.remote, "rev-parse", "copy") == git(machines.b, "rev-parse", "HEAD")


WHO = ("-c", "user.name=t", "-c", "user.email=t@t")


def test_a_sync_during_a_rebase_says_to_finish_the_rebase(machines: Machines) -> None:
    """A `git rebase` a person started and that stopped leaves HEAD detached: sync said
    "not on a branch (detached HEAD); check one out first", which would lose the rebase."""
    path = next(machines.b.glob(f"insights/*/{machines.id}.md"))
    for store, words in ((machines.a, "Ask one clear question"), (machines.b, "Ask one sharp one")):
        mine = next(store.glob(f"insights/*/{machines.id}.md"))
        text = mine.read_text().split("---\n", 2)
        mine.write_text("---\n".join([*text[:2], f"\n{words}\n"]))
        git(store, *WHO, "commit", "-qam", "by hand")
    chitin(machines.a, "sync")
    git(machines.b, "fetch", "-q")
    rebase = ["git", "-C", str(machines.b), *WHO, "rebase", "-q", "FETCH_HEAD"]
    subprocess.run(rebase, capture_output=True)
    assert (machines.b / ".git" / "rebase-merge").exists() and path.exists()
    stderr = chitin(machines.b, "sync", expect=1).stderr
    assert stderr.startswith("Error: the store is in the middle of a rebase")
    assert "git rebase --continue" in stderr and "check one out" not in stderr


def test_every_combination_of_the_ways_to_finish_is_allowed_or_a_usage_error(
    machines: Machines,
) -> None:
    """fix110: `sync --ours X --continue` exited 1 (after looking at the store) where
    `sync --ours X --abort` exited 2. Each conflicting or meaningless combination is a
    usage error, in one line naming what sync takes; the others run."""
    flags = {
        "continue": ("--continue",),
        "ours": ("--ours", machines.id),
        "theirs": ("--theirs", "another-id"),
        "abort": ("--abort",),
        "remote": ("--remote", "origin"),
    }
    for chosen in itertools.chain.from_iterable(
        itertools.combinations(flags, n) for n in range(len(flags) + 1)
    ):
        args = [word for name in chosen for word in flags[name]]
        given = set(chosen)
        refused = ("abort" in given and len(given) > 1) or (
            "continue" in given and given & {"ours", "theirs"}
        )
        result = chitin(machines.b, "sync", *args, expect=None)
        if refused:
            assert result.exit_code == 2, (args, result.stderr)
            line = result.stderr.strip()
            assert "\n" not in line and "cannot be combined" in line, (args, line)
            assert "sync takes --continue, or --ours/--theirs ID" in line, (args, line)
        elif given - {"remote"}:
            said = "nothing to abort" if "abort" in given else "no sync was stopped"
            assert result.exit_code == 1 and said in result.stderr, (args, result.stderr)
        else:
            assert result.exit_code == 0, (args, result.stderr)
    same = chitin(machines.b, "sync", "--ours", machines.id, "--theirs", machines.id, expect=2)
    line = same.stderr.strip()
    assert "\n" not in line and f"--ours and --theirs both name {machines.id}" in line


def test_an_id_and_a_prefix_of_it_on_both_sides_is_a_usage_error_too(
    machines: Machines,
) -> None:
    """fix113: `--ours abc --theirs abcdef` exited 1 where one id on both sides exits 2.
    Once the ids resolve, it is the same contradiction of the flags, so the same usage
    error; nothing is settled."""
    _claim_conflict(machines)
    both = chitin(machines.b, "sync", "--ours", machines.id[:6], "--theirs", machines.id, expect=2)
    line = both.stderr.strip()
    assert "\n" not in line and f"--ours and --theirs both name {machines.id}; choose one" in line
    assert (machines.b / ".git" / "chitin-sync.json").exists()  # still stopped, as it was


@pytest.mark.parametrize(
    ("given", "field", "said"),
    [
        ({"abort": True, "resume": True}, "abort", "abort cannot be combined with resume"),
        ({"abort": True, "ours": ["x"]}, "abort", "abort cannot be combined with ours"),
        ({"abort": True, "remote": "origin"}, "abort", "abort cannot be combined with remote"),
        ({"resume": True, "theirs": ["x"]}, "resume", "resume cannot be combined with theirs"),
        ({"ours": ["x"], "theirs": ["x"]}, "theirs", "ours and theirs both name x; choose one"),
        ({"ours": "abc"}, "ours", "ours must be a list of texts, got 'abc'"),
    ],
)
def test_the_library_refuses_the_combinations_the_command_refuses(
    machines: Machines, given: dict[str, Any], field: str, said: str
) -> None:
    """fix113: Chitin.sync checked none of its combinations (abort silently won); it
    refuses each as `chitin sync` does, in its own parameters' names, before the store
    is read (with no stopped sync, the store's answer would be another)."""
    from chitin import Chitin, ValidationError

    with Chitin(store=machines.b) as opened, pytest.raises(ValidationError) as refused:
        opened.sync(**given)
    assert refused.value.field == field and said in str(refused.value)
    assert "--" not in str(refused.value)


def test_the_library_names_an_id_and_a_prefix_of_it_in_its_own_words(
    machines: Machines,
) -> None:
    from chitin import Chitin, ValidationError

    _claim_conflict(machines)
    with Chitin(store=machines.b) as opened, pytest.raises(ValidationError) as refused:
        opened.sync(ours=[machines.id[:6]], theirs=[machines.id])
    assert str(refused.value) == f"ours and theirs both name {machines.id}; choose one"


@pytest.mark.parametrize("side", ["--ours", "--theirs"])
def test_an_empty_id_to_settle_is_a_usage_error(machines: Machines, side: str) -> None:
    """fix124: `sync --ours ""` exited 1, as an id not in conflict; an empty value of a
    flag is a usage error (exit 2), still saying which ids are in conflict; nothing is
    settled."""
    _claim_conflict(machines)
    empty = chitin(machines.b, "sync", side, "", expect=2)
    line = empty.stderr.strip()
    assert "\n" not in line and side in line and machines.id in line, line
    assert (machines.b / ".git" / "chitin-sync.json").exists()  # still stopped, as it was
    chitin(machines.b, "sync", side, machines.id)
