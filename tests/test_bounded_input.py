"""Validation on every path in (issue 11, items 1, 2, 8 and 10): flags, ``--json``,
import, migration from 1.x, hand-edited files and the merge driver all hold the same
bounds. Text is valid UTF-8 without control characters, ids are safe and not reserved
file names, numbers are in range, a claim shows something, and no credential reaches
git history, whether in an id or in a migration commit's message."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import Run, chitin_program, commit_count, git

from chitin.cli import cli
from chitin.format.markdown import parse
from chitin.model.ids import check_id, new_id, slugify

# Built from pieces, so that this file holds no string a secret scanner would flag.
GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
LEAD = "lead-with"  # a seed insight's id prefix
MAX_REINFORCEMENTS = 1_000_000_000  # chitin.model.insight.MAX_REINFORCEMENTS


@pytest.fixture
def seeded(run: Run, store: Path) -> Path:
    run("init", "--seed")
    return store


def import_items(run: Run, tmp_path: Path, items: Any, *args: str, expect: int = 0) -> Any:
    document = tmp_path / "items.json"
    document.write_text(json.dumps(items))
    return run("import", str(document), *args, expect=expect)


def seed_file(store: Path, prefix: str) -> Path:
    [path] = (store / "insights").rglob(f"{prefix}*.md")
    return path


def set_line(path: Path, key: str, value: str) -> None:
    """Set a frontmatter line by hand; a key the file lacks goes after ``updated``."""
    lines = path.read_text().split("\n")
    found = [i for i, line in enumerate(lines) if line.startswith(f"{key}:")]
    if found:
        lines[found[0]] = f"{key}: {value}"
    else:
        after = next(i for i, line in enumerate(lines) if line.startswith("updated:"))
        lines.insert(after + 1, f"{key}: {value}")
    path.write_text("\n".join(lines))


# ---------------------------------------------------------------- item 1: numbers


def test_a_reinforcement_count_of_2_to_the_63_is_refused_and_nothing_committed(
    run: Run, seeded: Path, tmp_path: Path
) -> None:
    """The issue's reproduction: the import committed, then every command failed."""
    before = commit_count(seeded)
    document = tmp_path / "f.json"
    document.write_text(
        '[{"type":"skill","claim":"x y z","confidence":0.5,'
        '"reinforcementCount":9223372036854775808}]'
    )
    refused = run("import", str(document), expect=1)
    assert refused.stderr == (
        "Error: items[0].reinforcementCount: reinforcements must be a whole number from 0 to "
        f"{MAX_REINFORCEMENTS}, got 9223372036854775808; nothing was imported\n"
    )
    assert commit_count(seeded) == before
    assert run("list").stdout.rstrip().endswith("14 insight(s)")


@pytest.mark.parametrize(
    ("item", "words"),
    [
        ({"reinforcementCount": MAX_REINFORCEMENTS + 1}, "from 0 to 1000000000"),
        ({"reinforcementCount": 10**40}, "got a number of more than 30 digits"),
        ({"confidence": 10**400}, "confidence must be between 0 and 1"),
        ({"createdAt": "9999-12-31T23:00:00-05:00"}, "createdAt must be a time in the years"),
        ({"updatedAt": "0001-01-01T00:00:00+05:00"}, "updatedAt must be a time in the years"),
        ({"createdAt": "1969-12-31T23:59:59Z"}, "1970 to 9999"),
        ({"lastReinforcedAt": "1900-01-01T00:00:00Z"}, "lastReinforcedAt must be a time"),
    ],
)
def test_numbers_and_times_out_of_range_are_refused_on_import(
    run: Run, seeded: Path, tmp_path: Path, item: dict[str, Any], words: str
) -> None:
    before = commit_count(seeded)
    items = [{"type": "skill", "claim": "Bounded numbers only", "confidence": 0.5, **item}]
    result = import_items(run, tmp_path, items, expect=1)
    assert words in result.stderr and result.stderr.count("\n") == 1
    assert result.stderr.endswith("; nothing was imported\n")
    assert commit_count(seeded) == before
    run("list")


