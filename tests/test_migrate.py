"""Migration from chitin 1.x: a database of every schema generation (reference §1.3–1.4),
built here with sqlite3 from the original's schemas, migrates with no field lost."""

from __future__ import annotations

import json
import re
import shlex
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Run, chitin_program, commit_count, git

FIVE_TYPES = "'behavioral','personality','relational','principle','skill'"
SIX_TYPES = FIVE_TYPES + ",'trigger'"

BASE_COLUMNS = """
  id TEXT PRIMARY KEY,
  type TEXT NOT NULL CHECK(type IN ({types})),
  claim TEXT NOT NULL,
  reasoning TEXT,
  context TEXT,
  limitations TEXT,
  confidence REAL NOT NULL CHECK(confidence >= 0 AND confidence <= 1),
  tags TEXT NOT NULL DEFAULT '[]',
  source TEXT,
  {trigger_columns}
  created_at TEXT NOT NULL DEFAULT (datetime('now')),
  updated_at TEXT NOT NULL DEFAULT (datetime('now')),
  reinforcement_count INTEGER NOT NULL DEFAULT 0,
  last_retrieved_at TEXT
"""
EMBEDDINGS = """CREATE TABLE insight_embeddings (
  insight_id TEXT PRIMARY KEY REFERENCES insights(id) ON DELETE CASCADE,
  embedding BLOB NOT NULL)"""
HISTORY = """CREATE TABLE insight_history (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  insight_id TEXT NOT NULL REFERENCES insights(id) ON DELETE CASCADE,
  field TEXT NOT NULL, old_value TEXT, new_value TEXT,
  change_type TEXT NOT NULL CHECK(change_type IN ('create','update','reinforce','merge')),
  changed_at TEXT NOT NULL DEFAULT (datetime('now')),
  source TEXT);
CREATE INDEX idx_history_insight_id ON insight_history(insight_id)"""
METADATA = """CREATE TABLE embedding_metadata (
  insight_id TEXT PRIMARY KEY REFERENCES insights(id) ON DELETE CASCADE,
  provider TEXT NOT NULL, model TEXT NOT NULL, dimensions INTEGER NOT NULL,
  created_at TEXT NOT NULL DEFAULT (datetime('now')))"""


def insights_table(triggers: bool) -> str:
    trigger_columns = "condition TEXT, avoid INTEGER NOT NULL DEFAULT 0," if triggers else ""
    columns = BASE_COLUMNS.format(
        types=SIX_TYPES if triggers else FIVE_TYPES, trigger_columns=trigger_columns
    )
    return f"CREATE TABLE insights ({columns})"


# Each generation of §1.4, as the statements a database of that release was made with.
GENERATIONS: dict[str, list[str]] = {
    "0.1.0 (five types)": [insights_table(False), EMBEDDINGS],
    "0.1 (history)": [insights_table(False), EMBEDDINGS, HISTORY],
    "0.1.2 (triggers)": [insights_table(True), EMBEDDINGS, HISTORY],
    "0.2 (embedding metadata)": [insights_table(True), EMBEDDINGS, HISTORY, METADATA],
    # 1.2 added provenance by ALTER TABLE, so it is the last column.
    "1.2 (provenance)": [
        insights_table(True),
        EMBEDDINGS,
        HISTORY,
        METADATA,
        "ALTER TABLE insights ADD COLUMN provenance TEXT",
    ],
}

