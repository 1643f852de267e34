"""A long-lived ``Chitin`` (the MCP server's) sees every change made under it:
``Chitin.refresh`` and the inotify watcher that lets it skip the sync when nothing
changed (store/watch.py). A watcher that said "nothing changed" wrongly would make
the server answer from a stale cache, so each kind of change is tried."""

from __future__ import annotations

import os
import shutil
import struct
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import Run, git

from chitin import Chitin
from chitin.store import watch
from chitin.store.watch import IN_Q_OVERFLOW, Watcher

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "insights" / "skill").mkdir(parents=True)
    (root / "insights" / "skill" / "a.md").write_text("a\n")
    return root


def _rename(root: Path) -> None:
    (root / "insights" / "skill" / "a.md").rename(root / "insights" / "skill" / "b.md")


def _archive(root: Path) -> None:
    (root / "archive" / "skill").mkdir(parents=True)
    (root / "insights" / "skill" / "a.md").rename(root / "archive" / "skill" / "a.md")


def _new_type_folder(root: Path) -> None:
    (root / "insights" / "trigger").mkdir()
    (root / "insights" / "trigger" / "t.md").write_text("t\n")


def _replace_insights(root: Path) -> None:
    shutil.rmtree(root / "insights")
    (root / "insights" / "skill").mkdir(parents=True)
    (root / "insights" / "skill" / "a.md").write_text("other\n")


def _save_aside(root: Path) -> None:
    aside = root.parent / "a.md.swp"  # outside the watched folders
    aside.write_text("saved\n")
    os.replace(aside, root / "insights" / "skill" / "a.md")


def _append(root: Path) -> None:
    with open(root / "insights" / "skill" / "a.md", "a") as handle:
        handle.write("more\n")


CHANGES: dict[str, Callable[[Path], Any]] = {
    "a new file": lambda r: (r / "insights" / "skill" / "n.md").write_text("n\n"),
    "an edit in place": _append,
    "an editor's save (write aside, rename over)": _save_aside,
    "a deletion": lambda r: (r / "insights" / "skill" / "a.md").unlink(),
    "a rename": _rename,
    "a move to a new archive folder": _archive,
    "a touch": lambda r: os.utime(r / "insights" / "skill" / "a.md", (1, 1)),
    "a chmod": lambda r: os.chmod(r / "insights" / "skill" / "a.md", 0o600),
    "a new type folder": _new_type_folder,
    "insights/ removed and made again": _replace_insights,
}


@linux_only
@pytest.mark.parametrize("change", list(CHANGES), ids=list(CHANGES))
def test_every_kind_of_change_is_heard(tree: Path, change: str) -> None:
    watcher = Watcher(tree, ("insights", "archive"))
    assert watcher.changed() is True  # the first call: set up, and sync
    assert watcher.watching
    assert watcher.changed() is False
    CHANGES[change](tree)
    assert watcher.changed() is True
    assert watcher.changed() is False  # heard once


@linux_only
def test_a_change_in_a_folder_made_after_the_start_is_heard(tree: Path) -> None:
    watcher = Watcher(tree, ("insights", "archive"))
    watcher.changed()
    _new_type_folder(tree)
    assert watcher.changed() is True
    (tree / "insights" / "trigger" / "t.md").write_text("edited\n")
    assert watcher.changed() is True


@linux_only
def test_what_the_cache_does_not_read_is_not_a_change(tree: Path) -> None:
    """The derived data and git's own files are written by every command: hearing
    them would make every request sync."""
    (tree / ".chitin").mkdir()
    (tree / ".git").mkdir()
    watcher = Watcher(tree, ("insights", "archive"))
    watcher.changed()
    (tree / ".chitin" / "usage.json").write_text("{}")
    (tree / ".git" / "index").write_text("x")
    (tree / "chitin.yaml").write_text("embedding: {provider: none}\n")
    assert watcher.changed() is False


@linux_only
def test_a_lost_event_queue_trusts_nothing(tree: Path) -> None:
    watcher = Watcher(tree, ("insights",))
    watcher.changed()
    overflow = struct.pack("iIII", -1, IN_Q_OVERFLOW, 0, 0)
    assert watcher._handle(overflow) is True
    assert not watcher.watching
    assert watcher.changed() is True  # set up anew, and the caller syncs


@linux_only
def test_the_store_moved_away_is_set_up_again(tree: Path, tmp_path: Path) -> None:
    watcher = Watcher(tree, ("insights",))
    watcher.changed()
    tree.rename(tmp_path / "elsewhere")
    assert watcher.changed() is True
    tree.mkdir()
    assert watcher.changed() is True


