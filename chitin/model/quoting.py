"""Text chitin did not write, made safe to show: credentials masked (the write guard's
detector), on one line, control characters and bidirectional overrides as escapes, and
cut to a bound. The digest quotes a transcript so, and a reflection marker's fields
read from a queue file (hand-edited, or chitin 1.4.5's) are shown so.
"""

from __future__ import annotations

from collections.abc import Collection

from chitin.model.escapes import visible
from chitin.model.secrets import redacted

QUOTE = 300  # characters of one quote


def quote(text: str, limit: int = QUOTE, spare: Collection[str] = ()) -> str:
    """``text`` with credentials masked (but the kinds in ``spare``), on one line, cut
    to ``limit`` characters."""
    masked, _ = redacted(text, spare)
    flat = visible(" ".join(masked.split()))
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    if "[redacted" in cut[cut.rfind("[") :]:  # never cut a mask in half
        cut = cut[: cut.rfind("[")]
    return cut.rstrip() + "…"