def test_an_integer_too_long_for_python_in_json_is_a_one_line_error(
    run: Run, seeded: Path, tmp_path: Path
) -> None:
    huge = "1" * 5000
    document = tmp_path / "huge.json"
    document.write_text(f'[{{"type":"skill","claim":"x y z","confidence":{huge}}}]')
    refused = run("import", str(document), expect=1)
    assert refused.stderr.startswith(f"Error: cannot read {document}: Exceeds the limit")
    stdin = run(
        "contribute", "--json", input=f'{{"type":"skill","claim":"x","confidence":{huge}}}',
        expect=1,
    )  # fmt: skip
    assert stdin.stderr.startswith("Error: unreadable JSON on stdin: Exceeds the limit")
    assert "unexpected" not in refused.stderr + stdin.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["retrieve", "--query", "tests", "--budget"],
        ["retrieve", "--query", "tests", "--max-results"],
        ["render", "--budget"],
        ["render", "--max-results"],
        ["diff", "--render", "--budget"],
        ["changelog", "--days"],
        ["changelog", "--limit"],
        ["history", LEAD, "--limit"],
        ["quality", "--top"],
    ],
)
def test_numeric_flags_are_bounded_with_a_usage_error(
    run: Run, seeded: Path, args: list[str]
) -> None:
    result = run(*args, "99999999999999999999", expect=2)
    [line] = result.stderr.splitlines()
    assert line.startswith(f"Error: Invalid value for '{args[-1]}': 99999999999999999999 is not")
    assert "in the range 1<=x<=" in line


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("reinforcements", "99999999999999999999", "reinforcements must be a whole number"),
        ("reinforcements", str(MAX_REINFORCEMENTS + 1), "from 0 to 1000000000"),
        ("reinforcements", "9" * 5000, "frontmatter YAML holds a value out of range"),
        ("created", "2026-02-30 10:00:00", "day is out of range for month"),
        ("updated", "0001-01-01T00:00:00+05:00", "updated must be a time in the years"),
        ("last_reinforced", "9999-12-31T23:30:00-01:00", "last_reinforced must be a time"),
    ],
)
def test_a_hand_edited_number_out_of_range_is_a_problem_of_that_file(
    run: Run, seeded: Path, key: str, value: str, words: str
) -> None:
    path = seed_file(seeded, LEAD)
    set_line(path, key, value)
    listed = run("list")
    assert listed.stdout.rstrip().endswith("13 insight(s)")
    assert words in listed.stderr and "unexpected" not in listed.stderr
    report = json.loads(run("check", "--format", "json", expect=1).stdout)
    [error] = report["errors"]
    assert error["path"] == str(path.relative_to(seeded)) and words in error["message"]
    run("get", "small-single", "--format", "json")  # the others are served


def test_the_issues_three_hand_edits_are_each_a_problem_and_the_rest_is_served(
    run: Run, seeded: Path
) -> None:
    """`reinforcements: 99999999999999999999` bricked the store; `confidence: 1e400`
    and a year 99999 were refused already, and must stay refused alongside it."""
    edits = {
        LEAD: ("reinforcements", "99999999999999999999"),
        "small-single": ("confidence", "1e400"),
        "reproduce-the-bug": ("created", "99999-01-01T00:00:00Z"),
    }
    paths = []
    for prefix, (key, value) in edits.items():
        path = seed_file(seeded, prefix)
        set_line(path, key, value)
        paths.append(str(path.relative_to(seeded)))
    assert run("list").stdout.rstrip().endswith("11 insight(s)")
    run("retrieve", "--query", "tests")
    report = json.loads(run("check", "--format", "json", expect=1).stdout)
    assert sorted(e["path"] for e in report["errors"]) == sorted(paths)


def test_reinforce_at_the_largest_count_keeps_the_file_readable(run: Run, seeded: Path) -> None:
    path = seed_file(seeded, LEAD)
    set_line(path, "reinforcements", str(MAX_REINFORCEMENTS))
    run("reinforce", LEAD)
    shown = json.loads(run("get", LEAD, "--format", "json").stdout)
    assert shown["reinforcementCount"] == MAX_REINFORCEMENTS
    assert run("check").exit_code == 0


