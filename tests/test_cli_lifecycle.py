"""Every lifecycle command end to end: real CLI, real git repository, real cache."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from conftest import Run, commit_count, git

from chitin.model.insight import TYPES
from chitin.retrieval.stance import words_of


def insight_file(store: Path, insight: dict[str, Any], top: str = "insights") -> Path:
    return store / top / insight["type"] / f"{insight['id']}.md"


# ------------------------------------------------------------------ init


def test_init_creates_a_repository_that_ignores_the_cache(run: Run, store: Path) -> None:
    result = run("init")
    assert result.stdout == f"✓ Store initialized at {store}\n"
    assert (store / ".git").is_dir() and (store / "insights").is_dir()
    assert ".chitin" in (store / ".gitignore").read_text().splitlines()
    assert commit_count(store) == 1
    run("init")  # idempotent: nothing new to commit
    assert commit_count(store) == 1
    run("list")
    assert git(store, "status", "--porcelain") == ""  # .chitin/ stays out of git


def test_init_gitignore_holds_the_derived_folder_as_issue_2_names_it(run: Run, store: Path) -> None:
    """Issue 2: `init` writes "a .gitignore that holds `.chitin/`". It also holds
    `.chitin` (no slash), which ignores a committed link of that name too."""
    run("init")
    lines = (store / ".gitignore").read_text().splitlines()
    assert ".chitin/" in lines and ".chitin" in lines
    (store / ".chitin").mkdir(exist_ok=True)
    (store / ".chitin" / "x").write_text("x")
    assert git(store, "check-ignore", ".chitin/x").strip() == ".chitin/x"


def test_init_seed_installs_the_starter_personality_once(
    run: Run, run_json: Any, store: Path
) -> None:
    assert "✓ Seeded 14 starter insight(s)" in run("init", "--seed").stdout
    stats = run_json("stats")
    assert stats["total"] == 14
    assert all(stats["byType"][kind] >= 1 for kind in TYPES)
    assert git(store, "log", "-1", "--format=%s") == "Seed 14 starter insights\n"
    assert "already present" in run("init", "--seed").stdout
    assert commit_count(store) == 2


def test_init_seed_does_not_bring_back_a_starter_merged_or_deleted(
    run: Run, run_json: Any, store: Path
) -> None:
    """Merging a starter into another is a choice the store keeps: a later
    ``init --seed`` (a setup script run again) must not make the duplicate again."""
    run("init", "--seed")
    first, second, third = (item["id"] for item in run_json("list")[:3])
    run("merge", first, second)
    git(store, "rm", "-q", *(str(path) for path in store.glob(f"insights/*/{third}.md")))
    git(store, "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qm", "Remove one")
    assert "already present" in run("init", "--seed").stdout
    assert run_json("stats")["total"] == 12
    assert commit_count(store) == 4
    run("archive", second)  # a move, not a removal: still the store's, nothing to add
    assert "already present" in run("init", "--seed").stdout


# ------------------------------------------------------------------ contribute / get


def test_contribute_writes_one_file_and_one_commit(run: Run, store: Path) -> None:
    result = run(
        "contribute",
        "--type",
        "relational",
        "--claim",
        "Boss values concise responses",
        "--confidence",
        "0.95",
        "--tags",
        "boss, comm",
        "--provenance",
        "observation",
        "--reasoning",
        "R1",
        "--context",
        "C1",
        "--limitations",
        "L1",
        "--source",
        "S1",
    )
    lines = result.stdout.splitlines()
    assert lines[0].startswith("✓ Contributed relational insight: boss-values-concise-responses-")
    assert lines[1:] == [
        '  "Boss values concise responses"',
        "  confidence: 0.95 | tags: boss, comm | provenance: observation",
    ]
    insight_id = lines[0].rsplit(" ", 1)[1]
    path = store / "insights" / "relational" / f"{insight_id}.md"
    text = path.read_text()
    assert text.startswith(f"---\nid: {insight_id}\ntype: relational\nconfidence: 0.95\n")
    assert "\n## Reasoning\n\nR1\n\n## Context\n\nC1\n\n## Limitations\n\nL1\n" in text
    assert commit_count(store) == 2  # init + contribute
    message = git(store, "log", "-1", "--format=%B")
    assert message.startswith("Contribute relational: Boss values concise responses\n")
    assert f"Chitin-Op: contribute\nChitin-Insight: {insight_id}\nChitin-Source: S1" in message
    assert git(store, "status", "--porcelain") == ""


def test_get_shows_every_field_in_both_formats(run: Run, add: Any, run_json: Any) -> None:
    made = add(
        "trigger",
        "re-read the task notes",
        0.9,
        condition="context was compacted",
        tags="memory",
        provenance="reflection",
        reasoning="R",
        source="S",
    )
    shown = run("get", made["id"]).stdout.splitlines()
    assert shown[:3] == [
        "[trigger] re-read the task notes",
        "  When: context was compacted",
        "  Action: DO",
    ]
    assert "  Confidence: 0.9 | Reinforced: 0x" in shown
    assert f"  File: insights/trigger/{made['id']}.md" in shown
    data = run_json("get", made["id"])
    assert list(data) == [
        "id",
        "type",
        "claim",
        "reasoning",
        "confidence",
        "tags",
        "source",
        "provenance",
        "condition",
        "avoid",
        "createdAt",
        "updatedAt",
        "reinforcementCount",
        "archived",
    ]
    assert data == made
    assert data["createdAt"].endswith("Z") and "T" in data["createdAt"]


def test_contribute_json_from_stdin_needs_no_other_flags(run_json: Any, store: Path) -> None:
    payload = {
        "type": "trigger",
        "claim": "run the tests",
        "confidence": 0.7,
        "condition": "before a commit",
        "avoid": False,
        "tags": ["git", "tests"],
    }
    result = run_json("contribute", "--json", input=json.dumps(payload))
    insight = result["insight"]
    assert (insight["condition"], insight["avoid"], insight["tags"]) == (
        "before a commit",
        False,
        ["git", "tests"],
    )
    assert result["conflicts"] == [] and result["duplicates"] == []
    assert result["path"] == f"insights/trigger/{insight['id']}.md"


def test_contribute_json_reads_a_null_avoid_as_absent_as_import_and_mcp_do(
    run: Run, run_json: Any
) -> None:
    """Every other optional field took null for absent, as import and the MCP tool take
    this one; contribute --json refused it in Python's words ("got None")."""
    item = {"type": "skill", "claim": "Null is absent", "confidence": 0.6, "avoid": None}
    assert run_json("contribute", "--json", input=json.dumps(item))["insight"]["avoid"] is False
    wrong = dict(item, claim="Lists are no flags", avoid=[None])
    said = run("contribute", "--json", input=json.dumps(wrong), expect=1).stderr
    assert said == "Error: avoid must be true or false, got [null]\n"


