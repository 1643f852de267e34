"""chitin dedupe (issue 25): the duplicate clusters of a store, strongest first, each
with the merge that resolves it; --apply merges them, one commit per cluster."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from conftest import Run, chitin_program, commit_count, git


def make(add: Any, claim: str, confidence: float) -> str:
    return str(add("skill", claim, confidence, force=True)["id"])


def test_clusters_strongest_first_each_with_its_merge(run: Run, add: Any, run_json: Any) -> None:
    weak = make(add, "Deploy service 1 after the smoke tests pass", 0.6)
    strong = make(add, "Deploy service 2 after the smoke tests pass", 0.9)
    middle = make(add, "Deploy service 3 after the smoke tests pass", 0.7)
    make(add, "Use mocks in unit tests", 0.5)
    original = make(add, "Use mocks in unit tests.", 0.8)
    make(add, "Something else entirely about databases", 0.7)
    found = run_json("dedupe")
    assert found["applied"] is False
    first, second = found["clusters"]
    assert first["keep"]["id"] == strong and [d["id"] for d in first["duplicates"]] == [
        middle,
        weak,
    ]
    assert first["command"] == f"chitin merge {middle} {weak} {strong}"
    assert first["exact"] is False and first["commit"] is None
    assert second["keep"]["id"] == original and second["exact"] is True
    human = run("dedupe").stdout
    assert f"  run: chitin merge {middle} {weak} {strong}" in human
    assert human.splitlines()[-1] == "2 clusters, 3 duplicates to merge"


def test_apply_merges_each_cluster_in_one_commit_keeping_reinforcements_and_evidence(
    run: Run, add: Any, run_json: Any, store: Path
) -> None:
    keep = make(add, "Deploy service 1 after the smoke tests pass", 0.9)
    other = make(add, "Deploy service 2 after the smoke tests pass", 0.6)
    third = make(add, "Deploy service 3 after the smoke tests pass", 0.5)
    run("reinforce", other)
    run("reinforce", third)
    run("reinforce", keep)
    run("reinforce", keep)
    before = commit_count(store)
    applied = run_json("dedupe", "--apply")
    assert applied["applied"] is True and len(applied["clusters"]) == 1
    assert commit_count(store) == before + 1
    merged = run_json("get", keep)
    assert merged["reinforcementCount"] == 4 and merged["confidence"] == max(
        merged["confidence"], 0.9
    )
    # qa91: the kept insight as the merge left it, not as it was before (2×)
    assert applied["clusters"][0]["keep"] == merged
    text = next(store.rglob(f"{keep}.md")).read_text()
    assert text.count("\n- ") >= 4  # every evidence line of the three
    assert run_json("dedupe")["clusters"] == []
    assert "merged into" in run("get", other, expect=1).stderr
    # qa39: the second source of the one commit too (it was "Insight not found")
    assert f"it was merged into {keep}" in run("get", third, expect=1).stderr
    history = run_json("history", keep)["history"]
    assert history[-1]["source"] == f"merge:{other}, {third}"


def test_merge_takes_several_sources_in_one_commit(
    run: Run, add: Any, run_json: Any, store: Path
) -> None:
    one = make(add, "Keep the changelog current", 0.6)
    two = make(add, "Keep a changelog", 0.7)
    target = make(add, "Update the changelog with every release", 0.8)
    before = commit_count(store)
    run("merge", one, two, target)
    assert commit_count(store) == before + 1
    assert [i["id"] for i in run_json("list")] == [target]
    refused = run("merge", one, expect=2)
    assert "Missing argument 'SOURCE...'" in refused.stderr


def test_the_kept_insights_confidence_is_shown_as_list_shows_it(
    run: Run, add: Any, run_json: Any
) -> None:
    """Rounded as every confidence shown to people (toFixed(2)); the JSON keeps it exact."""
    keep = make(add, "Pin the versions of the dependencies", 0.85)
    make(add, "Pin the versions of the dependencies.", 0.5)
    run("reinforce", keep)  # 0.85 → 0.8575
    assert "confidence: 0.86 |" in run("list").stdout
    assert f"  keep: {keep} (1×, confidence 0.86) | 1 exact copy:" in run("dedupe").stdout
    assert run_json("dedupe")["clusters"][0]["keep"]["confidence"] == 0.8575


def test_each_count_agrees_with_its_noun_and_copies_are_called_copies(
    run: Run, add: Any, run_json: Any
) -> None:
    """fix91: "1 near duplicates", "1 duplicate(s)", "1 other file(s)"; and one claim
    kept under two types (its members exact copies of one sentence) was called "near
    duplicates". The JSON keeps its keys and values."""
    pinned = make(add, "Pin the CI image by digest", 0.8)
    make(add, "Pin the CI image by digest", 0.6)
    add("principle", "Keep secrets out of git", 0.8)
    make(add, "Keep secrets out of git", 0.7)
    make(add, "Deploy service 1 after the smoke tests pass", 0.8)
    claim = "Deploy service 2 after the smoke tests pass"
    added = run("contribute", "--type", "skill", "--claim", claim, "--confidence", "0.6").stdout
    assert "⚠ 1 duplicate: this is already known." in added
    added = run("contribute", "--type", "skill", "--claim", "Never pin the CI image by digest",
                "--confidence", "0.6").stdout  # fmt: skip
    assert "⚠ 2 potential conflict(s) detected:" in added  # both copies (1.4.5's words)
    human = run("dedupe").stdout
    assert "| 1 exact copy:" in human and "| 1 exact copy of the claim:" in human
    assert "| 1 near duplicate:" in human
    assert human.splitlines()[-1] == "3 clusters, 3 duplicates to merge"
    assert [c["exact"] for c in run_json("dedupe")["clusters"]].count(True) == 1
    checked = run("check").stdout
    assert checked.count("claim repeats 1 other file: ") == 2
    assert checked.count("claim nearly duplicates 1 other file: ") == 1
    run("archive", "never-pin")
    run("archive", "deploy-service-2")
    assert run("dedupe").stdout.splitlines()[-1] == "2 clusters, 2 duplicates to merge"
    make(add, "Keep secrets out of git.", 0.5)
    run("archive", pinned)
    assert run("dedupe").stdout.splitlines()[-1] == "1 cluster, 2 duplicates to merge"


