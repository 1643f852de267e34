"""The secret guard's gaps (issue 27, item 9): $CHITIN_AGENT, which names the author,
e-mail and trailer of every commit, is checked for credentials and bounded; and the
new rules refuse none of chitin's own texts (the starter insights, the eval sets)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import Run, commit_count, git

from chitin.model.secrets import find_secrets

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"  # in pieces: no scanner flags this file


@pytest.mark.parametrize(
    ("agent", "said"),
    [
        (TOKEN, "$CHITIN_AGENT looks like it holds a GitHub token"),
        ("a" * 100_000, "$CHITIN_AGENT is 100,000 characters long (at most 100)"),
        ("bot\nChitin-Op: forged", "$CHITIN_AGENT holds a control or invisible character"),
        ("bot\udcff", "$CHITIN_AGENT is not valid UTF-8"),  # the byte 0xff (qa53)
    ],
    ids=["token", "long", "newline", "not-utf8"],
)
def test_a_bad_agent_name_is_refused_before_any_commit(
    run: Run, store: Path, monkeypatch: pytest.MonkeyPatch, agent: str, said: str
) -> None:
    monkeypatch.setenv("CHITIN_AGENT", agent)
    refused = run("init", expect=1)
    assert refused.stderr.startswith(f"Error: {said}") and refused.stderr.count("\n") == 1
    assert commit_count(store) == 0
    monkeypatch.delenv("CHITIN_AGENT")
    run("init")
    commits = commit_count(store)
    monkeypatch.setenv("CHITIN_AGENT", agent)
    for args in (
        ("contribute", "--type", "skill", "--claim", "A fine claim.", "--confidence", "0.8"),
        ("import", "-"),
    ):
        document = '[{"type": "skill", "claim": "Another claim.", "confidence": 0.8}]'
        result = run(*args, input=document, expect=1)
        assert result.stderr.startswith(f"Error: {said}")
        assert agent not in result.stderr
    assert commit_count(store) == commits
    assert agent[:40] not in git(store, "log", "--format=%an %ae %B")
    assert run("list").stdout  # reading needs no agent: it still works


def test_a_good_agent_name_still_signs_the_commit(
    run: Run, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHITIN_AGENT", "review-bot-2")
    run("init")
    run("contribute", "--type", "skill", "--claim", "A fine claim.", "--confidence", "0.8")
    assert "Chitin-Agent: review-bot-2" in git(store, "log", "-1", "--format=%B")


@pytest.mark.parametrize("blank", [" ", "   ", "\t"])
def test_a_blank_agent_name_is_no_agent(
    run: Run, store: Path, monkeypatch: pytest.MonkeyPatch, blank: str
) -> None:
    """fix124: $CHITIN_AGENT of spaces only gave the author chitin's fallback but an
    empty `Chitin-Agent:` trailer on every commit. Blank is unset, in the CLI and the
    library alike."""
    from chitin import Chitin

    monkeypatch.setenv("CHITIN_AGENT", blank)
    run("init")
    run("contribute", "--type", "skill", "--claim", "A fine claim.", "--confidence", "0.8")
    with Chitin(store=store, env={**os.environ}) as chitin:
        chitin.contribute({"type": "skill", "claim": "Another claim.", "confidence": 0.8})
    with Chitin(store=store, agent=blank) as chitin:
        chitin.contribute({"type": "skill", "claim": "A third claim.", "confidence": 0.8})
    messages = git(store, "log", "--format=%B")
    assert "Chitin-Agent" not in messages and messages.count("Chitin-Op: contribute") == 3


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def test_no_eval_set_text_is_taken_for_a_secret() -> None:
    sets = sorted((ROOT / "bench" / "eval").glob("*.yaml"))
    assert sets
    texts = [t for path in sets for t in _strings(yaml.safe_load(path.read_text()))]
    assert len(texts) > 1000
    assert [(t[:60], find_secrets(t)) for t in texts if find_secrets(t)] == []


def test_no_starter_insight_is_refused(run: Run, store: Path) -> None:
    files = sorted((ROOT / "starter" / "insights").rglob("*.md"))
    assert files
    assert [p.name for p in files if find_secrets(p.read_text(encoding="utf-8"))] == []
    result = run("init", "--seed")
    assert "credential" not in result.stderr
    starters = {p.name for p in files if p.name != "README.md"}
    assert {p.name for p in (store / "insights").rglob("*.md")} == starters
