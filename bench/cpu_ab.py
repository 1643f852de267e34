"""CPU time of one chitin command, two builds interleaved: before, after, before, after, ...

    python bench/cpu_ab.py --before OLD/bin/chitin --after NEW/bin/chitin \\
        --store STORE [--home HOME] [--runs 11] -- get some-id

On a machine shared with other work, wall times drift by tens of percent within minutes;
the CPU a command uses (user + system, its children such as git included) drifts much
less, so a change is judged by it (docs/design.md §9f). Wall medians are printed too.
The environment is perf-vs-orig's for our side: a clean one, HOME (and the XDG folders)
at ``--home``, TZ=UTC, GIT_CONFIG_GLOBAL=/dev/null, background embedding off (so that no
worker started by a run competes with the next).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence


def environment(home: str) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": home,
        "TZ": "UTC",
        "XDG_CONFIG_HOME": f"{home}/.config",
        "XDG_DATA_HOME": f"{home}/.local/share",
        "XDG_CACHE_HOME": f"{home}/.cache",
        "XDG_STATE_HOME": f"{home}/.local/state",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "CHITIN_BACKGROUND_EMBED": "off",
    }


def one(argv: Sequence[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process and its children) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", required=True, help="the old build's chitin")
    parser.add_argument("--after", required=True, help="the new build's chitin")
    parser.add_argument("--store", required=True)
    parser.add_argument("--home", default=os.environ.get("HOME", "/tmp"))
    parser.add_argument("--runs", type=int, default=11, help="counted pairs (after 1 warm-up)")
    parser.add_argument("command", nargs="+", help="the chitin command and its arguments")
    args = parser.parse_args(argv)
    env = environment(args.home)
    runs: dict[str, list[tuple[float, float]]] = {"before": [], "after": []}
    for pair in range(args.runs + 1):
        for name in ("before", "after"):
            measured = one([getattr(args, name), "--store", args.store, *args.command], env)
            if pair:  # the first pair warms the caches
                runs[name].append(measured)
    cpu = {k: statistics.median(c for _, c in v) * 1000 for k, v in runs.items()}
    wall = {k: statistics.median(w for w, _ in v) * 1000 for k, v in runs.items()}
    print(
        f"{' '.join(args.command)[:40]:40s} cpu {cpu['before']:5.0f} -> {cpu['after']:5.0f} ms"
        f"   wall {wall['before']:5.0f} -> {wall['after']:5.0f} ms"
        f"   (load {os.getloadavg()[0]:.1f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