FULL = {
    "id": "da70590d-4444-4ff0-9a63-64bdad2b36fb",
    "type": "relational",
    "claim": "Boss values concise responses — “kurz”",
    "reasoning": "R1",
    "context": "C1",
    "limitations": "L1",
    "confidence": 0.9097500000000001,
    "tags": '["boss","comm"]',
    "source": "S1",
    "created_at": "2026-11-29 12:56:44",
    "updated_at": "2026-11-29 12:56:50",
    "reinforcement_count": 2,
    "last_retrieved_at": "2026-11-29 12:56:50",
}
SPARSE = {
    "id": "0b0e3a55-aaaa-4bbb-8ccc-000000000002",
    "type": "skill",
    "claim": "TDD: red, green, refactor",
    "confidence": 0.5,
    "tags": "[]",
    "created_at": "2026-11-28 09:00:00",
    "updated_at": "2026-11-28 09:00:00",
    "reinforcement_count": 0,
}
TRIGGER = {
    "id": "7c7c7c7c-1111-4222-8333-444455556666",
    "type": "trigger",
    "claim": "re-read the notes",
    "confidence": 0.85,
    "tags": '["memory"]',
    "condition": "context compacted mid-conversation",
    "avoid": 1,
    "created_at": "2026-11-27 07:30:00",
    "updated_at": "2026-11-27 07:30:00",
    "reinforcement_count": 0,
}
OLD_CLAIM = "Boss values concise brief responses"
HISTORY_ROWS = [
    (FULL["id"], "*", None, OLD_CLAIM, "create", "2026-11-29 12:56:44", None),
    (FULL["id"], "confidence", "0.9", "0.905", "reinforce", "2026-11-29 12:56:50",
     "reinforce:1|[external] Bug 1"),
    (FULL["id"], "confidence", "0.905", "0.9097500000000001", "reinforce",
     "2026-11-29 12:56:50", "reinforce:2"),
    (FULL["id"], "claim", OLD_CLAIM, FULL["claim"], "update", "2026-11-29 12:56:51", None),
    (SPARSE["id"], "*", None, SPARSE["claim"], "create", "2026-11-28 09:00:00", None),
]  # fmt: skip


def build(path: Path, generation: str) -> list[dict[str, Any]]:
    """A database of ``generation`` holding the rows that generation could hold."""
    statements = GENERATIONS[generation]
    rows = [dict(FULL), dict(SPARSE)]
    if "trigger" in statements[0]:
        rows.append(dict(TRIGGER))
    if any("provenance" in s for s in statements):
        rows[0]["provenance"] = "observation"
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    for statement in statements:
        db.executescript(statement)
    for row in rows:
        db.execute(
            f"INSERT INTO insights ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
            list(row.values()),
        )
        db.execute("INSERT INTO insight_embeddings VALUES (?, ?)", (row["id"], b"\0" * 8))
    if "insight_history" in "".join(statements):
        db.executemany(
            "INSERT INTO insight_history (insight_id, field, old_value, new_value, "
            "change_type, changed_at, source) VALUES (?, ?, ?, ?, ?, ?, ?)",
            HISTORY_ROWS,
        )
    db.commit()
    db.close()
    return rows


def expected(row: dict[str, Any]) -> dict[str, Any]:
    """What ``get --format json`` must show for a migrated row: every field it had."""

    def stamp(value: str) -> str:
        return value.replace(" ", "T") + "Z"

    shown: dict[str, Any] = {"id": row["id"], "type": row["type"], "claim": row["claim"]}
    for key in ("reasoning", "context", "limitations"):
        if key in row:
            shown[key] = row[key]
    shown["confidence"] = round(row["confidence"], 6)
    shown["tags"] = json.loads(row["tags"])
    for key in ("source", "provenance", "condition"):
        if key in row:
            shown[key] = row[key]
    shown["avoid"] = bool(row.get("avoid", 0))
    shown["createdAt"] = stamp(row["created_at"])
    shown["updatedAt"] = stamp(row["updated_at"])
    shown["reinforcementCount"] = row["reinforcement_count"]
    if "last_retrieved_at" in row:  # set by 1.x's reinforce: the last reinforcement
        shown["lastReinforcedAt"] = stamp(row["last_retrieved_at"])
    shown["archived"] = False
    return shown


@pytest.mark.parametrize("generation", list(GENERATIONS))
def test_every_schema_generation_migrates_with_no_field_lost(
    run: Run, run_json: Callable[..., Any], tmp_path: Path, generation: str
) -> None:
    database = tmp_path / "insights.db"
    rows = build(database, generation)
    result = run_json("import", str(database))
    assert result["migratedFrom"] == generation
    assert result["imported"] == len(rows)
    for row in rows:
        assert run_json("get", row["id"]) == expected(row)


@pytest.mark.parametrize("generation", [g for g in GENERATIONS if g != "0.1.0 (five types)"])
def test_history_rows_are_carried_into_the_migration_commit(
    run: Run, run_json: Callable[..., Any], store: Path, tmp_path: Path, generation: str
) -> None:
    database = tmp_path / "insights.db"
    rows = build(database, generation)
    result = run_json("import", str(database))
    assert result["historyRows"] == len(HISTORY_ROWS)
    entries = run_json("history", FULL["id"])["history"]
    legacy = [
        (e["field"], e["oldValue"], e["newValue"], e["changeType"], e["changedAt"], e["source"])
        for e in entries
    ]
    assert legacy == [
        (field, old, new, kind, at.replace(" ", "T") + "Z", source)
        for insight, field, old, new, kind, at, source in HISTORY_ROWS
        if insight == FULL["id"]
    ]
    assert all(e["commit"] == result["commit"] for e in entries)
    message = git(store, "log", "-1", "--format=%B")
    assert message.startswith(f"Migrate {len(rows)} insight(s) from chitin 1.x (insights.db)")
    assert "Chitin-Op: migrate" in message
    changelog = run_json("changelog", "--limit", "50")
    assert {e["changeType"] for e in changelog} >= {"create", "reinforce", "update"}