def test_a_file_system_another_machine_can_change_is_never_trusted(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """NFS, SMB, FUSE, 9p (WSL's Windows drives): inotify hears only this machine's
    changes there, so every question is "maybe"."""
    monkeypatch.setattr(watch, "LOCAL_FILE_SYSTEMS", frozenset())
    watcher = Watcher(tree, ("insights",))
    assert [watcher.changed() for _ in range(3)] == [True, True, True]
    assert not watcher.watching


def test_without_inotify_every_question_is_maybe(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    watcher = Watcher(tree, ("insights",))
    assert [watcher.changed() for _ in range(3)] == [True, True, True]


# ------------------------------------------------------------------ Chitin.refresh


@pytest.fixture(params=["inotify", "no watcher"])
def watching(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways a refresh can go: skipping the sync on the watcher's word, and
    syncing every time."""
    if request.param == "no watcher":
        monkeypatch.setattr(watch, "LOCAL_FILE_SYSTEMS", frozenset())
    return str(request.param)


def test_a_long_lived_instance_sees_changes_after_a_refresh(
    store: Path, add: Any, run: Run, watching: str
) -> None:
    first = add("skill", "Keep commits small", 0.8)["id"]
    path = store / "insights" / "skill" / f"{first}.md"
    with Chitin(store) as chitin:
        chitin.refresh()
        assert chitin.get(first).claim == "Keep commits small"
        path.write_text(path.read_text().replace("Keep commits small", "Keep commits tiny"))
        chitin.refresh()
        assert chitin.get(first).claim == "Keep commits tiny"
        second = add("skill", "Write the commit message first", 0.7)["id"]  # another writer
        chitin.refresh()
        assert chitin.stats().total == 2
        git(store, "checkout", "-q", "HEAD~1", "--", "insights")  # as a git operation does
        (store / "insights" / "skill" / f"{second}.md").unlink()
        chitin.refresh()
        assert [i.id for i in chitin.list_insights()] == [first]
        assert chitin.get(first).claim == "Keep commits small"
        shutil.rmtree(store / ".chitin")  # derived data is safe to delete
        chitin.refresh()
        assert chitin.stats().total == 1


def test_a_repeated_query_sees_every_change_to_what_it_found(
    store: Path, add: Any, run: Run, watching: str
) -> None:
    """A long-lived instance remembers a query's text matches (Cache.remembered); a
    hand edit, another writer's insight and an archive each change the next answer."""
    first = add("skill", "Rebase the feature branch before merging", 0.8)["id"]
    path = store / "insights" / "skill" / f"{first}.md"

    def found(chitin: Chitin) -> list[str]:
        return [r.insight.claim for r in chitin.retrieve("rebase the branch").ranked]

    with Chitin(store) as chitin:
        chitin.refresh()
        assert found(chitin) == found(chitin) == ["Rebase the feature branch before merging"]
        path.write_text(path.read_text().replace("feature branch", "topic branch"))
        chitin.refresh()
        assert found(chitin) == ["Rebase the topic branch before merging"]
        second = add("skill", "Rebase often on a long-lived branch", 0.9)["id"]
        chitin.refresh()
        assert sorted(found(chitin)) == [
            "Rebase often on a long-lived branch",
            "Rebase the topic branch before merging",
        ]
        run("archive", second)
        chitin.refresh()
        assert found(chitin) == ["Rebase the topic branch before merging"]


def test_a_commands_instance_keeps_its_view(store: Path, add: Any) -> None:
    """A command's instance (``finishes_commands``: the CLI's) reads the files once, at
    its start, and is not refreshed before each use; an instance kept open is
    (test_open_instance.py)."""
    first = add("skill", "Keep commits small", 0.8)["id"]
    path = store / "insights" / "skill" / f"{first}.md"
    with Chitin(store, finishes_commands=True) as chitin:
        assert chitin.get(first).claim == "Keep commits small"
        path.write_text(path.read_text().replace("Keep commits small", "Keep commits tiny"))
        assert chitin.get(first).claim == "Keep commits small"


def test_a_long_lived_instance_notes_every_retrieval_through_one_connection(
    store: Path, add: Any
) -> None:
    """Retrieval times survive the instance's open connection: each retrieval is
    noted at once, for another process to read, and a removed .chitin/ is made anew."""
    from datetime import UTC, datetime

    from chitin.index import usage

    first = add("skill", "Keep commits small", 0.8)["id"]
    times = [datetime(2026, 12, 1, hour, tzinfo=UTC) for hour in (9, 10, 11)]
    with Chitin(store, now=lambda: times.pop(0)) as chitin:
        assert chitin.retrieve("keep commits small").recorded
        assert usage.last_retrieved(store, first) == "2026-12-01T09:00:00Z"  # as others read it
        assert chitin.retrieve("keep commits small").recorded
        assert usage.last_retrieved(store, first) == "2026-12-01T10:00:00Z"
        shutil.rmtree(store / ".chitin")
        chitin.refresh()
        found = chitin.retrieve("keep commits small")
        assert found.recorded and [r.insight.id for r in found.ranked] == [first]
        assert usage.last_retrieved(store, first) == "2026-12-01T11:00:00Z"
