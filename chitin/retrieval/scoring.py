"""The retrieval score, as pure functions of an insight, its relevance and the time.

    score = relevance × confidence × log2(reinforcements + 2) × type_boost × decay

Relevance is the BM25 score of the query's full-text match, divided by the best
match's. Every factor of the original is kept, but each one other than relevance is
damped towards 1 (``Shape``). Undamped, the factors span two orders of magnitude
and overrule the query. On our evaluation set (bench/eval, 60 queries), nDCG@10 is:
- 0.536 for the original shape;
- 0.606 for relevance alone;
- 0.603 with every factor at a quarter, and 0.588 at a half;
- 0.608 for the default, which also has the best recall@5 (0.622).

A grid over the four weights peaks at 0.619, with small confidence and type weights
and no reinforcement or decay. The default keeps all four factors, small, so that they
re-rank among relevant insights without overruling them.
``bench/eval/run.py --shapes`` prints the comparison.

Decay follows the provenance half-lives of the original (§3.3), measured from the last
reinforcement (or creation), read as UTC, and never above 1 for a future timestamp.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

from chitin.errors import ValidationError
from chitin.model.insight import PROVENANCES, TYPES, Insight, parse_timestamp
from chitin.retrieval.context import CATEGORIES, TYPE_BOOSTS, type_boost

# Days for the decay factor to halve, by provenance; None never decays. An insight
# without provenance (from before provenance existed) never decays either.
HALF_LIVES: dict[str, float | None] = {
    "directive": None,
    "correction": 365.0,
    "observation": 180.0,
    "reflection": 90.0,
    "social": 30.0,
    "external": 180.0,
}
# BM25 weights of the indexed fields: a claim or a trigger's situation says most.
RELEVANCE_WEIGHTS: dict[str, float] = {
    "claim": 4.0,
    "condition": 3.0,
    "tags": 2.0,
    "context": 1.5,
    "reasoning": 1.0,
    "limitations": 0.5,
}
SECONDS_PER_DAY = 86_400.0


class Shape(NamedTuple):
    """How much of each factor's distance from 1 is kept: ``f' = 1 + w·(f − 1)``.

    1 is the original factor, 0 switches it off. Unlike a power, this bounds what a
    factor can do: with w = 0.25, confidence and decay move a score by at most 25%,
    however old an insight is.
    """

    confidence: float = 1.0
    reinforcement: float = 1.0
    type_boost: float = 1.0
    decay: float = 1.0


ORIGINAL_SHAPE = Shape()
# Chosen on bench/eval (see the module docstring): relevance leads, the rest re-rank.
# Confidence moves a score by at most 25%, decay by at most 10%; a type boost of 1.8
# becomes 1.2; each doubling of log2(reinforcements + 2) adds 10%.
DEFAULT_SHAPE = Shape(confidence=0.25, reinforcement=0.1, type_boost=0.25, decay=0.1)


@dataclass(frozen=True)
class Settings:
    """Scoring settings; each table can be overridden in the store's chitin.yaml."""

    half_lives: Mapping[str, float | None] = field(default_factory=lambda: dict(HALF_LIVES))
    type_boosts: Mapping[str, Mapping[str, float]] = field(
        default_factory=lambda: {c: dict(t) for c, t in TYPE_BOOSTS.items()}
    )
    relevance_weights: Mapping[str, float] = field(default_factory=lambda: dict(RELEVANCE_WEIGHTS))
    shape: Shape = DEFAULT_SHAPE
    fusion: str = "blend"  # how text and meaning combine: "blend" (default) or "rrf"

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Settings:
        """Settings from chitin.yaml's ``half_lives``, ``type_boosts`` and
        ``relevance_weights`` mappings; unknown names and bad numbers are errors."""
        base = cls()
        return cls(
            half_lives={**base.half_lives, **_half_lives(config.get("half_lives"))},
            type_boosts=_boosts(base.type_boosts, config.get("type_boosts")),
            relevance_weights={
                **base.relevance_weights,
                **_numbers(
                    "relevance_weights", config.get("relevance_weights"), tuple(RELEVANCE_WEIGHTS)
                ),
            },
        )


