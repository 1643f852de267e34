"""``chitin check``'s warning for a time in the future (a hand edit, or a clock far
ahead): decay counts an insight's age from ``last_reinforced`` (else ``updated``,
else ``created``), and a time to come is age 0, so the insight would never decay."""

from __future__ import annotations

from datetime import datetime, timedelta

from chitin.format.lint import WARNING, Finding
from chitin.model.insight import Insight, parse_timestamp

# Machines' clocks differ, and a sync brings their times: a time less than a day ahead
# (decay counts days) is a clock a little fast, not worth a word.
SKEW = timedelta(days=1)
_FIXES = {
    "created": "set it to when the insight was made",
    "updated": "set it to when the insight last changed",
    "last_reinforced": "set it to when the insight was last reinforced",
}


def future_findings(path: str, insight: Insight | None, now: datetime) -> list[Finding]:
    """A warning for each of the insight's times later than ``now`` (and the skew)."""
    if insight is None:
        return []
    found = []
    for name, fix in _FIXES.items():
        stamp = getattr(insight, name)
        if stamp is None or parse_timestamp(name, stamp) <= now + SKEW:
            continue
        message = f"{name} {stamp} is in the future, so the insight counts as new and never decays"
        found.append(Finding(path, name, message, f"{fix} (a past time)", WARNING, "future-time"))
    return found