def test_an_avoid_trigger_round_trips(add: Any, run_json: Any) -> None:
    made = add("trigger", "force-pushing", 0.9, condition="a push is rejected", avoid=True)
    assert run_json("get", made["id"])["avoid"] is True


def test_a_tiny_confidence_is_written_so_that_chitin_reads_it_back(
    run: Run, run_json: Any, store: Path
) -> None:
    """0.00001 is a confidence in 0..1, but the file said `confidence: 1e-05` (Python's
    repr), which the reader refuses: once .chitin/ was gone the insight was unreadable,
    and `check` and `export` failed."""
    made = run_json(
        "contribute", "--type", "skill", "--claim", "A barely held hunch", "--confidence", "0.00001"
    )["insight"]  # fmt: skip
    [path] = (store / "insights").rglob("*.md")
    assert "\nconfidence: 0.00001\n" in path.read_text()
    shutil.rmtree(store / ".chitin")
    assert run_json("get", made["id"])["confidence"] == 0.00001
    assert run("check").stdout.endswith("✓ 1 insight file checked: no problems\n")


def test_contribute_words_a_conflict_as_chitin_1_4_5_does(run: Run, add: Any) -> None:
    """Issue 2: human output stays close to the original's wording; 1.4.5 printed
    "⚠ 1 potential conflict(s) detected:" (reference §2.2, observed)."""
    add("relational", "Boss values concise brief responses", 0.9)
    said = run(
        "contribute", "--type", "relational", "--confidence", "0.7",
        "--claim", "Boss prefers verbose detailed explanations",
    ).stdout  # fmt: skip
    assert "\n⚠ 1 potential conflict(s) detected:\n" in said
    consider = "\n  Consider: chitin merge, chitin update, or chitin archive to resolve.\n"
    assert said.endswith(consider)


def test_contribute_reports_duplicates_and_conflicts(run: Run, add: Any, run_json: Any) -> None:
    first = add("relational", "Boss values concise brief responses", 0.9)
    verbose = run_json(
        "contribute",
        "--type",
        "relational",
        "--claim",
        "Boss prefers detailed verbose explanations",
        "--confidence",
        "0.7",
    )
    conflict = verbose["conflicts"][0]
    assert conflict["id"] == first["id"]
    assert list(conflict) == [
        "id",
        "type",
        "claim",
        "similarity",
        "tensionScore",
        "tensionReason",
        "conflictScore",
        "basis",
    ]
    assert '"verbose" ↔ "concise"' in conflict["tensionReason"]
    assert conflict["basis"] == "meaning" and verbose["degraded"] is None
    near = run_json(
        "contribute",
        "--type",
        "relational",
        "--claim",
        # 0.85 near in meaning: claims about one person need 0.82 (judgement.py);
        # "The boss likes brief, concise answers" is 0.78 near, and no longer enough
        "The boss wants brief, concise responses",
        "--confidence",
        "0.8",
    )
    assert [d["id"] for d in near["duplicates"]] == [first["id"]]
    assert [c["id"] for c in near["conflicts"]] == [verbose["insight"]["id"]]


def test_the_same_sentence_under_another_type_is_written_and_reported_as_a_duplicate(
    add: Any, run_json: Any, store: Path
) -> None:
    # as dedupe clusters it and retrieval shows it once: the same judgement
    first = add("personality", "Stay curious about surprising results", 0.9)
    before = commit_count(store)
    again = run_json(
        "contribute", "--type", "skill", "--claim", "stay curious about surprising results.",
        "--confidence", "0.6",
    )  # fmt: skip
    assert commit_count(store) == before + 1 and again["insight"]["type"] == "skill"
    assert [(d["id"], d["similarity"]) for d in again["duplicates"]] == [(first["id"], 1.0)]
    assert again["conflicts"] == []


def test_an_exact_duplicate_is_refused_before_anything_is_written(
    run: Run, add: Any, run_json: Any, store: Path
) -> None:
    first = add("relational", "Boss values concise brief responses", 0.9)
    before = commit_count(store)
    again = run(
        "contribute",
        "--type",
        "relational",
        "--claim",
        "Boss values concise, brief responses.",
        "--confidence",
        "0.9",
        expect=1,
    )
    assert again.stderr == (
        f"Error: already known as {first['id']}: run `chitin reinforce {first['id']}` "
        "to strengthen it (--force writes a second copy anyway)\n"
    )
    assert commit_count(store) == before and len(run_json("list")) == 1
    forced = run_json(
        "contribute",
        "--type",
        "relational",
        "--claim",
        "Boss values concise brief responses",
        "--confidence",
        "0.9",
        "--force",
    )
    assert forced["duplicates"] == [] and forced["conflicts"] == []
    assert len(run_json("list")) == 2


