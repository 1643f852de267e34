"""The values of a quality report and the original's rounding they are printed with:
what retrieval/quality.py computes and render/quality.py prints."""

from __future__ import annotations

import math
from typing import NamedTuple

STATUSES: tuple[str, ...] = ("thriving", "healthy", "new", "fading", "stale", "dormant")


class Components(NamedTuple):
    engagement: float
    freshness: float
    maturity: float
    confidence: float


class QualityScore(NamedTuple):
    """One insight's quality. Values are rounded as the original printed them:
    quality and components to 3 decimals; ``days_since_last_recall`` is exact."""

    insight_id: str
    claim: str
    type: str
    quality: float
    components: Components
    status: str
    recommendation: str | None
    days_since_last_recall: float | None  # None: never retrieved
    age_days: float
    last_retrieved: str | None

    @property
    def age_in_days(self) -> int:
        return js_round(self.age_days)

    @property
    def days_unrecalled(self) -> float:
        """Days since the last retrieval, or since creation if never retrieved."""
        recall = self.days_since_last_recall
        return self.age_days if recall is None else recall


class QualityReport(NamedTuple):
    total: int
    average_quality: float
    distribution: dict[str, int]
    top: list[QualityScore]
    stale: list[QualityScore]  # stale and dormant, lowest quality first
    recommendations: list[str]


# ---------------------------------------------------------------- JavaScript rounding


def js_round(value: float) -> int:
    """JavaScript's Math.round: halves round up (Python's round() rounds them to even)."""
    return math.floor(value + 0.5)


def round3(value: float) -> float:
    """Math.round(x × 1000) / 1000, as the original rounded every score."""
    return js_round(value * 1000) / 1000


def fixed(value: float, digits: int) -> str:
    """JavaScript's toFixed: the exact binary value, ties rounded away from zero
    (0.125 → 0.13). Shown scores only: retrieve's text never rounds one."""
    import decimal  # not on a session start's path

    exact, unit = decimal.Decimal(value), decimal.Decimal(1).scaleb(-digits)
    return str(exact.quantize(unit, rounding=decimal.ROUND_HALF_UP))
