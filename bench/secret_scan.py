"""Time the secret detector (chitin/model/secrets.py) on real texts: the starter
insights and every string of the evaluation sets (bench/eval/*.yaml), which is what
every write and `chitin check` run it on.

    python bench/secret_scan.py            # median microseconds per text
    python bench/secret_scan.py --runs 15
    git show REV:chitin/model/secrets.py > /tmp/old_secrets.py
    python bench/secret_scan.py --against /tmp/old_secrets.py   # before and after

Each run scans every text once; the figure is the median over runs of the mean time
per text. With --against, the two detectors run interleaved in one process (a shared
machine drifts by tens of percent within minutes), each median over the same stretch.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import yaml

from chitin.model.secrets import find_secrets

ROOT = Path(__file__).resolve().parent.parent


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def texts() -> list[str]:
    starters = sorted((ROOT / "starter" / "insights").rglob("*.md"))
    found = [p.read_text(encoding="utf-8") for p in starters]
    for path in sorted((ROOT / "bench" / "eval").glob("*.yaml")):
        found += _strings(yaml.safe_load(path.read_text(encoding="utf-8")))
    return found


Finder = Callable[[str], object]


def _load(path: str) -> Finder:
    spec = importlib.util.spec_from_file_location("secrets_before", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found: Finder = module.find_secrets
    return found


def _one_run(find: Finder, corpus: list[str]) -> float:
    started = time.perf_counter()
    for text in corpus:
        find(text)
    return (time.perf_counter() - started) / len(corpus) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--against", metavar="SECRETS_PY", help="an older secrets.py")
    options = parser.parse_args()
    corpus = texts()
    finders: dict[str, Finder] = {"now": find_secrets}
    if options.against:
        finders["before"] = _load(options.against)
    times: dict[str, list[float]] = {name: [] for name in finders}
    for _ in range(options.runs):
        for name, find in finders.items():
            times[name].append(_one_run(find, corpus))
    for name, per_text in times.items():
        print(
            f"{name}: {len(corpus)} texts, {options.runs} runs: median "
            f"{statistics.median(per_text):.1f} µs per text "
            f"(min {min(per_text):.1f}, max {max(per_text):.1f})"
        )


if __name__ == "__main__":
    main()