def test_a_merge_never_adds_up_past_the_largest_count(run: Run, seeded: Path) -> None:
    for prefix in (LEAD, "small-single"):
        set_line(seed_file(seeded, prefix), "reinforcements", str(MAX_REINFORCEMENTS - 1))
    merged = json.loads(run("merge", "small-single", LEAD, "--format", "json").stdout)
    assert merged["reinforcementCount"] == MAX_REINFORCEMENTS
    assert run("check").exit_code == 0


# ---------------------------------------------------------------- item 2: text


def test_invalid_utf8_in_tags_on_update_is_refused_and_the_insight_stays(
    run: Run, seeded: Path
) -> None:
    """The issue's reproduction, in-process: click hands the bytes on as surrogates."""
    before = commit_count(seeded)
    text = seed_file(seeded, LEAD).read_text()
    for flag in ("--tags", "--source", "--reasoning"):
        refused = run("update", LEAD, flag, "\udcff", expect=1)
        assert refused.stderr == f"Error: {flag[2:]} must be valid UTF-8 text\n"
    assert run("get", LEAD).stdout.startswith("[personality] Speak plainly")
    assert commit_count(seeded) == before
    assert seed_file(seeded, LEAD).read_text() == text


def test_invalid_utf8_from_a_real_command_line_is_refused(store: Path) -> None:
    """The issue's reproduction as a shell runs it: `--tags $'\\xff'`."""
    program = chitin_program()
    subprocess.run([program, "--store", str(store), "init", "--seed"], check=True, timeout=60)
    before = commit_count(store)
    for args in (
        [b"update", b"lead-with", b"--tags", b"\xff"],
        [b"update", b"lead-with", b"--condition", b"when \xfe"],
        [b"contribute", b"--type", b"skill", b"--claim", b"caf\xe9", b"--confidence", b"0.5"],
        [b"reinforce", b"lead-with", b"--source", b"log \xff"],
    ):
        command = [os.fsencode(program), b"--store", os.fsencode(store), *args]
        result = subprocess.run(command, capture_output=True, timeout=60)
        assert result.returncode == 1, result.stderr
        assert b"must be valid UTF-8 text" in result.stderr
        assert b"unexpected" not in result.stderr
    got = subprocess.run(
        [program, "--store", str(store), "get", "lead-with"], capture_output=True, timeout=60
    )
    assert got.returncode == 0 and got.stdout.startswith(b"[personality]")
    assert commit_count(store) == before


def test_stdin_that_is_not_utf8_is_refused(store: Path) -> None:
    result = subprocess.run(
        [chitin_program(), "--store", str(store), "contribute", "--json"],
        input=b'{"type": "skill", "claim": "caf\xe9 au lait", "confidence": 0.5}',
        capture_output=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert b"valid UTF-8" in result.stderr and b"unexpected" not in result.stderr
    assert not store.exists()


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("claim", "\u200b", "claim must not contain invisible or text-direction characters"),
        ("claim", "\u200b\u200d\ufeff \u2060", "(found U+200B Zero Width Space at character 1)"),
        ("claim", "\u2060 \u2060", "claim must have visible characters"),
        ("claim", "\x00", "claim must not contain control characters (found U+0000"),
        ("claim", "Ship it\x1b[2K", "found U+001B"),
        ("claim", "\u3164", "claim must have visible characters"),
        ("claim", "a\udcffb", "claim must be valid UTF-8 text"),
        ("reasoning", "because\x00", "reasoning must not contain control characters"),
        ("context", "\x85", "context must not contain control characters (found U+0085"),
        ("tags", ["ok", "bad\x07"], "tags must not contain control characters"),
        ("tags", ["\udcff"], "tags must be valid UTF-8 text"),
        ("source", "a\rb", "source must not contain control characters (found U+000D"),
    ],
)
def test_json_text_must_be_utf8_without_control_characters(
    run: Run, store: Path, field: str, value: Any, words: str
) -> None:
    fields = {"type": "skill", "claim": "A visible claim", "confidence": 0.5, field: value}
    result = run("contribute", "--json", input=json.dumps(fields), expect=1)
    [line] = result.stderr.splitlines()
    assert line.startswith("Error: ") and words in line
    assert not store.exists()


