"""A contribute gives its new insight its vectors itself (search/own_vectors.py): the
rows a later search would have embedded inline, for the same text hash, stored once
the insight is recorded; never at the cost of the write."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from conftest import Run, commit_count

from chitin import Chitin
from chitin.index.vectors import VectorStore
from chitin.model.insight import Insight
from chitin.model.search_text import embedding_texts, vector_hash
from chitin.providers.local import LocalProvider
from chitin.providers.minilm import DIMENSIONS, MODEL


def stored_insight(store: Path, insight_id: str) -> Insight:
    with Chitin(store=store) as chitin:
        return chitin.get(insight_id)


def _status(run: Run) -> dict[str, Any]:
    return dict(json.loads(run("embed-status", "--format", "json").stdout))


def test_a_contribute_stores_the_vectors_a_search_would_make(
    run: Run, add: Any, store: Path
) -> None:
    add("skill", "Profile before optimising a slow endpoint", 0.8)
    run("embed")
    made = add("skill", "Profile the slow endpoint before optimising it", 0.7, tags="perf,api")
    assert _status(run)["embedded"] == 2  # none left for the next search to embed
    insight = stored_insight(store, made["id"])
    texts = embedding_texts(insight)
    assert len(texts) == 2  # the whole text, and the whole text with its tags
    sidecar = VectorStore(store / ".chitin", f"local:{MODEL}:{DIMENSIONS}", DIMENSIONS)
    try:
        assert sidecar.fresh()[made["id"]] == vector_hash(insight)
        whole = np.array(sidecar.whole_vector(made["id"], vector_hash(insight)))
    finally:
        sidecar.close()
    model = LocalProvider()
    try:
        expected = model.embed(list(texts), "document")
    finally:
        model.close()
    np.testing.assert_allclose(whole, expected[0], atol=1e-4)
    assert json.loads(run("embed", "--format", "json").stdout)["embedded"] == 0


def test_the_first_insight_of_a_store_loads_no_model_for_its_vectors(run: Run, add: Any) -> None:
    """With nothing to compare, the door loads no model (search/door.py); its vectors
    are left to the first search, as before."""
    add("skill", "Profile before optimising a slow endpoint", 0.8)
    assert _status(run)["embedded"] == 0


def test_a_sidecar_removed_meanwhile_costs_the_vectors_not_the_write(
    run: Run, add: Any, store: Path
) -> None:
    """The vector sidecar deleted while the contribute commits (here by the store's
    pre-commit hook): the insight is written and committed, its vectors are not."""
    add("skill", "Profile before optimising a slow endpoint", 0.8)
    run("embed")
    before = commit_count(store)
    hook = store / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\nrm -rf .chitin/vectors\n")
    hook.chmod(0o755)
    made = add("skill", "Profile the slow endpoint before optimising it", 0.7)
    hook.unlink()
    assert made["id"] and commit_count(store) == before + 1
    assert _status(run)["embedded"] == 0  # a new sidecar: the next search fills it
