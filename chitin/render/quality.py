"""Human text for quality scores: the original's layouts, with days instead of dates."""

from __future__ import annotations

from chitin.model.quality import STATUSES, QualityReport, QualityScore, fixed, js_round

TITLE = "chitin — Insight Quality Report"
EMPTY_STORE = "No insights found. Contribute some first!"
NO_STALE = "✓ No stale or dormant insights found."
EMOJI = {
    "thriving": "🟢",
    "healthy": "🔵",
    "new": "⚪",
    "fading": "🟡",
    "stale": "🟠",
    "dormant": "🔴",
}
ATTENTION_SHOWN = 5  # stale insights named in the full report; --stale-only lists all
REPORT_CLAIM_WIDTH = 60
STALE_CLAIM_WIDTH = 80


# ---------------------------------------------------------------- human


def report_text(report: QualityReport) -> list[str]:
    lines = [
        TITLE,
        "═" * len(TITLE),
        "",
        f"Total insights: {report.total}",
        f"Average quality: {fixed(report.average_quality * 100, 1)}%",
        "",
        "Distribution:",
    ]
    for status in STATUSES:
        count = report.distribution[status]
        if count:
            share = fixed(count / report.total * 100, 0)
            lines.append(f"  {EMOJI[status]} {status}: {count} ({share}%)")
    lines.append("")
    if report.top:
        lines.append("Top Insights:")
        lines += [f"  {_badge(s)} {_clip(s.claim, REPORT_CLAIM_WIDTH)}" for s in report.top]
        lines.append("")
    if report.stale:
        lines.append("Needs Attention:")
        for s in report.stale[:ATTENTION_SHOWN]:
            lines.append(f"  {_badge(s)} {_clip(s.claim, REPORT_CLAIM_WIDTH)} ({_recall(s)})")
        hidden = len(report.stale) - ATTENTION_SHOWN
        if hidden > 0:
            lines.append(f"  … and {hidden} more: chitin quality --stale-only")
        lines.append("")
    if report.recommendations:
        lines.append("Recommendations:")
        lines += [f"  • {advice}" for advice in report.recommendations]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def stale_text(report: QualityReport) -> list[str]:
    """Every stale or dormant insight, lowest quality first, with what to do."""
    if not report.stale:
        return [NO_STALE]
    lines = [f"Found {len(report.stale)} stale/dormant insights:", ""]
    for s in report.stale:
        lines += [
            f"  [{_percent(s.quality)}] {s.status.upper()}",
            f"  {_flat(s.claim)[:STALE_CLAIM_WIDTH]}",
            f"  Last recall: {_recall(s)} | ID: {s.insight_id}",
        ]
        if s.recommendation:
            lines.append(f"  → {s.recommendation}")
        lines.append("")
    return lines


def score_text(score: QualityScore) -> list[str]:
    c = score.components
    lines = [
        f"Quality: {fixed(score.quality * 100, 1)}% — {score.status.upper()}",
        f"Claim: {score.claim}",
        f"Type: {score.type} | Age: {score.age_in_days}d",
        f"Engagement: {_percent(c.engagement)} | Freshness: {_percent(c.freshness)} | "
        f"Maturity: {_percent(c.maturity)} | Confidence: {_percent(c.confidence)}",
        f"Last recall: {_recall(score)} | ID: {score.insight_id}",
    ]
    if score.recommendation:
        lines.append(f"→ {score.recommendation}")
    return lines


def _badge(score: QualityScore) -> str:
    return f"{EMOJI[score.status]} [{_percent(score.quality)}]"


def _percent(value: float) -> str:
    return f"{fixed(value * 100, 0)}%"


def _recall(score: QualityScore) -> str:
    if score.days_since_last_recall is None:
        return f"never recalled, created {score.age_in_days}d ago"
    return f"{js_round(score.days_since_last_recall)}d ago"


def _flat(claim: str) -> str:
    return " ".join(claim.split())


def _clip(claim: str, width: int) -> str:
    flat = _flat(claim)
    return flat if len(flat) <= width else flat[:width] + "..."