def test_an_exact_duplicate_written_with_other_unicode_code_points_is_refused(
    run: Run, add: Any, store: Path
) -> None:
    """qa33: "café" as one code point (NFC) and as "e" with a combining accent (NFD),
    or a full-width letter, are the same claim to a reader, so the same insight."""
    first = add("skill", "Order a caf\u00e9 au lait before the standup", 0.6)
    before = commit_count(store)
    for claim in ("Order a cafe\u0301 au lait before the standup",
                  "Order a caf\u00e9 au lait before the \uff53tandup"):  # fmt: skip
        again = run("contribute", "--type", "skill", "--claim", claim, "--confidence", "0.6",
                    expect=1)  # fmt: skip
        assert again.stderr.startswith(f"Error: already known as {first['id']}: ")
    assert commit_count(store) == before


def test_an_exact_duplicate_written_all_in_full_width_letters_is_refused(
    run: Run, add: Any, store: Path
) -> None:
    """qa55: a claim typed all in full-width letters (an East Asian keyboard's Latin
    mode), or with the "ﬁ" ligature a PDF pastes, is the same claim (NFKC) as its plain
    copy, either way round; the door looked the copy up by the words as typed, found no
    ASCII term and no full-text word in common, and wrote it, with no duplicate named."""
    pairs = [
        ("Reproduce a bug before fixing it",
         "\uff32\uff45\uff50\uff52\uff4f\uff44\uff55\uff43\uff45 \uff41 \uff42\uff55\uff47 "
         "\uff42\uff45\uff46\uff4f\uff52\uff45 \uff46\uff49\uff58\uff49\uff4e\uff47 \uff49\uff54"),
        ("\uff2b\uff45\uff45\uff50 \uff49\uff54 \uff53\uff49\uff4d\uff50\uff4c\uff45",
         "Keep it simple"),
        ("\ufb01nd the \ufb01rst failing \ufb01le", "find the first failing file"),
    ]  # fmt: skip
    _refused_as_copies(run, add, store, pairs)


def test_an_exact_duplicate_in_another_script_is_refused(
    run: Run, add: Any, run_json: Any, store: Path
) -> None:
    """A claim with no ASCII word of three letters (Cyrillic, Chinese, "Go to it") has
    no term in the index that finds a stored copy, so its exact duplicate was written
    (with vectors, reported as a 100% near duplicate), while `check` called the two
    copies repeats."""
    claims = {
        "Проверяй тесты перед коммитом": "проверяй  тесты перед коммитом.",
        "先复现问题再修复": "先复现问题再修复。",
        "Go to it": "go to it!",
    }
    _refused_as_copies(run, add, store, list(claims.items()))
    assert len(run_json("list")) == 3
    run("contribute", "--type", "skill", "--claim", "Проверяй код перед коммитом",
        "--confidence", "0.5")  # fmt: skip


def test_an_exact_duplicate_of_a_claim_of_no_word_is_refused(
    run: Run, add: Any, run_json: Any, store: Path
) -> None:
    """A claim of no word at all ("🙂", "— … —") is compared by its characters (check
    and dedupe call two copies one insight), but the door looked its copy up by words,
    found none, and wrote the exact duplicate; another such claim is no copy."""
    first = add("skill", "— … —", 0.6)
    smile = add("skill", "🙂", 0.6)
    before = commit_count(store)
    for claim, kept in (("—…—", first), ("🙂", smile)):
        refused = run("contribute", "--type", "skill", "--claim", claim, "--confidence", "0.5",
                      expect=1)  # fmt: skip
        assert refused.stderr.startswith(f"Error: already known as {kept['id']}: ")
    assert commit_count(store) == before
    add("skill", "🙃", 0.6)
    assert len(run_json("list")) == 3


def test_two_languages_named_by_a_sign_are_two_claims(run: Run, add: Any, store: Path) -> None:
    """Punctuation is no part of the exact key, but a "+" or "#" ending a word is: "Use
    C# for tools" was refused as a copy of "Use C++ for tools" (both read "use c")."""
    cpp = add("skill", "Use C++ for the game engine.", 0.6)
    add("skill", "Use C# for the game engine", 0.6)
    add("skill", "Use C for the game engine", 0.6)
    refused = run("contribute", "--type", "skill", "--claim", "use c++ for the game engine",
                  "--confidence", "0.5", expect=1)  # fmt: skip
    assert refused.stderr.startswith(f"Error: already known as {cpp['id']}: ")


def test_a_language_named_by_a_sign_is_no_near_duplicate_of_another(
    run_json: Any, add: Any
) -> None:
    """fix91: the judgement's word reader dropped "+" and "#", so "Use C++ for the
    firmware" read as "use c for the firmware": contribute reported it as a 77 % near
    duplicate of "Use C for the firmware", and dedupe would have merged the two."""
    claims = ["Use C for the firmware", "Use C++ for the firmware", "Use F# for the firmware"]
    claims += ["Write the parser in C#", "Write the parser in C"]
    for claim in claims:
        added = run_json("contribute", "--type", "skill", "--claim", claim, "--confidence", "0.8")
        assert added["duplicates"] == [], claim
    assert run_json("dedupe")["clusters"] == []


def test_a_versioned_or_dotted_name_is_a_word_of_its_own(run_json: Any) -> None:
    """fix101: the judgement's word reader read "C++11" as "c" and "11" (the "c"
    dropped, too short to be a topic word) and ".NET" as "net": "Write the service in
    C++20" was reported as a 92 % near duplicate of "… in C++11"."""
    said = words_of("Port C++11 code to C++20, C#10 and .NET (ASP.NET, Node.js, D3.js)")
    assert said == ["port", "c++11", "code", "to", "c++20", "c#10", "and", ".net",
                    "asp.net", "node.js", "d3.js"]  # fmt: skip
    # what stays as it was: a version, an abbreviation, a sentence's end, a sign alone
    assert words_of("Python 3.11, e.g. v1.4.5; done. Next: 5+ a+b #1 ...net") == [
        "python", "3", "11", "e", "g", "v1", "4", "5", "done", "next", "5", "a", "b", "1",
        "net"]  # fmt: skip
    for claim in ["Write the service in C++11", "Write the service in C++20"]:
        added = run_json("contribute", "--type", "skill", "--claim", claim, "--confidence", "0.8")
        assert added["duplicates"] == [], claim


