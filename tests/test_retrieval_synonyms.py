"""Retrieval by text alone matches the synonyms of the query's words that no insight
holds (chitin/search/synonymy.py; docs/design.md §6b, round 6): the real CLI on a real
store, the model off."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import Run


def text_only(store: Path) -> None:
    (store / "chitin.yaml").write_text("embedding: {provider: none}\n")


def retrieve(run: Run, query: str) -> list[dict[str, Any]]:
    found = json.loads(run("retrieve", "--query", query, "--format", "json", "--explain").stdout)
    return list(found["insights"])


def test_a_query_whose_only_link_is_a_synonym_finds_the_insight(
    run: Run, add: Any, store: Path
) -> None:
    invoice = add("skill", "Check the VAT rate on every invoice sent abroad", 0.8)
    add("skill", "Use git bisect to find the commit that broke a build", 0.8)
    text_only(store)
    found = retrieve(run, "the bill looks odd")
    assert [item["id"] for item in found] == [invoice["id"]]
    assert found[0]["matched"] is True
    assert "VAT rate on every invoice" in run("retrieve", "--query", "the bill looks odd").stdout


def test_a_phrase_of_the_lexicon_finds_its_synonyms(run: Run, add: Any, store: Path) -> None:
    delete = add("skill", "Delete stale feature flags once the release is out", 0.8)
    add("skill", "Use git bisect to find the commit that broke a build", 0.8)
    text_only(store)
    assert [item["id"] for item in retrieve(run, "time to get rid of the clutter")] == [
        delete["id"]
    ]


def test_a_word_the_store_holds_is_matched_as_itself(run: Run, add: Any, store: Path) -> None:
    add("skill", "Check the VAT rate on every invoice sent abroad", 0.8)
    bill = add("skill", "Split the restaurant bill evenly unless someone asks otherwise", 0.8)
    text_only(store)
    assert [item["id"] for item in retrieve(run, "the bill looks odd")] == [bill["id"]]


def test_a_store_without_vectors_yet_is_searched_with_synonyms(
    run: Run, store: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    """41 imported insights, more than a retrieve embeds inline, background embedding
    off: answered by text alone, as a fresh clone's first session is, synonyms too."""
    monkeypatch.setenv("CHITIN_BACKGROUND_EMBED", "on")
    topics = ["deploys", "reviews", "tests", "migrations", "incidents"]
    items = [
        {
            "type": "skill",
            "claim": f"Rehearse the {topics[n % 5]} step {n} first",
            "confidence": 0.7,
        }
        for n in range(40)
    ]
    items.append(
        {
            "type": "skill",
            "claim": "Check the VAT rate on every invoice sent abroad",
            "confidence": 0.7,
        }
    )
    source = tmp_path / "export.json"
    source.write_text(json.dumps(items))
    run("init")
    (store / "chitin.yaml").write_text("embedding: {provider: local, background: false}\n")
    run("import", str(source))
    found = json.loads(run("retrieve", "--query", "the bill looks odd", "--format", "json").stdout)
    assert "ranked by text alone" in found["degraded"]
    assert found["insights"][0]["claim"] == "Check the VAT rate on every invoice sent abroad"