class Factors(NamedTuple):
    """One insight's score and the factors it is the product of."""

    score: float
    relevance: float
    confidence: float
    reinforcement: float
    type_boost: float
    decay: float


def decay_factor(insight: Insight, now: datetime, half_lives: Mapping[str, float | None]) -> float:
    half_life = half_lives.get(insight.provenance) if insight.provenance else None
    if not half_life:
        return 1.0
    since = parse_timestamp("last_reinforced", insight.last_reinforced or insight.created)
    age_days = max(0.0, (now - since).total_seconds() / SECONDS_PER_DAY)
    return float(0.5 ** (age_days / half_life))


def strength(insight: Insight, category: str, now: datetime, settings: Settings) -> Factors:
    """The score without relevance: how much an insight matters here regardless of the query."""
    shape = settings.shape
    confidence = _damped(insight.confidence, shape.confidence)
    reinforcement = _damped(math.log2(insight.reinforcements + 2), shape.reinforcement)
    boost = shaped_boost(category, insight.type, settings)
    decay = _damped(decay_factor(insight, now, settings.half_lives), shape.decay)
    return Factors(
        confidence * reinforcement * boost * decay, 1.0, confidence, reinforcement, boost, decay
    )


def score(
    insight: Insight, relevance: float, category: str, now: datetime, settings: Settings
) -> Factors:
    base = strength(insight, category, now, settings)
    return base._replace(score=relevance * base.score, relevance=relevance)


# ------------------------------------------------------------------ configuration


def _half_lives(value: object) -> dict[str, float | None]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValidationError("half_lives", "chitin.yaml: half_lives must map provenances to days")
    result: dict[str, float | None] = {}
    for key, days in value.items():
        if key not in PROVENANCES:
            raise ValidationError(
                "half_lives",
                f"chitin.yaml: half_lives: unknown provenance "
                f"{key!r} (allowed: {', '.join(PROVENANCES)})",
            )
        result[key] = None if days is None else _positive("half_lives", key, days)
    return result


def _boosts(base: Mapping[str, Mapping[str, float]], value: object) -> dict[str, dict[str, float]]:
    merged = {category: dict(table) for category, table in base.items()}
    if value is None:
        return merged
    if not isinstance(value, Mapping):
        raise ValidationError(
            "type_boosts", "chitin.yaml: type_boosts must map categories to tables of type: boost"
        )
    for category, table in value.items():
        if category not in CATEGORIES:
            raise ValidationError(
                "type_boosts",
                f"chitin.yaml: type_boosts: unknown category "
                f"{category!r} (allowed: {', '.join(CATEGORIES)})",
            )
        merged[category].update(_numbers(f"type_boosts.{category}", table, TYPES))
    return merged


def _numbers(name: str, value: object, allowed: tuple[str, ...]) -> dict[str, float]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValidationError(name, f"chitin.yaml: {name} must be a mapping")
    result = {}
    for key, number in value.items():
        if key not in allowed:
            raise ValidationError(
                name, f"chitin.yaml: {name}: unknown key {key!r} (allowed: {', '.join(allowed)})"
            )
        result[key] = _positive(name, key, number, zero_ok=True)
    return result


def _positive(name: str, key: str, value: object, zero_ok: bool = False) -> float:
    number = value if isinstance(value, int | float) and not isinstance(value, bool) else -1.0
    if math.isnan(number) or number < 0 or (number == 0 and not zero_ok):
        raise ValidationError(
            name, f"chitin.yaml: {name}.{key} must be a positive number, got {value!r}"
        )
    return float(number)


def base_strength(insight: Insight, shape: Shape = DEFAULT_SHAPE) -> float:
    """The query- and time-independent part of ``strength``, stored in the cache so the
    strongest insights can be found in order. (Changing DEFAULT_SHAPE changes stored
    values: bump the cache's SCHEMA_VERSION with it.)"""
    return _damped(insight.confidence, shape.confidence) * _damped(
        math.log2(insight.reinforcements + 2), shape.reinforcement
    )


def shaped_boost(category: str, kind: str, settings: Settings) -> float:
    return _damped(type_boost(category, kind, settings.type_boosts), settings.shape.type_boost)


def _damped(factor: float, weight: float) -> float:
    return 1.0 + weight * (factor - 1.0)