def test_the_exact_key_keeps_the_dot_of_a_name(run: Run, run_json: Any) -> None:
    """fix110: the exact key dropped every dot, so "Use .NET 8 for the service" was
    refused as an exact duplicate of "Use NET 8 for the service" (and ".env" of "env"),
    where the judgement's words (fix101) read ".net" and "net" apart."""
    for claim in ["Use .NET 8 for the service", "Use NET 8 for the service"]:
        added = run_json("contribute", "--type", "skill", "--claim", claim, "--confidence", "0.8")
        assert added["duplicates"] == [], claim
    for claim in ["Keep secrets in .env files", "Keep secrets in env files"]:
        run_json("contribute", "--type", "skill", "--claim", claim, "--confidence", "0.8")
    # case, spacing and a sentence's punctuation still make no difference
    for claim in ["use .net 8  for the service.", "Keep secrets in .ENV files!"]:
        refused = run(
            "contribute", "--type", "skill", "--claim", claim, "--confidence", "0.8", expect=1
        )
        assert "already known as" in refused.stderr, claim


def test_a_condition_opening_with_when_is_the_same_condition(
    run: Run, run_json: Any, add: Any
) -> None:
    """fix91: the CLI shows a condition as "When {condition}", so people type "When a
    test fails" themselves; it was written beside "a test fails" (reported as a 100 %
    near duplicate) instead of being refused as the same trigger."""
    kept = add("trigger", "read the failure before editing code", condition="a test fails")
    for condition in ("When a test fails", "if a test fails", "Whenever a test fails,"):
        refused = run("contribute", "--type", "trigger", "--condition", condition, "--claim",
                      "Read the failure before editing code", "--confidence", "0.5",
                      expect=1)  # fmt: skip
        assert refused.stderr.startswith(f"Error: already known as {kept['id']}: "), condition
    forced = add("trigger", "read the failure before editing code", condition="When a test fails",
                 force=True)  # fmt: skip
    assert run_json("get", forced["id"])["condition"] == "When a test fails"  # as written
    (cluster,) = run_json("dedupe")["clusters"]
    assert cluster["exact"] is True
    # another word first is another situation
    add("trigger", "read the failure before editing code", condition="once a test fails")


def test_an_apostrophe_is_punctuation_the_exact_key_sets_aside(
    run: Run, add: Any, run_json: Any, store: Path
) -> None:
    """qa91: an apostrophe inside a word read as a space ("don't" as "don t"), so
    "Dont mock the database" was written beside "Don't mock the database" (and reported
    as its conflict: "dont" is no negation), "its" beside "it's": claims that differ by
    punctuation alone."""
    pairs = [
        ("Don't mock the database in integration tests",
         "Dont mock the database in integration tests"),
        ("It\u2019s worth pinning the CI image", "its worth pinning the CI image."),
        ("Read the users' own notes first", "Read the users own notes first"),
    ]  # fmt: skip
    _refused_as_copies(run, add, store, pairs)
    add("skill", "Don't mock the database in unit tests", 0.6)  # other words: no copy
    assert len(run_json("list")) == 4


def test_a_contraction_typed_without_its_apostrophe_still_negates(add: Any, run_json: Any) -> None:
    """qa91: "dont" was a word of the topic, not a negation, so "Dont push to production
    on a Friday" was reported as the conflict (negated ↔ affirmed) of "Don't push to
    production on Fridays", the same lesson, and `check` put the copies of "Don't …"
    and "Dont …" in one cluster that conflicted with "Do not push …"."""
    stored = add("skill", "Don't push to production on Fridays", 0.6)
    said = run_json("contribute", "--type", "skill", "--claim",
                    "Dont push to production on a Friday", "--confidence", "0.5")  # fmt: skip
    assert said["conflicts"] == []
    assert [d["id"] for d in said["duplicates"]] == [stored["id"]]
    again = run_json("contribute", "--type", "skill", "--claim",
                     "Push to production on a Friday", "--confidence", "0.5")  # fmt: skip
    assert {c["tensionReason"] for c in again["conflicts"]} == {"negated ↔ affirmed"}
    assert len(again["conflicts"]) == 2


def test_an_exact_duplicate_of_common_words_is_refused_in_a_large_store(
    run: Run, run_json: Any, store: Path, tmp_path: Path
) -> None:
    """qa33: every word of "Always run the tests" is in more than 1,000 claims (and 10%
    of the store), too common for the term index's lookup, so the exact duplicate was
    never a candidate and was written."""
    items = [{"type": "skill", "claim": f"Always run the tests before release {n}"}
             for n in range(1100)]  # fmt: skip
    items.append({"id": "the-rule-aaaa", "type": "skill", "claim": "Always run the tests"})
    document = tmp_path / "many.json"
    document.write_text(json.dumps(items))
    run("import", str(document))
    before = commit_count(store)
    again = run(
        "contribute", "--type", "skill", "--claim", "always run the tests.",
        "--confidence", "0.5", expect=1,
    )  # fmt: skip
    assert again.stderr.startswith("Error: already known as the-rule-aaaa: ")
    assert commit_count(store) == before


def test_a_trigger_is_the_same_by_condition_response_and_avoid(run: Run, run_json: Any) -> None:
    trigger = ["contribute", "--type", "trigger", "--confidence", "0.9"]
    spec = ["--condition", "a test fails", "--claim", "weakening the assertion"]
    made = run_json(*trigger, *spec, "--avoid")["insight"]
    refused = run(
        *trigger,
        "--condition",
        "A test fails.",
        "--claim",
        "Weakening the assertion",
        "--avoid",
        expect=1,
    )
    assert f"already known as {made['id']}" in refused.stderr
    opposite = run_json(*trigger, *spec)  # the same, to do: a conflict, not a duplicate
    assert [c["id"] for c in opposite["conflicts"]] == [made["id"]]
    assert opposite["conflicts"][0]["tensionReason"] == "do ↔ avoid"
    assert opposite["duplicates"] == []


