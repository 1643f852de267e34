"""Time two chitins side by side, on the same stores, in one run: before and after.

    python bench/compare.py --before /path/to/old/venv/bin/chitin --sizes 1000,10000

A machine shared with other work drifts by tens of percent within minutes, so the two
are measured interleaved: before, after, before, after, … on each command, and each
median is taken over the same stretch of time. The table gives the medians and the
time beyond ``chitin --version`` (what a command costs over starting the program),
with the ratio of after to before. Stores come from bench/run.py (bench/stores/); the
before runs on a copy of each, so that two builds whose cache schemas differ do not
rebuild one shared cache at every switch (which made both look ten times slower).

The commands are those a session start runs: ``get``, ``stats``, ``retrieve`` by text
(``embedding: {provider: none}``), ``retrieve`` and ``render`` with the local model and
a query seen before (``repeat``), and, on the starter store of ``init --seed``, a query
never seen before (``new``), which loads the model.
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as bench  # bench/run.py: the stores and the environment

TEXT = "embedding: {provider: none}\n"
LOCAL = "embedding: {provider: local}\n"


@dataclass
class Case:
    """One command to time: ``argv(chitin, run)`` gives its arguments for run ``run``."""

    name: str
    size: int | None
    argv: Callable[[str, int], list[str]]
    config: str | None = None  # chitin.yaml while it runs
    roots: tuple[Path, ...] = ()  # the stores it runs on (one per chitin)
    reset: Callable[[], None] | None = None  # before each run: the state it starts from


@dataclass
class Timing:
    name: str
    size: int | None
    before: list[float] = field(default_factory=list)
    after: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def once(argv: Sequence[str], env: dict[str, str]) -> tuple[float, str | None]:
    started = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    elapsed = (time.perf_counter() - started) * 1000
    if done.returncode:
        return elapsed, f"exit {done.returncode}: {done.stderr.decode(errors='replace')[-200:]}"
    return elapsed, None


def interleaved(case: Case, chitins: dict[str, str], runs: int, env: dict[str, str]) -> Timing:
    """A warm-up of each, then ``runs`` rounds of before and after, alternating which
    goes first, so that neither always runs on the heels of the other."""
    timing = Timing(case.name, case.size)
    configs = [root / "chitin.yaml" for root in case.roots] if case.config else []
    for config in configs:
        config.write_text(case.config or "")
        stamp = time.time_ns() - 10**10  # older than chitin's racy window
        os.utime(config, ns=(stamp, stamp))
    try:
        for label in ("before", "after"):
            if case.reset:
                case.reset()
            once(case.argv(chitins[label], 0), env)
        for run in range(1, runs + 1):
            order = ("before", "after") if run % 2 else ("after", "before")
            for label in order:
                if case.reset:
                    case.reset()
                elapsed, failure = once(case.argv(chitins[label], run), env)
                if failure:
                    timing.failures.append(f"{label}: {failure}")
                else:
                    getattr(timing, label).append(elapsed)
    finally:
        for config in configs:
            config.unlink(missing_ok=True)
    return timing


def store_cases(size: int, roots: dict[str, Path], query: str) -> list[Case]:
    """The session-start commands; each chitin runs on its own copy of the store
    (``roots`` maps program → store), so that a cache schema that differs between the
    two builds is not rebuilt at every switch."""
    built = bench.load_marker(size)
    assert built is not None
    ident = built.sample_ids[0]
    every = tuple(roots.values())

    def at(c: str) -> list[str]:
        return [c, "--store", str(roots[c])]

    ask = ["--query", query, "--budget", "5000"]
    return [
        Case("get", size, lambda c, _r: [*at(c), "get", ident], roots=every),
        Case("stats", size, lambda c, _r: [*at(c), "stats"], roots=every),
        Case("retrieve (text)", size, lambda c, _r: [*at(c), "retrieve", *ask], TEXT, every),
        Case(
            "retrieve (model, repeat)", size, lambda c, _r: [*at(c), "retrieve", *ask], LOCAL, every
        ),
        Case("render (model, repeat)", size, lambda c, _r: [*at(c), "render", *ask], LOCAL, every),
    ]


def own_copies(root: Path, chitins: dict[str, str], folder: Path) -> dict[str, Path]:
    """program → store: the built store for the after, a copy of it for the before."""
    copy = folder / f"before-{root.parent.name}"
    if not copy.exists():
        shutil.copytree(root, copy, symlinks=True)
        # Copied files have new inodes and ctimes: refresh git's index once, or every
        # `git status` in the copy hashes each file again.
        subprocess.run(["git", "-C", str(copy), "update-index", "-q", "--refresh"], check=False)
    return {chitins["after"]: root, chitins["before"]: copy}


def first_session_case(size: int, roots: dict[str, Path], query: str) -> Case:
    """The first session start on a store never embedded (a fresh clone, an import):
    its vectors are removed before each run, with background embedding on, so the after
    answers by text and starts the background run, which is then stopped."""

    def never_embedded() -> None:
        for root in roots.values():
            _stop_background(root)
            shutil.rmtree(root / ".chitin" / "vectors", ignore_errors=True)

    def argv(c: str, _r: int) -> list[str]:
        return [c, "--store", str(roots[c]), "render", "--query", query, "--budget", "5000"]

    return Case(
        "render (first session start)",
        size,
        argv,
        LOCAL,
        tuple(roots.values()),
        never_embedded,
    )


def _stop_background(root: Path) -> None:
    """End every background embedding of ``root`` (it would load the machine meanwhile),
    and wait until they are gone."""
    pattern = f"--store {root} embed --background-worker"
    subprocess.run(["pkill", "-f", "--", pattern], capture_output=True)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        alive = subprocess.run(["pgrep", "-f", "--", pattern], capture_output=True)
        if alive.returncode != 0:
            return
        time.sleep(0.05)


def seeded_cases(folder: Path, chitins: dict[str, str], env: dict[str, str]) -> list[Case]:
    """A new query each run on the starter store that each chitin makes for itself.
    ``embed`` first: it prepares the local model for the machine (as the background
    run does after a first session start), which is how session starts meet it."""
    stores = {}
    for label, program in chitins.items():
        stores[program] = folder / label
        for step in (["init", "--seed"], ["embed"]):
            subprocess.run(
                [program, "--store", str(stores[program]), *step],
                check=True,
                capture_output=True,
                env=env,
            )

    def new_query(program: str, run: int) -> list[str]:
        query = f"plan step {run} {time.time_ns()} of the release with the team"
        return [program, "--store", str(stores[program]), "retrieve", "--query", query]

    return [Case("retrieve (model, new query)", len(bench_seed()), new_query)]


def bench_seed() -> list[Path]:
    from chitin.resources import data_path

    return sorted(data_path("insights").rglob("*.md"))


def report(timings: list[Timing], version: Timing) -> None:
    base_before = statistics.median(version.before)
    base_after = statistics.median(version.after)
    print(
        f"\nmedians of whole processes, ms; 'beyond' = minus chitin --version "
        f"({base_before:.0f} before, {base_after:.0f} after)\n"
    )
    head = f"{'command':28} {'size':>7} {'before':>8} {'after':>8} {'beyond: before':>15} "
    print(head + f"{'after':>7} {'after/before':>13}")
    for t in timings:
        if not t.before or not t.after:
            print(f"{t.name:28} {t.size or '':>7}  failed: {t.failures[:1]}")
            continue
        b, a = statistics.median(t.before), statistics.median(t.after)
        over_b, over_a = b - base_before, a - base_after
        ratio = f"{over_a / over_b:.2f}" if over_b > 0 else "—"
        size = f"{t.size:,}" if t.size else ""
        print(f"{t.name:28} {size:>7} {b:8.0f} {a:8.0f} {over_b:15.0f} {over_a:7.0f} {ratio:>13}")
    failures = [f for t in timings for f in t.failures]
    print(f"\nfailed runs: {len(failures)}")
    for failure in failures[:10]:
        print(f"  {failure}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="the chitin to compare against")
    parser.add_argument("--after", default=bench.default_chitin(), help="default: the venv's")
    parser.add_argument("--sizes", type=bench.parse_sizes, default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=15, help="rounds per command (default 15)")
    parser.add_argument("--output", type=Path, help="also write the raw timings here (JSON)")
    parser.add_argument(
        "--first-session",
        action="store_true",
        help="also time render on a never-embedded store (its vectors removed each run)",
    )
    args = parser.parse_args(argv)
    chitins = {"before": str(args.before), "after": str(args.after)}
    env = bench.child_env(bytecode_cache=True)
    env["CHITIN_BACKGROUND_EMBED"] = "off"  # nothing may run on behind the timings
    version_case = Case("--version", None, lambda c, _r: [c, "--version"])
    version = interleaved(version_case, chitins, args.runs, env)
    timings: list[Timing] = []
    copies = Path(tempfile.mkdtemp(prefix="chitin-compare-"))
    for size in args.sizes:
        built = bench.ensure_store(size, chitins["after"], False, env)
        bench.ensure_vectors(built.root)
        query = bench._query(built)
        roots = own_copies(built.root, chitins, copies)
        for case in store_cases(size, roots, query):
            bench.log(f"  {size:>7,}  {case.name}")
            timings.append(interleaved(case, chitins, args.runs, env))
        if args.first_session:
            case = first_session_case(size, roots, query)
            bench.log(f"  {size:>7,}  {case.name}")
            live = {**env, "CHITIN_BACKGROUND_EMBED": "on"}
            timings.append(interleaved(case, chitins, args.runs, live))
            for root in roots.values():
                _stop_background(root)
                bench.ensure_vectors(root)
    with tempfile.TemporaryDirectory() as folder:
        for case in seeded_cases(Path(folder), chitins, env):
            bench.log(f"  starter store  {case.name}")
            timings.append(interleaved(case, chitins, args.runs, env))
    shutil.rmtree(copies, ignore_errors=True)
    report(timings, version)
    if args.output:
        raw = [t.__dict__ for t in [version, *timings]]
        args.output.write_text(json.dumps(raw, indent=1))
    return 1 if any(t.failures for t in timings) else 0


if __name__ == "__main__":
    sys.exit(main())
