"""Start a Claude Code session in 100 new project folders, and count the ones that
start with nothing injected.

    python bench/new_folders.py               # 100 runs
    python bench/new_folders.py --runs 30

Setup, once: a private home, and `chitin hooks install claude-code` into its
~/.claude/settings.json (the user-wide settings, which Claude Code runs in every
project). Each run then makes a project folder never seen before (names with spaces,
accents, CJK, emoji, quotes, `$`, a leading dash, 200 characters, ...), and runs the
SessionStart command line from those settings as Claude Code does: `sh -c COMMAND`, in
the folder, with the documented event on stdin (session_id, transcript_path, cwd,
permission_mode, hook_event_name, source, model) and the settings' timeout.

The store differs from run to run, in turn:
- ``missing``: a fresh path that does not exist yet ($CHITIN_STORE naming it);
- ``default``: no $CHITIN_STORE and a fresh home, so the default store is missing too;
- ``seeded``: one existing store made by `chitin init --seed`, shared by these runs;
- ``empty``: one existing store made by `chitin init`, with no insights;
- ``new-cache``: the seeded store, on a new machine: a fresh, empty $XDG_CACHE_HOME
  (where the local model is prepared on first use).
The source cycles through startup, resume, clear and compact. The background
embedding is off ($CHITIN_BACKGROUND_EMBED=off), so that no run leaves a process
behind; the seeded store's starters carry their vectors anyway.

A run fails when it times out, exits non-zero, prints nothing, prints anything but the
documented {"hookSpecificOutput": {"hookEventName": "SessionStart",
"additionalContext": ...}}, gives a missing or empty additionalContext, gives more than
Claude Code's 10,000-character cap, or creates a store that was missing. The counts are
printed; the exit status is 1 if any run failed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as bench  # bench/run.py: the environment and the default chitin

CAP = 10_000  # Claude Code's cap on a hook's additionalContext (code.claude.com/docs/en/hooks)
SOURCES = ("startup", "resume", "clear", "compact")
STORES = ("missing", "default", "seeded", "empty", "new-cache")
NAMES = (
    "billing-service",
    "My Project",
    "ünïcødé-проект",
    "数据管道",
    "emoji-🚀-app",
    'it\'s "quoted"',
    "$HOME-and-$(echo x)",
    "-leading-dash",
    "back\\slash",
    ".hidden",
    "x" * 200,
    "tab\tand  spaces",
    "semi;colon && true",
    "percent%s{braces}",
    "glob*?[x]",
    "new\nline",
    "trailing.dot.",
    "UPPER_case_123",
)


@dataclass
class Run:
    number: int
    store_kind: str
    source: str
    folder: Path
    failure: str | None  # the kind of failure, or None
    detail: str = ""


def setup(chitin: str, root: Path, env: dict[str, str]) -> tuple[str, int, dict[str, Path]]:
    """The SessionStart command and timeout from a user-wide install, and the stores."""
    home = root / "home"
    home.mkdir()
    install_env = {**env, "HOME": str(home)}
    subprocess.run(
        [chitin, "hooks", "install", "claude-code"],
        check=True,
        capture_output=True,
        env=install_env,
    )
    settings = json.loads((home / ".claude" / "settings.json").read_text(encoding="utf-8"))
    [group] = settings["hooks"]["SessionStart"]
    [hook] = group["hooks"]
    stores = {"seeded": root / "stores" / "seeded", "empty": root / "stores" / "empty"}
    for kind, args in (("seeded", ["init", "--seed"]), ("empty", ["init"])):
        subprocess.run(
            [chitin, "--store", str(stores[kind]), *args],
            check=True,
            capture_output=True,
            env=install_env,
        )
    return hook["command"], int(hook["timeout"]), stores


def one_run(
    number: int,
    root: Path,
    command: str,
    timeout: int,
    stores: dict[str, Path],
    base: dict[str, str],
) -> Run:
    store_kind = STORES[number % len(STORES)]
    source = SOURCES[(number // len(STORES)) % len(SOURCES)]
    folder = root / "projects" / f"{number:03d}" / NAMES[number % len(NAMES)]
    folder.mkdir(parents=True)
    home = root / "home"
    env = {**base, "HOME": str(home)}
    env.pop("XDG_DATA_HOME", None)
    missing: Path | None = None
    if store_kind == "missing":
        missing = root / "fresh" / f"store-{number}"
        env["CHITIN_STORE"] = str(missing)
    elif store_kind == "default":
        home = root / "homes" / f"home-{number}"
        home.mkdir(parents=True)
        env["HOME"] = str(home)
        missing = home / ".local" / "share" / "chitin"
    elif store_kind == "new-cache":
        env["CHITIN_STORE"] = str(stores["seeded"])
        env["XDG_CACHE_HOME"] = str(root / "caches" / f"cache-{number}")
    else:
        env["CHITIN_STORE"] = str(stores[store_kind])
    session = str(uuid.uuid4())
    event = {
        "session_id": session,
        "transcript_path": str(home / ".claude" / "projects" / f"p{number}" / f"{session}.jsonl"),
        "cwd": str(folder),
        "permission_mode": "default",
        "hook_event_name": "SessionStart",
        "source": source,
        "model": "claude-sonnet-4-6",
    }
    try:
        done = subprocess.run(
            ["sh", "-c", command],
            cwd=folder,
            input=json.dumps(event).encode("utf-8"),
            capture_output=True,
            env=env,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return Run(number, store_kind, source, folder, "timeout", f"over {timeout} s")
    failure, detail = judge(done)
    if failure is None and missing is not None and missing.exists():
        failure, detail = "created the missing store", str(missing)
    return Run(number, store_kind, source, folder, failure, detail)


def judge(done: subprocess.CompletedProcess[bytes]) -> tuple[str | None, str]:
    stderr = done.stderr.decode("utf-8", "replace").strip()
    first = stderr.splitlines()[0] if stderr else ""
    if done.returncode != 0:
        return f"exit {done.returncode}", first
    if not done.stdout.strip():
        return "nothing on stdout", first
    try:
        output: Any = json.loads(done.stdout.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        return "stdout is not JSON", str(error)
    specific = output.get("hookSpecificOutput") if isinstance(output, dict) else None
    if not isinstance(specific, dict) or specific.get("hookEventName") != "SessionStart":
        return "not the documented shape", done.stdout.decode("utf-8", "replace")[:200]
    context = specific.get("additionalContext")
    if not isinstance(context, str) or not context.strip():
        return "additionalContext missing or empty", first
    if len(context.encode("utf-16-le")) // 2 > CAP:
        return "over Claude Code's cap", f"{len(context)} characters"
    return None, ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100, help="runs (default 100)")
    parser.add_argument("--chitin", default=bench.default_chitin(), help="default: the venv's")
    args = parser.parse_args(argv)
    base = bench.child_env(bytecode_cache=True)
    base["CHITIN_BACKGROUND_EMBED"] = "off"
    # The model cache stays the machine's, as it is for every session on it.
    base.setdefault("XDG_CACHE_HOME", str(Path.home() / ".cache"))
    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="chitin-new-folders-") as folder:
        root = Path(folder)
        command, timeout, stores = setup(args.chitin, root, base)
        bench.log(f"  SessionStart runs: {command}  (timeout {timeout} s)")
        for number in range(args.runs):
            runs.append(one_run(number, root, command, timeout, stores, base))
            if (number + 1) % 10 == 0:
                bench.log(f"  {number + 1} runs")
        shutil.rmtree(root / "projects", ignore_errors=True)
    empty = sum(1 for r in runs if r.failure is not None)
    print(f"{len(runs)} session starts in new folders; {empty} injected nothing or failed")
    by_store = Counter(r.store_kind for r in runs)
    failed_by_store = Counter(r.store_kind for r in runs if r.failure)
    for kind in STORES:
        print(f"  {kind:9} {by_store[kind]:4} runs, {failed_by_store[kind]:3} failed")
    kinds = Counter(r.failure for r in runs if r.failure)
    for kind, count in kinds.most_common():
        print(f"  {count:4} × {kind}")
    for failed in [r for r in runs if r.failure][:15]:
        print(
            f"    run {failed.number} ({failed.store_kind}, {failed.source}, folder "
            f"{failed.folder.name!r}): {failed.failure}: {failed.detail}"
        )
    return 1 if empty else 0


if __name__ == "__main__":
    os.umask(0o022)
    sys.exit(main())
