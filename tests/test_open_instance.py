"""One ``Chitin`` kept open for a session (an agent host's): whatever changes on disk
under it (a hand edit, another process's commit, a file removed with git) is what its
next read or write sees, as a new command would (fix70b, item 1)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import Run, git

from chitin import Chitin, NotFoundError


def opened(store: Path) -> Chitin:
    return Chitin(store=store, env=dict(os.environ))


def hand_edit(store: Path, relative: str, old: str, new: str) -> None:
    path = store / relative
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_reads_see_a_hand_edit_made_while_the_instance_is_open(store: Path) -> None:
    with opened(store) as chitin:
        chitin.init()
        made = chitin.contribute({"type": "skill", "confidence": 0.7, "claim": "Run the linter."})
        one = made.insight.id
        relative = chitin.path_of(one)
        assert chitin.get(one).claim == "Run the linter."
        assert [i.claim for i in chitin.list_insights()] == ["Run the linter."]

        hand_edit(store, relative, "Run the linter.", "Run the formatter first.")
        assert chitin.get(one).claim == "Run the formatter first."
        assert [i.claim for i in chitin.list_insights()] == ["Run the formatter first."]
        found = chitin.retrieve("formatter", record=False).ranked
        assert [r.insight.id for r in found] == [one]


def test_reads_see_commits_and_removals_of_another_process(store: Path, run: Run) -> None:
    with opened(store) as chitin:
        chitin.init()
        first = chitin.contribute({"type": "skill", "confidence": 0.7, "claim": "Run the linter."})
        assert len(chitin.list_insights()) == 1
        run("contribute", "--type", "skill", "--claim", "Write the test first", "--confidence=0.8")
        assert sorted(i.claim for i in chitin.list_insights()) == [
            "Run the linter.",
            "Write the test first",
        ]
        git(store, "rm", "-q", chitin.path_of(first.insight.id))
        git(store, "-c", "user.name=P", "-c", "user.email=p@example.com", "commit", "-qm", "rm")
        with pytest.raises(NotFoundError):
            chitin.get(first.insight.id)
        assert [i.claim for i in chitin.list_insights()] == ["Write the test first"]


def test_a_write_keeps_a_hand_edit_it_was_not_shown(store: Path) -> None:
    """The instance read the insight, a person then edited its file: a reinforce must
    write the person's claim back with the new count, never the text it had read."""
    with opened(store) as chitin:
        chitin.init()
        made = chitin.contribute({"type": "skill", "confidence": 0.7, "claim": "Run the linter."})
        one = made.insight.id
        relative = chitin.path_of(one)
        assert chitin.get(one).reinforcements == 0
        hand_edit(store, relative, "Run the linter.", "Run the formatter first.")
        chitin.reinforce(one, source="review")
        again = chitin.get(one)
        assert (again.claim, again.reinforcements) == ("Run the formatter first.", 1)
        assert "Run the formatter first." in (store / relative).read_text(encoding="utf-8")
        assert git(store, "status", "--porcelain") == ""
