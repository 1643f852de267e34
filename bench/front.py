"""The resident CLI front (chitin/front/), before and after in one run: whole ``chitin``
processes, the front off and on interleaved, medians.

    python bench/front.py [--chitin BIN] [--runs 15] STORE [STORE ...]

Each STORE (perf-vs-orig's with ``KEEP=1 OUT=DIR``: ``DIR/N1000/ours/store``) is read
by ``--version``, ``get``, ``stats``, ``list`` and ``retrieve``; the environment is
perf-vs-orig's (no CHITIN_/PYTHON*/XDG_ variables, a HOME of its own), with
``CHITIN_FRONT`` 0 or 1. The front is started, and answering, before the first count.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from warm_start import timed  # one whole process, timed; its failure ends the run

QUERY = "how should I review a pull request before merging"
ISOLATE = ("CHITIN_", "PYTHON", "XDG_", "GIT_", "VOYAGE_", "OPENAI_")


def environment(home: Path, front: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(ISOLATE)}
    env.update(HOME=str(home), TZ="UTC", CHITIN_FRONT=front)
    return env


def operations(store: Path, chitin: str, env: dict[str, str]) -> dict[str, list[str]]:
    listed = subprocess.run(
        [chitin, "--store", str(store), "list", "--format", "json"],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    found = json.loads(listed.stdout)
    rows = found.get("insights", found) if isinstance(found, dict) else found
    first = rows[0]["id"]
    at = ["--store", str(store)]
    return {
        "--version": ["--version"],
        "get": [*at, "get", first],
        "stats": [*at, "stats"],
        "list": [*at, "list"],
        "retrieve": [*at, "retrieve", "--query", QUERY, "--budget", "5000", "--format", "json"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stores", nargs="+", type=Path)
    parser.add_argument("--chitin", default=shutil.which("chitin") or "chitin")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="bench-front-"))
    off, on = environment(home, "0"), environment(home, "1")
    print(f"{'store':>8} {'command':<10} {'off (s)':>8} {'on (s)':>8} {'on/off':>7}")
    for store in args.stores:
        ops = operations(store, args.chitin, off)
        for name, rest in ops.items():
            argv = [args.chitin, *rest]
            for _ in range(3):  # the first starts the front; then it answers
                timed(argv, on)
                time.sleep(0.5)
            before, after = [], []
            for _ in range(args.runs):
                before.append(timed(argv, off))
                after.append(timed(argv, on))
            a, b = statistics.median(before), statistics.median(after)
            size = store.parent.parent.name
            print(f"{size:>8} {name:<10} {a:8.3f} {b:8.3f} {b / a:7.2f}", flush=True)
    shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