@pytest.mark.parametrize("claim", ["\u200b", "\x00", "nul\x00byte"])
def test_invisible_claims_are_refused_from_flags_too(run: Run, store: Path, claim: str) -> None:
    run("contribute", "--type", "skill", "--claim", claim, "--confidence", "0.5", expect=1)
    assert not store.exists()


def test_text_that_is_fine_stays_fine(run: Run, store: Path) -> None:
    """Tabs, newlines, Windows line ends, emoji joined by ZWJ, other scripts."""
    fields = {
        "type": "skill",
        "claim": "Prüfe zuerst 👩\u200d💻 — 先测试",
        "confidence": 0.5,
        "reasoning": "line one\r\n\tline two",
        "tags": ["naïve", "日本"],
    }
    made = json.loads(
        run("contribute", "--json", "--format", "json", input=json.dumps(fields)).stdout
    )
    assert made["insight"]["claim"] == fields["claim"]
    assert made["insight"]["reasoning"] == "line one\n\tline two"


def test_reinforce_source_must_be_clean_text(run: Run, seeded: Path) -> None:
    before = commit_count(seeded)
    refused = run("reinforce", LEAD, "--source", "ci log\x1b[31m", expect=1)
    assert refused.stderr.startswith("Error: source must not contain control characters")
    assert commit_count(seeded) == before


def test_a_commit_message_carries_at_most_a_thousand_characters_of_a_text(
    run: Run, store: Path
) -> None:
    """fix100: a 2 MB --source went whole into the commit message (and a long claim
    into contribute's and merge's): the message now carries the first 1,000 characters
    of each, with an ellipsis; the file keeps the whole claim."""
    run("init")
    claim = "Keep the build green " + "and the tests fast " * 3000
    made = json.loads(
        run(
            "contribute",
            "--type",
            "skill",
            "--claim",
            claim,
            "--confidence",
            "0.8",
            "--format",
            "json",
        ).stdout
    )
    assert len(git(store, "log", "-1", "--format=%B")) < 1300
    source = "ci log " * 300_000  # 2.1 MB
    run("reinforce", made["insight"]["id"], "--source", source)
    message = git(store, "log", "-1", "--format=%B")
    [line] = [line for line in message.splitlines() if line.startswith("Chitin-Source: ")]
    assert len(line.removeprefix("Chitin-Source: ")) == 1000 and line.endswith("…")
    shown = run("history", made["insight"]["id"]).stdout
    [said] = [line for line in shown.splitlines() if "[reinforce]" in line]
    assert "…)" in said and len(said) < 1200
    other = run(
        "contribute", "--type", "skill", "--claim", "Q" + claim, "--confidence", "0.8", "--force"
    ).stdout
    run("merge", other.split("Contributed skill insight: ")[1].split()[0], made["insight"]["id"])
    assert len(git(store, "log", "-1", "--format=%B")) < 2500
    kept = json.loads(run("get", made["insight"]["id"], "--format", "json").stdout)
    assert kept["claim"] == claim.strip()


def test_a_hand_edited_control_character_is_a_problem_of_that_file(run: Run, seeded: Path) -> None:
    path = seed_file(seeded, LEAD)
    text = path.read_text()
    path.write_text(text.replace("\nStatus reports", "\n\x1b[31mStatus reports"))
    listed = run("list")
    assert listed.stdout.rstrip().endswith("13 insight(s)")
    assert "context must not contain control characters (found U+001B" in listed.stderr
    report = json.loads(run("check", "--format", "json", expect=1).stdout)
    assert [e["field"] for e in report["errors"]] == ["context"]


# ---------------------------------------------------------------- item 8: reserved ids