def test_the_same_claim_under_two_types_is_a_cluster(run: Run, add: Any, run_json: Any) -> None:
    """As retrieval shows it once (selection.py): one sentence kept as a personality and
    as a skill is one lesson for dedupe and check too, even where their whole texts
    (one with its reasoning and context) are far apart in meaning."""
    claim = "Stay curious about surprising results"
    kept = add("personality", claim, 0.9, reasoning=REASONING, context=CONTEXT)["id"]
    again = add("skill", claim.lower() + ".", 0.6)["id"]
    run("embed")
    [cluster] = run_json("dedupe")["clusters"]
    assert cluster["keep"]["id"] == kept and [d["id"] for d in cluster["duplicates"]] == [again]
    assert cluster["command"] == f"chitin merge {again} {kept}"
    warned = [w for w in run_json("check")["warnings"] if w["kind"] == "near-duplicate"]
    assert [w["message"].split(":")[0] for w in warned] == ["claim repeats 1 other file"]


REASONING = (
    "A result that contradicts the model of the system is the cheapest evidence there is "
    "that the model is wrong; explaining it away hides the bug that caused it."
)
CONTEXT = "Benchmarks, flaky tests and any output that does not match the prediction."


def test_of_equally_strong_copies_the_oldest_is_kept(
    run: Run, run_json: Any, tmp_path: Path
) -> None:
    """qa33: a tie was broken by the id's text, so the newer copy could be kept and the
    older one, whose history the other joins, merged away."""
    claim = "Rotate the signing keys every quarter"
    items = [
        {"id": "aaa-newer-copy-bbbb", "type": "skill", "claim": claim, "confidence": 0.7,
         "createdAt": "2026-06-01T00:00:00Z"},
        {"id": "zzz-older-copy-aaaa", "type": "skill", "claim": claim, "confidence": 0.7,
         "createdAt": "2026-01-01T00:00:00Z"},
    ]  # fmt: skip
    document = tmp_path / "copies.json"
    document.write_text(json.dumps(items))
    run("import", str(document))
    cluster = run_json("dedupe")["clusters"][0]
    assert cluster["keep"]["id"] == "zzz-older-copy-aaaa"
    assert [d["id"] for d in cluster["duplicates"]] == ["aaa-newer-copy-bbbb"]


