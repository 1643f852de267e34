"""Insight quality: how engaged, fresh, mature and confident each insight is.

The formulas and weights are the original's (chitin 1.4.5, "Chitin Pro"), so its
scores carry over. Two defects are fixed (reference §11.11, §11.23):

- freshness measures the last *retrieval* (recorded by ``retrieve`` in
  ``.chitin/usage.sqlite3``), not the last reinforcement;
- status never calls an insight dormant for being new. Below "healthy", status
  follows how long the insight has gone unrecalled: days since its last retrieval,
  or, if it was never retrieved, days since it was created. The recommendation
  texts say which of the two it is, so they are true of the insight they describe.
  An insight created or reinforced in the last NEW_DAYS is "new", not "fading": its
  engagement and maturity have had no time to grow, so its low score says nothing yet.

Pure functions: the time is a parameter, and nothing here reads files or the clock.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime

from chitin.model.insight import Insight, parse_timestamp
from chitin.model.quality import STATUSES, Components, fixed, js_round, round3
from chitin.model.quality import QualityReport as QualityReport
from chitin.model.quality import QualityScore as QualityScore

WEIGHTS = {"engagement": 0.30, "freshness": 0.25, "maturity": 0.20, "confidence": 0.25}
THRIVING_QUALITY = 0.7
HEALTHY_QUALITY = 0.5
STALE_DAYS = 30.0  # unrecalled longer than this: stale
DORMANT_DAYS = 90.0  # unrecalled longer than this: dormant
MATURE_DAYS = 90.0  # age at which maturity stops growing
NEW_DAYS = 7.0  # a never-recalled insight younger than this is still fresh-ish; one
# created or reinforced this recently is "new" rather than "fading"
NEW_FRESHNESS = 0.5
UNRECALLED_FRESHNESS = 0.1
UNREINFORCED_ENGAGEMENT = 0.1  # the engagement of an insight never reinforced
DEFAULT_TOP = 10
SECONDS_PER_DAY = 86_400.0

# Report-level recommendation thresholds (the original's).
CLEANUP_SHARE = 0.3  # stale + dormant above this share of all insights
DORMANT_COUNT = 5  # more dormant insights than this
UNREINFORCED_SHARE = 0.5  # never-reinforced above this share
LOW_MEAN_CONFIDENCE = 0.7
CROWDED_TOTAL = 100


# ---------------------------------------------------------------- one insight


def score(insight: Insight, now: datetime, last_retrieved: str | None) -> QualityScore:
    """The quality of ``insight`` at ``now``, given when it was last retrieved (or None)."""
    moment = parse_timestamp("now", now)
    age = days_between(parse_timestamp("created", insight.created), moment)
    recall = None
    if last_retrieved is not None:
        recall = days_between(parse_timestamp("last retrieved", last_retrieved), moment)
    engagement = engagement_of(insight.reinforcements)
    freshness = freshness_of(recall, age)
    maturity = min(1.0, age / MATURE_DAYS) * engagement
    quality = min(
        1.0,
        WEIGHTS["engagement"] * engagement
        + WEIGHTS["freshness"] * freshness
        + WEIGHTS["maturity"] * maturity
        + WEIGHTS["confidence"] * insight.confidence,
    )
    unrecalled = age if recall is None else recall
    learned = age
    if insight.last_reinforced is not None:  # a count without a time: since creation
        reinforced = parse_timestamp("last reinforced", insight.last_reinforced)
        learned = min(age, days_between(reinforced, moment))
    status = status_of(quality, unrecalled, learned)
    return QualityScore(
        insight_id=insight.id,
        claim=insight.claim,
        type=insight.type,
        quality=round3(quality),
        components=Components(
            round3(engagement), round3(freshness), round3(maturity), round3(insight.confidence)
        ),
        status=status,
        recommendation=recommendation_for(status, insight, recall, age),
        days_since_last_recall=recall,
        age_days=age,
        last_retrieved=last_retrieved,
    )


def days_between(earlier: datetime, later: datetime) -> float:
    """Days from ``earlier`` to ``later``; a future ``earlier`` counts as 0 days."""
    return max(0.0, (later - earlier).total_seconds() / SECONDS_PER_DAY)


def engagement_of(reinforcements: int) -> float:
    """0.1 for none, rising with diminishing returns: 1 → 0.355, 3 → 0.669, 5 → 0.830."""
    return min(1.0, 0.1 + (1.0 - math.exp(-reinforcements / 3.0)) * 0.9)


def freshness_of(days_since_recall: float | None, age_days: float) -> float:
    """e^(−d/30) after a retrieval d days ago; never retrieved: 0.5 while new, else 0.1."""
    if days_since_recall is not None:
        return math.exp(-days_since_recall / STALE_DAYS)
    return NEW_FRESHNESS if age_days < NEW_DAYS else UNRECALLED_FRESHNESS


def status_of(quality: float, days_unrecalled: float, days_since_learned: float) -> str:
    """Thriving and healthy by quality; below that, by how long it has gone unrecalled,
    and "new" rather than "fading" while it was created or reinforced less than
    NEW_DAYS ago (``days_since_learned``).

    The original fell back to "dormant" for any low score without a recorded recall,
    so a brand-new insight was "not recalled in 90+ days" (§11.23).
    """
    if quality >= THRIVING_QUALITY:
        return "thriving"
    if quality >= HEALTHY_QUALITY:
        return "healthy"
    if days_unrecalled > DORMANT_DAYS:
        return "dormant"
    if days_unrecalled > STALE_DAYS:
        return "stale"
    if days_since_learned < NEW_DAYS:
        return "new"
    return "fading"


def recommendation_for(
    status: str, insight: Insight, recall: float | None, age: float
) -> str | None:
    """What to do about an insight, in words true of it (the original's texts where
    they already were)."""
    if status == "dormant":
        if recall is None:
            return (
                f"Consider archiving — never recalled since it was created {js_round(age)} days ago"
            )
        return "Consider archiving — not recalled in 90+ days"
    if status == "stale":
        if recall is None:
            return (
                f"Never recalled since it was created {js_round(age)} days ago — "
                "review and reinforce if still relevant, or archive"
            )
        return "Review and reinforce if still relevant, or archive"
    if status == "fading" and insight.reinforcements == 0:
        return "Never reinforced — validate with experience or archive"
    if status == "thriving" and insight.confidence < 0.9:
        return "Strong engagement — consider reinforcing to boost confidence"
    return None


# ---------------------------------------------------------------- many insights


def report(scores: Sequence[QualityScore], top: int = DEFAULT_TOP) -> QualityReport:
    """The distribution, the ``top`` best, the stale and dormant ones, and advice."""
    distribution = dict.fromkeys(STATUSES, 0)
    for one in scores:
        distribution[one.status] += 1
    average = sum(s.quality for s in scores) / len(scores) if scores else 0.0
    # Stable sorts: ties keep the order given (the store's newest-first order).
    best = sorted(scores, key=lambda s: -s.quality)[:top]
    stale = sorted((s for s in scores if s.status in ("stale", "dormant")), key=lambda s: s.quality)
    return QualityReport(
        total=len(scores),
        average_quality=round3(average),
        distribution=distribution,
        top=best,
        stale=stale,
        recommendations=report_recommendations(scores, distribution, len(stale)),
    )


def report_recommendations(
    scores: Sequence[QualityScore], distribution: dict[str, int], stale_count: int
) -> list[str]:
    """The original's store-wide advice, in its order and words."""
    total = len(scores)
    if not total:
        return []  # the original advised raising an average confidence of 0%
    advice: list[str] = []
    if stale_count > total * CLEANUP_SHARE:
        share = js_round(stale_count / total * 100)
        advice.append(
            f"{stale_count} insights ({share}%) are stale or dormant — consider a cleanup session"
        )
    if distribution["dormant"] > DORMANT_COUNT:
        advice.append(
            f"{distribution['dormant']} dormant insights haven't been recalled in 90+ days "
            "— archive candidates"
        )
    unreinforced = sum(1 for s in scores if s.components.engagement <= UNREINFORCED_ENGAGEMENT)
    if unreinforced > total * UNREINFORCED_SHARE:
        advice.append(
            f"{unreinforced} insights have never been reinforced — validate them or they'll decay"
        )
    mean_confidence = sum(s.components.confidence for s in scores) / total
    if mean_confidence < LOW_MEAN_CONFIDENCE:
        advice.append(
            f"Average confidence is {fixed(mean_confidence * 100, 0)}% "
            "— consider reinforcing your best insights"
        )
    if total > CROWDED_TOTAL:
        advice.append(
            f"{total} total insights — consider merging duplicates or archiving low-value ones"
        )
    return advice