# ------------------------------------------------------------------ ids


def test_any_unique_prefix_works_and_an_ambiguous_one_lists_matches(run: Run, add: Any) -> None:
    one = add("skill", "Use git bisect for regressions")
    two = add("skill", "Use git worktrees for parallel work")
    assert run("get", one["id"][:10]).stdout.startswith("[skill] Use git bisect")
    result = run("get", "use-git", expect=1)
    assert result.stderr == (
        f"Error: Ambiguous ID prefix: use-git matches 2 insights: "
        f"{min(one['id'], two['id'])}, {max(one['id'], two['id'])}\n"
    )


# ------------------------------------------------------------------ update


def test_update_changes_fields_clears_with_empty_text_and_commits(
    run: Run, add: Any, run_json: Any, store: Path
) -> None:
    made = add("skill", "Old claim", 0.6, reasoning="why", tags="a,b")
    out = run(
        "update",
        made["id"],
        "--claim",
        "New claim",
        "--confidence",
        "0.75",
        "--reasoning",
        "",
        "--tags",
        "c",
    ).stdout
    assert out == (  # what changed, as `chitin diff` says it (issue 28: output says it)
        f'✓ Updated insight: {made["id"]}\n  "New claim"\n'
        '  claim: "Old claim" → "New claim"\n'
        "  confidence: 0.6 → 0.75\n"
        "  tags: +c −a −b\n"
        "  reasoning: why → (none)\n"
        "  note: reasoning cleared\n"
    )
    now = run_json("get", made["id"])
    assert (now["claim"], now["confidence"], now["tags"]) == ("New claim", 0.75, ["c"])
    assert "reasoning" not in now
    assert "## Reasoning" not in insight_file(store, made).read_text()
    assert git(store, "log", "-1", "--format=%s") == (
        f"Update {made['id']}: claim, reasoning, confidence, tags\n"
    )


def test_update_with_an_empty_value_says_what_it_cleared(run: Run, add: Any, run_json: Any) -> None:
    """fix90: `update --provenance ""` cleared the provenance with nothing said but the
    diff's line (1.4.5 ignored an empty value): the text now says it in a note, and the
    JSON names each field an empty value cleared (``cleared``), as for every field
    update takes an empty value for."""
    made = add("skill", "Reproduce it first", 0.6, provenance="observation", source="a bug")
    out = run("update", made["id"], "--provenance", "").stdout
    assert out.endswith("  provenance: observation → (none)\n  note: provenance cleared\n"), out
    assert "provenance" not in run_json("get", made["id"])
    shown = run_json("update", made["id"], "--source", "", "--tags", "", "--reasoning", "")
    assert shown["cleared"] == ["source"] and "source" not in shown  # the others were empty
    again = run_json("update", made["id"], "--provenance", "", "--claim", "Reproduce it")
    assert "cleared" not in again and again["claim"] == "Reproduce it"


@pytest.mark.parametrize("given", [",", " ", " , "])
def test_update_with_tags_that_are_all_empty_says_it_cleared_them(
    run: Run, add: Any, run_json: Any, given: str
) -> None:
    """`--tags ","` (as MCP's ``tags: [""]``) cleared the tags, but only ``""`` was
    named in ``cleared`` and in the note: the report did not say what was done."""
    made = add("skill", "Reproduce it first", 0.6, tags="a,b")
    out = run("update", made["id"], "--tags", given).stdout
    assert out.endswith("  tags: −a −b\n  note: tags cleared\n"), out
    run("update", made["id"], "--tags", "a")
    shown = run_json("update", made["id"], "--tags", given)
    assert shown["tags"] == [] and shown["cleared"] == ["tags"]


def test_an_archived_insight_is_named_by_its_full_id_not_the_prefix_given(
    run: Run, add: Any
) -> None:
    """fix111: "Insight arch is archived; run `chitin unarchive arch` first" repeated
    the prefix typed, where every other message names the insight by its id."""
    made = add("skill", "Archive me", 0.6)
    run("archive", made["id"])
    refused = run("update", made["id"][:6], "--confidence", "0.7", expect=1)
    assert refused.stderr == (
        f"Error: Insight {made['id']} is archived; run `chitin unarchive {made['id']}` first\n"
    )
    merged = run("merge", made["id"][:6], made["id"][:6], expect=1)
    assert f"Insight {made['id']} is archived" in merged.stderr


def test_update_without_a_change_makes_no_commit(run: Run, add: Any, store: Path) -> None:
    made = add("skill", "Same", 0.6)
    before = commit_count(store)
    assert run("update", made["id"], "--claim", "Same").stdout.startswith("✓ No changes")
    assert commit_count(store) == before


def test_update_can_set_condition_avoid_and_type(run_json: Any, add: Any, store: Path) -> None:
    made = add("skill", "Check the target first", 0.8)
    changed = run_json(
        "update", made["id"], "--type", "trigger", "--condition", "about to delete files", "--avoid"
    )
    assert (changed["type"], changed["condition"], changed["avoid"]) == (
        "trigger",
        "about to delete files",
        True,
    )
    assert not insight_file(store, made).exists()
    assert insight_file(store, changed).exists()
    assert run_json("update", made["id"], "--no-avoid")["avoid"] is False


def test_a_moved_file_keeps_the_folders_a_person_made(run: Run, store: Path) -> None:
    # A file in a folder of one's own under its type folder (docs/format.md): a new type,
    # archive and unarchive change the type folder and the top only, never drop the rest.
    run("init")
    mine = store / "insights" / "skill" / "teamBa" / "y1.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("---\nid: y1\ntype: skill\nconfidence: 0.6\n---\n\nPlan before coding\n")
    git(store, "add", "-A")
    git(store, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "by hand")
    run("update", "y1", "--type", "principle")
    assert git(store, "ls-files", "insights", "archive").split() == [
        "insights/principle/teamBa/y1.md"
    ]
    run("archive", "y1")
    assert git(store, "ls-files", "insights", "archive").split() == [
        "archive/principle/teamBa/y1.md"
    ]
    run("unarchive", "y1")
    assert git(store, "ls-files", "insights", "archive").split() == [
        "insights/principle/teamBa/y1.md"
    ]


