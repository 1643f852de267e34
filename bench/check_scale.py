"""How `chitin check` scales with its duplicate and conflict findings (issue 25).

Two kinds of store, written directly as files (no git needed: check reads files):

- near: N near-duplicate insights whose claims differ by a number, as a templated bulk
  import makes ("Deploy service 17 only after the smoke tests pass");
- distinct: N distinct insights from bench/run.py's generator.

Each `chitin check --format json` runs as its own process, --runs times; printed are
the median wall time, the median peak memory (max RSS of the process) and what it
found. Targets: near 20,000 under 30 s and 500 MB; distinct 100,000 under 60 s.

    python bench/check_scale.py --near 20000 --distinct 100000 --runs 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

TEMPLATE = "Deploy service {n} only after the smoke tests pass"


def write_near(root: Path, size: int) -> None:
    from chitin.format.markdown import serialize
    from chitin.model.insight import Insight

    folder = root / "insights" / "skill"
    folder.mkdir(parents=True)
    for n in range(size):
        claim = TEMPLATE.format(n=n)
        insight = Insight(
            id=f"deploy-service-{n}",
            type="skill",
            claim=claim,
            confidence=0.5 + (n % 40) / 100,
            created="2026-11-01T00:00:00Z",
            updated="2026-11-01T00:00:00Z",
            reinforcements=n % 7,
        )
        (folder / f"{insight.id}.md").write_text(serialize(insight), encoding="utf-8")


def write_distinct(root: Path, size: int) -> None:
    import run as bench  # bench/run.py's generator

    bench.write_insights(root, size)


def measure(root: Path) -> tuple[float, float, float, dict[str, int]]:
    """Wall seconds, peak MB and CPU seconds of one `chitin check`, and its warnings by
    kind. (CPU time says what wall time would be on an idle machine; on a shared one
    the wall time includes the waits.)"""
    script = (
        "import resource, sys, time\n"
        "from chitin.cli import cli\n"
        "try:\n"
        "    cli.main(sys.argv[1:], prog_name='chitin')\n"
        "except SystemExit:\n"
        "    pass\n"
        "used = resource.getrusage(resource.RUSAGE_SELF)\n"
        "print(f'PEAK {used.ru_maxrss} {used.ru_utime + used.ru_stime}', file=sys.stderr)\n"
    )
    env = dict(os.environ, CHITIN_BACKGROUND_EMBED="off")
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", script, "--store", str(root), "check", "--format", "json"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    seconds = time.perf_counter() - started
    peak = next(line for line in done.stderr.splitlines() if line.startswith("PEAK "))
    report = json.loads(done.stdout)
    kinds: dict[str, int] = {}
    for warning in report["warnings"]:
        kinds[warning["kind"]] = kinds.get(warning["kind"], 0) + 1
    _, rss, cpu = peak.split()
    return seconds, int(rss) / 1024, float(cpu), kinds


def bench(kind: str, size: int, runs: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "store"
        root.mkdir()
        (write_near if kind == "near" else write_distinct)(root, size)
        results = [measure(root) for _ in range(runs)]
    seconds = statistics.median(r[0] for r in results)
    memory = statistics.median(r[1] for r in results)
    cpu = statistics.median(r[2] for r in results)
    print(
        f"{kind:8} {size:>7,} files: median {seconds:6.1f} s wall, {cpu:6.1f} s CPU, "
        f"peak {memory:6.0f} MB (runs: {', '.join(f'{r[0]:.1f}' for r in results)}), "
        f"warnings {results[0][3]}",
        flush=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--near", default="2000,20000", help="sizes, comma-separated")
    parser.add_argument("--distinct", default="100000", help="sizes, comma-separated")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for size in (int(s) for s in args.near.split(",") if s):
        bench("near", size, args.runs)
    for size in (int(s) for s in args.distinct.split(",") if s):
        bench("distinct", size, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
