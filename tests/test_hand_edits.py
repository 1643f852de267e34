"""Hand edits of an insight's frontmatter that YAML reads in its own way (qa34): a
bare date, and a key written twice. Each is read as the person meant it or named with
its fix, by every command, never silently taken for something else."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import Run


def edit(store: Path, made: dict[str, Any], old: str, new: str) -> Path:
    path = store / "insights" / made["type"] / f"{made['id']}.md"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    return path


def test_a_bare_date_is_that_day_at_midnight_as_in_an_import(
    run: Run, add: Any, run_json: Any, store: Path
) -> None:
    made = add("skill", "Reproduce the bug before fixing it", 0.8)
    edit(store, made, f"created: {made['createdAt']}", "created: 2026-01-15")
    assert run_json("get", made["id"])["createdAt"] == "2026-01-15T00:00:00Z"
    assert "Reinforced" in run("reinforce", made["id"]).stdout
    assert run("check").exit_code == 0
