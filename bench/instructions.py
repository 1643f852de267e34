"""Count the instructions two chitins run for the same commands: before and after.

    python bench/instructions.py --before /path/to/old/venv/bin/chitin \
        --after .venv/bin/chitin --size 10000 --runs 3

Wall and CPU times of whole processes wander by several percent on a shared machine;
the instructions valgrind's callgrind counts wander by well under one, so a change of
a few tenths of a percent (a compile at import, a few steps more per row) shows. Each
command runs once unmeasured (the cache is built, the bytecode cached), then ``--runs``
times under callgrind, before and after interleaved; the table gives the medians.
Each chitin runs on its own copy of bench/stores/<size>/store (bench/run.py builds
it), so that two cache schemas never rebuild one shared cache. Retrieval is by text
only: background embedding is off. Needs valgrind.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as bench  # bench/run.py: the stores and the environment

COLLECTED = re.compile(r"Collected : (\d+)")


def commands(store: Path) -> dict[str, list[str]]:
    """name → the arguments after ``--store``: an id of the store for get."""
    some_id = next((store / "insights" / "skill").glob("*.md")).stem
    return {
        "get": ["get", some_id],
        "list": ["list"],
        "retrieve": ["retrieve", "--query", some_id.replace("-", " "), "--format", "full"],
    }


def counted(chitin: str, store: Path, args: list[str], env: dict[str, str]) -> int:
    """The instructions callgrind counts for one ``chitin --store STORE ARGS``."""
    with tempfile.TemporaryDirectory() as scratch:
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={scratch}/out",
             chitin, "--store", str(store), *args],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, check=False,
        )  # fmt: skip
    found = COLLECTED.search(done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"{chitin} {' '.join(args)} failed: {done.stderr.strip()[-500:]}")
    return int(found.group(1))


def compare(chitins: dict[str, str], size: int, runs: int) -> None:
    env = {**bench.child_env(bytecode_cache=True), "CHITIN_BACKGROUND_EMBED": "off"}
    source = bench.STORES_DIR / str(size) / "store"
    with tempfile.TemporaryDirectory() as folder:
        stores = {}
        for side in chitins:
            stores[side] = Path(folder) / side
            shutil.copytree(source, stores[side], symlinks=True, ignore=_derived)
        for name, args in commands(source).items():
            counts: dict[str, list[int]] = {side: [] for side in chitins}
            for side, chitin in chitins.items():  # unmeasured: the cache and the bytecode
                subprocess.run([chitin, "--store", str(stores[side]), *args], env=env,
                               capture_output=True, check=False)  # fmt: skip
            for run in range(runs):
                order = list(chitins) if run % 2 == 0 else list(reversed(chitins))
                for side in order:
                    counts[side].append(counted(chitins[side], stores[side], args, env))
            before, after = (statistics.median(counts[side]) for side in ("before", "after"))
            print(f"{name:9} {before / 1e6:9.1f} M  {after / 1e6:9.1f} M  "
                  f"{(after / before - 1) * 100:+5.2f}%")  # fmt: skip


def _derived(folder: str, names: list[str]) -> list[str]:
    return [".chitin"] if ".chitin" in names else []


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="the chitin console script before")
    parser.add_argument("--after", required=True, help="the chitin console script after")
    parser.add_argument("--size", type=int, default=10000, help="the store (bench/stores/N)")
    parser.add_argument("--runs", type=int, default=3, help="measured runs of each command")
    options = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        parser.error("valgrind is not installed")
    print(f"{'command':9} {'before':>11}  {'after':>11}  change   (median instructions)")
    compare({"before": options.before, "after": options.after}, options.size, options.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
