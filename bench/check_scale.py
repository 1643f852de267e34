"""How `chitin check` scales with its duplicate and conflict findings (issue 25).

Two kinds of store, written directly as files (no git needed: check reads files):

- near: N near-duplicate insights whose claims differ by a number, as a templated bulk
  import makes ("Deploy service 17 only after the smoke tests pass");
- distinct: N distinct insights from bench/run.py's generator.

With ``--vectors``, the store's sidecar (.chitin/vectors) also holds a current
whole-text vector of every insight, so check judges by meaning (chitin.search.stored)
as it does in a store that was embedded. The vectors are made up, not the model's
(embedding 100,000 texts takes hours here): near, one direction plus a little noise
(cosines ~0.97); distinct, one of 300 topic directions plus more noise (cosines ~0.35
within a topic, ~0 across), as a topical store's are.

Each `chitin check --format json` runs as its own process, --runs times; printed are
the median wall time, the median peak memory (max RSS of the process) and what it
found. Targets: near 20,000 under 30 s and 500 MB; distinct 100,000 under 60 s.

    python bench/check_scale.py --near 20000 --distinct 100000 --runs 3 [--vectors]
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
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from chitin.model.insight import Insight

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

TEMPLATE = "Deploy service {n} only after the smoke tests pass"


def write_near(root: Path, size: int) -> list[Insight]:
    from chitin.format.markdown import serialize
    from chitin.model.insight import Insight

    folder = root / "insights" / "skill"
    folder.mkdir(parents=True)
    written = []
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
        written.append(insight)
    return written


def write_distinct(root: Path, size: int) -> list[Insight]:
    import run as bench  # bench/run.py's generator

    from chitin.format.markdown import serialize
    from chitin.model.insight import TYPES
    from chitin.store.repository import Store

    generator, store, written = bench.Generator(bench.SEED), Store(root), []
    for kind in TYPES:
        (root / "insights" / kind).mkdir(parents=True, exist_ok=True)
    for _ in range(size):
        insight = generator.insight()
        (root / store.path_for(insight)).write_text(serialize(insight), encoding="utf-8")
        written.append(insight)
    return written


def write_vectors(root: Path, insights: list[Insight], near: bool) -> None:
    """A sidecar holding a made-up, current whole-text vector of every insight."""
    import numpy as np

    from chitin.index.vectors import VectorStore
    from chitin.model.search_text import vector_hash
    from chitin.providers import identity
    from chitin.providers.local import LocalProvider

    rng = np.random.default_rng(25)
    size, dimensions = len(insights), LocalProvider.dimensions
    noise = rng.standard_normal((size, dimensions)).astype(np.float32)
    if near:
        vectors = rng.standard_normal(dimensions).astype(np.float32) * 6 + noise
    else:
        topics = rng.standard_normal((300, dimensions)).astype(np.float32)
        vectors = topics[rng.integers(0, 300, size)] * 0.75 + noise
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    sidecar = VectorStore(root / ".chitin", identity(LocalProvider()), dimensions)
    items = [(i.id, vector_hash(i), 0) for i in insights]
    for start in range(0, size, 10_000):
        sidecar.put(items[start : start + 10_000], vectors[start : start + 10_000])
    sidecar.close()


# `chitin` run in a process that says its peak memory (KB) and CPU seconds on stderr.
MEASURED_CHITIN = (
    "import resource, sys\n"
    "from chitin.cli import cli\n"
    "try:\n"
    "    cli.main(sys.argv[1:], prog_name='chitin')\n"
    "except SystemExit:\n"
    "    pass\n"
    "used = resource.getrusage(resource.RUSAGE_SELF)\n"
    "print(f'PEAK {used.ru_maxrss} {used.ru_utime + used.ru_stime}', file=sys.stderr)\n"
)


def measure(root: Path) -> tuple[float, float, float, dict[str, int]]:
    """Wall seconds, peak MB and CPU seconds of one `chitin check`, and its warnings by
    kind. (CPU time says what wall time would be on an idle machine; on a shared one
    the wall time includes the waits.)"""
    script = MEASURED_CHITIN
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


def bench(kind: str, size: int, runs: int, vectors: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "store"
        root.mkdir()
        insights = (write_near if kind == "near" else write_distinct)(root, size)
        if vectors:
            write_vectors(root, insights, kind == "near")
        results = [measure(root) for _ in range(runs)]
    seconds = statistics.median(r[0] for r in results)
    memory = statistics.median(r[1] for r in results)
    cpu = statistics.median(r[2] for r in results)
    print(
        f"{kind:8} {size:>7,} files{' +vectors' if vectors else ''}: "
        f"median {seconds:6.1f} s wall, {cpu:6.1f} s CPU, "
        f"peak {memory:6.0f} MB (runs: {', '.join(f'{r[0]:.1f}' for r in results)}), "
        f"warnings {results[0][3]}",
        flush=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--near", default="2000,20000", help="sizes, comma-separated")
    parser.add_argument("--distinct", default="100000", help="sizes, comma-separated")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--vectors", action="store_true", help="a sidecar of current vectors")
    args = parser.parse_args()
    for size in (int(s) for s in args.near.split(",") if s):
        bench("near", size, args.runs, args.vectors)
    for size in (int(s) for s in args.distinct.split(",") if s):
        bench("distinct", size, args.runs, args.vectors)
    return 0


if __name__ == "__main__":
    sys.exit(main())
