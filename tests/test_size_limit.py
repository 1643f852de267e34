"""One size limit for an insight file, enforced at every door (issue 27, item 2).

A reader refuses a file over MAX_INSIGHT_BYTES, so a writer that let one through
would commit a file that is unreadable from then on (and that fails `check`, and so
the pre-commit hook). Each door that writes an insight is tried with a text that fits
in a field but not in a file: one line naming the field and the limit, exit 1,
nothing written, no commit, and the next command works.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
from carapace_server import CarapaceServer
from conftest import Run, chitin_program, commit_count
from mcp import Client, StdioServerParameters

from chitin.model.bounds import MAX_INSIGHT_BYTES

LIMIT = f"{MAX_INSIGHT_BYTES:,} bytes"
# Over the limit in UTF-8 though under it in characters: the limit is on bytes.
HUGE = "é" * (MAX_INSIGHT_BYTES // 2 + 10)


def refused_cleanly(
    run: Run, store: Path, result: Any, commits: int, field: str, source: str = ""
) -> None:
    """``source``: who gave the value, where the message names it (a Carapace answer)."""
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {source}{field} is "), result.stderr
    assert LIMIT in lines[0]
    assert commit_count(store) == commits
    assert not list((store / "insights").rglob("*.md"))
    assert "no problems" in run("check").stdout


def test_contribute_json_refuses_a_claim_too_large_for_a_file(run: Run, store: Path) -> None:
    run("init")
    commits = commit_count(store)
    document = {"type": "skill", "confidence": 0.8, "claim": "Fits. " + HUGE}
    result = run("contribute", "--json", input=json.dumps(document), expect=None)
    refused_cleanly(run, store, result, commits, "claim")


def test_the_whole_file_counts_not_only_the_claim(run: Run, store: Path) -> None:
    run("init")
    commits = commit_count(store)
    half = "word " * (MAX_INSIGHT_BYTES // 10)  # each field fits, the file does not
    document = {
        "type": "skill", "confidence": 0.8, "claim": "A claim.",
        "reasoning": half, "context": half, "limitations": "x" * 1000,
    }  # fmt: skip
    result = run("contribute", "--json", input=json.dumps(document), expect=None)
    refused_cleanly(run, store, result, commits, "reasoning")


def test_a_file_just_under_the_limit_is_written_and_read(run: Run, store: Path) -> None:
    run("init")
    # The frontmatter and the layout take well under 2 KB.
    document = {"type": "skill", "confidence": 0.8, "claim": "x" * (MAX_INSIGHT_BYTES - 2048)}
    made = json.loads(
        run("contribute", "--json", "--format", "json", input=json.dumps(document)).stdout
    )
    assert len(run("get", made["insight"]["id"], "--format", "json").stdout) > 1_000_000
    assert "no problems" in run("check").stdout


def test_an_update_that_would_overflow_the_file_is_refused(run: Run, store: Path) -> None:
    run("init")
    made = json.loads(
        run("contribute", "--type", "skill", "--claim", "Small.", "--confidence", "0.8",
            "--format", "json").stdout
    )["insight"]  # fmt: skip
    commits = commit_count(store)
    result = run("update", made["id"], "--context", HUGE, expect=None)
    assert result.exit_code == 1 and "context is " in result.stderr and LIMIT in result.stderr
    assert commit_count(store) == commits
    assert run("get", made["id"], "--format", "json").stdout


def test_import_refuses_an_oversized_item_and_imports_nothing(
    run: Run, store: Path, tmp_path: Path
) -> None:
    run("init")
    commits = commit_count(store)
    items = [
        {"type": "skill", "claim": "A fine one.", "confidence": 0.8},
        {"type": "skill", "claim": "Too big: " + HUGE, "confidence": 0.8},
    ]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    result = run("import", str(path), expect=None)
    assert result.exit_code == 1, result.output
    assert "claim is " in result.stderr and LIMIT in result.stderr
    # Like every other refusal of an import: which item, and that nothing came in.
    assert result.stderr.startswith("Error: items[1].claim: claim is ")
    assert result.stderr.rstrip().endswith("; nothing was imported")
    assert len(result.stderr.strip().splitlines()) == 1
    assert commit_count(store) == commits
    assert not list((store / "insights").rglob("*.md"))


def test_import_carapace_refuses_a_planted_oversized_contribution(
    carapace: CarapaceServer, run: Run, store: Path
) -> None:
    run("init")
    agent = carapace.add_agent("Planter")
    planted = carapace.add_contribution(agent, "Huge. " + HUGE, 0.8)
    commits = commit_count(store)
    result = run("import-carapace", planted.id, expect=None)
    answered = f"Carapace answered for contribution {planted.id}: "
    refused_cleanly(run, store, result, commits, "claim", answered)


def test_the_mcp_contribute_tool_refuses_an_oversized_claim(run: Run, store: Path) -> None:
    run("init")
    commits = commit_count(store)
    params = StdioServerParameters(
        command=chitin_program(), args=["--store", str(store), "mcp"], env={**os.environ}
    )

    async def session() -> Any:
        async with Client(params) as client:
            return await client.call_tool(
                "contribute", {"type": "skill", "claim": HUGE, "confidence": 0.8}
            )

    result = anyio.run(session)
    assert result.is_error
    text = result.content[0].text
    assert "claim is " in text and LIMIT in text and "\n" not in text.strip()
    assert commit_count(store) == commits
    assert not list((store / "insights").rglob("*.md"))
