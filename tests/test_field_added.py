"""Adding a text field to an insight is one row of its table (issue 29 item 3).

The table is ``Insight``'s annotations (model/record.py). The test adds a field,
``mood``, to a copy of the package with the one edit docs/architecture.md's "Where to
add… a field" names: the attribute, annotated with its row. Then it follows the field
through the real CLI and the real MCP server: the cache an older chitin built is
rebuilt with the new column, without a word; contribute sets it, get shows it under
its label and ``--format json`` under its key, retrieve's full format under the
claim, update changes it, the file holds it, export carries it and import reads it
back, and the MCP tools take and give it back. No front end, constructor, reader,
cache column or label is edited: each is derived from the table. (Each derivation,
replaced by its old hand-written list, fails this test: the commit that made them
derived says how that was checked.)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import MCP_INITIALIZE, Run

import chitin

# The row: a one-line text that contribute and update may set, written in the
# frontmatter, in the JSON, and guarded for secrets like every other text.
ROW = """    mood: Annotated[str | None, Field(
        TEXT, json_at=19, file_at=14, edit_at=12, guard_at=9,
        help="The mood it was learned in.", get_at=6, full_at=4,
    )] = None
"""

# (file, text to find, what it becomes): each edit the docs name for a new field.
END_OF_TABLE = "    # fmt: on\n\n    def with_changes"
EDITS = (("model/record.py", END_OF_TABLE, ROW + END_OF_TABLE),)


@pytest.fixture
def grown(tmp_path: Path) -> Path:
    """A copy of the package with the field added; its parent goes on PYTHONPATH."""
    root = tmp_path / "grown"
    package = root / "chitin"
    shutil.copytree(
        Path(chitin.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__")
    )
    for name, old, new in EDITS:
        path = package / name
        text = path.read_text(encoding="utf-8")
        assert text.count(old) == 1, f"{name} no longer has {old!r}: update this test"
        path.write_text(text.replace(old, new), encoding="utf-8")
    return root


def chitin_in(grown: Path, store: Path, *args: str, stdin: str = "") -> str:
    """Run the grown package's ``chitin --store STORE ARGS``; its stdout (it must say
    nothing on stderr: no warning of a damaged cache, for one)."""
    done = subprocess.run(
        [sys.executable, "-m", "chitin", "--store", str(store), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(grown)},
    )
    assert done.returncode == 0 and not done.stderr, done.stderr
    return done.stdout


def mcp_in(grown: Path, store: Path, *requests: dict[str, Any]) -> list[dict[str, Any]]:
    """The grown package's MCP server's answers to ``requests``, after the handshake."""
    lines = [MCP_INITIALIZE, {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    answered = chitin_in(grown, store, "mcp", stdin="".join(
        json.dumps(line) + "\n" for line in [*lines, *requests]
    ))  # fmt: skip
    return [json.loads(line)["result"] for line in answered.splitlines()][1:]


def flag_line(help_text: str) -> str:
    """The --mood line of a command's --help, its spacing folded."""
    (line,) = [line for line in help_text.splitlines() if "--mood" in line]
    return " ".join(line.split())


def call(ident: int, tool: str, **arguments: Any) -> dict[str, Any]:
    params = {"name": tool, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": params}


def test_a_text_field_added_to_the_table_flows_through_every_front_end(
    grown: Path, store: Path, tmp_path: Path, run: Run
) -> None:
    tmp = tmp_path
    # A store whose cache the package as it is (without the field) built.
    run("init")
    run("contribute", "--type", "skill", "--claim", "Read the failing test first",
        "--confidence", "0.7")  # fmt: skip
    assert "Read the failing test first" in chitin_in(grown, store, "list")
    assert flag_line(chitin_in(grown, store, "contribute", "-h")) == (
        "--mood TEXT The mood it was learned in."
    )
    updating = flag_line(chitin_in(grown, store, "update", "-h"))
    assert updating == "--mood TEXT New mood ('' clears it)."

    made = json.loads(chitin_in(grown, store, "contribute", "--type", "skill", "--claim",
                                "Pair on the hard bug", "--confidence", "0.8",
                                "--mood", "calm", "--format", "json"))  # fmt: skip
    insight_id = made["insight"]["id"]
    assert made["insight"]["mood"] == "calm"
    path = store / made["path"]
    assert "\nmood: calm\n" in path.read_text(encoding="utf-8")
    got = json.loads(chitin_in(grown, store, "get", insight_id, "--format", "json"))
    assert got["mood"] == "calm" and list(got)[-1] == "mood"  # its json_at: last
    shown = chitin_in(grown, store, "get", insight_id).splitlines()
    assert shown[shown.index("  Tags: (none)") + 1] == "  Mood: calm"  # its get_at: last
    retrieved = chitin_in(grown, store, "retrieve", "--query", "hard bug", "--format", "full")
    assert "Pair on the hard bug\n  Mood: calm\n" in retrieved

    changed = chitin_in(grown, store, "update", insight_id, "--mood", "tense", "--format", "json")
    assert json.loads(changed)["mood"] == "tense"
    exported = json.loads(chitin_in(grown, store, "export"))
    (item,) = [each for each in exported if each["id"] == insight_id]
    assert item["mood"] == "tense"
    (tmp / "export.json").write_text(json.dumps([item]), encoding="utf-8")
    chitin_in(grown, tmp / "other", "init")
    chitin_in(grown, tmp / "other", "import", str(tmp / "export.json"))
    moved = json.loads(chitin_in(grown, tmp / "other", "get", insight_id, "--format", "json"))
    assert moved["mood"] == "tense"

    listed, contributed, fetched = mcp_in(
        grown,
        store,
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        call(2, "contribute", type="skill", claim="Sleep on a hard review", confidence=0.7,
             mood="tired"),
        call(3, "update", id=insight_id, mood=""),
    )  # fmt: skip
    schemas = {tool["name"]: tool["inputSchema"]["properties"] for tool in listed["tools"]}
    assert schemas["contribute"]["mood"]["description"] == "The mood it was learned in."
    assert schemas["update"]["mood"]["description"] == "New mood; '' clears it."
    assert contributed["structuredContent"]["insight"]["mood"] == "tired"
    assert fetched["structuredContent"].get("mood") is None  # '' cleared it
    assert "mood:" not in path.read_text(encoding="utf-8")