@pytest.mark.parametrize(
    "insight_id", ["README", "readme", "ReadMe", "CON", "nul", "aux.v2", "com1", "LPT9"]
)
def test_import_of_a_reserved_id_is_refused(
    run: Run, seeded: Path, tmp_path: Path, insight_id: str
) -> None:
    before = commit_count(seeded)
    items = [{"id": insight_id, "type": "skill", "claim": "x y z", "confidence": 0.5}]
    refused = import_items(run, tmp_path, items, expect=1)
    assert refused.stderr.startswith(f"Error: items[0].id: invalid id {insight_id!r}: README")
    assert "reserved file names; nothing was imported" in refused.stderr
    assert commit_count(seeded) == before
    assert not list((seeded / "insights").rglob(f"{insight_id}.md"))


@pytest.mark.parametrize("insight_id", ["abc\n", "abc\r\n", "\nabc"])
def test_an_import_id_with_a_line_break_is_refused(
    run: Run, seeded: Path, tmp_path: Path, insight_id: str
) -> None:
    """An id ending in a newline passed the id pattern (re.match with "$" matches before a
    final newline) and became the file name insights/skill/abc\\n.md (qa53)."""
    before = commit_count(seeded)
    items = [{"id": insight_id, "type": "skill", "claim": "x y z", "confidence": 0.5}]
    refused = import_items(run, tmp_path, items, expect=1)
    assert refused.stderr.startswith(f"Error: items[0].id: invalid id {insight_id!r}: use")
    assert commit_count(seeded) == before
    assert not [p for p in (seeded / "insights").rglob("*") if "\n" in p.name]
    run("get", "abc\n", expect=1)


def test_a_hand_made_file_with_a_reserved_name_is_reported(run: Run, seeded: Path) -> None:
    (seeded / "insights" / "skill" / "con.md").write_text(
        "---\ntype: skill\nconfidence: 0.5\n---\n\nA claim in a file named con.md\n"
    )
    listed = run("list")
    assert "warning: skipped insights/skill/con.md: invalid id 'con'" in listed.stderr
    report = json.loads(run("check", "--format", "json", expect=1).stdout)
    assert [(e["path"], e["field"]) for e in report["errors"]] == [("insights/skill/con.md", "id")]


def test_ids_are_never_reserved_names() -> None:
    reserved = {"readme", "con", "prn", "aux", "nul", *(f"com{n}" for n in range(10))}
    reserved |= {f"lpt{n}" for n in range(10)}
    for claim in ("README", "readme", "Con", "NUL", "aux", "com1", "lpt3"):
        slug = slugify(claim)
        assert slug.lower().split(".")[0] not in reserved
        assert check_id(slug) == slug
        assert check_id(new_id(claim, lambda _: False)).startswith(slug + "-")
    assert slugify("Connect the dots") == "connect-the-dots"


def test_a_reserved_name_still_works_as_a_prefix(run: Run, store: Path) -> None:
    """A guard: `get con` names connect-…; a prefix is not an id chitin writes."""
    made = json.loads(
        run(
            "contribute", "--type", "skill", "--claim", "Connect the dots", "--confidence",
            "0.5", "--format", "json",
        ).stdout
    )  # fmt: skip
    assert json.loads(run("get", "con", "--format", "json").stdout)["id"] == made["insight"]["id"]


# ---------------------------------------------------------------- item 10: secrets


def test_an_import_id_that_looks_like_a_token_is_refused(
    run: Run, seeded: Path, tmp_path: Path
) -> None:
    before = commit_count(seeded)
    items = [{"id": GITHUB, "type": "skill", "claim": "x y z", "confidence": 0.5}]
    refused = import_items(run, tmp_path, items, expect=1)
    assert refused.stderr == (
        "Error: items[0].id: id looks like it holds a GitHub token; an insight must not "
        "contain credentials (use --allow-secret if it is not one); nothing was imported\n"
    )
    assert commit_count(seeded) == before
    assert "ghp_" not in git(seeded, "log", "-p", "--all")
    assert not list((seeded / "insights").rglob("ghp_*"))


