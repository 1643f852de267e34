"""The session start under real conditions: no threads, any query, damaged derived files.

`retrieve` and `render` run before every agent session, inside hosts that throw away
a failing command's output. These tests hold the properties that keep it alive.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from conftest import Run

from chitin.providers.local import LocalProvider


def retrieve_json(run: Run, query: str, *args: str) -> dict[str, Any]:
    return json.loads(run("retrieve", "--query", query, "--format", "json", *args).stdout)


@pytest.fixture
def model_loads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every load of the local model, as (the thread it ran on, threads alive then)."""
    seen: list[tuple[str, int]] = []
    original = LocalProvider._open

    def recording(self: LocalProvider, optimised: bool) -> None:
        seen.append((threading.current_thread().name, threading.active_count()))
        original(self, optimised)

    monkeypatch.setattr(LocalProvider, "_open", recording)
    return seen


def test_the_model_loads_on_the_calling_thread_and_no_thread_is_left(
    run: Run, model_loads: list[tuple[str, int]]
) -> None:
    """A thread that imports onnxruntime (and so numpy) while the main thread imports
    numpy broke 1 session start in 5-8; one still loading at exit aborted the process."""
    run("init", "--seed")
    alive = threading.active_count()
    for command in ("retrieve", "render"):
        run(command, "--query", f"a query never asked before, for {command}")
    assert model_loads and {name for name, _ in model_loads} == {"MainThread"}
    assert all(count == alive for _, count in model_loads)
    assert threading.active_count() == alive
