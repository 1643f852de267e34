"""Issue 26 end to end, in the real Claude Code (npm, 2.1.332): chitin's hooks installed,
a session played against a loopback model (bench/reflect/loopback.py), and then
`chitin reflect` digests the very transcript Claude Code wrote, which the SessionEnd
marker names, with the insights SessionStart gave.

The pinned Claude Code comes from the machine's cache (scripts/install_mcp_clients.py,
issue 28, puts it there); without it the test is skipped, saying why.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import Run, chitin_program

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench" / "reflect"))
from hosts import claude_env, claude_session, installed_for_tests, serving  # noqa: E402
from loopback import Model  # noqa: E402

OUTER_ENV = dict(os.environ)  # before the fixtures' private home: the cache is the machine's
RunJson = Callable[..., Any]


@pytest.fixture(scope="module")
def claude() -> Path:
    """The pinned Claude Code (scripts/install_mcp_clients.py, issue 28)."""
    folder = installed_for_tests("install_mcp_clients.py", OUTER_ENV)
    return folder / "node_modules" / ".bin" / "claude"


@pytest.fixture
def model() -> Iterator[Model]:
    with serving(Model()) as server:
        yield server


SCRIPT = [
    {"user": "List the test files, please.",
     "steps": [{"bash": "ls missing-folder"}, {"bash": "ls ."}, {"text": "Here they are."}]},
    {"user": "No, don't list everything; show only the tests folder instead.",
     "steps": [{"bash": "ls tests"}, {"text": "Only the tests folder."}]},
    {"user": "From now on, always reproduce a bug with a minimal failing case first.",
     "steps": [{"text": "I will reproduce a bug with a minimal failing case first."}]},
]  # fmt: skip


def play(claude: Path, model: Model, home: Path, work: Path, store: Path) -> str:
    session = str(uuid.uuid4())
    path = f"{Path(chitin_program()).parent}:{OUTER_ENV['PATH']}"
    env = {**claude_env(home, model.url, path), "CHITIN_STORE": str(store)}
    model.load(SCRIPT)
    claude_session(claude, SCRIPT, session, env, work)
    return session


REPRODUCE = "Reproduce a bug with a minimal failing case before fixing it"


def test_a_claude_code_session_is_digested_from_its_own_transcript(
    claude: Path, model: Model, run: Run, run_json: RunJson, store: Path, tmp_path: Path
) -> None:
    run("init", "--seed")
    # A principle, so that a coding session's start is given it (a skill fills no
    # session start the query does not match, issue 24), and the session touches it.
    run("contribute", "--type", "principle", "--claim", REPRODUCE, "--confidence", "0.9")
    home, work = tmp_path / "claude-home", tmp_path / "work"
    (work / "tests").mkdir(parents=True)
    (work / "tests" / "test_app.py").write_text("def test_app():\n    assert True\n")
    home.mkdir()
    installed = subprocess.run(
        [chitin_program(), "hooks", "install", "claude-code", "--dir", str(home)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr
    session = play(claude, model, home, work, store)

    [transcript] = (home / ".claude" / "projects").glob(f"*/{session}.jsonl")
    [marker] = run_json("reflect")["pending"]
    assert (marker["sessionKey"], marker["reason"]) == (session, "end")
    assert marker["transcript"] == str(transcript)
    assert marker["injected"]  # SessionStart's insights, noted for this session
    [digest] = run_json("reflect")["digests"]
    moments = [(m["kind"], m["quote"][:30]) for m in digest["moments"]]
    assert moments == [
        ("recovery", "Bash: ls missing-folder → Exit"),
        ("correction", "No, don't list everything; sho"),
        ("preference", "From now on, always reproduce "),
    ]
    touched = [i for i in digest["insights"] if i["touched"]]
    claims = [i["claim"] for i in touched]
    assert REPRODUCE in claims and all(c.startswith("Reproduce a bug") for c in claims)
    assert f" reinforce {touched[0]['id']} --source" in " ".join(digest["commands"])