HISTORY = """CREATE TABLE insights (
  id TEXT PRIMARY KEY, type TEXT NOT NULL, claim TEXT NOT NULL, reasoning TEXT,
  context TEXT, limitations TEXT, confidence REAL NOT NULL, tags TEXT NOT NULL DEFAULT '[]',
  source TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
  reinforcement_count INTEGER NOT NULL DEFAULT 0, last_retrieved_at TEXT);
CREATE TABLE insight_history (
  id INTEGER PRIMARY KEY AUTOINCREMENT, insight_id TEXT NOT NULL, field TEXT NOT NULL,
  old_value TEXT, new_value TEXT, change_type TEXT NOT NULL, changed_at TEXT NOT NULL,
  source TEXT);"""
LEGACY_ID = "da70590d-4444-4ff0-9a63-64bdad2b36fb"


def legacy_database(path: Path, history: list[tuple[Any, ...]], count: int = 2) -> Path:
    """A chitin 1.x database (the 0.1 schema, with history) of one insight."""
    db = sqlite3.connect(path)
    db.executescript(HISTORY)
    db.execute(
        "INSERT INTO insights (id, type, claim, confidence, tags, created_at, updated_at, "
        "reinforcement_count) VALUES (?, 'skill', 'Use the deploy token from the vault', "
        "0.8, '[]', '2026-11-29 12:00:00', '2026-11-29 12:05:00', ?)",
        (LEGACY_ID, count),
    )
    db.executemany(
        "INSERT INTO insight_history (insight_id, field, old_value, new_value, change_type, "
        "changed_at, source) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(LEGACY_ID, *row) for row in history],
    )
    db.commit()
    db.close()
    return path


def test_a_token_in_1x_history_is_redacted_from_the_migration_commit(
    run: Run, store: Path, tmp_path: Path
) -> None:
    database = legacy_database(
        tmp_path / "insights.db",
        [
            ("*", None, f"Deploy with {GITHUB}", "create", "2026-11-29 12:00:00", None),
            ("claim", f"Deploy with {GITHUB}", "Use the deploy token from the vault",
             "update", "2026-11-29 12:05:00", f"chat said {GITHUB}"),
        ],
    )  # fmt: skip
    result = run("import", str(database))
    assert result.stderr == (
        f"warning: created a new store at {store}\n"
        "warning: 3 likely credential(s) in chitin 1.x's history rows were redacted from the "
        "migration commit (--allow-secret keeps them)\n"
    )
    assert "ghp_" not in git(store, "log", "-p", "--all")
    history = json.loads(run("history", LEGACY_ID, "--format", "json").stdout)["history"]
    assert [(e["field"], e["oldValue"], e["source"]) for e in history] == [
        ("*", None, None),
        ("claim", "Deploy with [redacted GitHub token]", "chat said [redacted GitHub token]"),
    ]


def test_allow_secret_keeps_1x_history_as_it_was(run: Run, store: Path, tmp_path: Path) -> None:
    """A guard: the escape hatch for a false alarm keeps working for history rows."""
    database = legacy_database(
        tmp_path / "insights.db",
        [("*", None, f"Deploy with {GITHUB}", "create", "2026-11-29 12:00:00", None)],
    )
    result = run("import", str(database), "--allow-secret")
    assert result.stderr == f"warning: created a new store at {store}\n"  # and nothing more
    assert GITHUB in git(store, "log", "-1", "--format=%B")


def test_1x_history_rows_of_any_sqlite_type_are_carried_as_text(
    run: Run, store: Path, tmp_path: Path
) -> None:
    """A BLOB, and text that would break the row's line, where 1.x wrote plain text."""
    database = legacy_database(
        tmp_path / "insights.db",
        [
            ("claim", b"old \xff bytes", "new\u2028line", "update", "2026-11-29 12:05:00", None),
            ("confidence", 0.5, 0.55, "reinforce", "2026-11-29 12:06:00", "next\x85line"),
        ],
    )
    run("import", str(database))
    history = json.loads(run("history", LEGACY_ID, "--format", "json").stdout)["history"]
    assert [(e["oldValue"], e["newValue"], e["source"]) for e in history] == [
        ("old \ufffd bytes", "new\u2028line", None),
        ("0.5", "0.55", "next\x85line"),
    ]