def test_update_keeps_what_a_person_added_to_the_file(run: Run, add: Any, store: Path) -> None:
    made = add("skill", "Keep hand edits", 0.6)
    path = insight_file(store, made)
    path.write_text(
        path.read_text().replace("reinforcements: 0", "reinforcements: 0\nowner: ana")
        + "\n## Notes\n\nWritten by hand.\n"
    )
    run("update", made["id"], "--confidence", "0.7")
    text = path.read_text()
    assert "owner: ana\n" in text and "## Notes\n\nWritten by hand.\n" in text
    assert "confidence: 0.7\n" in text


# ------------------------------------------------------------------ reinforce


def test_reinforce_json_says_the_confidence_before(add: Any, run_json: Any) -> None:
    """The JSON says what changed, as the text's old → new does: 1.4.5's keys, then the
    confidence before."""
    made = add("relational", "Boss values concise brief responses", 0.9)
    first = run_json("reinforce", made["id"])
    assert (first["previousConfidence"], first["confidence"]) == (0.9, 0.905)
    second = run_json("reinforce", made["id"])
    assert (second["previousConfidence"], second["confidence"]) == (0.905, 0.90975)
    assert list(second)[-1] == "previousConfidence"


def test_reinforce_updates_confidence_count_and_records_evidence(
    run: Run, add: Any, run_json: Any, store: Path
) -> None:
    made = add("relational", "Boss values concise brief responses", 0.9)
    out = run("reinforce", made["id"], "--source", "Bug 1", "--evidence", "external").stdout
    assert out == (
        "✓ Reinforced: Boss values concise brief responses\n  Confidence: 0.9 → 0.905\n"
        "  Count: 1\n"
        "  Source: Bug 1\n  Evidence: external\n"
    )
    again = run("reinforce", made["id"]).stdout
    assert "  Confidence: 0.905 → 0.91\n" in again  # 0.90975, to three decimals
    now = run_json("get", made["id"])
    assert (now["confidence"], now["reinforcementCount"]) == (0.90975, 2)
    assert now["lastReinforcedAt"] == now["updatedAt"]
    trailers = git(store, "log", "-2", "--format=%(trailers:only,unfold)")
    assert "Chitin-Source: Bug 1\nChitin-Evidence: external" in trailers


# ------------------------------------------------------------------ archive


def test_archive_moves_the_file_and_unarchive_brings_it_back(
    run: Run, add: Any, run_json: Any, store: Path
) -> None:
    made = add("skill", "Archive me", 0.6)
    assert run("archive", made["id"][:12]).stdout == f"✓ Archived insight: {made['id']}\n"
    assert insight_file(store, made, "archive").exists()
    assert not insight_file(store, made).exists()
    assert run_json("list") == []
    assert [i["id"] for i in run_json("list", "--archived")] == [made["id"]]
    assert run_json("get", made["id"])["archived"] is True
    assert git(store, "show", "--stat", "--format=%s", "HEAD").startswith(
        f"Archive {made['id']}: Archive me"
    )
    assert git(store, "status", "--porcelain") == ""
    assert "already archived" in run("archive", made["id"]).stdout
    refused = run("reinforce", made["id"], expect=1)
    assert "is archived; run `chitin unarchive" in refused.stderr
    run("unarchive", made["id"])
    assert insight_file(store, made).exists()
    assert [i["id"] for i in run_json("list")] == [made["id"]]


def test_unarchive_says_when_the_same_insight_was_contributed_meanwhile(
    run: Run, add: Any, run_json: Any
) -> None:
    """qa39: contribute refuses a copy of a live insight only, so the lesson written
    again while its first copy was archived made two copies on unarchive, silently
    (update says it in a note: one lesson in two files, to fold into one)."""
    old = add("skill", "Archive me, then learn me again", 0.6)["id"]
    run("archive", old)
    again = add("skill", "archive me then learn me again", 0.7)["id"]
    said = run("unarchive", old).stdout
    assert said.splitlines()[1] == (
        f"  note: now the same insight as {again}: fold one into the other: "
        f"chitin merge {old} {again}"
    )
    assert run_json("unarchive", old)["id"] == old  # JSON unchanged: the insight
    other = add("skill", "Archive me alone", 0.6)["id"]
    run("archive", other)
    assert run("unarchive", other).stdout == f"✓ Unarchived insight: {other}\n"


# ------------------------------------------------------------------ list / stats


def test_list_filters_and_orders_newest_first(run: Run, run_json: Any, add: Any) -> None:
    a = add("skill", "Alpha skill", 0.9, tags="Testing,git", provenance="observation")
    b = add("trigger", "Beta trigger", 0.5, condition="x happens", provenance="directive")
    c = add("behavioral", "Gamma behavior", 0.7, tags="git")
    everything = run_json("list")
    assert {i["id"] for i in everything} == {a["id"], b["id"], c["id"]}
    assert [i["createdAt"] for i in everything] == sorted(
        (i["createdAt"] for i in everything), reverse=True
    )
    assert [i["id"] for i in run_json("list", "--type", "skill,trigger")] == sorted(
        [a["id"], b["id"]], key=[i["id"] for i in everything].index
    )
    assert {i["id"] for i in run_json("list", "--tags", "testing")} == {a["id"]}  # any case
    assert {i["id"] for i in run_json("list", "--tags", "tes%")} == set()  # no wildcards
    assert {i["id"] for i in run_json("list", "--provenance", "directive")} == {b["id"]}
    assert {i["id"] for i in run_json("list", "--min-confidence", "0.7")} == {a["id"], c["id"]}
    human = run("list", "--type", "skill").stdout
    assert human == (
        f"  [skill] Alpha skill [Testing, git] (provenance: observation)\n"
        f"    confidence: 0.9 | id: {a['id']}\n\n1 insight(s)\n"
    )


