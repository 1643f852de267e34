"""Do ``check`` and ``dedupe`` judge a stored pair as ``contribute`` judged it?

For each labelled pair (bench/dedup/pairs.yaml and heldout-pairs.yaml by default;
never the blind sets), a fresh store: ``a`` written, ``b`` contributed through the
library (what the CLI calls), and what the door reports read back (duplicate,
conflict or none; an exact duplicate refused is written anyway, as ``--force``
would). The store is embedded, then ``check`` and ``dedupe`` run on it twice: with
the alignment (chitin.search.aligned) and with its budget at 0, which judges every
pair by the cosine alone, as check and dedupe did before. Printed: how often each
agrees with contribute, and the pairs where they differ.

    python bench/dedup/consistency.py                    # the two tuning sets
    python bench/dedup/consistency.py --pairs x.yaml --show
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import Pair, fields_of, load  # noqa: E402

SETS = ("pairs.yaml", "heldout-pairs.yaml")
MODES = ("before", "after")  # the budget at 0, then as shipped


def verdicts(pair: Pair, folder: Path, env: dict[str, str]) -> dict[str, str]:
    """contribute's verdict on the pair, and check's and dedupe's, before and after."""
    from chitin import Chitin
    from chitin.errors import DuplicateError
    from chitin.search import aligned

    found: dict[str, str] = {}
    with Chitin(store=folder, env=env) as chitin:
        chitin.init()
        chitin.contribute(fields_of(pair["a"]), check=False)
        try:
            made = chitin.contribute(fields_of(pair["b"]))
            door = "duplicate" if made.duplicates else "conflict" if made.conflicts else "none"
        except DuplicateError:
            door = "duplicate"
            chitin.contribute(fields_of(pair["b"]), check=False)
        found["contribute"] = door
        chitin.embed()
        shipped = aligned.TEXTS
        for mode in MODES:
            aligned.TEXTS = 0 if mode == "before" else shipped
            try:
                report = chitin.check()
                clusters = chitin.dedupe()
            finally:
                aligned.TEXTS = shipped
            kinds = {w.kind for w in report.warnings}
            said = "duplicate" if "near-duplicate" in kinds else "none"
            found[f"check {mode}"] = "conflict" if "conflict" in kinds else said
            found[f"dedupe {mode}"] = "duplicate" if clusters else "none"
            found[f"unaligned {mode}"] = str(report.without_alignment)
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=Path, action="append")
    parser.add_argument("--show", action="store_true", help="list the pairs that differ")
    args = parser.parse_args(argv)
    paths = args.pairs or [HERE / name for name in SETS]
    pairs = [p for path in paths for p in load(path)]
    env = dict(os.environ, CHITIN_BACKGROUND_EMBED="off", CHITIN_AGENT="bench")
    rows: list[tuple[Pair, dict[str, str]]] = []
    with tempfile.TemporaryDirectory() as folder:
        for number, pair in enumerate(pairs):
            root = Path(folder) / f"s{number}"
            root.mkdir()
            rows.append((pair, verdicts(pair, root, env)))
    report(rows, [path.name for path in paths], args.show)
    return 0


def report(rows: Sequence[tuple[Pair, dict[str, str]]], names: Sequence[str], show: bool) -> None:
    total = len(rows)
    print(f"== {total} pairs ({', '.join(names)}): agreement with contribute's verdict")
    for command in ("check", "dedupe"):
        for mode in MODES:
            same = sum(1 for _, f in rows if _agrees(f, command, mode))
            print(f"  {command:7} {mode:7} {same:4}/{total}  {same / total:.3f}")
    unaligned = sum(int(f["unaligned after"]) for _, f in rows)
    print(f"  pairs judged without the alignment (after): {unaligned}")
    if show:
        for pair, f in rows:
            if not all(_agrees(f, c, "after") for c in ("check", "dedupe")):
                print(f"  DIFF {_line(pair, f)}")


def _agrees(found: dict[str, str], command: str, mode: str) -> bool:
    door = found["contribute"]
    if command == "dedupe":  # dedupe lists duplicates only: a conflict is "none" there
        door = "duplicate" if door == "duplicate" else "none"
    return found[f"{command} {mode}"] == door


def _line(pair: Any, found: dict[str, str]) -> str:
    said = ", ".join(f"{k} {v}" for k, v in found.items() if not k.startswith("unaligned"))
    return f"{pair['kind']:14} {said} | {pair['a']['claim']!r} / {pair['b']['claim']!r}"


if __name__ == "__main__":
    sys.exit(main())
