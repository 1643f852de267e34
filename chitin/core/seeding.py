"""The starter insights that ship with chitin, added to a store (``init --seed``)."""

from __future__ import annotations

from typing import Any

from chitin.core.session import Session
from chitin.model.insight import Insight
from chitin.resources import data_path
from chitin.store import files
from chitin.store.git import Git
from chitin.store.loading import load_file
from chitin.store.messages import seed_words, worded

Starter = tuple[Insight, Any]  # an insight and the layout of its file


def seed(session: Session) -> list[Insight]:
    """Add the starter insights the store lacks, in one commit; those added. One the
    store once had and merged or deleted is not brought back: running ``init --seed``
    again (as setup scripts do) must not undo a person's merge."""
    now = session.timestamp()
    source = data_path("insights")
    with session.writing() as cache:
        fresh: list[Starter] = []
        for file in sorted(source.rglob("*.md")):
            rel = file.relative_to(source.parent).as_posix()
            insight, layout = load_file(source.parent, rel, files.stat_of(file))
            if not cache.id_exists(insight.id):
                fresh.append((insight.with_changes(created=now, updated=now), layout))
        fresh = _never_removed(session, fresh)
        writes = {session.store.path_for(i): session.store.render(i, lay) for i, lay in fresh}
        if not writes:
            return []
        session.store.apply(writes, worded(seed_words([i.id for i, _ in fresh]), {}))
        session.record_written(cache, {session.store.path_for(i): i for i, _ in fresh})
    return [i for i, _ in fresh]


def _never_removed(session: Session, fresh: list[Starter]) -> list[Starter]:
    store = session.store
    places = {i.id: {store.path_for(i), store.path_for(i, archived=True)} for i, _ in fresh}
    gone = removed_paths(store.git, sorted(set().union(*places.values())))
    return [(i, layout) for i, layout in fresh if not places[i.id] & gone]


def removed_paths(git: Git, paths: list[str]) -> set[str]:
    """Which of ``paths`` an earlier commit removed: an insight folded away by a
    ``merge``, or deleted by a person. (Moves, such as an archive, are renames.) Asked
    here rather than of store/history.py, which a contribute does not load."""
    if not paths or git.head() is None:
        return set()
    output = git.run(["log", "--diff-filter=D", "--format=", "--name-only", "--", *paths]).stdout
    return set(output.splitlines()) & set(paths)