def test_a_migration_without_history_records_the_creation(
    run: Run, run_json: Callable[..., Any], tmp_path: Path
) -> None:
    database = tmp_path / "insights.db"
    build(database, "0.1.0 (five types)")
    run("import", str(database))
    entries = run_json("history", SPARSE["id"])["history"]
    assert [(e["changeType"], e["newValue"]) for e in entries] == [("create", SPARSE["claim"])]


def test_embeddings_are_not_copied_but_made_again(
    run: Run, run_json: Callable[..., Any], tmp_path: Path
) -> None:
    database = tmp_path / "insights.db"
    build(database, "1.2 (provenance)")
    human = run("import", str(database)).stdout
    assert "from a chitin 1.x database (schema 1.2 (provenance))" in human
    assert "3 1.x embedding(s) were not copied (the local model makes them again)" in human
    status = run_json("embed-status")  # few: embedded by the import itself (issue 27)
    assert status["total"] == 3 and status["embedded"] == 3


def test_migration_leaves_the_database_untouched_and_merge_skips_what_is_there(
    run: Run, run_json: Callable[..., Any], store: Path, tmp_path: Path
) -> None:
    database = tmp_path / "insights.db"
    build(database, "1.2 (provenance)")
    before = database.read_bytes()
    run("import", str(database))
    assert database.read_bytes() == before
    commits = commit_count(store)
    again = run_json("import", str(database), "--merge")
    assert again["imported"] == 0 and again["skipped"] == 3
    assert commit_count(store) == commits
    assert run("import", str(database), expect=1).stderr.startswith("Error: items[0].id: id ")


@pytest.mark.parametrize("how", ["redirected", "piped"])
def test_a_database_on_standard_input_is_asked_for_by_its_path(
    store: Path, tmp_path: Path, how: str
) -> None:
    """SQLite reads a file, not a stream: the database piped in is named for what it is
    (not \"neither JSON nor a chitin 1.x database\") and the way to migrate it is shown."""
    database = tmp_path / "insights.db"
    build(database, "1.2 (provenance)")
    command = [chitin_program(), "--store", str(store), "import", "-"]
    with database.open("rb") as handle:
        if how == "redirected":  # chitin import - < insights.db
            done = subprocess.run(command, stdin=handle, capture_output=True)
        else:  # cat insights.db | chitin import -
            done = subprocess.run(command, input=handle.read(), capture_output=True)
    said = done.stderr.decode()
    assert done.returncode == 2, said
    assert said == (
        "Error: Invalid value for 'FILE': standard input holds a chitin 1.x database, "
        "which is migrated from its file, not read from a stream: give its path instead: "
        "chitin import insights.db "
        "(see 'chitin import --help')\n"
    )
    assert not store.exists()