def test_a_chain_of_near_duplicates_never_joins_two_opposed_insights(
    run: Run, add: Any, run_json: Any
) -> None:
    """qa39: "brief … messages" and "thorough … messages" are each a near duplicate of
    "… messages", and union-find joined all three: check no longer reported the
    conflict contribute had warned of, and dedupe --apply folded both stances into the
    neutral claim, losing a contradiction that a person should settle."""
    brief = make(add, "Write brief commit messages for this repo", 0.6)
    plain = make(add, "Write commit messages for this repo", 0.7)
    thorough = make(add, "Write thorough commit messages for this repo", 0.6)
    for cluster in run_json("dedupe")["clusters"]:
        members = {cluster["keep"]["id"], *(d["id"] for d in cluster["duplicates"])}
        assert plain in members and not {brief, thorough} <= members
    conflicts = [w for w in run_json("check")["warnings"] if w["kind"] == "conflict"]
    assert len(conflicts) == 1 and '"brief"' in conflicts[0]["message"]
    run("dedupe", "--apply")
    left = {i["id"] for i in run_json("list")}
    assert len(left) == 2 and len(left & {brief, thorough}) >= 1


def test_apply_refused_for_a_credential_names_the_cluster_and_takes_allow_secret(
    run: Run, add: Any, run_json: Any, store: Path
) -> None:
    """qa39: a copy whose reasoning holds a token (written with --allow-secret) made
    dedupe --apply fail with merge's refusal alone: no word of which cluster, of the
    clusters merged before it, and "use --allow-secret", which dedupe did not take."""
    token = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
    first = make(add, "Alpha lesson about caching", 0.9)
    make(add, "alpha lesson about caching.", 0.5)
    keep = make(add, "Zeta lesson about queues", 0.8)
    copy = add(
        "skill", "zeta lesson about queues.", 0.5, force=True, allow_secret=True,
        reasoning=f"token {token}",
    )["id"]  # fmt: skip
    before = commit_count(store)
    refused = run("dedupe", "--apply", expect=1).stderr
    assert refused.count("\n") == 1 and "reasoning looks like it holds a GitHub token" in refused
    assert f"chitin merge {copy} {keep}" in refused
    assert "1 of 2 clusters merged before it" in refused
    assert commit_count(store) == before + 1 and first in {i["id"] for i in run_json("list")}
    applied = run_json("dedupe", "--apply", "--allow-secret")
    assert [c["keep"]["id"] for c in applied["clusters"]] == [keep]
    assert run_json("dedupe")["clusters"] == []


def test_apply_stopped_by_a_hand_edit_it_will_not_commit_names_the_cluster(
    run: Run, add: Any, store: Path
) -> None:
    """qa91: a copy edited by hand to hold a token (which chitin will not commit, as
    merge does not) stopped dedupe --apply with that line alone: no word of the
    cluster, nor of the cluster merged and committed before it."""
    make(add, "Alpha lesson about caching", 0.9)
    make(add, "alpha lesson about caching.", 0.5)
    keep = make(add, "Zeta lesson about queues", 0.8)
    copy = make(add, "zeta lesson about queues.", 0.5)
    edited = next(store.rglob(f"{copy}.md"))
    token = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
    # in a comment, which a merge does not carry (a carried text is refused by the
    # merge's own guard first: tests/test_merge_keeps_source.py)
    edited.write_text(edited.read_text().replace("---\n", f"---\n# token {token}\n", 1))
    before = commit_count(store)
    refused = run("dedupe", "--apply", expect=1).stderr
    assert refused.count("\n") == 1 and "edited by hand" in refused, refused
    assert f"chitin merge {copy} {keep}" in refused
    assert "1 of 2 clusters merged before it" in refused
    assert commit_count(store) == before + 1


def test_claims_of_no_word_are_the_same_only_when_they_read_the_same(
    run: Run, add: Any, run_json: Any
) -> None:
    """Case, spacing and punctuation aside, "🙂" and "🙃" were both the empty text, so
    the same claim: check called them repeats and --apply would fold one into the
    other, losing it. With no word left, the characters themselves are the claim."""
    make(add, "🙂", 0.6)
    make(add, "🙃", 0.7)
    assert run_json("dedupe")["clusters"] == []
    assert run_json("check")["warnings"] == []
    twice = make(add, " 🙂 ", 0.5)
    (cluster,) = run_json("dedupe")["clusters"]
    assert cluster["exact"] is True and twice in cluster["command"]


