"""Semantic retrieval end to end: the sidecar, staleness, hybrid ranking, degradation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import Run, commit_count, git

from chitin.index.vector_files import MATRIX
from chitin.index.vectors import VectorStore


def retrieve_json(run: Run, query: str, *args: str) -> dict[str, Any]:
    return json.loads(run("retrieve", "--query", query, "--format", "json", *args).stdout)


@pytest.mark.parametrize(
    ("paraphrase", "seed"),
    [
        ("recreate the defect with a tiny case before patching", "reproduce-the-bug-first-nklt"),
        # one stray shared word ("anything") must not outweigh a close meaning
        (
            "before patching anything, get the defect to show up reliably",
            "reproduce-the-bug-first-nklt",
        ),
        (
            "say how sure I am and keep guesses apart from checked facts",
            "separate-verified-from-assumed-s5x7",
        ),
        (
            "instructions inside a web page are just text, not orders",
            "fetched-content-is-data-00xz",
        ),
    ],
)
def test_a_paraphrase_finds_its_seed_insight_first(run: Run, paraphrase: str, seed: str) -> None:
    run("init", "--seed")
    result = retrieve_json(run, paraphrase)
    assert result["insights"][0]["id"] == seed
    assert result["degraded"] is None


def test_embed_status_and_only_stale_rows_are_embedded_again(
    run: Run, add: Any, store: Path
) -> None:
    # --force: no duplicate check, which would embed the stored one by the way.
    one = add("skill", "Profile before optimizing a slow endpoint", 0.8, force=True)
    add("skill", "Write the failing test first", 0.8, force=True)
    status = json.loads(run("embed-status", "--format", "json").stdout)
    assert status == {
        "total": 2,
        "embedded": 0,
        "missing": 2,
        "provider": None,
        "model": None,
        "dimensions": None,
    }
    out = json.loads(run("embed", "--format", "json").stdout)
    assert out == {
        "embedded": 2,
        "total": 2,
        "provider": "local",
        "model": "all-MiniLM-L6-v2",
        "dimensions": 384,
    }
    assert run("embed").stdout.startswith("All 2 insight(s) already have current vectors")
    run("update", one["id"], "--claim", "Measure where the time goes before optimizing")
    assert json.loads(run("embed-status", "--format", "json").stdout)["missing"] == 1
    assert json.loads(run("embed", "--format", "json").stdout)["embedded"] == 1
    assert json.loads(run("embed", "--force", "--format", "json").stdout)["embedded"] == 2
    assert "Provider: local/all-MiniLM-L6-v2" in run("embed-status").stdout


def test_embed_of_an_empty_store_says_there_is_nothing_to_embed(run: Run) -> None:
    """It said "All 0 insight(s) already have current vectors" (chitin 1.4.5: "No
    insights to embed.")."""
    run("init")
    assert run("embed").stdout == "No insights to embed.\n"
    assert json.loads(run("embed", "--format", "json").stdout)["total"] == 0


def test_retrieve_embeds_a_new_insight_and_reuses_query_vectors(
    run: Run, add: Any, store: Path, monkeypatch: Any
) -> None:
    add("skill", "Profile before optimizing a slow endpoint", 0.8)
    retrieve_json(run, "the page is slow")
    fresh = add("behavioral", "Give a short summary before the details", 0.8)
    from chitin.providers.local import LocalProvider

    embedded: list[int] = []
    original = LocalProvider.embed

    def counting(self: LocalProvider, texts: Any, kind: str = "document") -> Any:
        embedded.append(len(texts))
        return original(self, texts, kind)

    monkeypatch.setattr(LocalProvider, "embed", counting)
    result = retrieve_json(run, "the page is slow")
    assert embedded == [1]  # only the new insight; the query vector was stored
    assert fresh["id"] in [item["id"] for item in result["insights"]]


def test_a_failing_provider_degrades_to_text(run: Run, add: Any, store: Path) -> None:
    add("skill", "Profile before optimizing a slow endpoint", 0.8)
    (store / "chitin.yaml").write_text("embedding: {provider: voyage}\n")
    result = run("retrieve", "--query", "optimizing", "--format", "json")
    data = json.loads(result.stdout)
    assert data["degraded"].startswith("semantic search unavailable (Missing API key for voyage")
    assert data["insights"][0]["claim"] == "Profile before optimizing a slow endpoint"
    assert "chitin: semantic search unavailable" in result.stderr


def test_embed_records_the_chosen_provider_in_one_commit(run: Run, add: Any, store: Path) -> None:
    add("skill", "Anything", 0.8)
    before = commit_count(store)
    result = run("embed", "--provider", "voyage", expect=1)
    assert (
        result.stderr
        == "Error: Missing API key for voyage: set VOYAGE_API_KEY environment variable\n"
    )
    assert commit_count(store) == before and not (store / "chitin.yaml").exists()
    bad = run("embed", "--provider", "cohere", expect=2)  # a usage error (fix81)
    assert "'cohere' is not a provider; name one of local, voyage, openai" in bad.stderr


def test_an_embed_whose_provider_fails_records_nothing(
    run: Run, add: Any, store: Path, monkeypatch: Any
) -> None:
    """The choice was committed before the provider was asked, so a refused endpoint
    left chitin.yaml naming it, and each retrieve after fell back to text (qa53)."""
    add("skill", "Anything", 0.8)
    before = commit_count(store)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # refused
    result = run("embed", "--provider", "openai", expect=1)
    assert result.stderr.startswith("Error: OpenAI API unreachable")
    assert commit_count(store) == before and not (store / "chitin.yaml").exists()
    assert (
        json.loads(run("retrieve", "--query", "anything", "--format", "json").stdout)["degraded"]
        is None
    )


def test_a_damaged_matrix_is_discarded_and_rebuilt(run: Run, add: Any, store: Path) -> None:
    add("skill", "Profile before optimizing a slow endpoint", 0.8)
    run("embed")
    matrix = store / ".chitin" / "vectors" / MATRIX
    matrix.write_bytes(b"\x00" * 7)  # not a whole number of rows
    assert json.loads(run("embed-status", "--format", "json").stdout)["embedded"] == 1
    assert retrieve_json(run, "slow endpoint")["insights"][0]["claim"].startswith("Profile")
    assert matrix.stat().st_size == 384 * 4


def test_the_vector_store_replaces_frees_and_reuses_rows(tmp_path: Path) -> None:
    store = VectorStore(tmp_path, "test:m:3", 3)
    store.put([("a", "h1", 0), ("b", "h2", 0)], np.eye(3, dtype=np.float32)[:2])
    store.put([("a", "h3", 0)], np.array([[0, 0, 1]], dtype=np.float32))
    assert store.fresh() == {"a": "h3", "b": "h2"}
    hits = store.nearest(np.array([0, 0, 1], dtype=np.float32), [0, 1], 5)
    assert hits[0] == ("a", pytest.approx(1.0)) and hits[1][0] == "b"
    assert store.nearest(np.array([0, 0, 1], dtype=np.float32), [], 5) == []
    store.forget(["b"])
    store.put([("c", "h4", 0)], np.array([[1, 0, 0]], dtype=np.float32))
    assert (tmp_path / "vectors" / MATRIX).stat().st_size == 2 * 3 * 4  # b's row reused
    store.close()
    other = VectorStore(tmp_path, "test:other:3", 3)  # another model: every row is stale
    assert other.fresh() == {}
    other.close()


def test_an_insight_is_as_near_as_its_nearest_part(tmp_path: Path) -> None:
    """A trigger's condition has a row of its own (part 1): the insight is found by the
    better of its parts, once, and parts it no longer has are freed when it is put again."""
    store = VectorStore(tmp_path, "test:m:3", 3)
    x, y, z = np.eye(3, dtype=np.float32)
    parts = [("t", "h1", 0), ("t", "h1", 1), ("s", "h2", 0)]
    store.put(parts, np.vstack([x, y, z * 0.6 + x * 0.8]))
    assert store.fresh() == {"t": "h1", "s": "h2"} and store.count() == 2
    near_y = store.nearest(y, [0, 1, 2], 5)
    assert near_y == [("t", pytest.approx(1.0)), ("s", pytest.approx(0.0, abs=1e-6))]
    near_x = store.nearest(x, [0, 1, 2], 5)
    assert near_x == [("t", pytest.approx(1.0)), ("s", pytest.approx(0.8))]
    store.put([("t", "h3", 0)], np.array([z]))  # no condition now: its part 1 is freed
    assert dict(store.nearest(y, [0, 1, 2], 5)) == {"t": 0.0, "s": pytest.approx(0, abs=1e-6)}
    store.put([("u", "h4", 0)], np.array([y]))
    assert (tmp_path / "vectors" / MATRIX).stat().st_size == 3 * 3 * 4  # t's part 1 reused
    store.close()


def test_the_remembered_queries_are_the_newest_few(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Query vectors and nearest rows are kept for the QUERY_CACHE_LIMIT queries
    written last; a query written again counts as new."""
    from chitin.index import vector_files

    monkeypatch.setattr(vector_files, "QUERY_CACHE_LIMIT", 3)
    store = VectorStore(tmp_path, "test:m:3", 3)
    vector = np.array([1, 0, 0], dtype=np.float32)
    for text in ("q1", "q2", "q3", "q4", "q2", "q5"):
        store.cache_query(text, vector, 0)
        store.keep_hits(text, "state", [("a", 1.0)])
    kept = {t for t in ("q1", "q2", "q3", "q4", "q5") if store.cached_query(t) is not None}
    assert kept == {"q2", "q4", "q5"}
    assert {t for t in kept | {"q1", "q3"} if store.known_hits(t, "state")} == kept
    store.close()


def test_retrieval_never_commits_vectors(run: Run, add: Any, store: Path) -> None:
    add("skill", "Anything at all", 0.8)
    retrieve_json(run, "anything")
    assert git(store, "status", "--porcelain") == ""


def test_a_repeated_query_loads_neither_the_model_nor_numpy(
    run: Run, add: Any, store: Path
) -> None:
    import subprocess
    import sys

    add("skill", "Profile before optimizing a slow endpoint", 0.8)
    code = (
        "import sys; from chitin.cli import cli\n"
        f"sys.argv = ['chitin', '--store', {str(store)!r}, 'retrieve', '--query', 'slow page']\n"
        "try: cli.main()\nexcept SystemExit: pass\n"
        "print([m for m in ('numpy', 'onnxruntime') if m in sys.modules])"
    )

    def loaded() -> str:
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        return result.stdout.strip().splitlines()[-1]

    assert loaded() == "['numpy', 'onnxruntime']"  # the first time the query is embedded
    assert loaded() == "[]"
    add("skill", "Cache rendered pages", 0.8)  # the store changed: vectors are searched again,
    assert "onnxruntime" in loaded()  # and the new insight embedded
    assert loaded() == "[]"


def test_meaning_alone_finds_an_insight_that_shares_no_word_with_the_query(
    run: Run, add: Any, store: Path
) -> None:
    target = add("skill", "Reproduce a bug before fixing it", 0.6)
    add("personality", "Dry humour lands better than forced jokes", 0.95)
    add("relational", "Schedule calls with Dana before 16:00 Berlin time", 0.9)
    query = "make the failure show up on my machine first"
    hybrid = retrieve_json(run, query, "--explain")
    assert hybrid["insights"][0]["id"] == target["id"] and hybrid["insights"][0]["matched"]
    (store / "chitin.yaml").write_text("embedding: {provider: none}\n")
    text_only = retrieve_json(run, query, "--explain")
    assert not any(item["matched"] for item in text_only["insights"])


def test_a_query_near_the_reasoning_alone_finds_its_insight(run: Run, add: Any) -> None:
    """The reasoning has a vector of its own: a query that says why ("they will hold me
    to any number") is near the reasoning and far from the claim it explains, which
    dilutes it in the whole text's vector (0.26 here, against 0.40 for the reasoning and
    0.33 for an insight about numbers)."""
    target = add(
        "skill",
        "Give estimates as a range of days with the assumptions listed, never one figure.",
        0.8,
        reasoning="A single number is heard as a promise, and people plan around it.",
    )
    add("skill", "Phone numbers are stored in international format.", 0.8)
    found = retrieve_json(run, "they'll hold me to any number I give", "--explain")
    assert found["insights"][0]["id"] == target["id"]


def test_a_query_that_names_what_only_a_tag_says_finds_its_insight(
    run: Run, add: Any, store: Path
) -> None:
    """The whole text with the tags has a vector of its own (``tagged_text``): "Bris" is
    a name to the model, and the query calls her "the puppy"; the tag "dog" says what
    the claim leaves out (0.10 from the claim's text, under the floor of meaning; 0.26
    with the tags). A change to the tags alone makes the vectors stale."""
    target = add(
        "skill",
        "Bris's recall word is 'hit' followed by the whistle; practise it with cheese, "
        "on a long line.",
        0.8,
        tags="dog,training",
    )
    add("skill", "Invoices are due fourteen days after the work is delivered.", 0.8)
    add("skill", "Run the linter before pushing a branch.", 0.8)
    found = retrieve_json(run, "the puppy won't come back when I call it at the park")
    assert found["insights"][0]["id"] == target["id"] and found["insights"][0]["matched"]
    assert json.loads(run("embed-status", "--format", "json").stdout)["missing"] == 0
    run("update", target["id"], "--tags", "dog,training,park")
    assert json.loads(run("embed-status", "--format", "json").stdout)["missing"] == 1


def test_one_stray_word_of_a_long_query_is_not_a_match_when_meaning_is_searched(
    run: Run, add: Any, store: Path
) -> None:
    """A text match on one content word of six or more is noise beside the query's
    meaning (engine.MIN_SHARE): hybrid retrieval does not count it; by text alone, with
    nothing better to go on, it still counts."""
    stray = add("skill", "Name each Kubernetes namespace after the team that owns it", 0.9)
    near = add("skill", "Taste the soup before adding more salt", 0.6)
    query = "slow roasting garlic and basil for a tomato soup namespace"
    hybrid = {item["id"]: item for item in retrieve_json(run, query, "--explain")["insights"]}
    assert hybrid[near["id"]]["matched"]
    assert stray["id"] not in hybrid  # no match, and a skill fills nothing
    (store / "chitin.yaml").write_text("embedding: {provider: none}\n")
    text_only = {item["id"]: item for item in retrieve_json(run, query, "--explain")["insights"]}
    assert text_only[stray["id"]]["matched"]


def test_a_text_match_far_in_meaning_weighs_little_beside_a_near_one(run: Run, add: Any) -> None:
    """A text match counts in the blend as far as the insight is near the query in
    meaning (engine.TEXT_TRUST): the insight about a river bank and a charging herd
    holds "bank" and "charges", but means nothing like fees on card payments; the one
    on booking fees, sharing one word, is the answer. Counted in full, the two shared
    words ranked the herd first."""
    herd = add(
        "skill",
        "Walk along the river bank at dawn; the herd charges anything that comes near the calves.",
        0.8,
    )
    fees = add(
        "skill",
        "Book the payment provider's transaction fees as a separate cost line, not "
        "netted from revenue.",
        0.8,
    )
    add("skill", "Send invoices as PDF attachments with the invoice number in the subject.", 0.8)
    found = retrieve_json(run, "bank charges on card payments", "--explain")
    ids = [item["id"] for item in found["insights"] if item["matched"]]
    assert ids[:2] == [fees["id"], herd["id"]]  # the herd still matches, only weaker


def test_a_word_the_model_does_not_know_still_matches_by_text(run: Run, add: Any) -> None:
    """A codename the model has no meaning for, held by one insight, is a match when
    meaning is searched, as it is by text alone: its text match weighs little beside
    matches in meaning (engine.TEXT_TRUST), but it is not dropped for being far in
    meaning. Its trust was 0 at a cosine of 0.1 or less ("flimflam" is -0.03 from the
    claim), and the query was answered "Nothing stored matches this query"."""
    add("skill", "Pin the compiler version in CI", context="Whenever zorblax pipelines run")
    add("skill", "Keep a changelog entry per release", reasoning="Because auditors need it")
    held = add("skill", "Cache the dependency downloads", limitations="Not for flimflam monorepos")
    add("skill", "Document the runbook steps", tags="wibblewobble")
    add("trigger", "Stop and page the on-call", condition="the grommetizer deployments are failing")
    found = retrieve_json(run, "flimflam")
    assert found["degraded"] is None  # meaning was searched
    assert found["insights"][0]["id"] == held["id"] and found["insights"][0]["matched"]


def test_a_word_most_insights_hold_weighs_little_in_a_text_match(
    run: Run, add: Any, store: Path
) -> None:
    """Each query word counts by how rare it is in the store (inverse document
    frequency): "asked" is in most insights here, so an insight sharing only it with
    "someone asked me to hurry up" holds far less than a third of the query and is not
    a match when meaning is searched; one sharing the rare "hurry" is. By text alone,
    every match still counts."""
    common = [
        add("relational", claim, 0.8)
        for claim in (
            "Sofia asked for the customer's account id with every bug report.",
            "Dana asked that architecture decisions be written down.",
            "Kenji asked to review every change to authentication.",
            "Ben asked to be added as a reviewer on billing changes.",
        )
    ]
    rare = add("skill", "Never hurry a database migration.", 0.8)
    query = "someone asked me to hurry up"
    hybrid = {item["id"]: item for item in retrieve_json(run, query, "--explain")["insights"]}
    assert hybrid[rare["id"]]["matched"]
    # no match, and a relational insight fills nothing (issue 24): not in the result
    assert not any(one["id"] in hybrid for one in common)
    (store / "chitin.yaml").write_text("embedding: {provider: none}\n")
    text_only = {item["id"]: item for item in retrieve_json(run, query, "--explain")["insights"]}
    assert all(text_only[one["id"]]["matched"] for one in common)


def test_similar_semantic_catches_a_paraphrase_that_shares_no_word(run: Run, add: Any) -> None:
    target = add("skill", "Reproduce a bug before fixing it", 0.6)
    add("personality", "Dry humour lands better than forced jokes", 0.95)
    query = "make the failure show up on my machine first"
    assert json.loads(run("similar", query, "--format", "json").stdout) == []
    found = json.loads(
        run("similar", query, "--semantic", "--threshold", "0.3", "--format", "json").stdout
    )
    assert [item["id"] for item in found] == [target["id"]]
    assert 0.3 <= found[0]["similarity"] <= 1.0
    assert run("similar", query, "--semantic").stdout.startswith("No similar insights found.")


def test_similar_semantic_takes_a_claim_that_is_not_utf8(run: Run, add: Any) -> None:
    """A byte that is not UTF-8 (0xff, read as \\udcff) reached the vectors' text hash
    and failed as an internal error, exit 3; the word path and retrieve take it (qa53)."""
    target = add("skill", "Reproduce a bug before fixing it", 0.6)
    query = "reproduce the bug \udcff before fixing it"
    found = json.loads(run("similar", query, "--semantic", "--format", "json").stdout)
    assert [item["id"] for item in found] == [target["id"]]


def test_embed_without_a_terminal_prints_a_plain_count(run: Run, add: Any) -> None:
    add("skill", "Profile before optimizing", 0.8)
    result = run("embed")
    assert "embedded 1/1" in result.stderr and result.stdout.startswith("✓ Embedded 1 insight")


def test_a_query_that_means_something_matches_what_is_almost_as_near(run: Run, add: Any) -> None:
    """The fixed floor of meaning (0.25) rejects queries that mean nothing; a query whose
    nearest insight passes it also matches those within 0.15 of that nearest
    (engine.NEAR_BEST). Here the neighbour who minds the dog is 0.23 from the query,
    the trigger about the dog 0.36: under the fixed floor alone the neighbour was left
    out, and a principle about tax (0.07) was all that followed."""
    add(
        "trigger",
        "add a sniffing game that day rather than scolding",
        condition="the dog starts chewing furniture or barking at nothing",
    )
    add("skill", "The vet is the clinic on Elm Street; vaccinations are due each March.")
    tax = add("principle", "Set aside a quarter of every payment for tax the day it arrives.")
    hanna = add("relational", "Hanna next door looks after Rex when the family is away.")
    found = retrieve_json(run, "someone to look after the dog while we travel", "--explain")
    by_id = {item["id"]: item for item in found["insights"]}
    assert by_id[hanna["id"]]["matched"]
    assert not by_id[tax["id"]]["matched"]  # the filler stays a filler


def test_a_query_that_means_nothing_matches_no_one_word_insight(run: Run, add: Any) -> None:
    # A claim of a character or two embeds where every meaningless query lands ("zzqx
    # blorf" is 0.32 from "x", over the fixed floor of 0.25): it ranked first, matched.
    run("init", "--seed")
    one_char = add("skill", "x", 0.8, force=True)["id"]
    one_word = add("skill", "ok", 0.8, force=True)["id"]
    for query in ("zzqx blorf", "hello", "asdf qwer"):
        found = retrieve_json(run, query, "--explain")["insights"]
        assert {one_char, one_word}.isdisjoint(i["id"] for i in found), query
    found = retrieve_json(run, "zzqx blorf", "--explain")["insights"]
    assert found and all(not i["matched"] and i["score"] == 0 for i in found)
    assert "Nothing stored matches this query" in run("retrieve", "--query", "zzqx blorf").stdout
    # What the insight says still finds it.
    assert retrieve_json(run, "x")["insights"][0]["id"] == one_char


def test_embed_with_semantic_search_off_says_so_and_names_the_providers(
    run: Run, store: Path
) -> None:
    """`embed` in a store whose chitin.yaml says `provider: none` answered "Unknown
    embedding provider: 'none'", although none is a choice chitin.yaml allows; it says
    that semantic search is off and how to embed anyway, and records nothing."""
    run("init")
    (store / "chitin.yaml").write_text("embedding: {provider: none}\n")
    refused = run("embed", expect=1)
    assert refused.stderr.splitlines()[0] == (
        "Error: semantic search is off in chitin.yaml (embedding.provider: none); name a "
        "provider to embed with: chitin embed --provider local (allowed: local, voyage, openai)"
    )
    assert (store / "chitin.yaml").read_text() == "embedding: {provider: none}\n"
