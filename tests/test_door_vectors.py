"""``contribute``'s duplicate check reads the stored vectors of its candidates: only the
new insight (and a candidate whose vector is missing or stale) is embedded, and with
nothing to compare the model is not loaded at all (chitin.search.door)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Run

CLAIM = "Reproduce a bug before fixing it"
PARAPHRASE = "Reproduce the bug before you fix it"


def contribute(run_json: Any, claim: str) -> Any:
    return run_json("contribute", "--type", "skill", "--claim", claim, "--confidence", "0.7")


def test_a_stored_candidate_is_judged_by_its_stored_vector(
    run: Run, add: Any, run_json: Any, embedded: list[str]
) -> None:
    first = add("skill", CLAIM, 0.8, reasoning="a fix you cannot reproduce is a guess")
    run("embed")
    embedded.clear()
    made = contribute(run_json, PARAPHRASE)
    assert [d["id"] for d in made["duplicates"]] == [first["id"]]
    assert made["duplicates"][0]["basis"] == "meaning"
    assert embedded == [PARAPHRASE]  # the new insight alone, once


def test_a_stale_vector_is_not_used_and_the_candidate_is_embedded(
    run: Run, add: Any, run_json: Any, embedded: list[str]
) -> None:
    first = add("skill", "Reproduce a crash before fixing it", 0.8)
    run("embed")
    run("update", first["id"], "--claim", CLAIM)  # its stored vector is of the old text
    embedded.clear()
    made = contribute(run_json, PARAPHRASE)
    assert [d["id"] for d in made["duplicates"]] == [first["id"]]
    # the candidate's new text (the stale row is refreshed, as a search does), and the
    # new insight once: not again beside the candidates
    assert sorted(embedded) == sorted([CLAIM, PARAPHRASE])


def test_an_empty_store_loads_no_model(run: Run, run_json: Any, embedded: list[str]) -> None:
    run("init")
    made = contribute(run_json, CLAIM)
    assert made["duplicates"] == [] and made["conflicts"] == []
    assert embedded == []


def test_nothing_near_by_words_in_an_unembedded_store_loads_no_model(
    run: Run, add: Any, run_json: Any, embedded: list[str]
) -> None:
    for number in range(40):  # more than semantic.INLINE_LIMIT waiting for a vector
        add(
            "skill", f"Rotate the staging credential number {number} every quarter", 0.6, force=True
        )
    embedded.clear()
    made = contribute(run_json, "Write the changelog entry while the change is fresh")
    assert made["duplicates"] == [] and made["conflicts"] == []
    assert "have no vector yet" in (made["degraded"] or "")
    assert embedded == []


def test_a_contribute_writes_no_count_of_the_waiting_into_the_sidecar(
    run: Run, add: Any, run_json: Any, store: Any
) -> None:
    """The count of insights without a vector is noted for the next read of the same
    state; a contribute changes the state right after counting, so it notes nothing
    (a write to the sidecar, its log's syncs and a checkpoint at close). A read notes
    it."""
    import sqlite3

    for number in range(40):  # more than semantic.INLINE_LIMIT waiting for a vector
        add(
            "skill", f"Rotate the staging credential number {number} every quarter", 0.6, force=True
        )
    index = store / ".chitin" / "vectors" / "index.sqlite3"

    def noted() -> dict[str, str]:
        with sqlite3.connect(index) as db:
            return dict(
                db.execute("SELECT key, value FROM meta WHERE key IN ('counted', 'waiting')")
            )

    made = contribute(run_json, "Rotate the staging credential number 7 every month")
    assert "40 insight(s) have no vector yet" in (made["degraded"] or "")
    assert noted() == {}
    run("retrieve", "--query", "rotate the staging credential")
    # 41: the new one too, left to the background embedding (search/own_vectors.py)
    assert noted()["waiting"] == "41"


def test_an_unembedded_store_is_embedded_in_the_background_after_a_contribute(
    add: Any, run_json: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check judged the waiting insights by words: it starts the background
    embedding for them (as a session start does), so that the next check judges by
    meaning, and says so; with the background embedding off, it names `chitin embed`."""
    from tests.test_session_start import wait_for_background

    for number in range(40):  # more than semantic.INLINE_LIMIT waiting for a vector
        add(
            "skill", f"Rotate the staging credential number {number} every quarter", 0.6, force=True
        )
    first = add("skill", CLAIM, 0.8, force=True)
    made = contribute(run_json, "Write the changelog entry while the change is fresh")
    assert made["degraded"] == (
        "41 insight(s) have no vector yet (`chitin embed`): "
        "duplicates among them are found by words only"
    )
    monkeypatch.setenv("CHITIN_BACKGROUND_EMBED", "on")
    made = contribute(run_json, "Keep the release branch green before tagging")
    assert made["degraded"] == (
        "42 insight(s) have no vector yet (being embedded in the background, started now): "
        "duplicates among them are found by words only"
    )
    wait_for_background()
    assert run_json("embed-status")["embedded"] == 43
    made = contribute(run_json, PARAPHRASE)
    assert made["degraded"] is None
    assert [d["id"] for d in made["duplicates"]] == [first["id"]]


AREAS = ("billing", "search", "login", "upload", "export", "mailer", "report")


def test_in_an_unembedded_store_only_the_closest_candidates_are_embedded(
    add: Any, run_json: Any, embedded: list[str]
) -> None:
    """Word candidates without a stored vector (an imported store, before the
    background embedding) are embedded only up to door.RULE.cap, the most alike by
    topic words first; the others are judged by words alone, and the note says that
    the store's insights wait for a vector."""
    from chitin.search import door

    cap = door.RULE.cap
    assert cap is not None and door.RULE.rest_by_words
    for number in range(34):  # more than semantic.INLINE_LIMIT waiting for a vector
        add(
            "skill", f"Rotate the staging credential number {number} every quarter", 0.6, force=True
        )
    first = add("skill", CLAIM, 0.8, force=True)
    for area in AREAS[: cap + 2]:  # more word candidates than the cap
        add("skill", f"Reproduce a bug in the {area} service before fixing it", 0.6, force=True)
    embedded.clear()
    made = contribute(run_json, PARAPHRASE)
    assert made["duplicates"][0]["id"] == first["id"]  # the closest, judged by meaning
    assert made["duplicates"][0]["basis"] == "meaning"
    assert "have no vector yet" in (made["degraded"] or "")
    assert len(embedded) == 1 + cap  # the new insight, and the cap's closest
    assert PARAPHRASE in embedded and CLAIM in embedded


def test_with_stored_vectors_the_cap_does_not_apply(
    run: Run, add: Any, run_json: Any, embedded: list[str]
) -> None:
    """Candidates with a current stored vector are all judged by meaning, whatever
    their number: only the new insight is embedded."""
    first = add("skill", CLAIM, 0.8, force=True)
    for area in AREAS:
        add("skill", f"Reproduce a bug in the {area} service before fixing it", 0.6, force=True)
    run("embed")
    embedded.clear()
    made = contribute(run_json, PARAPHRASE)
    assert made["duplicates"][0]["id"] == first["id"]
    assert made["degraded"] is None
    assert embedded == [PARAPHRASE]