# A pre-commit hook that lets the first commit through and, at the second, does what a
# terminal's Ctrl-C does: SIGINT to the whole foreground group (chitin, git, the hook).
CTRL_C_AT_THE_SECOND_COMMIT = """#!/bin/sh
count=$(cat "{counter}" 2>/dev/null || echo 0)
count=$((count + 1))
echo "$count" > "{counter}"
if [ "$count" -ge 2 ]; then
    kill -INT 0
    exit 1
fi
"""


def test_a_ctrl_c_after_some_clusters_says_how_many_were_merged(
    add: Any, store: Path, tmp_path: Path
) -> None:
    """qa91: `dedupe --apply` stopped by Ctrl-C in its second cluster said
    "Interrupted: nothing was changed." while its first cluster's merge was committed."""
    for claim in ("Tag a release after the changelog is written",
                  "Pin the versions of every dependency in CI",
                  "Answer the question before explaining the reasoning"):  # fmt: skip
        make(add, claim, 0.9)
        make(add, claim.lower() + ".", 0.5)
    hook = store / ".git" / "hooks" / "pre-commit"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text(CTRL_C_AT_THE_SECOND_COMMIT.format(counter=tmp_path / "commits"))
    hook.chmod(0o755)
    before = commit_count(store)
    done = subprocess.run(
        [chitin_program(), "--store", str(store), "dedupe", "--apply"],
        env={**os.environ, "CHITIN_FRONT": "0"},
        capture_output=True,
        text=True,
        start_new_session=True,  # its own group, as a terminal's foreground job
        timeout=120,
    )
    assert done.returncode == 130, done.stderr
    assert commit_count(store) == before + 1  # the first cluster's merge, kept
    assert git(store, "status", "--porcelain") == ""
    said = done.stderr.strip().splitlines()
    assert len(said) == 1 and said[0].startswith("Interrupted: 1 of 3 clusters merged"), said
    assert len(json.loads(subprocess.run(
        [chitin_program(), "--store", str(store), "dedupe", "--format", "json"],
        capture_output=True, text=True, check=True,
    ).stdout)["clusters"]) == 2  # fmt: skip


def test_allow_secret_without_apply_is_a_usage_error(run: Run, add: Any, store: Path) -> None:
    """qa91: `dedupe --allow-secret` without --apply listed the clusters, exit 0, and
    merged nothing: a flag that did nothing, where `diff --query` without --render is
    refused."""
    make(add, "Alpha lesson about caching", 0.9)
    make(add, "alpha lesson about caching.", 0.5)
    before = commit_count(store)
    refused = run("dedupe", "--allow-secret", expect=2)
    assert refused.stdout == ""
    assert refused.stderr.splitlines()[0].startswith(
        "Error: --allow-secret applies only with --apply"
    )
    assert commit_count(store) == before


def test_a_copy_whose_id_two_files_hold_is_named_once_in_the_merge(
    run: Run, add: Any, run_json: Any, store: Path
) -> None:
    """qa124: two files holding one id (a copy made by hand, which check reports) were
    two members of a cluster, so dedupe offered `chitin merge same same other`, and
    --apply stopped with "Each source insight can be merged only once" instead of
    merge's own line, which says what is wrong and how to mend it."""
    keep = make(add, "Always pin the toolchain version", 0.9)
    for folder in ("a", "b"):
        (store / "insights" / "skill" / folder).mkdir()
        (store / "insights" / "skill" / folder / "same.md").write_text(
            "---\nid: same\ntype: skill\nconfidence: 0.6\ncreated: 2026-01-01T00:00:00Z\n"
            "updated: 2026-01-01T00:00:00Z\n---\n\nalways pin the toolchain version\n"
        )
    git(store, "add", "-A")
    git(store, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "by hand")
    [cluster] = run_json("dedupe")["clusters"]
    assert cluster["command"] == f"chitin merge same {keep}"
    before = commit_count(store)
    refused = run("dedupe", "--apply", expect=1).stderr
    assert refused.startswith("Error: id same is used by 2 files"), refused
    assert refused.count("\n") == 1 and f"chitin merge same {keep}" in refused
    assert commit_count(store) == before


