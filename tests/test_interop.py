"""export and import: lossless round trips, chitin 1.x's files, all or nothing."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from chitin.index import usage
from tests.conftest import Run, commit_count, git

# chitin 1.x's export: UUID ids, "YYYY-MM-DD HH:MM:SS" times, and lastRetrievedAt
# written by reinforce (reference §1.2, §11.11).
ORIGINAL_EXPORT = [
    {
        "id": "da70590d-4444-4ff0-9a63-64bdad2b36fb",
        "type": "relational",
        "claim": "Boss values concise responses",
        "reasoning": "R1",
        "context": "C1",
        "limitations": "L1",
        "confidence": 0.95,
        "tags": ["boss", "comm"],
        "source": "S1",
        "provenance": "observation",
        "avoid": False,
        "createdAt": "2026-11-29 12:56:44",
        "updatedAt": "2026-11-29 12:56:50",
        "reinforcementCount": 2,
        "lastRetrievedAt": "2026-11-29 12:56:50",
    },
    {
        "id": "5f1c8e0a-1111-4222-8333-944455556666",
        "type": "trigger",
        "claim": "check channel history before asking user to repeat",
        "confidence": 0.9,
        "tags": [],
        "condition": "context compacted mid-conversation",
        "avoid": False,
        "createdAt": "2026-11-28 08:00:00",
        "updatedAt": "2026-11-28 08:00:00",
        "reinforcementCount": 0,
    },
]

# chitin 1.x's seed.json: no ids, no times, no provenance (§5.6).
ORIGINAL_SEED = [
    {
        "type": "principle",
        "claim": "Be genuinely helpful, not performatively helpful.",
        "reasoning": "Filler wastes the reader's time.",
        "context": "All interactions",
        "confidence": 0.95,
        "tags": ["communication", "efficiency"],
    },
    {"type": "skill", "claim": "TDD: red, green, refactor. Don't batch."},
]

NOW = "2026-11-29T12:00:00Z"


# what `import --merge` says of an item the store holds live (contribute's rule)
LIVE_COPY = "the same insight is live in the store as {} (as contribute judges a copy)"


def write(tmp_path: Path, name: str, document: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


@pytest.fixture
def populated(run: Run, add: Callable[..., dict[str, Any]], store: Path) -> list[str]:
    """A store holding every kind of field: a trigger, provenance, reinforcements,
    an archived insight and a recorded retrieval."""
    ids = [
        add(
            "skill",
            "Write the failing test first",
            0.8,
            tags="tdd,testing",
            provenance="observation",
        )["id"],
        add(
            "trigger",
            "stop and re-read the notes",
            0.7,
            condition="the context was compacted",
            avoid=True,
            reasoning="Compaction loses details",
        )["id"],
        add("relational", "The operator prefers short answers", 0.9, source="chat")["id"],
    ]
    run("reinforce", ids[0], "--evidence", "external", "--source", "CI run")
    run("archive", ids[2])
    usage.record_times(store, [(ids[1], "2026-11-20T10:00:00Z")])
    return ids


def test_export_import_export_round_trip_is_identical(
    run: Run, populated: list[str], tmp_path: Path
) -> None:
    first = run("export").stdout
    exported = json.loads(first)
    assert {e["id"] for e in exported} == set(populated)
    trigger = next(e for e in exported if e["type"] == "trigger")
    assert trigger["condition"] == "the context was compacted" and trigger["avoid"] is True
    assert trigger["lastRetrievedAt"] == "2026-11-20T10:00:00Z"
    assert any(e["archived"] for e in exported)

    other = tmp_path / "other"
    path = write(tmp_path, "backup.json", exported)
    from click.testing import CliRunner

    from chitin.cli import cli

    imported = CliRunner().invoke(cli, ["--store", str(other), "import", str(path)])
    assert imported.exit_code == 0, imported.output
    again = CliRunner().invoke(cli, ["--store", str(other), "export"])
    assert again.stdout == first
    assert commit_count(other) == 2  # the store's creation, then the import: one commit
    assert list((other / "archive").rglob("*.md"))


def test_export_to_a_file(run: Run, populated: list[str], tmp_path: Path) -> None:
    target = tmp_path / "out" / "backup.json"
    target.parent.mkdir()
    result = run("export", "--output", str(target))
    assert result.stdout.startswith("✓ Exported 3 insight(s)")
    assert json.loads(target.read_text()) == json.loads(run("export").stdout)


def test_export_refuses_a_store_with_an_unreadable_file(
    run: Run, populated: list[str], store: Path, tmp_path: Path
) -> None:
    # A backup that silently misses a file is no backup: nothing is written, exit 1.
    (store / "insights" / "skill" / "bad.md").write_text("---\nid: bad\nconfidence: 2\n---\n")
    (store / "insights" / "skill" / "torn.md").write_text(
        "---\nid: torn\ntype: skill\nconfidence: 0.5\n---\n\n<<<<<<< ours\nA\n=======\nB\n"
        ">>>>>>> theirs\n"
    )
    target = tmp_path / "backup.json"
    refused = run("export", "--output", str(target), expect=1)
    assert not target.exists() and refused.stdout == ""
    [line] = refused.stderr.splitlines()
    assert line.startswith("Error: ") and "chitin check" in line
    assert "insights/skill/bad.md" in line and "insights/skill/torn.md" in line
    assert run("export", expect=1).stdout == ""

    kept = run("export", "--skip-unreadable")
    assert {item["id"] for item in json.loads(kept.stdout)} == set(populated)
    skipped = [line for line in kept.stderr.splitlines() if line.startswith("warning: skipped")]
    assert [line.split()[2] for line in skipped] == [
        "insights/skill/bad.md:",
        "insights/skill/torn.md:",
    ]


def test_the_library_export_refuses_an_unreadable_file_unless_told(store: Path) -> None:
    from chitin import Chitin, ChitinError

    with Chitin(store=store) as chitin:
        chitin.init()
        chitin.contribute({"type": "skill", "confidence": 0.7, "claim": "Plan first."})
    (store / "insights" / "skill" / "bad.md").write_text("not an insight\n")
    with Chitin(store=store) as chitin:
        with pytest.raises(ChitinError, match=r"insights/skill/bad\.md"):
            chitin.export()
        assert [e.insight.claim for e in chitin.export(skip_unreadable=True)] == ["Plan first."]


def test_export_of_a_missing_store_is_an_empty_array(run: Run, store: Path) -> None:
    assert json.loads(run("export").stdout) == []
    assert not store.exists()


def test_the_original_export_keeps_ids_provenance_condition_counts_and_times(
    run: Run, run_json: Callable[..., Any], store: Path, tmp_path: Path
) -> None:
    path = write(tmp_path, "export.json", ORIGINAL_EXPORT)
    assert run("import", str(path)).stdout.startswith("✓ Imported 2 insight(s)")
    boss = run_json("get", "da70590d")
    assert boss == {
        "id": "da70590d-4444-4ff0-9a63-64bdad2b36fb",
        "type": "relational",
        "claim": "Boss values concise responses",
        "reasoning": "R1",
        "context": "C1",
        "limitations": "L1",
        "confidence": 0.95,
        "tags": ["boss", "comm"],
        "source": "S1",
        "provenance": "observation",
        "avoid": False,
        "createdAt": "2026-11-29T12:56:44Z",
        "updatedAt": "2026-11-29T12:56:50Z",
        "reinforcementCount": 2,
        # 1.x wrote lastRetrievedAt when reinforcing: it is the last reinforcement.
        "lastReinforcedAt": "2026-11-29T12:56:50Z",
        "archived": False,
    }
    trigger = run_json("get", "5f1c8e0a")
    assert trigger["condition"] == "context compacted mid-conversation"
    assert usage.all_last_retrieved(store) == {}


def test_the_original_seed_gets_ids_times_and_the_default_confidence(
    run: Run, run_json: Callable[..., Any], tmp_path: Path
) -> None:
    path = write(tmp_path, "seed.json", ORIGINAL_SEED)
    imported = run_json("import", str(path))
    assert imported["imported"] == 2 and imported["skipped"] == 0
    tdd = next(i for i in run_json("list") if i["type"] == "skill")
    assert tdd["confidence"] == 0.5  # the original's default for a missing confidence
    assert tdd["id"] in imported["ids"] and tdd["id"].startswith("tdd-red-green-refactor")
    assert tdd["createdAt"] == tdd["updatedAt"]


def test_a_single_object_and_stdin_are_accepted(
    run: Run, run_json: Callable[..., Any], tmp_path: Path
) -> None:
    run("import", str(write(tmp_path, "one.json", ORIGINAL_SEED[0])))
    run("import", "-", input=json.dumps(ORIGINAL_SEED[1]))
    assert sorted(i["type"] for i in run_json("list")) == ["principle", "skill"]


def test_an_import_from_a_pipe_reads_it_once(
    run: Run, run_json: Callable[..., Any], tmp_path: Path
) -> None:
    """`chitin import <(ssh host chitin export)` names a pipe (/dev/fd/63): the test for
    a 1.x database read its first bytes (a buffer's worth), and the JSON was then read
    from a second open of the pipe, which held nothing more ("/dev/fd/63 is empty")."""
    reader, writer = os.pipe()
    os.write(writer, json.dumps(ORIGINAL_SEED[:2]).encode())
    os.close(writer)
    try:
        run("import", f"/dev/fd/{reader}")
    finally:
        os.close(reader)
    assert sorted(i["type"] for i in run_json("list")) == ["principle", "skill"]


def test_an_import_is_one_commit_with_its_trailers(run: Run, store: Path, tmp_path: Path) -> None:
    run("init")
    before = commit_count(store)
    run("import", str(write(tmp_path, "export.json", ORIGINAL_EXPORT)))
    assert commit_count(store) == before + 1
    message = git(store, "log", "-1", "--format=%B")
    assert message.startswith("Import 2 insight(s) from export.json")
    assert "Chitin-Op: import" in message and "Chitin-Source: export.json" in message


@pytest.mark.parametrize(
    ("item", "field"),
    [
        ({"type": "skill", "claim": "x", "confidence": 1.5}, "confidence"),
        ({"type": "sklil", "claim": "x"}, "type"),
        ({"type": "skill"}, "claim"),
        ({"type": "skill", "claim": "   "}, "claim"),
        ({"type": "trigger", "claim": "x"}, "condition"),
        ({"type": "skill", "claim": "x", "provenance": "rumour"}, "provenance"),
        ({"type": "skill", "claim": "x", "createdAt": "yesterday"}, "createdAt"),
        ({"type": "skill", "claim": "x", "reinforcementCount": -1}, "reinforcementCount"),
        ({"type": "skill", "claim": "x", "lastReinforcedAt": "soon"}, "lastReinforcedAt"),
        ({"type": "skill", "claim": "x", "id": "../escape"}, "id"),
        ({"type": "skill", "claim": "x", "colour": "red"}, "colour"),
        ({"type": "skill", "claim": "x", "avoid": "yes"}, "avoid"),
    ],
)
def test_one_bad_item_imports_nothing_and_names_its_index_and_field(
    run: Run, store: Path, tmp_path: Path, item: dict[str, Any], field: str
) -> None:
    run("init")
    before = commit_count(store)
    document = [ORIGINAL_SEED[0], ORIGINAL_SEED[1], item]
    result = run("import", str(write(tmp_path, "bad.json", document)), expect=1)
    line = result.stderr.strip()
    assert line.startswith(f"Error: items[2].{field}: ") and "nothing was imported" in line
    assert "\n" not in line and "Traceback" not in result.output
    assert commit_count(store) == before
    assert not list((store / "insights").rglob("*.md"))


@pytest.mark.parametrize(
    ("value", "said"),
    [({"confidence": True}, "got true"),
     ({"tags": [None]}, "got null"),
     ({"confidence": {"a": 1}}, 'got {"a": 1}'),
     ({"confidence": ["0.5"]}, 'got ["0.5"]'),
     ({"reasoning": False}, "got false"),
     ({"tags": [True]}, "got true"),
     # `or 0` read these as no count given, silently (qa135)
     ({"reinforcementCount": False}, "got false"),
     ({"reinforcementCount": []}, "got []"),
     ({"reinforcementCount": {}}, "got {}")],
)  # fmt: skip
def test_a_refused_value_is_shown_as_json_writes_it(
    run: Run, tmp_path: Path, value: dict[str, Any], said: str
) -> None:
    """The file is JSON: its values are quoted back in JSON's form, not Python's."""
    run("init")
    item = {"type": "skill", "claim": "Pin the versions", "confidence": 0.5, **value}
    result = run("import", str(write(tmp_path, "bad.json", [item])), expect=1)
    assert said in result.stderr, result.stderr
    assert not any(word in result.stderr for word in ("True", "False", "None", "'"))


@pytest.mark.parametrize(
    ("content", "said"),
    [('[{"type": "skill", "claim": "A", "confidence": 0.5},'
      ' {"type": "skill", "claim": "B", "claim": "C", "confidence": 0.5}]',
      'items[1] gives the key "claim" twice'),
     ('{"type": "skill", "claim": "A", "confidence": 0.5, "confidence": 0.9}',
      'items[0] gives the key "confidence" twice'),
     ('[{"type": "skill", "claim": "A", "confidence": 0.5,'
      ' "evidence": [{"source": "x", "source": "y"}]}]',
      'items[0] gives the key "source" twice')],
)  # fmt: skip
def test_a_repeated_key_is_refused_naming_it_and_its_item(
    run: Run, store: Path, tmp_path: Path, content: str, said: str
) -> None:
    """json.loads keeps the last of two equal keys: the import would silently drop one."""
    run("init")
    before = commit_count(store)
    path = tmp_path / "doc.json"
    path.write_text(content)
    result = run("import", str(path), expect=1)
    line = result.stderr.strip()
    assert said in line and "nothing was imported" in line and "\n" not in line, line
    assert commit_count(store) == before
    assert not list((store / "insights").rglob("*.md"))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "neither JSON nor a chitin 1.x database"),
        ("42", "expected a JSON array of insights or one insight object, got a number"),
        ('[{"type": "skill", "claim": "x"}, "oops"]', "items[1] must be an object"),
        ('{"insights": []}', "or one insight object with type and claim, got an object with"),
        ("{}", "got an empty object"),
        ("\n", "doc.json is empty: expected a chitin export"),
    ],
)
def test_documents_that_are_not_insights_are_refused(
    run: Run, store: Path, tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "doc.json"
    path.write_text(content)
    result = run("import", str(path), expect=1)
    assert message in result.stderr and result.stderr.count("\n") == 1
    assert not list(store.rglob("*.md"))


def test_a_missing_file_is_one_line(run: Run, tmp_path: Path) -> None:
    result = run("import", str(tmp_path / "nope.json"), expect=1)
    assert result.stderr.startswith("Error: cannot read") and "No such file" in result.stderr


def test_without_merge_an_id_the_store_has_is_an_error(
    run: Run, store: Path, tmp_path: Path
) -> None:
    path = write(tmp_path, "export.json", ORIGINAL_EXPORT)
    run("import", str(path))
    before = commit_count(store)
    result = run("import", str(path), expect=1)
    assert "items[0].id: id da70590d-4444-4ff0-9a63-64bdad2b36fb is taken" in result.stderr
    assert commit_count(store) == before


def test_an_id_whose_file_cannot_be_read_is_taken_not_written_over(
    run: Run, store: Path, tmp_path: Path
) -> None:
    """A hand-edited file that does not parse (untracked: git has no copy) answers to
    no id, so import wrote the item with its id over it, or beside it in another type's
    folder (one id, two files) (qa80)."""
    run("init")
    broken = store / "insights" / "skill" / "mine-aaaa.md"
    broken.parent.mkdir(parents=True, exist_ok=True)
    text = "---\nid: mine-aaaa\ntype: skill\nconfidence: [0.8\n---\n\nMy own words.\n"
    broken.write_text(text)
    before = commit_count(store)
    for kind in ("skill", "principle"):
        item = {"id": "mine-aaaa", "type": kind, "claim": "Imported", "confidence": 0.5}
        result = run("import", str(write(tmp_path, "one.json", [item])), expect=1)
        assert result.stderr.startswith(
            "Error: items[0].id: id mine-aaaa is taken (insights/skill/mine-aaaa.md holds "
            "it but cannot be read: "
        )
        merged = run("import", "--merge", "--format", "json", str(tmp_path / "one.json"))
        assert json.loads(merged.stdout)["imported"] == 0
    assert broken.read_text() == text
    assert not (store / "insights" / "principle" / "mine-aaaa.md").exists()
    assert commit_count(store) == before


def test_merge_names_an_unreadable_file_as_the_reason_not_a_duplicate(
    run: Run, store: Path, tmp_path: Path
) -> None:
    """fix81: `import --merge` counted an item skipped for an unreadable file among
    "duplicate(s)"; the summary names each reason it skipped for."""
    run("init")
    broken = store / "insights" / "skill" / "mine-aaaa.md"
    broken.parent.mkdir(parents=True, exist_ok=True)
    broken.write_text("---\nid: mine-aaaa\ntype: skill\nconfidence: [0.8\n---\n\nMine.\n")
    items = [
        {"id": "mine-aaaa", "type": "skill", "claim": "Imported", "confidence": 0.5},
        {"id": "new-bbbb", "type": "skill", "claim": "Another one", "confidence": 0.5},
        {"id": "new-bbbb", "type": "skill", "claim": "Another two", "confidence": 0.5},
    ]
    said = run("import", "--merge", str(write(tmp_path, "three.json", items))).stdout
    assert said.splitlines()[0] == (
        "✓ Imported 1 insight(s), skipped 1 duplicate(s) and 1 item(s) whose id's file "
        "cannot be read"
    ), said
    unread = [{"id": "mine-aaaa", "type": "skill", "claim": "Imported", "confidence": 0.5}]
    alone = run("import", "--merge", str(write(tmp_path, "one.json", unread))).stdout
    assert alone.splitlines()[0] == (
        "✓ Imported 0 insight(s), skipped 1 item(s) whose id's file cannot be read"
    ), alone


def test_a_repeated_id_in_one_document_is_an_error(run: Run, tmp_path: Path) -> None:
    twice = [ORIGINAL_EXPORT[0], {**ORIGINAL_EXPORT[0], "claim": "another"}]
    result = run("import", str(write(tmp_path, "twice.json", twice)), expect=1)
    assert "items[1].id" in result.stderr and "items[0] uses it too" in result.stderr


def test_merge_skips_known_ids_and_claims_ignoring_case_and_spacing(
    run: Run, run_json: Callable[..., Any], add: Callable[..., dict[str, Any]], tmp_path: Path
) -> None:
    known = add("skill", "Always run the tests before pushing", 0.8)["id"]
    run("import", str(write(tmp_path, "export.json", ORIGINAL_EXPORT)))
    document = [
        ORIGINAL_EXPORT[0],  # id already there
        {"type": "skill", "claim": "  always RUN the tests   before pushing "},  # same claim
        {"type": "skill", "claim": "Prefer small commits"},  # new
        {"type": "skill", "claim": "prefer small   commits"},  # repeats the new one
    ]
    result = run_json("import", str(write(tmp_path, "more.json", document)), "--merge")
    assert result["imported"] == 1 and result["skipped"] == 3
    reasons = {s["item"]: s["reason"] for s in result["skippedItems"]}
    assert reasons[0] == "already in the store"
    # qa39: named, as contribute and import-carapace name the insight already known
    assert reasons[1] == LIVE_COPY.format(known)
    assert reasons[3] == "the same insight as items[2], which is stronger"
    assert len(run_json("list")) == 4
    human = run("import", str(write(tmp_path, "more.json", document)), "--merge").stdout
    assert human.startswith("✓ Imported 0 insight(s), skipped 4 duplicate(s)")


def test_imported_archived_insights_stay_archived(
    run: Run, run_json: Callable[..., Any], tmp_path: Path
) -> None:
    item = {**ORIGINAL_SEED[1], "id": "old-one", "archived": True}
    run("import", str(write(tmp_path, "a.json", [item])))
    assert run_json("list") == []
    assert [i["id"] for i in run_json("list", "--archived")] == ["old-one"]


def test_history_of_an_imported_insight_starts_at_the_import(
    run: Run, run_json: Callable[..., Any], tmp_path: Path
) -> None:
    run("import", str(write(tmp_path, "export.json", ORIGINAL_EXPORT)))
    entries = run_json("history", "da70590d")["history"]
    assert [e["changeType"] for e in entries] == ["create"]
    assert entries[0]["newValue"] == "Boss values concise responses"


def test_an_export_with_two_insights_of_one_claim_comes_back_whole(
    run: Run, run_json: Callable[..., Any], tmp_path: Path
) -> None:
    """Issue 25: without --merge nothing is skipped, whatever the claims."""
    document = [
        {
            "id": "strong-aaaa",
            "type": "skill",
            "claim": "Reproduce a bug before fixing it",
            "confidence": 0.81,
            "reinforcementCount": 1,
        },
        {
            "id": "weak-bbbb",
            "type": "skill",
            "claim": "Reproduce a bug before fixing it",
            "confidence": 0.6,
        },
    ]
    result = run_json("import", str(write(tmp_path, "export.json", document)))
    assert result["imported"] == 2 and result["skipped"] == 0
    kept = {i["id"]: i for i in run_json("list")}
    assert kept["strong-aaaa"]["reinforcementCount"] == 1 and "weak-bbbb" in kept


def test_a_backup_restores_counts_evidence_and_history_whatever_the_claims(
    run: Run, run_json: Callable[..., Any], store: Path, tmp_path: Path
) -> None:
    """Issue 25: two insights of one claim, one reinforced with a merge in its history,
    come back whole into an empty store, and export the same again."""
    weak = run_json(*ADD, "Reproduce a bug before fixing it", "--confidence", "0.6")["insight"]
    strong = run_json(*ADD, "Reproduce a bug before fixing it", "--confidence", "0.8", "--force")
    strong_id = strong["insight"]["id"]
    # a tag of its own, so that the merge changes the kept file whatever the clock says
    # (a merge that changes nothing of it, in the same second, is not in its git log)
    other = run_json(
        *ADD, "Reproduce the issue first", "--confidence", "0.5", "--force", "--tags", "bugs"
    )
    run("merge", other["insight"]["id"], strong_id)
    run("reinforce", strong_id, "--source", "the login fix")
    exported = run("export").stdout
    items = {item["id"]: item for item in json.loads(exported)}
    assert len(items[strong_id]["evidence"]) == 1
    assert [row["changeType"] for row in items[strong_id]["history"]] == [
        "create", "merge", "reinforce",
    ]  # fmt: skip

    restored = tmp_path / "restored"
    path = write(tmp_path, "backup.json", json.loads(exported))
    from click.testing import CliRunner

    from chitin.cli import cli

    def other_store(*args: str) -> str:
        result = CliRunner().invoke(cli, ["--store", str(restored), *args])
        assert result.exit_code == 0, result.output
        return result.stdout

    assert json.loads(other_store("import", str(path), "--format", "json"))["skipped"] == 0
    assert other_store("export") == exported
    kept = {i["id"]: i for i in json.loads(other_store("list", "--format", "json"))}
    assert set(kept) == {weak["id"], strong_id}
    assert kept[strong_id]["reinforcementCount"] == 1 and kept[strong_id]["confidence"] == 0.81
    history = json.loads(other_store("history", strong_id, "--format", "json"))["history"]
    assert [e["changeType"] for e in history] == ["create", "merge", "reinforce"]
    file = next((restored / "insights").rglob(f"{strong_id}.md")).read_text()
    assert "evidence:" in file


def test_a_merge_that_left_the_kept_file_as_it_was_is_in_the_export(
    run: Run, store: Path, tmp_path: Path
) -> None:
    """Issue 25: a merge of a copy that brings the kept insight nothing new (the same
    claim, no tag of its own, in the same second: here a fixed clock) commits no change
    to its file. ``history`` shows it (from the commit's trailer); the changelog, and so
    the export, lost it, and the backup came back without the merge in its history."""
    from datetime import UTC, datetime

    from chitin import Chitin

    fixed = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
    claim = {"type": "skill", "claim": "Reproduce a bug before fixing it"}
    with Chitin(store=store, now=fixed) as chitin:
        chitin.init()
        kept = chitin.contribute({**claim, "confidence": 0.8}).insight.id
        copy = chitin.contribute({**claim, "confidence": 0.6}, check=False).insight.id
        chitin.merge(copy, kept)
        chitin.reinforce(kept, source="the login fix")
        changes = [(e.insight_id, e.change_type) for e in chitin.changelog()]
    assert (kept, "merge") in changes and (copy, "merge") in changes
    exported = run("export").stdout
    (item,) = [item for item in json.loads(exported) if item["id"] == kept]
    rows = ["create", "merge", "reinforce"]
    assert [row["changeType"] for row in item["history"]] == rows
    assert item["history"][1]["source"] == f"merge:{copy}"

    restored = tmp_path / "restored"
    path = write(tmp_path, "backup.json", json.loads(exported))
    from click.testing import CliRunner

    from chitin.cli import cli

    assert CliRunner().invoke(cli, ["--store", str(restored), "import", str(path)]).exit_code == 0
    with Chitin(store=restored) as chitin:
        assert [e.change_type for e in chitin.history(kept)[1]] == rows


ADD = ("contribute", "--type", "skill", "--claim")


def test_merge_keeps_the_strongest_of_one_insight_repeated_in_the_document(
    run: Run, run_json: Callable[..., Any], tmp_path: Path
) -> None:
    """Issue 25 (qa33): `--merge` skips a repeat, never the reinforced copy. The export
    lists the newest first, so the first of a claim was the weaker copy, kept."""
    document = [
        {"id": "weak-bbbb", "type": "skill", "claim": "Reproduce a bug before fixing it",
         "confidence": 0.6},
        {"id": "strong-aaaa", "type": "skill", "claim": "reproduce a bug before fixing it.",
         "confidence": 0.81, "reinforcementCount": 1},
    ]  # fmt: skip
    result = run_json("import", str(write(tmp_path, "export.json", document)), "--merge")
    assert result["ids"] == ["strong-aaaa"]
    assert result["skippedItems"] == [
        {"item": 0, "id": "weak-bbbb", "reason": "the same insight as items[1], which is stronger"}
    ]
    assert [i["id"] for i in run_json("list")] == ["strong-aaaa"]


def test_merge_keeps_the_strongest_of_two_items_sharing_one_id(
    run: Run, run_json: Callable[..., Any], tmp_path: Path
) -> None:
    """fix124: of two items with one id, `--merge` kept the first, the weaker; every
    other place (dedupe, merge, a repeated insight here) keeps the strongest."""
    document = [
        {"id": "lesson-aaaa", "type": "skill", "claim": "Pin the CI image",
         "confidence": 0.9},
        {"id": "lesson-aaaa", "type": "skill", "claim": "Pin the CI image by its digest",
         "confidence": 0.6, "reinforcementCount": 3},
        {"id": "lesson-aaaa", "type": "skill", "claim": "Pin every CI image",
         "confidence": 0.7, "reinforcementCount": 3},
    ]  # fmt: skip
    result = run_json("import", str(write(tmp_path, "export.json", document)), "--merge")
    assert result["ids"] == ["lesson-aaaa"]
    assert result["skippedItems"] == [
        {"item": 0, "id": "lesson-aaaa", "reason": "repeats the id of items[2]"},
        {"item": 1, "id": "lesson-aaaa", "reason": "repeats the id of items[2]"},
    ]
    kept = run_json("get", "lesson-aaaa")
    assert kept["claim"] == "Pin every CI image" and kept["reinforcementCount"] == 3


def test_merge_keeps_the_live_copy_of_an_insight_also_archived_in_the_document(
    run: Run, run_json: Callable[..., Any], tmp_path: Path
) -> None:
    """An export of a store where a lesson was archived, then contributed again: with
    `--merge`, the stronger archived copy came in and the live one was skipped, so the
    restored store no longer retrieved the lesson. A live copy wins, as the store's own
    live copy is the one named (issue 25: never lose one)."""
    document = [
        {"id": "live-aaaa", "type": "relational", "claim": "Dana prefers short emails",
         "confidence": 0.7},
        {"id": "old-bbbb", "type": "relational", "claim": "Dana prefers short emails",
         "confidence": 0.8, "reinforcementCount": 2, "archived": True},
    ]  # fmt: skip
    result = run_json("import", str(write(tmp_path, "export.json", document)), "--merge")
    assert result["ids"] == ["live-aaaa"]
    assert result["skippedItems"] == [
        {"item": 1, "id": "old-bbbb", "reason": "the same insight as items[0], which is live"}
    ]
    assert [i["id"] for i in run_json("list")] == ["live-aaaa"]


def test_merge_writes_an_insight_whose_only_copy_in_the_store_is_archived(
    run: Run, run_json: Callable[..., Any], add: Callable[..., dict[str, Any]], tmp_path: Path
) -> None:
    """fix91: `--merge` skipped an item as "already there" when the store's only copy
    was archived, where `contribute` writes it (an archived insight is no live
    duplicate). One rule now, named in the reason of what it skips."""
    archived = add("skill", "Pin the CI image by digest.", 0.6)["id"]
    run("archive", archived)
    document = [{"id": "pin-aaaa", "type": "skill", "claim": "Pin the CI image by digest"}]
    result = run_json("import", str(write(tmp_path, "export.json", document)), "--merge")
    assert result["ids"] == ["pin-aaaa"] and result["skipped"] == 0
    again = [{"id": "pin-bbbb", "type": "skill", "claim": "pin the ci image by digest"}]
    result = run_json("import", str(write(tmp_path, "again.json", again)), "--merge")
    assert result["skippedItems"] == [
        {"item": 0, "id": "pin-bbbb", "reason": LIVE_COPY.format("pin-aaaa")}
    ]
    assert [i["id"] for i in run_json("list")] == ["pin-aaaa"]
    refused = run("contribute", "--type", "skill", "--claim", "Pin the CI image by digest",
                  "--confidence", "0.5", expect=1)  # fmt: skip
    assert refused.stderr.startswith("Error: already known as pin-aaaa: ")


def test_merge_skips_only_what_contribute_calls_the_same_insight(
    run: Run, run_json: Callable[..., Any], tmp_path: Path
) -> None:
    """Issue 25 (qa33): the same words are not the same insight when contribute's own
    check says they are not: a trigger that avoids what another does (a conflict), a
    response to another situation, or the sentence kept in another type."""
    when = "a test fails and editing it is quickest"
    document = [
        {"type": "trigger", "condition": when, "claim": "weakening the assertion",
         "avoid": True, "confidence": 0.9},
        {"type": "trigger", "condition": when, "claim": "weakening the assertion",
         "confidence": 0.5},
        {"type": "trigger", "condition": "a reviewer asks for a quick fix",
         "claim": "weakening the assertion", "avoid": True, "confidence": 0.7},
        {"type": "behavioral", "claim": "Weakening the assertion", "confidence": 0.4},
    ]  # fmt: skip
    result = run_json("import", str(write(tmp_path, "export.json", document)), "--merge")
    assert result["imported"] == 4 and result["skipped"] == 0
    again = run_json("import", str(write(tmp_path, "again.json", document)), "--merge")
    assert again["imported"] == 0 and again["skipped"] == 4


def test_merge_names_every_skipped_item(
    run: Run, run_json: Callable[..., Any], tmp_path: Path
) -> None:
    """Issue 25: each skipped item is named, however many there are."""
    document = [{"type": "skill", "claim": f"Lesson number {n}"} for n in range(15)]
    path = write(tmp_path, "export.json", document)
    run("import", str(path))
    human = run("import", str(path), "--merge").stdout
    assert human.startswith("✓ Imported 0 insight(s), skipped 15 duplicate(s)")
    for n in range(15):
        assert f"skipped items[{n}] (" in human
    assert "more skipped" not in human


def test_an_original_export_with_a_condition_on_another_type_keeps_it_in_the_context(
    run: Run, run_json: Callable[..., Any], tmp_path: Path
) -> None:
    """1.x took `--condition` and `--avoid` on any type and exported them; ours keeps
    them for triggers, so the export of 1.x (its "YYYY-MM-DD HH:MM:SS" times, no
    ``archived``) is imported with them written into the context, as a migration does."""
    item = {**ORIGINAL_EXPORT[0], "condition": "in a group chat", "avoid": True}
    run("import", str(write(tmp_path, "export.json", [item])))
    boss = run_json("get", "da70590d")
    assert boss["context"] == "C1\n\nWhen: in a group chat → avoid"
    assert "condition" not in boss and boss["avoid"] is False
    ours = {key: value for key, value in item.items() if key != "id"}
    ours["createdAt"] = ours["updatedAt"] = NOW  # not 1.x's export: refused as before
    run("import", str(write(tmp_path, "ours.json", [ours])), expect=1)


def test_a_document_opened_by_a_byte_order_mark_is_read(
    run: Run, run_json: Callable[..., Any], tmp_path: Path
) -> None:
    """Windows tools (PowerShell 5's `Out-File -Encoding utf8`, Notepad's "UTF-8 with
    BOM") open a UTF-8 file with U+FEFF; JSON lets a reader ignore it (RFC 8259 §8.1),
    as chitin ignores one that opens an insight file. It was "Unexpected UTF-8 BOM"."""
    bommed = tmp_path / "bom.json"
    bommed.write_bytes(b"\xef\xbb\xbf" + json.dumps([ORIGINAL_SEED[0]]).encode())
    run("import", str(bommed))
    run("import", "-", input="\ufeff" + json.dumps(ORIGINAL_SEED[1]))
    piped = {"type": "skill", "claim": "Piped with a mark", "confidence": 0.5}
    run("contribute", "--json", input="\ufeff" + json.dumps(piped))
    assert len(run_json("list")) == 3


def test_the_library_imports_what_its_export_returns(store: Path, tmp_path: Path) -> None:
    """Issue 25 from Python: ``Chitin.export()`` returns its items (``Exported``), and
    ``import_insights`` of them was refused ("items[0] must be an object, got a
    value"); a backup made in a program comes back whole, as the CLI's does."""
    from chitin import Chitin

    with Chitin(store=store) as chitin:
        chitin.init()
        claim = {"type": "skill", "claim": "Reproduce a bug before fixing it"}
        kept = chitin.contribute({**claim, "confidence": 0.8}).insight.id
        chitin.contribute({**claim, "confidence": 0.6}, check=False)
        chitin.reinforce(kept, source="the login fix")
        chitin.archive(kept)
        exported = chitin.export()
    with Chitin(store=tmp_path / "restored") as restored:
        restored.init()
        assert len(restored.import_insights(exported).insights) == 2
        assert restored.export() == exported


HAND_KEYS = "team: platform\nreviewers:\n  - ana  # lead\n  - bo\n"


def assert_restored(other: Path, backup: Path, original: Path) -> None:
    """``backup`` imported into the empty store ``other`` gives ``original``'s file byte
    for byte, and exports as the backup again."""
    from click.testing import CliRunner

    from chitin.cli import cli

    imported = CliRunner().invoke(cli, ["--store", str(other), "import", str(backup)])
    assert imported.exit_code == 0, imported.output
    [copy] = (other / "insights").rglob("*.md")
    assert copy.read_text() == original.read_text()
    again = CliRunner().invoke(cli, ["--store", str(other), "export"])
    assert json.loads(again.stdout) == json.loads(backup.read_text())


def test_hand_added_frontmatter_keys_come_back_from_an_export(
    run: Run, store: Path, tmp_path: Path
) -> None:
    """Every rewrite keeps the keys a person added to an insight's frontmatter; an
    export dropped them, so a store restored from it lost them (qa56)."""
    run("init")
    run("contribute", "--type", "skill", "--claim", "Pin the versions", "--confidence", "0.8")
    [path] = (store / "insights").rglob("*.md")
    path.write_text(path.read_text().replace("\n---\n", "\n" + HAND_KEYS + "---\n", 1))
    exported = json.loads(run("export").stdout)
    assert exported[0]["extraFrontmatter"] == [
        "team: platform",
        "reviewers:\n  - ana  # lead\n  - bo",
    ]
    assert_restored(tmp_path / "other", write(tmp_path, "backup.json", exported), path)


# Hand-added frontmatter keys and body text that would not read back as given.
UNREADABLE_HAND_PARTS = {
    "key-known": ("extraFrontmatter", ["confidence: 1"]),
    "key-two": ("extraFrontmatter", ["a: 1\nb: 2"]),
    "key-yaml": ("extraFrontmatter", ["a: [1"]),
    "key-document": ("extraFrontmatter", ["a: 1\n---\ntype: trigger"]),
    "key-indented": ("extraFrontmatter", ["  a: 1"]),
    "key-evidence": ("extraFrontmatter", ["evidence:\n- x"]),
    "key-number": ("extraFrontmatter", [5]),
    "key-text": ("extraFrontmatter", "team: platform"),
    "key-empty": ("extraFrontmatter", [""]),
    "body-section": ("extraBody", ["claim", {"text": "## Reasoning\n\nR"}]),
    "body-empty": ("extraBody", ["claim", {"text": ""}]),
    "body-unknown-part": ("extraBody", ["claim", "bogus"]),
    "body-number": ("extraBody", ["claim", 5]),
    "body-text": ("extraBody", "claim"),
    "body-no-claim": ("extraBody", [{"text": "x"}]),
    "body-extra-key": ("extraBody", ["claim", {"text": "x", "more": 1}]),
}


@pytest.mark.parametrize("key, value", UNREADABLE_HAND_PARTS.values(), ids=UNREADABLE_HAND_PARTS)
def test_hand_added_parts_that_would_not_read_back_are_refused(
    run: Run, store: Path, tmp_path: Path, key: str, value: object
) -> None:
    item = {"type": "skill", "claim": "Pin the versions", key: value}
    refused = run("import", str(write(tmp_path, "bad.json", [item])), expect=1)
    assert refused.stderr.startswith(f"Error: items[0].{key}: {key} must ")
    assert refused.stderr.rstrip().endswith("nothing was imported")
    assert not list(store.rglob("*.md"))


def test_a_credential_in_a_hand_added_key_is_refused_as_in_a_field(
    run: Run, store: Path, tmp_path: Path
) -> None:
    item = {"type": "skill", "claim": "Pin it", "extraFrontmatter": ["aws: AKIAIOSFODNN7EXAMPLE"]}
    refused = run("import", str(write(tmp_path, "bad.json", [item])), expect=1)
    assert "items[0].extraFrontmatter" in refused.stderr and "AWS access key" in refused.stderr
    kept = run("import", str(write(tmp_path, "bad.json", [item])), "--allow-secret")
    assert kept.exit_code == 0


HAND_TEXT = "A second paragraph, by hand.\n\n## Context\n\nctx\n\n## Notes\n\nSome notes."


def test_hand_added_body_text_comes_back_from_an_export(
    run: Run, store: Path, tmp_path: Path
) -> None:
    """Issue 2: extra body text a person added survives every rewrite; an export
    dropped the text outside the known sections (a `## Notes` section, a second
    paragraph), so a store restored from it lost them, as it once lost hand-added keys."""
    run("init")
    run("contribute", "--type", "skill", "--claim", "Pin the versions", "--confidence", "0.8")
    [path] = (store / "insights").rglob("*.md")
    path.write_text(path.read_text().rstrip("\n") + "\n\n" + HAND_TEXT + "\n")
    exported = json.loads(run("export").stdout)
    assert exported[0]["extraBody"] == [
        "claim",
        {"text": "A second paragraph, by hand."},
        "context",
        {"text": "## Notes\n\nSome notes."},
    ]
    assert_restored(tmp_path / "other", write(tmp_path, "backup.json", exported), path)


def test_a_credential_in_hand_added_body_text_is_refused_as_in_a_field(
    run: Run, store: Path, tmp_path: Path
) -> None:
    body = ["claim", {"text": "## Notes\n\naws AKIAIOSFODNN7EXAMPLE"}]
    item = {"type": "skill", "claim": "Pin it", "extraBody": body}
    refused = run("import", str(write(tmp_path, "bad.json", [item])), expect=1)
    assert "items[0].extraBody" in refused.stderr and "AWS access key" in refused.stderr
    assert not list(store.rglob("*.md"))
    run("import", str(write(tmp_path, "bad.json", [item])), "--allow-secret")
    [path] = (store / "insights").rglob("*.md")
    assert path.read_text().endswith("\n\n## Notes\n\naws AKIAIOSFODNN7EXAMPLE\n")


def test_a_claim_wrapped_over_lines_by_hand_comes_back_from_an_export(
    run: Run, store: Path, tmp_path: Path
) -> None:
    """Issue 25: an import of an export restores every insight whatever its claim. A
    claim a person wrapped over two lines (or wrote with a tab) was folded into one line
    by the import, so the restored file and its export differed from the backup."""
    run("init")
    run("contribute", "--type", "skill", "--claim", "Pin the versions", "--confidence", "0.8")
    [path] = (store / "insights").rglob("*.md")
    claim = "Pin the versions of every tool\nthe build uses,\tCI included"
    path.write_text(path.read_text().replace("Pin the versions", claim))
    exported = json.loads(run("export").stdout)
    assert exported[0]["claim"] == claim
    assert_restored(tmp_path / "other", write(tmp_path, "backup.json", exported), path)
    folded = {"type": "skill", "claim": "  Two\n\nparagraphs \n end ", "confidence": 0.5}
    run("import", str(write(tmp_path, "folded.json", [folded])))
    assert "Two paragraphs end" in [i["claim"] for i in json.loads(run("export").stdout)]


def test_an_indented_first_line_of_a_section_comes_back_from_an_export(
    run: Run, store: Path, tmp_path: Path
) -> None:
    """Issue 25: a section whose first line a person indented (a code block in the
    reasoning) came back from an export with that indentation stripped."""
    run("init")
    run("contribute", "--type", "skill", "--claim", "Pin the versions", "--confidence", "0.8")
    [path] = (store / "insights").rglob("*.md")
    path.write_text(path.read_text() + "\n## Reasoning\n\n    pip freeze\n\tthen pin\n")
    exported = json.loads(run("export").stdout)
    assert exported[0]["reasoning"] == "    pip freeze\n\tthen pin"
    assert_restored(tmp_path / "other", write(tmp_path, "backup.json", exported), path)


# The keys of chitin 1.x's insight objects (reference §1.2), in its order.
ORIGINAL_KEYS = [
    "id",
    "type",
    "claim",
    "reasoning",
    "context",
    "limitations",
    "confidence",
    "tags",
    "source",
    "provenance",
    "condition",
    "avoid",
    "createdAt",
    "updatedAt",
    "reinforcementCount",
    "lastRetrievedAt",
]


def test_export_help_names_every_key_it_adds_to_the_original_shape(
    run: Run, populated: list[str], store: Path
) -> None:
    """`export --help` said the shape is 1.x's "plus ours (lastReinforcedAt,
    archived)", while items also carry evidence, history and a person's own keys and
    text: a reader of the help could not know what a backup holds."""
    path = next((store / "insights").rglob(f"{populated[0]}.md"))
    text = path.read_text().replace("\n---\n", "\n" + HAND_KEYS + "---\n", 1)
    path.write_text(text.rstrip("\n") + "\n\n" + HAND_TEXT + "\n")
    exported = json.loads(run("export").stdout)
    ours = {key for item in exported for key in item} - set(ORIGINAL_KEYS)
    assert ours >= {"lastReinforcedAt", "archived", "evidence", "history"}
    assert ours >= {"extraFrontmatter", "extraBody"}
    said = " ".join(run("export", "--help").stdout.split())
    assert [key for key in sorted(ours) if key not in said] == []


def test_an_id_that_differs_only_in_case_is_taken(run: Run, store: Path, tmp_path: Path) -> None:
    """``Z-upper`` and ``z-upper`` were both written: on macOS and Windows, whose file
    systems ignore case, the second file would overwrite the first."""
    first = {"id": "Z-upper", "type": "behavioral", "claim": "Answer in short sentences"}
    second = {"id": "z-upper", "type": "behavioral", "claim": "Prefer tables for options"}
    run("init")
    both = write(tmp_path, "both.json", [first, second])
    refused = run("import", str(both), expect=1).stderr
    assert refused.count("\n") == 1 and "items[1].id: id z-upper is taken" in refused
    assert "items[0] uses it too as Z-upper" in refused
    assert not list(store.rglob("*upper.md"))
    run("import", str(write(tmp_path, "one.json", [first])))
    before = commit_count(store)
    refused = run("import", str(write(tmp_path, "two.json", [second])), expect=1).stderr
    assert "id z-upper is taken (the store has it as Z-upper" in refused
    merged = json.loads(run("import", "--merge", "--format", "json", str(both)).stdout)
    assert merged["imported"] == 0, merged
    assert commit_count(store) == before
    assert [p.name for p in store.rglob("*upper.md")] == ["Z-upper.md"]


def test_a_plain_import_of_copies_writes_them_and_says_so(
    run: Run, run_json: Callable[..., Any], tmp_path: Path
) -> None:
    """Issue 25: every item is restored, but copies of live insights (and of each
    other) do not come in without a word; --merge skips them and says nothing more."""
    run("contribute", "--type", "skill", "--claim", "Pin versions in CI", "--confidence", "0.8")
    items = [
        {"type": "skill", "claim": "Pin versions in CI.", "confidence": 0.6},
        {"type": "skill", "claim": "Write the failing test first", "confidence": 0.7},
        {"type": "skill", "claim": "write the failing test first", "confidence": 0.5},
        {"type": "skill", "claim": "Something else", "confidence": 0.5},
    ]
    source = write(tmp_path, "copies.json", items)
    said = run("import", str(source))
    assert said.stdout.startswith("✓ Imported 4 insight(s)")
    assert said.stderr == (
        "note: 2 imported item(s) repeat stored insights; `chitin dedupe` lists them\n"
    )
    assert run_json("import", str(write(tmp_path, "again.json", items[3:])))["repeated"] == 1
    merged = run("import", "--merge", str(write(tmp_path, "merge.json", items[:1])))
    assert merged.stderr == ""
    fresh = run_json("import", str(write(tmp_path, "new.json", [{**items[3], "claim": "New"}])))
    assert fresh["repeated"] == 0
