"""What chitin's own modules cost a command to import, before and after, in one run.

    python bench/import_time.py --before /path/to/old/venv/bin/python \
        --store bench/stores/10000/store --id SOME-ID [--runs 15]

Each round runs ``python -X importtime -m chitin --store S get ID`` (then ``stats``)
with each interpreter, interleaved, and sums the self times of the ``chitin.*``
modules; the table gives the medians and how many modules were logged. It runs from a
scratch folder: ``-m chitin`` run from a checkout would import that checkout's chitin,
whichever interpreter runs it. The before runs on its own copy of the store (a cache
schema that differs between the builds is then not rebuilt at every switch).

A module loaded by ``importlib.import_module`` (the facade, reached through
``chitin.core``'s lazy names) is not logged by -X importtime: its time counts in its
importer's self time, so the sums stay whole.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

LINE = re.compile(r"import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)")


def own_import_ms(python: str, store: Path, args: list[str], folder: Path) -> tuple[float, int]:
    """The sum of the chitin.* self import times (ms), and how many were logged."""
    command = [python, "-X", "importtime", "-m", "chitin", "--store", str(store), *args]
    done = subprocess.run(command, capture_output=True, text=True, cwd=folder, check=True)
    found = [m for m in map(LINE.match, done.stderr.splitlines()) if m]
    times = [int(m.group(1)) for m in found if m.group(2).startswith("chitin")]
    return sum(times) / 1000, len(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="the other build's python")
    parser.add_argument("--after", default=sys.executable, help="default: this python")
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--id", required=True, help="an insight of the store, for get")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="chitin-import-time-") as scratch:
        folder = Path(scratch)
        copy = folder / "before-store"
        shutil.copytree(args.store, copy, symlinks=True)
        builds = {"before": (args.before, copy), "after": (args.after, args.store.absolute())}
        for command in (["get", args.id], ["stats"]):
            got: dict[str, list[float]] = {"before": [], "after": []}
            logged: dict[str, int] = {}
            for python, store in builds.values():  # warm: cache, bytecode
                own_import_ms(python, store, command, folder)
            for _ in range(args.runs):
                for name, (python, store) in builds.items():
                    ms, logged[name] = own_import_ms(python, store, command, folder)
                    got[name].append(ms)
            before, after = (statistics.median(got[name]) for name in ("before", "after"))
            print(
                f"{command[0]:6} chitin.* self import ms, median of {args.runs}: "
                f"before {before:.1f} ({logged['before']} modules), "
                f"after {after:.1f} ({logged['after']} modules), after/before {after / before:.2f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