def test_apply_refuses_a_broken_settings_file_once_before_any_cluster(
    run: Run, add: Any, store: Path
) -> None:
    """fix124: a chitin.yaml that does not parse is the store's problem, not the first
    cluster's: refused with check's line, before any merge, nothing written."""
    make(add, "Reproduce a bug before fixing it", 0.8)
    make(add, "Reproduce a bug before fixing it", 0.7)
    make(add, "Always write the tests first", 0.8)
    make(add, "Always write the tests first.", 0.6)
    (store / "chitin.yaml").write_text("embedding: [broken\n")
    check_line = run("check", expect=1).stdout.splitlines()[0]
    assert check_line.startswith("chitin.yaml: ")
    before = commit_count(store)
    refused = run("dedupe", "--apply", expect=1)
    assert refused.stderr.strip() == f"Error: {check_line}"
    assert commit_count(store) == before


def test_a_merge_of_many_names_the_count_in_its_subject_and_the_ids_in_its_body(
    run: Run, add: Any, run_json: Any, store: Path
) -> None:
    """fix124: a 999-member cluster wrote every id into one subject line. The subject
    names the count and the target; the body lists the ids; history still reads it."""
    target = make(add, "Reproduce a bug before fixing it", 0.9)
    sources = [make(add, "Reproduce a bug before fixing it", 0.5) for _ in range(12)]
    applied = run_json("dedupe", "--apply")
    assert applied["clusters"][0]["keep"]["id"] == target
    subject, _, body = git(store, "log", "-1", "--format=%B").partition("\n\n")
    assert subject == f"Merge 12 insights into {target}"
    duplicates = [d["id"] for d in applied["clusters"][0]["duplicates"]]
    assert sorted(duplicates) == sorted(sources)
    assert [line[2:] for line in body.splitlines() if line.startswith("- ")] == duplicates
    assert f"Chitin-Insight: {target}" in body
    history = run_json("history", target)["history"]
    assert history[-1]["source"] == "merge:" + ", ".join(duplicates)
    one = make(add, "Keep the changelog current", 0.5)
    other = make(add, "Keep the changelog current", 0.9)
    run("merge", one, other)
    assert git(store, "log", "-1", "--format=%s").strip() == f"Merge {one} into {other}"


def test_a_cluster_of_copies_and_a_paraphrase_is_labelled_by_what_it_holds(
    run: Run, add: Any, run_json: Any
) -> None:
    """fix124: three exact copies and one near duplicate were "4 near duplicates"."""
    keep = make(add, "Deploy service 1 after the smoke tests pass", 0.9)
    for _ in range(3):
        make(add, "Deploy service 1 after the smoke tests pass", 0.6)
    near = make(add, "Deploy service 2 after the smoke tests pass", 0.5)
    found = run_json("dedupe")["clusters"]
    assert len(found) == 1 and found[0]["keep"]["id"] == keep and found[0]["exact"] is False
    assert near in [d["id"] for d in found[0]["duplicates"]]
    human = run("dedupe").stdout
    assert f"  keep: {keep} (0×, confidence 0.9) | 3 exact copies and 1 near duplicate:" in human
    warning = next(line for line in run("check").stdout.splitlines() if "claim " in line)
    assert "claim repeats 3 other files and nearly duplicates 1 other file: " in warning


def test_an_adverb_moved_is_reported_as_a_duplicate_at_contribute_and_by_dedupe(
    add: Any, run: Any, run_json: Any
) -> None:
    """The same words, an adverb moved (0.97 near): one lesson, at the door and across
    the store, where "the same words in another order" had called it another filler."""
    first = add("skill", "Always run tests before pushing", 0.8)
    made = run_json(
        "contribute", "--type", "skill", "--claim", "Run tests always before pushing",
        "--confidence", "0.7",
    )  # fmt: skip
    assert [d["id"] for d in made["duplicates"]] == [first["id"]] and made["conflicts"] == []
    clusters = run_json("dedupe")["clusters"]
    assert [c["keep"]["id"] for c in clusters] == [first["id"]]
    assert [d["id"] for d in clusters[0]["duplicates"]] == [made["insight"]["id"]]
