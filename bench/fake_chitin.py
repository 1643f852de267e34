"""A chitin that gets everything wrong, for ``stress_mcp.py --self-check``: each check of
the stress script must catch the fault meant for it (a check that cannot fail proves
nothing), and a run with no fault must pass.

    python bench/fake_chitin.py --store S (init | embed | list | check | mcp)

Its ``mcp`` speaks just enough JSON-RPC. What it does wrong depends on the run number
in the store's name (``…/r0002.store``: run 2); see FAULTS in stress_mcp.py.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

GIT = ["git", "-c", "user.name=fake", "-c", "user.email=fake@example.invalid"]


def git(store: Path, *args: str) -> None:
    subprocess.run([*GIT, "-C", str(store), *args], check=True, capture_output=True)


def run_number(store: Path) -> int | None:
    found = re.search(r"r(\d{4})\.", store.name)
    return int(found.group(1)) if found else None


def answer(ident: object, result: dict[str, object]) -> None:
    print(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}), flush=True)


def tool_result(data: dict[str, object], error: bool = False) -> dict[str, object]:
    text = json.dumps(data)
    return {
        "content": [{"type": "text", "text": text}],
        "structuredContent": data,
        "isError": error,
    }


def contribute(store: Path, step: int, fault: str) -> str:
    """Write and commit one insight, as the real one does, or not, as ``fault`` says."""
    ident = f"fake-{os.getpid()}-{step}"
    path = store / "insights" / "skill" / f"{ident}.md"
    path.write_text(f"---\nid: {ident}\n---\n\nFake {step}\n", encoding="utf-8")
    if fault == "uncommitted":
        return ident
    git(store, "add", str(path))
    git(store, "commit", "-q", "-m", f"Contribute {ident}")
    if fault == "two commits":
        git(store, "commit", "-q", "--allow-empty", "-m", "a second commit")
    if fault == "ghost":
        (store / ".git" / "index.lock").write_text("")
        return "never-written"
    return ident


def serve(store: Path) -> int:
    number = run_number(store)
    fault = {
        # sessions (stress_mcp.py --self-check runs 4: 0 and 2 on a store, 1 and 3 missing)
        0: "noisy",
        1: "creates",
        2: "hangs",
        3: "none",
    }.get(number if number is not None and number < 4 else -1, "none")
    if store.name.endswith(".store") and number is not None and number >= 100:
        # signals (runs 100-103): 100, 102 get SIGTERM; 101, 103 SIGKILL
        fault = {100: "deaf", 101: "ghost", 102: "two commits", 103: "mute"}[number]
    if fault == "creates":
        store.mkdir(parents=True, exist_ok=True)
    if fault in ("noisy", "deaf", "two commits"):
        subprocess.Popen(["sh", "-c", "sleep 30", "fake-leftover", str(store)])
        print("a stray line on stdout", flush=True)
        print('Traceback (most recent call last):\n  File "fake.py", line 1\nValueError: x',
              file=sys.stderr, flush=True)  # fmt: skip
    if fault == "deaf":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    step = 0
    for line in sys.stdin:
        message = json.loads(line)
        method, ident = message.get("method"), message.get("id")
        if ident is None:
            continue
        if method == "initialize":
            if fault == "mute":
                continue
            answer(ident, {"protocolVersion": "2025-11-25", "capabilities": {},
                           "serverInfo": {"name": "fake", "version": "0"}})  # fmt: skip
        elif method == "tools/call" and message["params"]["name"] == "retrieve":
            if fault == "hangs":
                answer(ident, tool_result({"context": "", "insights": []}, error=True))
                continue
            empty = fault == "noisy"
            data = {"context": "" if empty else "### Skill\n- x", "insights": [] if empty else [{}]}
            answer(ident, tool_result(data))
        elif method == "tools/call":
            if fault == "two commits" and step == 0:
                step += 1
                answer(ident, tool_result({"error": "refused"}, error=True))
                continue
            made = contribute(store, step, fault if fault != "deaf" else "uncommitted")
            step += 1
            answer(ident, tool_result({"insight": {"id": made}}))
        elif method == "resources/read":
            if fault == "hangs":
                continue
            answer(ident, {"contents": [{"uri": "personality://current", "text": "### Skill"}]})
    if fault == "hangs":
        time.sleep(30)
    return 3 if fault == "noisy" else 0


def main(argv: list[str]) -> int:
    store, command = Path(argv[1]), argv[2]
    locked = (store / ".git" / "index.lock").exists()
    if command == "init":
        (store / "insights" / "skill").mkdir(parents=True)
        (store / ".gitignore").write_text(".chitin/\n")
        (store / "insights" / "skill" / "seed.md").write_text("---\nid: seed\n---\n\nSeed\n")
        git(store, "init", "-q")
        git(store, "add", "-A")
        git(store, "commit", "-q", "-m", "seed")
        return 0
    if command in ("list", "check"):
        if locked:
            print(f"Error: {store}/.git/index.lock exists", file=sys.stderr)
            return 1
        print("[]")
        return 0
    if command == "mcp":
        return serve(store)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
