"""bench/dedup/metric.py: the figures design.md quotes for a learned weighting."""

from __future__ import annotations

import numpy as np

from tests.bench_modules import bench_module

metric = bench_module("dedup", "metric")


def test_auc_is_the_chance_a_positive_scores_above_a_negative() -> None:
    labels = np.array([1.0, 0.0, 1.0, 0.0])
    assert metric.auc(np.array([0.9, 0.1, 0.8, 0.2]), labels) == 1.0
    assert metric.auc(np.array([0.1, 0.9, 0.2, 0.8]), labels) == 0.0
    # one of the four positive-negative orders is wrong
    assert metric.auc(np.array([0.9, 0.1, 0.3, 0.4]), labels) == 0.75


def test_a_weighting_fitted_on_other_sets_finds_the_dimension_that_decides() -> None:
    # The label lives in dimension 0 alone; the cosine (the sum) drowns it in the rest.
    rng = np.random.default_rng(1)
    labels = np.tile([1.0, 0.0], 60)
    products = rng.normal(0, 1, (120, 8))
    products[:, 0] += np.where(labels == 1, 1.5, -1.5)
    sets = np.repeat(["a", "b", "c"], 40)
    learned = metric.out_of_fold(products, labels, sets, 1e-2)
    assert metric.auc(learned, labels) > 0.9
    assert metric.auc(learned, labels) > metric.auc(products.sum(axis=1), labels) + 0.1
