"""Issue 26 end to end, in the real Claude Code (npm, 2.1.332): chitin's hooks installed,
a session played against a loopback model (bench/reflect/loopback.py), and then
`chitin reflect` digests the very transcript Claude Code wrote, which the SessionEnd
marker names, with the insights SessionStart gave.

The pinned Claude Code comes from the machine's cache (scripts/install_mcp_clients.py,
issue 28, puts it there); without it the test is skipped, saying why.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import Run, chitin_program

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench" / "reflect"))
from loopback import Model  # noqa: E402

OUTER_ENV = dict(os.environ)  # before the fixtures' private home: the cache is the machine's
RunJson = Callable[..., Any]


@pytest.fixture(scope="module")
def claude() -> Path:
    installer = ROOT / "scripts" / "install_mcp_clients.py"
    if installer.exists():
        subprocess.run([sys.executable, str(installer)], env=OUTER_ENV, capture_output=True,
                       timeout=1200)  # fmt: skip
    home = Path(OUTER_ENV.get("HOME", "~")).expanduser()
    cache = Path(OUTER_ENV.get("XDG_CACHE_HOME", home / ".cache")) / "chitin-ci"
    found = sorted(cache.glob("mcp-clients-*/node_modules/.bin/claude"))
    if not found:
        pytest.skip("Claude Code is not installed (scripts/install_mcp_clients.py)")
    return found[-1]


@pytest.fixture
def model() -> Iterator[Model]:
    server = Model()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


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
    env = {
        "PATH": f"{Path(chitin_program()).parent}:{OUTER_ENV['PATH']}",
        "HOME": str(home), "ANTHROPIC_BASE_URL": model.url, "ANTHROPIC_API_KEY": "sk-loopback",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
        "CHITIN_STORE": str(store),
    }  # fmt: skip
    model.load(SCRIPT)
    args = [str(claude), "-p", "--input-format", "stream-json", "--output-format", "stream-json",
            "--verbose", "--session-id", session, "--allowedTools", "Bash"]  # fmt: skip
    process = subprocess.Popen(
        args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=work
    )
    assert process.stdin is not None and process.stdout is not None
    for exchange in SCRIPT:
        said = {"type": "user", "message": {"role": "user", "content": exchange["user"]}}
        process.stdin.write(json.dumps(said) + "\n")
        process.stdin.flush()
        for line in process.stdout:
            if '"type":"result"' in line:
                break
    process.stdin.close()
    assert process.wait(timeout=120) == 0
    process.stdout.close()
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
    assert f"chitin reinforce {touched[0]['id']} --source" in " ".join(digest["commands"])
