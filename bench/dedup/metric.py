"""Can a learned weighting of the local model's dimensions tell a paraphrase from a
compatible pair of one topic better than the cosine does? (docs/design.md §9e, "Where
the model stops".)

The door's hardest call is a paraphrase (one lesson in other words: a duplicate)
against a compatible pair of one topic (two lessons: not a duplicate), and there the
whole-text cosine of all-MiniLM-L6-v2 is close to a coin. This fits the one thing a
sentence embedding leaves open to learning without another model: a weight per
dimension of the product u·v (a diagonal metric; ``cos`` is the case of equal
weights), by logistic regression, leave-one-set-out over every labelled set in
bench/dedup/. Printed: the area under the ROC curve of each, per held-out set and
pooled over the out-of-fold scores, and a paired bootstrap of the pooled difference.

    python bench/dedup/metric.py              # l2 chosen as below
    python bench/dedup/metric.py --l2 1e-3    # another penalty (sum scale)

An AUC of ~0.6 cannot carry a duplicate F1 of 0.85 at any bar; a weighting that lifted
it to ~0.9 would be worth shipping as a 384-float file beside the model.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from learn import fit  # noqa: E402
from run import load  # noqa: E402

POSITIVE = frozenset({"paraphrase", "reworded-trigger"})
NEGATIVE = frozenset({"same-topic", "look-alike", "compatible"})


def auc(scores: np.ndarray, labels: np.ndarray) -> float:
    """The chance that a positive scores above a negative (Mann-Whitney)."""
    ranks = np.empty(len(scores))
    ranks[np.argsort(scores)] = np.arange(1, len(scores) + 1)
    positives = labels.sum()
    negatives = len(labels) - positives
    return float(
        (ranks[labels == 1].sum() - positives * (positives + 1) / 2) / (positives * negatives)
    )


def vectors(texts: Sequence[str]) -> np.ndarray:
    from chitin.providers.local import LocalProvider

    rows = LocalProvider().embed(list(texts))
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def dataset() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The products u·v of every paraphrase or compatible pair, its label and its set."""
    from chitin.retrieval.judgement import Side, judged_text

    def text(data: dict[str, object]) -> str:
        side = Side(
            str(data["type"]), str(data["claim"]), data.get("condition"), bool(data.get("avoid"))
        )  # type: ignore[arg-type]
        return judged_text(side)

    chosen = [
        (path.name, pair)
        for path in sorted(HERE.glob("*pairs*.yaml"))
        for pair in load(path)
        if pair["kind"] in POSITIVE | NEGATIVE
    ]
    embedded = vectors([text(side) for _, pair in chosen for side in (pair["a"], pair["b"])])
    products = embedded[0::2] * embedded[1::2]
    labels = np.array([pair["kind"] in POSITIVE for _, pair in chosen], dtype=float)
    return products, labels, np.array([name for name, _ in chosen])


def out_of_fold(
    products: np.ndarray, labels: np.ndarray, sets: np.ndarray, l2: float
) -> np.ndarray:
    """Each pair scored by a weighting fitted on the other sets."""
    design = np.hstack([np.ones((len(labels), 1)), products])
    scores = np.empty(len(labels))
    for name in np.unique(sets):
        held = sets == name
        weights = fit(design[~held], labels[~held], l2)
        scores[held] = design[held] @ weights
    return scores


def bootstrap(
    cosine: np.ndarray, learned: np.ndarray, labels: np.ndarray, runs: int = 2000
) -> tuple[float, float]:
    rng = np.random.default_rng(25)
    differences = []
    for _ in range(runs):
        pick = rng.integers(0, len(labels), len(labels))
        differences.append(auc(learned[pick], labels[pick]) - auc(cosine[pick], labels[pick]))
    low, high = np.percentile(differences, [2.5, 97.5])
    return float(low), float(high)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--l2", type=float, default=1e-3, help="penalty on the weights (sum scale)")
    options = parser.parse_args(argv)
    products, labels, sets = dataset()
    cosine = products.sum(axis=1)
    learned = out_of_fold(products, labels, sets, options.l2)
    count = len(np.unique(sets))
    print(f"{len(labels)} pairs ({int(labels.sum())} paraphrases), {count} sets, l2 {options.l2:g}")
    print(f"{'set':24} {'pairs':>5} {'cosine':>7} {'learned':>8}")
    for name in np.unique(sets):
        held = sets == name
        before, after = auc(cosine[held], labels[held]), auc(learned[held], labels[held])
        print(f"{name:24} {held.sum():5d} {before:7.3f} {after:8.3f}")
    low, high = bootstrap(cosine, learned, labels)
    print(f"{'pooled':24} {len(labels):5d} {auc(cosine, labels):7.3f} {auc(learned, labels):8.3f}")
    print(f"learned − cosine, paired bootstrap 95 %: [{low:+.3f}, {high:+.3f}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
