"""The retrieval score, as pure functions of an insight, its relevance and the time.

    score = relevance × confidence × log2(reinforcements + 2) × type_boost × decay

**Decay** is exactly what the half-lives say: ``0.5 ^ (age_days / half_life)``, by
provenance (the original's §3.3 table, or chitin.yaml's ``half_lives``), with the age
measured from the last reinforcement (or creation), read as UTC, and never above 1
for a future timestamp. It is not damped: a 30-day-old social insight scores half of
an identical fresh one, so what others told the agent fades unless it is confirmed.

**Relevance** is how well an insight matches the query, relative to the best match
(``match``, 0..1: BM25, or BM25 blended with meaning; see engine.py), sharpened so
that age re-ranks among comparably relevant insights instead of overruling the query:
``relevance = 0.5 ^ ((1 − match) / RELEVANCE_HALVING)``. Every 0.023 of match below
the best halves the score, as every half-life of age does. With the plain ratio, an
undamped decay overruled the query: bench/eval's nDCG@10 fell from 0.782 to 0.630.
Sharpened, it is 0.770 (``bench/eval/run.py --shapes``).

**Confidence, reinforcement and type boost** are damped towards 1 (``Shape``), so
each moves a score by a bounded amount: undamped, these three span an order of
magnitude and strong but irrelevant insights displace relevant ones.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime
from types import MappingProxyType
from typing import Any, NamedTuple

from chitin.errors import ValidationError
from chitin.model.fields import SEARCH_WEIGHTS
from chitin.model.insight import PROVENANCES, TYPES, Insight, parse_timestamp
from chitin.model.results import Factors
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
RELEVANCE_WEIGHTS: dict[str, float] = dict(SEARCH_WEIGHTS)  # model/fields.py
SECONDS_PER_DAY = 86_400.0


class Shape(NamedTuple):
    """How the factors other than decay are shaped.

    ``confidence``, ``reinforcement`` and ``type_boost`` keep that much of their
    factor's distance from 1: ``f' = 1 + w·(f − 1)``. 1 is the original factor, 0
    switches it off. Unlike a power, this bounds what a factor can do: with w = 0.25,
    confidence moves a score by at most 25%.

    ``relevance_halving`` is how far below the best match halves a score (module
    docstring); None is the original's plain ratio. Decay is never shaped.
    """

    confidence: float = 1.0
    reinforcement: float = 1.0
    type_boost: float = 1.0
    relevance_halving: float | None = None


ORIGINAL_SHAPE = Shape()
# Chosen on bench/eval: confidence moves a score by at most 25%; a type boost of 1.8
# becomes 1.2; each doubling of log2(reinforcements + 2) adds 10%; 0.023 of match
# halves a score. When first chosen, nDCG@10 plateaued between 0.035 and 0.023 (0.756
# at 0.05, 0.770 at 0.035, 0.766 at 0.023); with the reasoning's vectors and weighted
# text shares, 0.023 lifts paraphrases (docs/design.md §6b).
RELEVANCE_HALVING = 0.023
DEFAULT_SHAPE = Shape(
    confidence=0.25, reinforcement=0.1, type_boost=0.25, relevance_halving=RELEVANCE_HALVING
)


_READ_ONLY_BOOSTS = MappingProxyType({c: MappingProxyType(t) for c, t in TYPE_BOOSTS.items()})


class Settings(NamedTuple):
    """Scoring settings; each table can be overridden in the store's chitin.yaml. (A
    NamedTuple with read-only default tables, not a dataclass: the session start would
    load ``dataclasses`` and build the class's methods for it, ~1 ms, §9f round 3.)"""

    half_lives: Mapping[str, float | None] = MappingProxyType(HALF_LIVES)
    type_boosts: Mapping[str, Mapping[str, float]] = _READ_ONLY_BOOSTS
    relevance_weights: Mapping[str, float] = MappingProxyType(RELEVANCE_WEIGHTS)
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


def age_in_days(insight: Insight, now: datetime) -> float:
    """Days since the last reinforcement (or creation); 0 for a time in the future."""
    since = parse_timestamp("last_reinforced", insight.last_reinforced or insight.created)
    return max(0.0, (now - since).total_seconds() / SECONDS_PER_DAY)


def half_life_of(insight: Insight, half_lives: Mapping[str, float | None]) -> float | None:
    """Its provenance's half-life in days; None (never decays) without a provenance."""
    return half_lives.get(insight.provenance) if insight.provenance else None


def decay_factor(insight: Insight, now: datetime, half_lives: Mapping[str, float | None]) -> float:
    """``0.5 ^ (age_days / half_life)``, undamped; 1 for what never decays."""
    return _halved(age_in_days(insight, now), half_life_of(insight, half_lives))


def _halved(distance: float, half: float | None) -> float:
    return float(0.5 ** (distance / half)) if half else 1.0


def relevance_factor(match: float, halving: float | None) -> float:
    """A match relative to the best (0..1), sharpened: 1 for the best, halved for each
    ``halving`` below it (the plain ratio for None)."""
    match = min(1.0, max(0.0, match))
    return match if halving is None else _halved(1.0 - match, halving)


# A match relative to the best (0..1) at or under this is 0 up to float error (a blend
# of terms that cancel, a BM25 ratio of 1e-17): no match. Not a floor on weak matches:
# they run continuously down to ~2e-4 of the best on bench/eval (their sharpened
# scores ~1e-13), and a floor at one halving (0.023) cost plain queries nDCG@10 0.979 →
# 0.972 and recall@10 0.977 → 0.954 (fix110; docs/design.md §6, "No filler").
MATCH_RESIDUE = 1e-12


def matches_at_all(match: float) -> bool:
    """Whether a match relative to the best is a match, and not 0 up to float error:
    sharpened, even that would score 0.5 ^ (1 / halving) (~8e-14) and read as matched."""
    return match > MATCH_RESIDUE


def strength(insight: Insight, category: str, now: datetime, settings: Settings) -> Factors:
    """The score without relevance: how much an insight matters here regardless of the query."""
    shape = settings.shape
    confidence = _damped(insight.confidence, shape.confidence)
    reinforcement = _damped(math.log2(insight.reinforcements + 2), shape.reinforcement)
    boost = shaped_boost(category, insight.type, settings)
    half_life = half_life_of(insight, settings.half_lives)
    age = age_in_days(insight, now)
    decay = _halved(age, half_life)
    return Factors(
        confidence * reinforcement * boost * decay,
        1.0,
        confidence,
        reinforcement,
        boost,
        decay,
        1.0,
        age,
        half_life,
    )


def score(
    insight: Insight, match: float, category: str, now: datetime, settings: Settings
) -> Factors:
    """The factors for an insight that matches the query ``match`` as well as the best.
    A match never scores 0, which is a filler's score: a product that underflows (an
    old insight under a short half-life of chitin.yaml) is the least positive float."""
    base = strength(insight, category, now, settings)
    relevance = relevance_factor(match, settings.shape.relevance_halving)
    product = max(relevance * base.score, LEAST_SCORE)
    return base._replace(score=product, relevance=relevance, match=match)


LEAST_SCORE = math.ulp(0.0)  # 5e-324: a match's score when its factors' product underflows


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
    if not math.isfinite(number) or number < 0 or (number == 0 and not zero_ok):
        # Say exactly what is allowed: a weight or a boost of 0 turns its part off.
        allowed = "a finite number of 0 or more" if zero_ok else "a positive number"
        raise ValidationError(name, f"chitin.yaml: {name}.{key} must be {allowed}, got {value!r}")
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
