"""What the alignment costs `chitin check` in a store of 1,000 real insights, embedded
by the real model (chitin.search.aligned).

The store: every claim of bench/dedup/pairs.yaml and heldout-pairs.yaml (many pairs in
the band where a verdict depends on the alignment: the worst case a store of lessons
makes), then bench/run.py's generated insights up to --size, written as files and
embedded once (`chitin embed`). Then `chitin check --format json` runs as its own
process --runs times for each chitin given (--pythonpath: a checkout of another commit,
"" for this one), interleaved; printed per chitin: the median wall and CPU seconds, the
median peak memory, the warnings and judgedWithoutAlignment.

    python bench/check_aligned.py --pythonpath /tmp/base --pythonpath "" --runs 5
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from check_scale import MEASURED_CHITIN  # noqa: E402  (after the path)

SETS = ("pairs.yaml", "heldout-pairs.yaml")
SCRIPT = MEASURED_CHITIN  # bench/check_scale.py's: peak memory and CPU on stderr


def make_store(root: Path, size: int, env: dict[str, str]) -> int:
    """The store (returns how many insights), embedded."""
    import run as generated  # bench/run.py's generator

    from chitin import Chitin
    from chitin.format.markdown import serialize
    from chitin.store.repository import Store

    labelled = _dedup_run()
    fields_of, load = labelled.fields_of, labelled.load
    sides = [p[s] for name in SETS for p in load(HERE / "dedup" / name) for s in ("a", "b")]
    with Chitin(store=root, env=env) as chitin:
        chitin.init()
        for side in sides:
            chitin.contribute(fields_of(side), check=False)
    generator, store = generated.Generator(generated.SEED), Store(root)
    for _ in range(max(0, size - len(sides))):
        insight = generator.insight()
        path = root / store.path_for(insight)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(serialize(insight), encoding="utf-8")
    with Chitin(store=root, env=env) as chitin:
        chitin.embed()
    return max(size, len(sides))


def _dedup_run() -> Any:
    """bench/dedup/run.py (its name is bench/run.py's too)."""
    spec = importlib.util.spec_from_file_location("dedup_run", HERE / "dedup" / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def measure(root: Path, pythonpath: str, env: dict[str, str]) -> tuple[float, float, float, Any]:
    chosen = dict(env, PYTHONPATH=pythonpath) if pythonpath else env
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, "--store", str(root), "check", "--format", "json"],
        capture_output=True,
        text=True,
        env=chosen,
        check=False,
        cwd=root.parent,  # not this checkout: `-c` puts the cwd before PYTHONPATH
    )
    seconds = time.perf_counter() - started
    peak = next(line for line in done.stderr.splitlines() if line.startswith("PEAK "))
    _, rss, cpu = peak.split()
    return seconds, int(rss) / 1024, float(cpu), json.loads(done.stdout)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--pythonpath", action="append", default=None)
    parser.add_argument("--no-resident", action="store_true", help="CHITIN_RESIDENT=off")
    args = parser.parse_args(argv)
    chitins = args.pythonpath or [""]
    env = dict(os.environ, CHITIN_BACKGROUND_EMBED="off", CHITIN_AGENT="bench")
    if args.no_resident:
        env["CHITIN_RESIDENT"] = "off"
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "store"
        size = make_store(root, args.size, env)
        found: dict[str, list[tuple[float, float, float, Any]]] = {c: [] for c in chitins}
        for _ in range(args.runs):
            for chitin in chitins:
                found[chitin].append(measure(root, chitin, env))
    print(f"== chitin check, {size} insights embedded, {args.runs} runs each (medians)")
    for chitin, runs in found.items():
        report = runs[-1][3]
        kinds: dict[str, int] = {}
        for warning in report["warnings"]:
            kinds[warning["kind"]] = kinds.get(warning["kind"], 0) + 1
        print(
            f"  {chitin or 'this checkout':24} wall {statistics.median(r[0] for r in runs):.2f} s"
            f"  cpu {statistics.median(r[2] for r in runs):.2f} s"
            f"  peak {statistics.median(r[1] for r in runs):.0f} MB  warnings {kinds}"
            f"  judgedWithoutAlignment {report.get('judgedWithoutAlignment', '-')}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