def test_a_tag_with_a_capital_beyond_ascii_is_found_by_its_own_spelling(
    run_json: Any, add: Any
) -> None:
    """qa60: `list --tags Über` (and retrieve's, the MCP tools' and the library's tag
    filters) found nothing of an insight tagged `Über`, however it was spelt: the query
    lowercased the whole tag (`über`), SQLite's lower() the stored one in ASCII alone
    (`Über`). Tags match ignoring ASCII case, as they always did for `Testing`."""
    tagged = add("skill", "Read the release notes of the Über service", 0.8, tags="Über,ÄÖ")
    for asked in ("Über", "ÜBER", "ÄÖ"):
        assert [i["id"] for i in run_json("list", "--tags", asked)] == [tagged["id"]], asked
    found = run_json("retrieve", "--query", "release notes", "--tags", "Über", "--format", "json")
    assert [i["id"] for i in found["insights"]] == [tagged["id"]]


def test_tags_match_in_any_case_of_any_script_and_keep_their_spelling(
    run: Run, run_json: Any, add: Any, store: Path
) -> None:
    """fix70b: `über` did not find `Über`, nor `σοφία` `ΣΟΦΊΑ`, nor `strasse` `Straße`:
    the cache's lower() folds ASCII alone. Tags now compare by NFKC and casefold, in
    every filter and when tags are united; the file keeps the tag as it was written."""
    greek = add("skill", "Ask what the person already knows", 0.8, tags="ΣΟΦΊΑ,Über")
    street = add("skill", "Name the street as the map does", 0.7, tags="Straße,ﬁle")
    for asked, found in (
        ("über", [greek]),
        ("ÜBER", [greek]),
        ("σοφία", [greek]),
        ("strasse", [street]),
        ("STRASSE", [street]),
        ("file", [street]),
    ):
        got = run_json("list", "--tags", asked)
        assert sorted(i["id"] for i in got) == sorted(i["id"] for i in found), asked
    retrieved = run_json("retrieve", "--query", "person knows", "--tags", "σοφία")
    assert [i["id"] for i in retrieved["insights"]] == [greek["id"]]
    assert run_json("get", greek["id"])["tags"] == ["ΣΟΦΊΑ", "Über"]
    assert "ΣΟΦΊΑ" in (store / "insights" / "skill" / f"{greek['id']}.md").read_text()
    # One tag, however it is cased: contribute keeps the first spelling, a merge unites.
    once = add("skill", "Keep one spelling of a tag", 0.6, tags="Über,über,ÜBER")
    assert once["tags"] == ["Über"]
    run("merge", street["id"], greek["id"])
    assert run_json("get", greek["id"])["tags"] == ["ΣΟΦΊΑ", "Über", "Straße", "ﬁle"]
    dup = add("skill", "Spell the street twice", 0.6, tags="STRASSE")
    run("merge", dup["id"], greek["id"])
    assert run_json("get", greek["id"])["tags"] == ["ΣΟΦΊΑ", "Über", "Straße", "ﬁle"]


def test_list_on_an_empty_store(run: Run, run_json: Any) -> None:
    run("init")
    assert run("list").stdout == "No insights found.\n"
    assert run_json("list") == []


def test_stats_always_lists_all_six_types(run: Run, run_json: Any, add: Any) -> None:
    add("skill", "One", 0.8)
    add("skill", "Two", 0.9)
    stats = run_json("stats")
    assert stats == {
        "total": 2,
        "byType": {
            "behavioral": 0,
            "personality": 0,
            "relational": 0,
            "principle": 0,
            "skill": 2,
            "trigger": 0,
        },
        "averageConfidence": 0.85,
        "archived": 0,
    }
    assert run("stats").stdout == (
        "Chitin Insights\n  Total: 2\n  Average confidence: 0.85\n  By type:\n    skill: 2\n"
    )


# ------------------------------------------------------------------ merge


def test_merge_folds_source_into_target_in_one_commit(
    run: Run, run_json: Any, add: Any, store: Path
) -> None:
    target = add("behavioral", "Target claim", 0.8, tags="a,b", reasoning="TR")
    source = add("skill", "Source claim", 0.9, tags="b,c", reasoning="SR", context="SC")
    run("reinforce", source["id"])
    before = commit_count(store)
    out = run("merge", source["id"], target["id"]).stdout
    assert out == (
        f'✓ Merged into: {target["id"]}\n  "Target claim"\n'
        "  confidence: 0.91 | reinforced: 1×\n  tags: a, b, c\n"
    )
    assert commit_count(store) == before + 1
    assert not insight_file(store, source).exists()
    assert git(store, "status", "--porcelain") == ""
    merged = run_json("get", target["id"])
    assert (merged["reasoning"], merged["reinforcementCount"]) == ("TR; SR", 1)
    assert merged["context"] == "SC"  # the target had none: the source's is kept (1.4.5 lost it)
    assert run("get", source["id"], expect=1).stderr.startswith(
        f"Error: no insight {source['id']}; it was merged into {target['id']} ("
    )
    with_claim = run_json("merge", add("skill", "Other", 0.5)["id"], target["id"], "--claim", "New")
    assert with_claim["claim"] == "New"


# ------------------------------------------------------------------ similar


def test_similar_lists_word_overlap(run: Run, run_json: Any, add: Any) -> None:
    tdd = add("skill", "TDD: red, green, refactor cycle works best", 0.9)
    add("relational", "Boss likes coffee in the morning", 0.5)
    found = run_json("similar", "TDD red green refactor")
    # 4/7, rounded as its text is (57%): text and JSON alike (issue 28)
    assert [(f["id"], f["similarity"]) for f in found] == [(tdd["id"], 0.57)]
    assert run("similar", "TDD red green refactor").stdout.startswith(
        "Found 1 similar insight(s):\n\n  [57%] [skill] TDD: red, green"
    )
    assert len(run_json("similar", "anything", "--threshold", "0")) == 2
    assert run("similar", "zebra").stdout == "No similar insights found.\n"


