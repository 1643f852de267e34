"""check's candidates in bulk (chitin.retrieval.bulk, numpy) are the ones the posting
lists give one insight at a time: the same clusters and the same conflicts, with the
same reasons, on a store whose posting lists are longer than the window."""

from __future__ import annotations

import random

import pytest

from chitin.retrieval import clusters
from chitin.retrieval.judgement import Side

WORDS = [
    "deploy",
    "service",
    "tests",
    "pass",
    "review",
    "branch",
    "commit",
    "merge",
    "cache",
    "query",
    "index",
    "schema",
    "retry",
    "timeout",
    "logs",
    "alert",
    "backup",
    "restore",
    "release",
    "notes",
    "config",
    "secret",
    "token",
    "build",
]
OPENINGS = ("", "Do not ", "Never ", "Always ", "Avoid ")
POLES = ("small", "large", "fast", "slow", "early", "late", "short", "long", "")


def _claim(rng: random.Random) -> str:
    words = rng.sample(WORDS, rng.randint(3, 7))
    pole = rng.choice(POLES)
    claim = rng.choice(OPENINGS) + " ".join(words[:2]) + (f" {pole} " if pole else " ")
    claim += " ".join(words[2:])
    if rng.random() < 0.1:
        claim += f" over {rng.choice(WORDS)} {rng.choice(WORDS)}"
    return claim


def _sides(count: int) -> list[Side]:
    rng = random.Random(25)
    made: list[Side] = []
    for _ in range(count):
        if made and rng.random() < 0.15:  # a near copy of an earlier one
            kind, claim, condition, avoid = rng.choice(made)
            made.append(
                Side(kind, claim + rng.choice(("", " now", " again", "!")), condition, avoid)
            )
        elif rng.random() < 0.2:
            condition = " ".join(rng.sample(WORDS, 3))
            made.append(Side("trigger", _claim(rng), condition, rng.random() < 0.5))
        else:
            made.append(Side(rng.choice(("skill", "behavioral")), _claim(rng)))
    return made


def test_bulk_candidates_give_the_same_clusters_and_conflicts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sides = _sides(3000)
    strength = [(-(k % 7), k) for k in range(len(sides))]
    monkeypatch.setattr(clusters, "BULK", 10**9)
    one_by_one = clusters.group(sides, strength)
    monkeypatch.setattr(clusters, "BULK", 1)
    in_bulk = clusters.group(sides, strength)
    assert len(one_by_one.clusters) > 50 and len(one_by_one.clashes) > 50
    assert in_bulk == one_by_one
