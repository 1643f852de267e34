"""Round 8 of issue 24's retrieval quality (docs/design.md §6b): how much the query-free
priors (decay, confidence, reinforcement, type boost) decide against meaning, measured
through the real retrieval with the decay factor substituted.

    python bench/eval/priors.py --dataset bench/eval/heldout-5.yaml
    python bench/eval/priors.py --dataset bench/eval/heldout-5.yaml --only "floor 0.25"

Each variant is compared with the default by run.py's paired bootstrap (nDCG@10).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import chitin.retrieval.retrieve as retrieve_module
import chitin.retrieval.scoring as scoring

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as ev  # run.py: this folder's module, not a package

Transform = Callable[[float], float]


def _strength(transform: Transform) -> Callable[..., Any]:
    original = scoring.strength

    def strength(insight: Any, category: str, now: Any, settings: Any) -> Any:
        factors = original(insight, category, now, settings)
        decay = transform(factors.decay)
        if factors.decay <= 0:
            return factors._replace(decay=decay, score=0.0)
        return factors._replace(decay=decay, score=factors.score * decay / factors.decay)

    return strength


@contextlib.contextmanager
def decay_as(transform: Transform | None) -> Iterator[None]:
    """scoring.strength (and retrieve's name for it) with the decay factor transformed."""
    if transform is None:
        yield
        return
    saved = scoring.strength, retrieve_module.strength
    scoring.strength = retrieve_module.strength = _strength(transform)
    try:
        yield
    finally:
        scoring.strength, retrieve_module.strength = saved


def _half_lives(times: float) -> dict[str, Any]:
    return {
        "half_lives": {p: (None if d is None else d * times) for p, d in scoring.HALF_LIVES.items()}
    }


# name -> (decay transform, shape, chitin.yaml settings)
VARIANTS: dict[str, tuple[Transform | None, scoring.Shape, dict[str, Any] | None]] = {
    "no decay": (None, ev.DEFAULT_SHAPE, ev.NO_DECAY),
    "half-lives x2": (None, ev.DEFAULT_SHAPE, _half_lives(2)),
    "half-lives x4": (None, ev.DEFAULT_SHAPE, _half_lives(4)),
    "floor 0.5": (lambda d: max(d, 0.5), ev.DEFAULT_SHAPE, None),
    "floor 0.25": (lambda d: max(d, 0.25), ev.DEFAULT_SHAPE, None),
    "floor 0.125": (lambda d: max(d, 0.125), ev.DEFAULT_SHAPE, None),
    "halving 0.015": (None, ev.DEFAULT_SHAPE._replace(relevance_halving=0.015), None),
    "halving 0.01": (None, ev.DEFAULT_SHAPE._replace(relevance_halving=0.01), None),
    "no decay, no priors": (None, scoring.Shape(0.0, 0.0, 0.0, 0.023), ev.NO_DECAY),
    "no decay, conf 0.5": (None, ev.DEFAULT_SHAPE._replace(confidence=0.5), ev.NO_DECAY),
    "floor 0.25, conf 0.5": (
        lambda d: max(d, 0.25),
        ev.DEFAULT_SHAPE._replace(confidence=0.5),
        None,
    ),
}


def measure(dataset: Path, only: list[str] | None, save: Path | None) -> None:
    insights, queries = ev.load(dataset)
    names = only or list(VARIANTS)
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        ev.build_store(insights, root)
        base = ev.rankings(root, queries, ev.DEFAULT_SHAPE)
        out["default"] = base
        print(f"{dataset.name}: nDCG@10 B - A, A = default, [95% interval], * outside noise")
        for name in names:
            transform, shape, config = VARIANTS[name]
            with decay_as(transform):
                ranked = ev.rankings(root, queries, shape, config=config)
            out[name] = ranked
            result = ev.compare(queries, base, ranked)
            cells = [
                f"{g} {i.b:.3f} {i.diff:+.3f} [{i.low:+.3f}, {i.high:+.3f}]{'*' * i.outside_noise}"
                for g, i in ((g, result[g]["ndcg"]) for g in ev.GROUPS if g in result)
            ]
            print(f"{name:22}" + " | ".join(cells), flush=True)
    if save:
        save.write_text(json.dumps(out))


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=ev.AGENT_STORE)
    parser.add_argument("--only", action="append", choices=sorted(VARIANTS))
    parser.add_argument("--save", type=Path, help="every variant's rankings, as JSON")
    args = parser.parse_args()
    measure(args.dataset, args.only, args.save)
    return 0


if __name__ == "__main__":
    sys.exit(main())
