"""The library as a program uses it (qa125): the defaults its command and its MCP tool
have, and an instance handed from one thread to another."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import Run

from chitin import Chitin, StoreError, ValidationError


def test_similar_takes_the_commands_default_threshold(store: Path) -> None:
    """``chitin similar CLAIM`` and the MCP tool default the threshold (0.2 of words,
    0.5 of meaning); ``Chitin.similar(claim)`` raised TypeError (a missing argument)."""
    with Chitin(store=store) as chitin:
        chitin.init()
        kept = chitin.contribute(
            {"type": "skill", "confidence": 0.7, "claim": "Run the linter before pushing."}
        ).insight.id
        found = chitin.similar("run the linter before a push")
        assert [candidate.id for candidate, _ in found] == [kept]
        assert chitin.similar("bake bread at home") == []


def _in_a_thread(work: Callable[[], Any]) -> Any:
    """``work()`` run in a new thread, as a pool or ``asyncio.to_thread`` runs it."""
    done: list[Any] = []
    worker = threading.Thread(target=lambda: done.append(_outcome(work)))
    worker.start()
    worker.join()
    return done[0]


def _outcome(work: Callable[[], Any]) -> Any:
    try:
        return work()
    except Exception as error:  # to be seen in the main thread's assertion
        return error


def test_an_instance_handed_to_another_thread_still_works(store: Path) -> None:
    """A program that opens one Chitin and calls it from a pool's threads, one call at a
    time: retrieve, contribute, render and embed raised sqlite3.ProgrammingError (the
    vector sidecar's connection belonged to the first thread), a traceback outside
    the ChitinError family, while get, list and stats worked."""
    with Chitin(store=store) as chitin:
        chitin.init()
        first = chitin.contribute(
            {"type": "skill", "confidence": 0.7, "claim": "Handle the widget with care."}
        ).insight.id
        assert chitin.retrieve("widget handling").ranked  # the sidecar opened here
        calls: list[Callable[[], Any]] = [
            lambda: chitin.retrieve("handle a widget"),
            lambda: chitin.contribute(
                {"type": "skill", "confidence": 0.6, "claim": "Oil the gadget every week."}
            ),
            lambda: chitin.similar("oil the gadget", semantic=True),
            lambda: chitin.render("gadget care"),
            lambda: chitin.reinforce(first, source="review"),
            lambda: chitin.embed(),
            lambda: chitin.retrieve("oil a gadget"),
        ]
        outcomes = [_in_a_thread(call) for call in calls]
        assert [o for o in outcomes if isinstance(o, Exception)] == []
        assert chitin.stats().total == 2
        assert chitin.get(first).reinforcements == 1


def test_threads_that_call_one_instance_at_once_take_turns(store: Path) -> None:
    """Four threads writing and retrieving through one shared Chitin at the same time:
    their use cases interleaved on the instance's connections ("database vectors is
    locked", sqlite3.OperationalError). They now run one at a time, and all land."""
    with Chitin(store=store) as chitin:
        chitin.init()
        chitin.retrieve("anything")

        def work(n: int) -> None:
            for i in range(2):
                claim = f"Thread {n} lesson {i} about widget{n}x{i} handling."
                chitin.contribute({"type": "skill", "confidence": 0.5, "claim": claim})
                chitin.retrieve(f"widget{n}x{i}")

        failed: list[Any] = []
        workers = [
            threading.Thread(target=lambda n=n: failed.append(_outcome(lambda: work(n))))
            for n in range(4)
        ]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        assert [f for f in failed if f is not None] == []
        assert chitin.stats().total == 8


def test_the_librarys_refusals_name_its_own_arguments(store: Path) -> None:
    """docs/python.md: errors name the library's parameters, never the command line's
    flags. The secret guard said "use --allow-secret" to a program, which has no such
    flag; the command line and the MCP tools keep their own words."""
    key = "sk-ant-api03-" + "A" * 60
    with Chitin(store=store) as chitin:
        chitin.init()
        with pytest.raises(ValidationError) as secret:
            chitin.contribute({"type": "skill", "confidence": 0.5, "claim": f"Use {key} here."})
    assert str(secret.value).endswith("(use allow_secret=True if it is not one)")
    assert "--" not in str(secret.value)


def test_the_command_line_keeps_its_flag_in_that_refusal(run: Run) -> None:
    key = "sk-ant-api03-" + "A" * 60
    secret = run(
        "contribute", "--type", "skill", "--claim", f"Use {key}.", "--confidence", "0.5", expect=1
    )
    assert secret.stderr.strip().endswith("(use --allow-secret if it is not one)")


def test_a_store_that_is_a_file_is_refused_in_the_librarys_words(tmp_path: Path) -> None:
    """``Chitin(store=a_file)`` said "(--store and $CHITIN_STORE name the store's
    folder)" to a program; the command line keeps --store."""
    notes = tmp_path / "notes.md"
    notes.write_text("not a store\n")
    with pytest.raises(StoreError) as refused:
        Chitin(store=notes).stats()
    assert str(refused.value) == (
        f"the store path {notes} is a file, not a folder "
        "(store= and $CHITIN_STORE name the store's folder)"
    )


def test_an_export_that_would_miss_a_file_names_skip_unreadable(store: Path, run: Run) -> None:
    """``Chitin.export()`` refused a store with a broken file, saying "export the rest
    with --skip-unreadable"; the library's argument is ``skip_unreadable=True``."""
    with Chitin(store=store) as chitin:
        chitin.init()
        added = chitin.contribute({"type": "skill", "confidence": 0.5, "claim": "A lesson."})
        (store / added.path).write_text("---\nid: x\n: [\n---\nbody\n")
        with pytest.raises(StoreError) as refused:
            chitin.export()
        assert len(chitin.export(skip_unreadable=True)) == 0
    assert str(refused.value).endswith("(or export the rest with skip_unreadable=True)")
    said = run("export", expect=1).stderr
    assert said.strip().endswith("(or export the rest with --skip-unreadable)")
