"""Time two chitins' writes side by side, interleaved, on one copy of a bench store.

    python bench/compare_writes.py --before OLD/bin/chitin --after NEW/bin/chitin \\
        --size 10000 --runs 21

compare.py times the session start; this times what issue 11 made heavier: `list`,
`reinforce` and `contribute`, alternating before and after (and which goes first) so
that both see the same stretch of a noisy machine. The store is a copy of
bench/stores/<size>/store (build it with bench/run.py), removed afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

STORES = Path(__file__).resolve().parent / "stores"


def timed(program: str, store: Path, args: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    result = subprocess.run([program, "--store", str(store), *args], capture_output=True, env=env)
    elapsed = (time.perf_counter() - started) * 1000
    if result.returncode != 0:
        raise SystemExit(f"{program} {' '.join(args)} failed: {result.stderr.decode()[:300]}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="the chitin to compare against")
    parser.add_argument("--after", required=True, help="the chitin to compare")
    parser.add_argument("--size", type=int, default=10000, help="bench store size")
    parser.add_argument("--runs", type=int, default=15, help="rounds (default 15)")
    args = parser.parse_args()
    source = STORES / str(args.size) / "store"
    if not source.is_dir():
        raise SystemExit(f"no {source}: build it with python bench/run.py --sizes {args.size}")
    env = dict(os.environ, CHITIN_BACKGROUND_EMBED="off")
    builds = {"before": args.before, "after": args.after}
    with tempfile.TemporaryDirectory(prefix="chitin-writes-") as folder:
        store = Path(folder) / "store"
        shutil.copytree(source, store, symlinks=True)
        for program in builds.values():  # each brings the cache in step once, untimed
            timed(program, store, ["stats"], env)
        listed = subprocess.run(
            [args.after, "--store", str(store), "list", "--format", "json"],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        target = json.loads(listed.stdout)[5]["id"]
        times: dict[tuple[str, str], list[float]] = {}
        for number in range(args.runs):
            order = list(builds.items()) if number % 2 == 0 else list(builds.items())[::-1]
            for command in ("list", "reinforce", "contribute"):
                for name, program in order:
                    argv = {
                        "list": ["list"],
                        "reinforce": ["reinforce", target],
                        "contribute": [
                            "contribute",
                            "--type",
                            "skill",
                            "--claim",
                            f"Bench claim {number} from {name} about timing",
                            "--confidence",
                            "0.5",
                            "--force",
                        ],
                    }[command]
                    times.setdefault((command, name), []).append(timed(program, store, argv, env))
    print(f"{args.size:,} insights, {args.runs} interleaved rounds, medians:")
    for command in ("list", "reinforce", "contribute"):
        before = statistics.median(times[(command, "before")])
        after = statistics.median(times[(command, "after")])
        print(
            f"  {command:>10}: before {before:6.0f} ms   after {after:6.0f} ms   "
            f"ratio {after / before:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
