"""The door's verdicts in a store of many insights, with and without vectors.

run.py puts each labelled pair alone in a store: ``a``, then ``b`` contributed. There
the store is small enough that the door embeds ``a`` inline (semantic.INLINE_LIMIT),
so it always has a vector. Here ``a`` stands among M distractors (perf-vs-orig's
generated insights, ``gen_insights.py -n M``, and bench/eval's agent store, whose 346
insights are on the pairs' topics), imported and, by default, never
embedded, as after an import: the door then meets word candidates without a stored
vector, which is what door.RULE decides about. For each pair the exact-duplicate
refusal is checked as ``contribute`` does, then ``door.examine`` judges ``b`` once per
variant of the rule, on the same store; ``a`` is archived again before the next pair.
Printed: run.py's scores and per-kind counts for each variant, the texts each
contribute would embed (median, mean, most), and a paired bootstrap of every variant
against the first (run.py's).

    python bench/dedup/door_store.py --distractors gen1000.json            # tuning sets
    python bench/dedup/door_store.py --distractors gen1000.json --embedded  # all embedded
    python bench/dedup/door_store.py --distractors … --pairs bench/dedup/pairs.yaml --save f.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run  # noqa: E402  (bench/dedup/run.py: the pairs, the scores, the bootstrap)

# name -> door.Rule fields (far, cap, rest_by_words); the first is the one compared with.
VARIANTS: dict[str, tuple[bool, int | None, bool]] = {
    "all (1.x)": (False, None, False),
    "far": (True, None, False),
    "cap4": (False, 4, False),
    "cap4+words": (False, 4, True),
    "cap3+words": (False, 3, True),
    "cap2+words": (False, 2, True),
    "cap1+words": (False, 1, True),
    "cap0+words": (False, 0, True),
}


@contextmanager
def counting() -> Iterator[list[int]]:
    """How many texts each examine sends to the model (door._Vectors.missing)."""
    from chitin.search import door

    counts: list[int] = []
    original = door._Vectors.ask_missing

    def ask(self: Any) -> Any:
        counts.append(len(self.missing))
        return original(self)

    door._Vectors.ask_missing = ask  # type: ignore[method-assign]
    try:
        yield counts
    finally:
        door._Vectors.ask_missing = original  # type: ignore[method-assign]


AGENT_STORE = HERE.parent / "eval" / "agent-store.yaml"
IMPORTED = ("type", "claim", "confidence", "tags", "context", "reasoning", "condition", "avoid")


def agent_insights() -> list[dict[str, Any]]:
    """bench/eval's agent store (346 insights of an agent's working life, many near
    neighbours on the pairs' topics), as items of an export."""
    import yaml

    found = yaml.safe_load(AGENT_STORE.read_text(encoding="utf-8"))["insights"]
    return [{key: item[key] for key in IMPORTED if key in item} for item in found]


def base_store(
    root: Path, distractors: Path, agents: bool, embedded: bool, env: dict[str, str]
) -> None:
    from chitin import Chitin

    items = json.loads(distractors.read_text(encoding="utf-8"))
    items += agent_insights() if agents else []
    with Chitin(store=root, env=env) as chitin:
        chitin.init()
        chitin.import_insights(items)
        if embedded:
            chitin.embed()


def judge_pair(chitin: Any, pair: run.Pair, number: int) -> dict[str, tuple[str, int]]:
    """What each variant reports for ``b`` with ``a`` in the store, and the texts it
    would embed."""
    from chitin.model import ops
    from chitin.retrieval.judgement import side_of
    from chitin.search import door

    made = chitin.contribute(run.fields_of(pair["a"]), check=False)
    try:
        life = chitin._lifecycle
        cache = life.session.cache
        insight = ops.new_insight(run.fields_of(pair["b"]), f"pair-b-{number}", "2026-01-01")
        if door.exact_duplicates(cache, side_of(insight)):
            return {name: ("duplicate", 0) for name in VARIANTS}
        meaning, why_not = life._meaning()
        said: dict[str, tuple[str, int]] = {}
        for name, fields in VARIANTS.items():
            door.RULE = door.Rule(*fields)
            with counting() as counts:
                found = door.examine(cache, insight, meaning, why_not)
            kind = "duplicate" if found.duplicates else "conflict" if found.conflicts else "none"
            said[name] = (kind, sum(counts))
        return said
    finally:
        chitin.archive(made.insight.id)


def main(argv: Sequence[str] | None = None) -> int:
    import os

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--distractors", type=Path, required=True, help="gen_insights.py JSON")
    parser.add_argument("--pairs", type=Path, action="append", help="default: run.TUNING_SETS")
    parser.add_argument("--no-agent-store", action="store_true", help="the generated ones only")
    parser.add_argument("--embedded", action="store_true", help="embed the store first")
    parser.add_argument("--show", action="store_true", help="list the pairs variants differ on")
    parser.add_argument("--save", type=Path, help="write every pair's verdicts (JSON) here")
    args = parser.parse_args(argv)
    sets = args.pairs or [HERE / name for name in run.TUNING_SETS]
    pairs = [pair for path in sets for pair in run.load(path)]
    env = dict(os.environ, CHITIN_BACKGROUND_EMBED="off", CHITIN_AGENT="bench")
    from chitin import Chitin

    results: list[dict[str, tuple[str, int]]] = []
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "store"
        base_store(root, args.distractors, not args.no_agent_store, args.embedded, env)
        with Chitin(store=root, env=env) as chitin:
            for number, pair in enumerate(pairs):
                results.append(judge_pair(chitin, pair, number))
                if number % 100 == 99:
                    print(f"  {number + 1} pairs", file=sys.stderr)
    names = list(VARIANTS)
    said = {name: [r[name][0] for r in results] for name in names}
    for name in names:
        run.report(name, pairs, said[name], False)
        texts = [r[name][1] for r in results]
        print(
            f"  texts embedded per contribute: median {statistics.median(texts):.0f}, "
            f"mean {statistics.mean(texts):.1f}, most {max(texts)}"
        )
    for name in names[1:]:
        changed = sum(1 for a, b in zip(said[names[0]], said[name], strict=True) if a != b)
        print(f"== {name}: {changed} pair(s) reported otherwise than {names[0]}")
        run.bootstrap(pairs, said[names[0]], said[name], f"{name} − {names[0]}")
    if args.show:
        for pair, result in zip(pairs, results, strict=True):
            if len({kind for kind, _ in result.values()}) > 1:
                told = ", ".join(f"{name}: {kind}" for name, (kind, _) in result.items())
                print(f"  {pair['kind']} ({pair['label']}) {pair['b']['claim']!r}: {told}")
    if args.save:
        args.save.write_text(json.dumps(results), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
