"""The session start under real conditions: no threads, any query, damaged derived files.

`retrieve` and `render` run before every agent session, inside hosts that throw away
a failing command's output. These tests hold the properties that keep it alive.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from conftest import Run

from chitin.cli.retrieve import NOTHING_MATCHES
from chitin.providers.local import LocalProvider

SEEDED = 14  # the starter insights of `init --seed`


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


ODD_QUERIES = [
    pytest.param("", id="empty"),
    pytest.param("   \t ", id="blank"),
    pytest.param("the of and to is it", id="all stopwords"),
    pytest.param("list the files in this directory", id="reported"),
    pytest.param("?!.,;:-- … ¿¡", id="punctuation"),
    pytest.param("x" * 10_000, id="10000 characters"),
    pytest.param("deploy " * 1_500, id="1500 words"),
    pytest.param("日本語でテストを書いてから直す", id="japanese"),
    pytest.param("Напиши тест, прежде чем исправлять", id="cyrillic"),
    pytest.param("🦞🦞 🚀", id="emoji"),
    pytest.param("caf\udcff \udc80build", id="bytes that were not UTF-8"),
    pytest.param('"quoted" AND OR NOT * ^ col:umn (', id="FTS5 syntax"),
]


@pytest.mark.parametrize("query", ODD_QUERIES)
def test_any_query_is_answered_with_the_strongest_insights(run: Run, query: str) -> None:
    run("init", "--seed")
    found = retrieve_json(run, query, "--explain")
    assert len(found["insights"]) == SEEDED and found["context"].startswith("### ")
    rendered = run("render", "--query", query).stdout
    assert "### " in rendered


@pytest.mark.parametrize("query", ["asdf qwer zxcv", "the of and to is it", "?!.,;:", "x" * 10_000])
def test_a_query_that_means_nothing_matches_nothing(run: Run, query: str) -> None:
    run("init", "--seed")
    found = retrieve_json(run, query, "--explain")
    assert not any(item["matched"] for item in found["insights"])
    assert all(item["score"] == 0 for item in found["insights"])
    human = run("retrieve", "--query", query).stdout
    assert human.splitlines()[0] == NOTHING_MATCHES


def test_a_query_that_matches_says_nothing_about_the_fill(run: Run) -> None:
    run("init", "--seed")
    found = retrieve_json(run, "reproduce the bug before fixing it", "--explain")
    assert found["insights"][0]["matched"] and not found["insights"][-1]["matched"]
    human = run("retrieve", "--query", "reproduce the bug before fixing it").stdout
    assert NOTHING_MATCHES not in human and human.startswith("### ")


def test_explain_shows_decay_as_the_half_life_says(run: Run, tmp_path: Path) -> None:
    """Two insights alike but for provenance and age: the 60-day-old social one (half-life
    30 days) scores a quarter of the fresh directive."""
    from datetime import UTC, datetime, timedelta

    def stamp(days: int) -> str:
        return (datetime.now(UTC) - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")

    items = [
        {"id": f"profile-{name}", "type": "skill", "confidence": 0.8, "provenance": name,
         "claim": f"Profile the slow endpoint before optimizing it ({name})",
         "createdAt": stamp(days), "updatedAt": stamp(days)}
        for name, days in (("directive", 0), ("social", 60))
    ]  # fmt: skip
    source = tmp_path / "two.json"
    source.write_text(json.dumps(items))
    run("import", str(source))
    found = {i["id"]: i for i in retrieve_json(run, "profile the slow endpoint", "--explain")[
        "insights"]}  # fmt: skip
    social, directive = found["profile-social"], found["profile-directive"]
    assert social["basis"]["halfLifeDays"] == 30 and directive["basis"]["halfLifeDays"] is None
    assert social["factors"]["decay"] == pytest.approx(0.25, abs=1e-3)

    def strength(item: dict[str, Any]) -> float:  # the score apart from relevance
        return float(item["score"] / item["factors"]["relevance"])

    assert strength(social) == pytest.approx(strength(directive) / 4, rel=1e-3)
    human = run("retrieve", "--query", "profile the slow endpoint", "--explain").stdout
    assert "decay 0.250 = 0.5^(60.0 d / 30 d)" in human
    assert "decay 1 (directive: never decays)" in human
