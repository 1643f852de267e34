"""What finding the store costs (chitin/location.py): the walk from the current folder
up to the root, looking for a folder that holds insights/ and .git.

    python bench/store_discovery.py [--depth 12] [--runs 21]

Prints the median time of one ``locate`` from a folder ``depth`` levels below a
temporary folder, with no store on the way (the longest walk: every folder up to the
root is looked at), and from the top of a store (the shortest).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import timeit
from pathlib import Path

from chitin.location import locate

CALLS = 1000  # per run


def median_us(here: Path, runs: int) -> float:
    times = timeit.repeat(lambda: locate(None, {}, here), number=CALLS, repeat=runs)
    return statistics.median(times) / CALLS * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=12)
    parser.add_argument("--runs", type=int, default=21)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as top:
        deep = Path(top).joinpath(*(f"d{n}" for n in range(options.depth)))
        deep.mkdir(parents=True)
        store = Path(top) / "store"
        (store / "insights" / "skill").mkdir(parents=True)  # a type folder: chitin's
        (store / ".git").mkdir()
        assert locate(None, {}, store).source == "folder"
        walked = len(deep.parents) + 1
        print(f"no store, {walked} folders looked at: {median_us(deep, options.runs):.0f} µs")
        print(f"standing in a store: {median_us(store, options.runs):.0f} µs")


if __name__ == "__main__":
    main()
