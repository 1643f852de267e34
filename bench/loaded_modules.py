"""What each session-start command imports, before and after: the modules one loads
and the other does not, with their import time, and the medians of whole processes.

    python bench/loaded_modules.py --before /path/to/old/venv/bin/chitin --runs 7

An import moved from a function to the top of its module must not make a command load
more: the import happens either way when the function runs, but a top-level one also
happens on every path that merely loads the module. This script shows the difference
as sets of module names (deterministic, unlike timings), from ``-X importtime``
(``PYTHONPROFILEIMPORTTIME``), on the 1,000-insight store of bench/run.py and on the
starter store of ``init --seed``. The timings are interleaved, before and after
alternately, so both meet the same load on a shared machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as bench  # bench/run.py: the stores and the environment

TEXT = "embedding: {provider: none}\n"


def loaded(argv: Sequence[str], env: dict[str, str]) -> dict[str, int]:
    """module → its own import time in µs, for one run of ``argv``."""
    done = subprocess.run(
        argv,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**env, "PYTHONPROFILEIMPORTTIME": "1"},
    )
    modules: dict[str, int] = {}
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, _cumulative, name = line.removeprefix("import time:").split("|")
        modules[name.strip()] = int(own)
    return modules


def wall(argv: Sequence[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return (time.perf_counter() - started) * 1000


def compare(name: str, argvs: dict[str, list[str]], runs: int, env: dict[str, str]) -> None:
    for _ in range(2):  # warm-ups: the first run may rebuild a cache or embed the query
        for argv in argvs.values():
            wall(argv, env)
    sets = {label: loaded(argv, env) for label, argv in argvs.items()}
    times: dict[str, list[float]] = {label: [] for label in argvs}
    for run in range(runs):
        order = list(argvs) if run % 2 == 0 else list(reversed(argvs))
        for label in order:
            times[label].append(wall(argvs[label], env))
    before, after = sets["before"], sets["after"]
    more = sorted(set(after) - set(before))
    fewer = sorted(set(before) - set(after))
    medians = {label: statistics.median(t) if t else 0.0 for label, t in times.items()}
    print(
        f"{name:24} modules {len(before):4} → {len(after):4}   "
        f"median ms {medians['before']:6.0f} → {medians['after']:6.0f}"
    )
    for sign, names, source in (("+", more, after), ("-", fewer, before)):
        if names:
            cost = sum(source[n] for n in names) / 1000
            print(f"    {sign} {cost:5.1f} ms own import time: {' '.join(names)}")


def commands(chitin: str, store: Path, ident: str) -> dict[str, list[str]]:
    at = [chitin, "--store", str(store)]
    return {
        "--version": [chitin, "--version"],
        "get": [*at, "get", ident],
        "stats": [*at, "stats"],
        "retrieve --query": [*at, "retrieve", "--query", "plan the release"],
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="the chitin to compare against")
    parser.add_argument("--after", default=bench.default_chitin(), help="default: the venv's")
    parser.add_argument(
        "--runs",
        type=int,
        default=7,
        help="rounds per command (default 7; 0: the module sets only)",
    )
    args = parser.parse_args(argv)
    env = bench.child_env(bytecode_cache=True)
    env["CHITIN_BACKGROUND_EMBED"] = "off"
    built = bench.ensure_store(1000, args.after, False, env)
    config = built.root / "chitin.yaml"
    with tempfile.TemporaryDirectory() as folder:
        seeded = Path(folder) / "seeded"
        subprocess.run([args.after, "--store", str(seeded), "init", "--seed"], env=env, check=True)
        seed_id = next((seeded / "insights").rglob("*.md")).stem
        stores = [("1,000", built.root, built.sample_ids[0]), ("seeded", seeded, seed_id)]
        config.write_text(TEXT)  # retrieve by text: the model's load is not the question
        stamp = time.time_ns() - 10**10  # older than chitin's racy window
        os.utime(config, ns=(stamp, stamp))
        try:
            for label, store, ident in stores:
                before = commands(args.before, store, ident)
                after = commands(args.after, store, ident)
                for name in before:
                    if name == "--version" and label != "1,000":
                        continue  # the same with any store
                    pair = {"before": before[name], "after": after[name]}
                    compare(f"{name} ({label})", pair, args.runs, env)
        finally:
            config.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