def test_a_database_read_through_a_pipe_is_asked_for_by_its_path(
    store: Path, tmp_path: Path
) -> None:
    """`import <(cat insights.db)`: a path, but of a pipe, which SQLite cannot open."""
    database = tmp_path / "insights.db"
    build(database, "1.2 (provenance)")
    command = f"{shlex.quote(chitin_program())} --store {shlex.quote(str(store))} import"
    done = subprocess.run(
        ["bash", "-c", f"{command} <(cat {shlex.quote(str(database))})"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1, done.stderr
    assert re.fullmatch(
        r"Error: /dev/fd/\d+ holds a chitin 1\.x database, which is migrated from its file, "
        r"not read from a stream: give its path instead: chitin import insights\.db\n",
        done.stderr,
    ), done.stderr


def test_json_on_standard_input_still_imports(run: Run, store: Path) -> None:
    item = {"type": "skill", "claim": "Read the error before searching", "confidence": 0.8}
    run("import", "-", input=json.dumps([item]))
    assert commit_count(store) >= 1


def test_a_database_that_is_not_chitin_is_refused(run: Run, store: Path, tmp_path: Path) -> None:
    database = tmp_path / "other.db"
    db = sqlite3.connect(database)
    db.execute("CREATE TABLE notes (text TEXT)")
    db.commit()
    db.close()
    result = run("import", str(database), expect=1)
    assert "is not a chitin 1.x database: it has no insights table" in result.stderr
    assert not store.exists()


def test_a_bad_row_names_the_item_and_nothing_is_migrated(
    run: Run, store: Path, tmp_path: Path
) -> None:
    database = tmp_path / "insights.db"
    build(database, "1.2 (provenance)")
    db = sqlite3.connect(database)
    db.execute("UPDATE insights SET claim = '' WHERE id = ?", (TRIGGER["id"],))
    db.commit()
    db.close()
    result = run("import", str(database), expect=1)
    assert result.stderr.startswith("Error: items[0].claim: claim must be a non-empty text")
    assert "nothing was imported" in result.stderr
    assert not store.exists()


def test_a_condition_1x_kept_on_another_type_migrates_into_its_context(
    run: Run, store: Path, tmp_path: Path
) -> None:
    """1.x took `contribute --condition … --avoid` on any type (§1.2: "accepted on any
    type, only rendered for triggers"). Ours keeps condition and avoid for triggers, so
    such a row is migrated with them written into its context, not refused whole."""
    database = tmp_path / "insights.db"
    build(database, "1.2 (provenance)")
    db = sqlite3.connect(database)
    db.execute(
        "UPDATE insights SET condition = 'in a group chat', avoid = 1 WHERE id = ?", (FULL["id"],)
    )
    db.execute("UPDATE insights SET condition = 'on call' WHERE id = ?", (SPARSE["id"],))
    db.commit()
    db.close()
    run("import", str(database))
    full = json.loads(run("get", FULL["id"], "--format", "json").stdout)
    assert full["context"] == FULL["context"] + "\n\nWhen: in a group chat → avoid"
    sparse = json.loads(run("get", SPARSE["id"], "--format", "json").stdout)
    assert sparse["context"] == "When: on call"
    for shown in (full, sparse):
        assert "condition" not in shown and shown["avoid"] is False
    assert json.loads(run("get", TRIGGER["id"], "--format", "json").stdout)["condition"]
    run("check")  # a clean store: nothing left that the rules refuse


def test_a_provenance_1x_took_unchecked_migrates_rather_than_refusing_the_database(
    run: Run, run_json: Callable[..., Any], store: Path, tmp_path: Path
) -> None:
    """1.x checked provenance only on `contribute --provenance`; `update --provenance`
    and stdin JSON stored any text (§1.2). Such a row must not stop the migration: a
    known value in other case is read as that value, any other text goes to the
    context (`Provenance: <text>`), as a condition on another type does."""
    database = tmp_path / "insights.db"
    build(database, "1.2 (provenance)")
    db = sqlite3.connect(database)
    db.execute("UPDATE insights SET provenance = 'hearsay' WHERE id = ?", (FULL["id"],))
    db.execute("UPDATE insights SET provenance = ' Observation' WHERE id = ?", (SPARSE["id"],))
    db.execute("UPDATE insights SET provenance = '  ' WHERE id = ?", (TRIGGER["id"],))
    db.commit()
    db.close()
    assert run_json("import", str(database))["imported"] == 3
    full = run_json("get", FULL["id"])
    assert full["context"] == FULL["context"] + "\n\nProvenance: hearsay"
    assert "provenance" not in full
    assert run_json("get", SPARSE["id"])["provenance"] == "observation"
    assert "provenance" not in run_json("get", TRIGGER["id"])
    run("check")


def test_a_1x_export_item_with_an_unchecked_provenance_or_trigger_imports(
    run: Run, run_json: Callable[..., Any], store: Path, tmp_path: Path
) -> None:
    exported = tmp_path / "export.json"
    item = {"id": "1x-item", "type": "skill", "claim": "Keep the build green", "confidence": 0.8}
    item |= {"provenance": "hearsay", "createdAt": "2026-11-29 12:56:44", "tags": []}
    trigger = {"id": "1x-trigger", "type": "trigger", "claim": "Ask first", "confidence": 0.6}
    trigger |= {"condition": None, "createdAt": "2026-11-29 12:56:45"}
    exported.write_text(json.dumps([item, trigger]), encoding="utf-8")
    run("import", str(exported))
    shown = run_json("get", "1x-item")
    assert shown["context"] == "Provenance: hearsay" and "provenance" not in shown
    assert run_json("get", "1x-trigger")["type"] == "behavioral"
    ours = tmp_path / "ours.json"  # our own items are checked as contribute checks them
    ours.write_text(json.dumps([{"type": "skill", "claim": "x", "provenance": "hearsay"}]))
    assert "items[0].provenance: invalid provenance" in run("import", str(ours), expect=1).stderr


@pytest.mark.parametrize("condition", [None, "", "  "])
def test_a_1x_trigger_with_no_condition_migrates_rather_than_refusing_the_database(
    run: Run, run_json: Callable[..., Any], store: Path, tmp_path: Path, condition: str | None
) -> None:
    """1.x let `contribute --type trigger` go without `--condition` and showed such a
    trigger as a plain line (§3.5). Ours needs a trigger's situation, and inventing one
    would put words in the user's mouth: it comes in as behavioral, its 1.x type kept
    in its context, and an avoid flag as a condition on another type keeps it."""
    database = tmp_path / "insights.db"
    build(database, "1.2 (provenance)")
    db = sqlite3.connect(database)
    db.execute("UPDATE insights SET condition = ? WHERE id = ?", (condition, TRIGGER["id"]))
    db.commit()
    db.close()
    assert run_json("import", str(database))["imported"] == 3
    shown = run_json("get", TRIGGER["id"])
    assert (shown["type"], shown["claim"]) == ("behavioral", TRIGGER["claim"])
    note = "A trigger in chitin 1.x, with no condition"
    assert shown["context"] == f"{note}\n\nWhen it applies → avoid"
    assert "condition" not in shown and shown["avoid"] is False
    assert shown["tags"] == ["memory"] and shown["confidence"] == TRIGGER["confidence"]
    run("check")


def test_changelog_days_leaves_out_carried_rows_older_than_the_window(
    run: Run, run_json: Callable[..., Any], tmp_path: Path
) -> None:
    """A migration's commit is new, but the 1.x rows it carries keep their own times
    (2026-11-27 to 29 here); `changelog --days N` is about those times (1.x filtered
    `changed_at >= now - N days`), so a window that starts after them shows none."""
    database = tmp_path / "insights.db"
    build(database, "1.2 (provenance)")
    run("import", str(database))
    everything = run_json("changelog", "--limit", "50")
    assert {e["changeType"] for e in everything} >= {"reinforce", "update"}
    oldest = min(e["changedAt"] for e in everything)
    assert oldest.startswith("2026-11-2")
    assert all(e["changedAt"] >= oldest for e in run_json("changelog", "--days", "100000"))
    # the window of the last day (the tests run after 2026-11-29 by more than a day)
    recent = run_json("changelog", "--days", "1", "--limit", "50")
    assert all(not e["changedAt"].startswith("2026-11-2") for e in recent)


def test_control_characters_of_carried_rows_are_shown_escaped(
    run: Run, run_json: Callable[..., Any], tmp_path: Path
) -> None:
    """1.x stored any text in its history: a NUL, a bell or an escape sequence in a
    carried row is shown as a \\u escape by history and changelog, never sent to the
    terminal as it is; the JSON keeps the exact text."""
    database = tmp_path / "insights.db"
    build(database, "1.2 (provenance)")
    row = ("claim\x1b]0;x\x07", "old\x00one", "new\x07bell\x1b[31mred", "src\x00\x9b2J")
    db = sqlite3.connect(database)
    db.execute(
        "INSERT INTO insight_history (insight_id, field, old_value, new_value, change_type, "
        "changed_at, source) VALUES (?, ?, ?, ?, 'update', '2026-11-30 10:00:00', ?)",
        (FULL["id"], *row),
    )
    db.commit()
    db.close()
    run("import", str(database))
    for args in (("history", FULL["id"]), ("changelog", "--limit", "50")):
        shown = run(*args).stdout
        controls = [c for c in shown if c != "\n" and (ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0)]
        assert controls == [], (args, controls)
        assert (
            'claim\\u001b]0;x\\u0007: "old\\u0000one" → "new\\u0007bell\\u001b[31mred" '
            "(src\\u0000\\u009b2J)"
        ) in shown, shown
    carried = run_json("history", FULL["id"])["history"][-1]
    assert (carried["field"], carried["oldValue"], carried["newValue"], carried["source"]) == row