# ------------------------------------------------------------------ history / changelog


def test_history_reads_every_operation_back_from_git(
    run: Run, run_json: Any, add: Any, store: Path
) -> None:
    made = add("relational", "Boss values concise brief responses", 0.9, tags="boss")
    run("reinforce", made["id"], "--source", "Bug 1", "--evidence", "external")
    run("update", made["id"], "--claim", "Boss values concise responses")
    run("archive", made["id"])
    data = run_json("history", made["id"])
    rows = [
        (h["changeType"], h["field"], h["oldValue"], h["newValue"], h["source"])
        for h in data["history"]
    ]
    assert rows == [
        ("create", "*", None, "Boss values concise brief responses", None),
        ("reinforce", "confidence", "0.9", "0.905", "reinforce:1|[external] Bug 1"),
        (
            "update",
            "claim",
            "Boss values concise brief responses",
            "Boss values concise responses",
            None,
        ),
        ("archive", "archived", "false", "true", None),
    ]
    assert [h["id"] for h in data["history"]] == [1, 2, 3, 4]
    assert all(len(h["commit"]) == 40 and h["author"] == "chitin" for h in data["history"])
    human = run("history", made["id"]).stdout
    assert human.startswith(
        '[relational] "Boss values concise responses"\n  Current: confidence 0.91 | 1× reinforced\n'
    )
    assert '[update] claim: "Boss values concise brief responses" → "Boss values concise' in human
    # 1.4.5 prints a reinforcement's numbers bare, an update's values quoted
    assert "[reinforce] confidence: 0.9 → 0.905 (reinforce:1|[external] Bug 1)  [" in human
    assert human.endswith("  4 event(s)\n")
    newest = run_json("history", made["id"], "--limit", "2")["history"]
    assert [h["changeType"] for h in newest] == ["update", "archive"]


def test_history_shows_hand_edits_committed_with_git(run_json: Any, add: Any, store: Path) -> None:
    made = add("skill", "Original", 0.6)
    path = insight_file(store, made)
    path.write_text(path.read_text().replace("confidence: 0.6", "confidence: 0.65"))
    git(
        store,
        "-c",
        "user.name=Ana",
        "-c",
        "user.email=ana@example.org",
        "commit",
        "-qam",
        "tune confidence",
    )
    last = run_json("history", made["id"])["history"][-1]
    assert (
        last["changeType"],
        last["field"],
        last["oldValue"],
        last["newValue"],
        last["author"],
    ) == ("edit", "confidence", "0.6", "0.65", "Ana")


def test_changelog_lists_recent_changes_newest_first(run: Run, run_json: Any, add: Any) -> None:
    one = add("skill", "First", 0.6)
    add("skill", "Second", 0.6)
    run("reinforce", one["id"])
    entries = run_json("changelog")
    assert [e["changeType"] for e in entries] == ["reinforce", "create", "create"]
    assert len(run_json("changelog", "--limit", "1")) == 1
    assert len(run_json("changelog", "--days", "1")) == 3
    assert run("changelog").stdout.startswith("Recent changes (3):\n\n")
    assert f"[reinforce] {one['id']} 0.6 → 0.62 (reinforce:1)" in run("changelog").stdout


def test_changelog_and_list_on_a_missing_store_are_empty(run: Run, store: Path) -> None:
    result = run("changelog")
    assert result.stdout == "No recent changes.\n"
    assert "No store at" in result.stderr
    assert not store.exists()


def test_a_read_of_an_empty_folder_says_there_is_no_store_and_writes_nothing(
    run: Run, store: Path, add: Any
) -> None:
    """An existing empty folder named as the store (a fresh tmp folder, a mkdir'd one)
    is no store yet, as a missing one is: reads said nothing and left .chitin/ in it
    (qa38). The first write makes the store there."""
    store.mkdir()
    for args in (["list"], ["stats"], ["retrieve", "--query", "x"], ["render"]):
        assert "No store at" in run(*args).stderr
    assert list(store.iterdir()) == []
    add("skill", "The first insight of the folder", 0.6)
    assert "No store at" not in run("list").stderr


def test_an_insight_deleted_by_hand_is_said_deleted_with_its_commit(
    run: Run, run_json: Any, add: Any, store: Path
) -> None:
    """get and history said only "Insight not found" of an insight whose file was
    removed and committed by hand, though changelog shows the delete."""
    run("init")
    made = add("skill", "Reproduce a bug before fixing it", 0.8)
    run("reinforce", made["id"])
    git(store, "rm", "-q", str(insight_file(store, made)))
    git(store, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "gone")
    short = git(store, "log", "-1", "--format=%h").strip()
    stamp = int(git(store, "log", "-1", "--format=%at"))
    day = datetime.fromtimestamp(stamp, UTC).date().isoformat()
    for ref in (made["id"], made["id"][:12]):
        said = run("get", ref, expect=1).stderr
        assert said == (
            f"Error: insight {made['id']} was deleted in commit {short} ({day}); "
            f"`chitin history {made['id']}` shows its history\n"
        )
    shown = run_json("history", made["id"])
    assert shown["insight"]["id"] == made["id"]
    assert [e["changeType"] for e in shown["history"]] == ["create", "reinforce", "delete"]
    assert "Insight not found" in run("get", "no-such-insight", expect=1).stderr


def _refused_as_copies(run: Run, add: Any, store: Path, pairs: list[tuple[str, str]]) -> None:
    """Each pair's second claim, contributed after its first, is refused as its exact
    duplicate, and nothing is committed."""
    for stored, typed in pairs:
        first = add("skill", stored, 0.6)
        before = commit_count(store)
        refused = run("contribute", "--type", "skill", "--claim", typed, "--confidence", "0.5",
                      expect=1)  # fmt: skip
        assert refused.stderr.startswith(f"Error: already known as {first['id']}: ")
        assert commit_count(store) == before
