"""Invisible and text-direction characters (docs/compatibility.md, "Invisible
characters"): a bidirectional override, embedding or isolate reorders what a person
reads ("Trojan Source"), and a zero-width space or byte order mark hides a word from
the duplicate check and the secret detector. Every door refuses them with one line
naming the code point; a file edited by hand that holds one is named by `chitin check`
and skipped by reads. The joiners that shape a script or an emoji stay allowed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import Run, commit_count
from test_mcp import call, serve

RLO, ZWSP, LRI, BOM, ZWJ, ZWNJ = "\u202e", "\u200b", "\u2066", "\ufeff", "\u200d", "\u200c"
REFUSED = [
    (f"Run the {RLO}tests", "claim", "U+202E"),
    (f"Never delete{ZWSP} the cache", "claim", "U+200B"),
    (f"Read the {LRI}logs", "claim", "U+2066"),
    (f"{BOM}Keep commits small", "claim", "U+FEFF"),
    (f"Pin{ZWJ} the versions", "claim", "U+200D"),
    (f"cache{ZWNJ}", "claim", "U+200C"),
]


def one_line(result: Any) -> str:
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


@pytest.mark.parametrize(("claim", "field", "code"), REFUSED)
def test_contribute_refuses_them_naming_the_code_point(
    run: Run, store: Path, claim: str, field: str, code: str
) -> None:
    run("init")
    before = commit_count(store)
    said = one_line(
        run("contribute", "--type", "skill", "--claim", claim, "--confidence", "0.7", expect=1)
    )
    assert said.startswith(f"Error: {field} must not contain invisible or text-direction")
    assert code in said
    assert commit_count(store) == before


def test_every_field_and_every_door_refuses_them(
    run: Run, store: Path, add: Any, tmp_path: Path
) -> None:
    run("init")
    known = add("skill", "Write the failing test first", 0.8)["id"]
    doors = [
        ("contribute", "--type", "skill", "--claim", "Lint first", "--confidence", "0.7",
         "--tags", f"lint{ZWSP}"),
        ("contribute", "--type", "trigger", "--condition", f"tests {RLO}fail", "--claim",
         "rerun them", "--confidence", "0.7"),
        ("update", known, "--claim", f"Write the {LRI}failing test first"),
        ("update", known, "--reasoning", f"It proves{ZWSP} the bug"),
        ("update", known, "--tags", f"{BOM}tests"),
    ]  # fmt: skip
    for args in doors:
        assert "U+" in one_line(run(*args, expect=1)), args
    exported = json.loads(run("export").stdout)
    exported[0]["claim"] = f"Write the {RLO}failing test first"
    path = tmp_path / "export.json"
    path.write_text(json.dumps(exported))
    other = tmp_path / "other"
    run("--store", str(other), "init")
    said = one_line(run("--store", str(other), "import", str(path), expect=1))
    assert "U+202E" in said
    assert run("--store", str(other), "list", "--format", "json").stdout.strip() == "[]"
    assert run("get", known, "--format", "json").stdout.count("\\u") == 0


def test_the_mcp_tools_refuse_them(store: Path, run: Run, add: Any) -> None:
    known = add("skill", "Write the failing test first", 0.8)["id"]

    async def body(client: Any) -> list[Any]:
        return [
            await call(client, "contribute", type="skill", claim=f"Pin {RLO}it", confidence=0.5),
            await call(client, "update", id=known, tags=[f"a{ZWSP}b"]),
        ]

    for called in serve(store, body):
        assert called.failed and "U+" in called.text and "\n" not in called.text


def test_joiners_inside_a_script_or_an_emoji_are_kept(run: Run, add: Any) -> None:
    claim = f"Say \u0645\u06cc{ZWNJ}\u062e\u0648\u0627\u0647\u0645 and \U0001f468{ZWJ}\U0001f469"
    made = add("skill", claim, 0.7)
    assert json.loads(run("get", made["id"], "--format", "json").stdout)["claim"] == claim


def test_check_names_a_hand_edited_file_holding_one(run: Run, add: Any, store: Path) -> None:
    made = add("skill", "Check the logs first", 0.7)
    path = next(store.glob(f"insights/*/{made['id']}.md"))
    name = path.relative_to(store).as_posix()
    path.write_text(path.read_text().replace("the logs", f"the {RLO}logs"))
    checked = run("check", expect=1)
    assert f"{name}: claim: claim must not contain invisible" in checked.stdout
    assert "U+202E" in checked.stdout and "fix: delete the U+202E" in checked.stdout
    listed = run("list")
    assert "Check the" not in listed.stdout and name in listed.stderr