def test_a_1x_count_past_the_largest_is_refused_and_nothing_committed(
    run: Run, store: Path, tmp_path: Path
) -> None:
    database = legacy_database(tmp_path / "insights.db", [], count=2**63 - 1)
    refused = run("import", str(database), expect=1)
    assert "items[0].reinforcementCount: reinforcements must be a whole number from 0 to" in (
        refused.stderr
    )
    assert commit_count(store) == 0


def test_an_import_file_name_is_taken_as_it_is(run: Run, store: Path, tmp_path: Path) -> None:
    """Braces in a name are not a format string; a name that is not UTF-8 still commits."""
    document = tmp_path / "team {export}.json"
    document.write_text(json.dumps([{"type": "skill", "claim": "x y z", "confidence": 0.5}]))
    run("import", str(document))
    assert git(store, "log", "-1", "--format=%s") == "Import 1 insight(s) from team {export}.json\n"
    odd = tmp_path / os.fsdecode(b"caf\xe9.json")
    odd.write_text(json.dumps([{"type": "skill", "claim": "a b c", "confidence": 0.5}]))
    run("import", str(odd))
    assert git(store, "log", "-1", "--format=%s") == "Import 1 insight(s) from caf\ufffd.json\n"
    assert git(store, "status", "--porcelain") == ""


# ---------------------------------------------------------------- the merge driver


def insight_file(reinforcements: int, confidence: float = 0.5) -> str:
    return (
        f"---\nid: ask-first-k3f9\ntype: skill\nconfidence: {confidence}\n"
        f"reinforcements: {reinforcements}\ncreated: 2026-11-01T10:00:00Z\n"
        "updated: 2026-11-01T10:00:00Z\n---\n\nAsk before deleting files\n"
    )


def drive(tmp_path: Path, base: str, ours: str, theirs: str) -> Any:
    for name, text in (("base", base), ("ours", ours), ("theirs", theirs)):
        (tmp_path / name).write_text(text)
    args = [str(tmp_path / name) for name in ("base", "ours", "theirs")]
    return CliRunner().invoke(cli, ["merge-driver", *args, "insights/skill/ask-first-k3f9.md"])


def test_the_merge_driver_never_adds_up_past_the_largest_count(tmp_path: Path) -> None:
    start = MAX_REINFORCEMENTS - 10
    result = drive(tmp_path, insight_file(start), insight_file(start + 9), insight_file(start + 9))
    assert result.exit_code == 0, result.output
    merged, _ = parse(
        (tmp_path / "ours").read_text(),
        fallback_id="x",
        fallback_type="skill",
        fallback_time="2026-11-01T10:00:00Z",
    )
    assert merged.reinforcements == MAX_REINFORCEMENTS


def test_the_merge_driver_takes_the_largest_count_at_once(tmp_path: Path) -> None:
    """Confidence follows the reinforcements of both sides, applied one by one; from a
    billion of them it is its fixed point, found without a billion steps."""
    result = drive(
        tmp_path, insight_file(0), insight_file(MAX_REINFORCEMENTS, 0.999991), insight_file(0)
    )
    assert result.exit_code == 0, result.output
    assert "confidence: 0.999991\n" in (tmp_path / "ours").read_text()


def test_the_merge_driver_leaves_a_file_that_is_not_utf8_to_a_person(tmp_path: Path) -> None:
    ours = insight_file(3).encode() + b"\xff\n"
    (tmp_path / "base").write_text(insight_file(2))
    (tmp_path / "ours").write_bytes(ours)
    (tmp_path / "theirs").write_text(insight_file(4))
    args = [str(tmp_path / name) for name in ("base", "ours", "theirs")]
    result = CliRunner().invoke(cli, ["merge-driver", *args, "insights/skill/x.md"])
    assert result.exit_code == 1
    assert result.stderr == "chitin: insights/skill/x.md: not UTF-8 text; resolve it by hand\n"
    assert (tmp_path / "ours").read_bytes() == ours
