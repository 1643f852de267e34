"""Does a background embedding of *another* store slow a contribute? Interleaved pairs of
fresh ``contribute --force`` processes with the worker stopped (SIGSTOP), then running
(SIGCONT): the medians of wall and CPU (the process and its git children), and the
worker's CPU ticks during each running contribute.

    python bench/background_yield.py --chitin VENV/bin/chitin --store STORE \\
        --worker-store BIG [--home HOME] [--pairs 12] [--settle 8]

STORE is contributed to as it is (use a copy: perf-vs-orig's ``store-contrib`` with
KEEP=1); BIG (a store with many insights and no vectors, e.g. a copy of perf-vs-orig's
N10000 store without ``.chitin/vectors``) gets a `retrieve`, which starts its
background embedding the way a session start does; the worker is killed at the end.
HOME should hold the prepared model (perf-vs-orig's ``ours-home``). Both run in
perf-vs-orig's environment, so they share this user's folder of the moment
(/tmp/chitin-<uid>), where the mark of commands lives (docs/design.md §9g).
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")


def environment(home: Path, background: str) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "TZ": "UTC",
        "XDG_CACHE_HOME": str(home / ".cache"),
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "CHITIN_BACKGROUND_EMBED": background,
    }


def start_worker(chitin: str, store: Path, home: Path) -> int:
    subprocess.run(
        [chitin, "--store", str(store), "retrieve", "--query", "fix the failing build"],
        env=environment(home, "on"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
    )
    needle = f"{store} embed --background-worker".encode()
    for _ in range(100):
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                if needle in Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" "):
                    return int(pid)
            except OSError:
                continue
        time.sleep(0.05)
    raise SystemExit("no background worker started (is the store already embedded?)")


def ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def contribute(chitin: str, store: Path, home: Path, claim: str) -> tuple[float, float]:
    argv = [chitin, "--store", str(store), "contribute", "--force", "--type", "behavioral"]
    argv += ["--claim", claim, "--confidence", "0.7", "--tags", "bench"]
    started = time.perf_counter()
    process = subprocess.Popen(
        argv, env=environment(home, "off"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, _, usage = os.wait4(process.pid, 0)
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chitin", required=True)
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--worker-store", type=Path, required=True)
    parser.add_argument("--home", type=Path, default=Path.home())
    parser.add_argument("--pairs", type=int, default=12)
    parser.add_argument(
        "--settle", type=float, default=8.0, help="seconds for the worker's start and first chunk"
    )
    args = parser.parse_args()
    worker = start_worker(args.chitin, args.worker_store, args.home)
    found: dict[str, list[tuple[float, float]]] = {"stopped": [], "running": []}
    used: list[int] = []
    try:
        # Past the worker's start and its first chunk, which it embeds after one quiet
        # second whatever comes next (it looks for commands between chunks).
        time.sleep(args.settle)
        for k in range(args.pairs + 1):  # the first pair is not counted
            claim = f"Keep release notes concise and list the breaking changes first ({k})"
            os.kill(worker, signal.SIGSTOP)
            time.sleep(0.3)
            stopped = contribute(args.chitin, args.store, args.home, f"{claim} s")
            os.kill(worker, signal.SIGCONT)
            time.sleep(0.3)
            before = ticks(worker)
            running = contribute(args.chitin, args.store, args.home, f"{claim} r")
            if k:
                found["stopped"].append(stopped)
                found["running"].append(running)
                used.append(ticks(worker) - before)
    finally:
        os.kill(worker, signal.SIGCONT)
        os.kill(worker, signal.SIGTERM)
    print(f"{args.chitin} pairs={args.pairs} load={os.getloadavg()[0]:.1f}")
    for state, rows in found.items():
        wall = statistics.median(r[0] for r in rows) * 1000
        cpu = statistics.median(r[1] for r in rows) * 1000
        print(f"  worker {state}: wall median {wall:.0f} ms, CPU median {cpu:.0f} ms")
    print(f"  worker's CPU during each running contribute (ticks of 1/{TICKS} s): {used}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
