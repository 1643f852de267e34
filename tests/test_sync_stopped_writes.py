"""Writes while a sync is stopped on a conflict: ``sync --continue`` takes the version
edited in .chitin/conflicts/ (``--ours``/``--theirs`` a side as it was at the stop), so
a change made meanwhile to a conflicted insight would be lost without a word. Such a
write is refused, naming how to finish the sync; every other write goes on, and is
carried through the merge."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from chitin.core import Chitin
from chitin.errors import StateError
from tests.conftest import git
from tests.test_sync import Machines, _claim_conflict, as_json, chitin
from tests.test_sync import chitin_on_path as chitin_on_path  # autouse: the merge driver


@pytest.fixture
def machines(tmp_path: pytest.TempPathFactory) -> Machines:
    return Machines(tmp_path)  # type: ignore[arg-type]


def test_a_conflicted_insight_refuses_every_write_until_the_sync_finishes(
    machines: Machines,
) -> None:
    _claim_conflict(machines)
    store, conflicted = machines.b, machines.id
    ids = [i["id"] for i in as_json(store, "list")]
    other, third = [i for i in ids if i != conflicted][:2]
    head = git(store, "rev-parse", "HEAD").strip()
    for args in (
        ("update", conflicted, "--confidence", "0.3"),
        ("reinforce", conflicted),
        ("archive", conflicted),
        ("update", conflicted, "--type", "principle"),
        ("merge", conflicted, other),
        ("merge", other, conflicted),
    ):
        refused = chitin(store, *args, expect=1).stderr.strip()
        assert refused.count("\n") == 0, refused
        assert f"{conflicted} is in conflict in a stopped sync" in refused, args
        for way in ("chitin sync --continue", f"chitin sync --ours {conflicted}", "--abort"):
            assert way in refused, (args, way)
    with pytest.raises(StateError, match="in conflict in a stopped sync"):
        Chitin(store).reinforce(conflicted)  # the library (and MCP) door too
    assert git(store, "rev-parse", "HEAD").strip() == head  # nothing was written
    assert git(store, "status", "--porcelain") == ""

    # Another insight stays writable, and its change is carried through the merge.
    chitin(store, "update", third, "--confidence", "0.31")
    chitin(store, "sync", "--ours", conflicted)
    chitin(machines.a, "sync")
    for side in (machines.a, machines.b):
        assert as_json(side, "get", third)["confidence"] == 0.31
    chitin(store, "reinforce", conflicted)  # finished: writable again


def test_an_aborted_sync_frees_the_insight(machines: Machines) -> None:
    _claim_conflict(machines)
    chitin(machines.b, "reinforce", machines.id, expect=1)
    chitin(machines.b, "sync", "--abort")
    chitin(machines.b, "reinforce", machines.id)
    assert as_json(machines.b, "get", machines.id)["reinforcementCount"] == 1


def test_a_hand_edit_of_a_conflicted_file_is_not_overwritten_by_finishing(
    machines: Machines,
) -> None:
    _, edited = _claim_conflict(machines)
    store = machines.b
    path = next(store.glob(f"insights/*/{machines.id}.md"))
    path.write_text(re.sub(r"(?m)^confidence: .*$", "confidence: 0.3", path.read_text()))
    text = edited.read_text()
    edited.write_text(text.split("<<<<<<<")[0] + "Ask one question.\n")
    for args in (("--continue",), ("--theirs", machines.id)):
        refused = chitin(store, "sync", *args, expect=1).stderr.strip()
        assert refused.count("\n") == 0 and "was edited after the sync stopped" in refused
        assert f"chitin sync --ours {machines.id}" in refused and "git checkout --" in refused
    assert "confidence: 0.3" in path.read_text()  # untouched
    chitin(store, "sync", "--ours", machines.id)  # keeps the edit
    assert as_json(store, "get", machines.id)["confidence"] == 0.3


def test_check_reports_a_stopped_sync_until_it_is_finished(machines: Machines) -> None:
    """The stop keeps the conflicted file, with git's markers, in .chitin/conflicts/,
    out of every read; `chitin check` said "no problems" meanwhile (issue 24: after a
    stopped sync, check said "no errors"). It reports each file still in conflict as a
    merge-conflict error naming the file to edit and the commands that finish the sync."""
    _, edited = _claim_conflict(machines)
    stopped = chitin(machines.b, "check", expect=1)
    [line] = [line for line in stopped.stdout.splitlines() if machines.id in line]
    assert str(edited.relative_to(machines.b)) in line and "chitin sync --continue" in line
    assert f"chitin sync --ours {machines.id}" in line and "chitin sync --abort" in line
    found = chitin(machines.b, "check", "--format", "json", expect=1).stdout
    [error] = json.loads(found)["errors"]
    assert error["kind"] == "merge-conflict" and error["path"].endswith(f"{machines.id}.md")
    path = str(next(machines.b.glob(f"insights/*/{machines.id}.md")))
    chitin(machines.b, "check", path)  # pre-commit's check of the files a commit changes
    text = edited.read_text()
    kept = (
        text.split("<<<<<<<")[0]
        + "Ask one question.\n"
        + text.split(">>>>>>>")[1].split("\n", 1)[1]
    )
    edited.write_text(kept)
    waiting = chitin(machines.b, "check", expect=1).stdout
    assert "not merged yet" in waiting and "chitin sync --continue" in waiting
    chitin(machines.b, "sync", "--continue")
    chitin(machines.b, "check")


def test_a_conflict_file_that_is_a_symlink_is_refused(machines: Machines, tmp_path: Path) -> None:
    """``sync --continue`` read .chitin/conflicts/<path> through a symlink: for a file
    that is no insight (README.md) the contents of any file the link pointed at were
    committed and pushed. A conflict file that is not a regular file is refused."""
    for store, text in ((machines.a, "Ours, says A.\n"), (machines.b, "Ours, says B.\n")):
        (store / "README.md").write_text(text)
        git(store, "-c", "user.name=P", "-c", "user.email=p@example.org", "commit", "-qam", text)
    chitin(machines.a, "sync")
    chitin(machines.b, "sync", expect=1)
    secret = tmp_path / "private.txt"
    secret.write_text("not for the remote\n")
    edited = machines.b / ".chitin" / "conflicts" / "README.md"
    edited.unlink()
    edited.symlink_to(secret)
    pushed, head = machines.remote_head(), git(machines.b, "rev-parse", "HEAD")
    refused = chitin(machines.b, "sync", "--continue", expect=1).stderr.strip()
    assert refused.count("\n") == 0, refused
    assert str(edited) in refused and "not a regular file" in refused
    assert "chitin sync --ours README" in refused
    assert machines.remote_head() == pushed and git(machines.b, "rev-parse", "HEAD") == head
    assert "not for the remote" not in git(machines.b, "log", "-p", "--all")
    edited.unlink()
    edited.write_text("Both of ours.\n")
    chitin(machines.b, "sync", "--continue")
    assert (machines.b / "README.md").read_text() == "Both of ours.\n"
