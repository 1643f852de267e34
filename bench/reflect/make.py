"""Make issue 26's labelled set: each scenario played by the real Claude Code (npm,
installed by scripts/install_mcp_clients.py) against a loopback model that answers
from the scenario, its transcript kept as Claude Code wrote it, and the same session
written as an OpenClaw session file (version 4) with the real tool outputs.

    python bench/reflect/make.py [NAME ...]           # the tuning set, into sessions/
    python bench/reflect/make.py --convert            # only the converted OpenClaw files
    python bench/reflect/make.py --scenarios heldout  # the held-out set, sessions-heldout/

The labels stay in the scenario module (bench/reflect/sets.py names the sets).

Offline: the model is on 127.0.0.1, the tool calls run in a scratch folder.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from hosts import claude_env, claude_session, serving  # noqa: E402
from loopback import Model  # noqa: E402
from sets import ScenarioSet, add_argument, load  # noqa: E402

FILES = {
    "README.md": "# demo\nA demo project.\nversion = 0.1\n",
    "src/app.py": "def main():\n    print('hello')\n\nmain()\n",
    "tests/test_app.py": "def test_app():\n    assert True\n",
    "Makefile": "all:\n\techo hi\n",
    "config/.keep": "",
    "logs/app.log": "started\n",
    "requirements.txt": "httpx\n",
}


def claude_program() -> Path:
    """$CLAUDE_BIN, else the pinned Claude Code that scripts/install_mcp_clients.py
    (issue 28's) installs into ~/.cache/chitin-ci."""
    if os.environ.get("CLAUDE_BIN"):
        return Path(os.environ["CLAUDE_BIN"])
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "chitin-ci"
    found = sorted(cache.glob("mcp-clients-*/node_modules/.bin/claude"))
    if not found:
        sys.exit("no Claude Code: set $CLAUDE_BIN, or run scripts/install_mcp_clients.py")
    return found[-1]


def scratch(folder: Path) -> Path:
    work = folder / "work"
    for name, text in FILES.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text)
    return work


def play(claude: Path, model: Model, script: list[dict[str, Any]], folder: Path) -> Path:
    """One session, one user message at a time (each after the last turn's result);
    the transcript Claude Code wrote."""
    home, work = folder / "home", scratch(folder)
    home.mkdir(parents=True, exist_ok=True)
    session = str(uuid.uuid4())
    model.load(script)
    claude_session(claude, script, session, claude_env(home, model.url, os.environ["PATH"]), work)
    [transcript] = (home / ".claude" / "projects").glob(f"*/{session}.jsonl")
    return transcript


def as_openclaw(transcript: Path, session: str) -> str:
    """The same session as OpenClaw's session file, version 4: a header, then one
    message entry per message (tool calls as ``toolCall`` blocks named ``exec``, their
    results as ``toolResult`` messages)."""
    lines = [{"type": "session", "version": 4, "id": session, "timestamp": None, "cwd": "/work"}]
    parent = None
    for raw in transcript.read_text().splitlines():
        entry = json.loads(raw)
        if entry.get("type") not in ("user", "assistant") or entry.get("isMeta"):
            continue
        for message in _openclaw_messages(entry["message"]):
            ident = uuid.uuid4().hex[:8]
            lines.append({"type": "message", "id": ident, "parentId": parent,
                          "timestamp": entry.get("timestamp"), "message": message})  # fmt: skip
            parent = ident
    lines[0]["timestamp"] = lines[1]["timestamp"] if len(lines) > 1 else None
    return "".join(json.dumps(line) + "\n" for line in lines)


def _openclaw_messages(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    role = message.get("role")
    if isinstance(content, str):
        return [{"role": role, "content": [{"type": "text", "text": content}]}]
    found: list[dict[str, Any]] = []
    for block in content or []:
        if block.get("type") == "text":
            found.append({"role": role, "content": [{"type": "text", "text": block["text"]}]})
        elif block.get("type") == "tool_use":
            call = {"type": "toolCall", "id": block["id"], "name": "exec",
                    "arguments": {"command": block["input"].get("command", "")}}  # fmt: skip
            found.append({"role": "assistant", "content": [call]})
        elif block.get("type") == "tool_result":
            found.append(_exec_result(block))
    return found


def _exec_result(block: dict[str, Any]) -> dict[str, Any]:
    """A Bash result as OpenClaw's exec tool records one: the exit code in ``details``
    and said at the end of the text, ``isError`` false (as the real OpenClaw does)."""
    text = block.get("content")
    text = text if isinstance(text, str) else json.dumps(text)
    code = 0
    first, _, rest = text.partition("\n")
    if block.get("is_error") and first.startswith("Exit code "):
        code, text = int(first.removeprefix("Exit code ")), rest
        text += f"\n\n(Command exited with code {code})"
    elif block.get("is_error"):
        code = 1
    return {"role": "toolResult", "toolCallId": block["tool_use_id"], "toolName": "exec",
            "content": [{"type": "text", "text": text}],
            "details": {"status": "completed", "exitCode": code}, "isError": False}  # fmt: skip


def convert(chosen: ScenarioSet) -> None:
    for number, item in enumerate(chosen.scenarios):
        transcript = chosen.folder / "claude-code" / f"{item['name']}.jsonl"
        oc = as_openclaw(transcript, f"oc-{number:03d}")
        (chosen.folder / "openclaw" / f"{item['name']}.jsonl").write_text(oc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_argument(parser)
    parser.add_argument("--convert", action="store_true", help="only the converted files")
    parser.add_argument("names", nargs="*", help="only these scenarios (default: all)")
    options = parser.parse_args()
    chosen = load(options.scenarios)
    # Converted sessions are kept for the tuning set only, as an extra: the held-out
    # set is scored on what the real hosts wrote.
    converting = chosen.name == "tuning"
    if options.convert:
        convert(chosen)
        return
    claude = claude_program()
    for host in ("claude-code", "openclaw") if converting else ("claude-code",):
        (chosen.folder / host).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as temporary, serving(Model()) as model:
        for number, item in enumerate(chosen.scenarios):
            name = item["name"]
            if options.names and name not in options.names:
                continue
            transcript = play(claude, model, item["exchanges"], Path(temporary) / name)
            (chosen.folder / "claude-code" / f"{name}.jsonl").write_text(transcript.read_text())
            if converting:
                oc = as_openclaw(transcript, f"oc-{number:03d}")
                (chosen.folder / "openclaw" / f"{name}.jsonl").write_text(oc)
            print(f"{name}: {len(transcript.read_text().splitlines())} lines", flush=True)


if __name__ == "__main__":
    main()
