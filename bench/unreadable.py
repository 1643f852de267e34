"""What looking for git's conflict markers costs each read of an insight file (issue 24).

    python bench/unreadable.py --files 2000 --runs 7

Every parse of an insight file first looks for conflict markers
(``format/conflicts.py``), and every write looks in the files it would replace. This
times, over the synthetic insights of ``bench/run.py``, the marker scan alone and a
whole ``read_insight`` (which includes it), and prints the medians per file in
microseconds, with the scan's share of a parse.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from run import SEED, Generator

from chitin.format.conflicts import marker_lines
from chitin.format.markdown import read_insight, serialize


def texts(count: int) -> list[str]:
    generator = Generator(SEED)
    return [serialize(generator.insight()) for _ in range(count)]


def per_file_us(work: Callable[[str], object], files: list[str], runs: int) -> list[float]:
    """Microseconds per file, one figure per run over all ``files``."""
    figures = []
    for _ in range(runs):
        start = time.perf_counter()
        for text in files:
            work(text)
        figures.append((time.perf_counter() - start) / len(files) * 1e6)
    return figures


def parse(text: str) -> object:
    return read_insight(
        text, fallback_id="x", fallback_type="skill", fallback_time="2026-01-01T00:00:00Z"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=7)
    options = parser.parse_args()
    files = texts(options.files)
    assert not any(marker_lines(text) for text in files)
    scan = statistics.median(per_file_us(marker_lines, files, options.runs))
    whole = statistics.median(per_file_us(parse, files, options.runs))
    print(f"{options.files} files, median of {options.runs} runs, µs per file")
    print(f"  marker scan        {scan:8.2f}")
    print(f"  read_insight       {whole:8.2f}   (scan is {scan / whole:.1%} of it)")


if __name__ == "__main__":
    main()
