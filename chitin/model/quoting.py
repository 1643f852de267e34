"""Text chitin did not write, made safe to show: credentials masked (the write guard's
detector), on one line, control characters and bidirectional overrides as escapes, and
cut to a bound. The digest quotes a transcript so, and a reflection marker's fields
read from a queue file (hand-edited, or chitin 1.4.5's) are shown so.
"""

from __future__ import annotations

from collections.abc import Collection

from chitin.model.secrets import redacted

QUOTE = 300  # characters of one quote
# What would let the text drive the terminal it is shown in: control characters
# (escape sequences) and the bidirectional ones that reorder what is read; shown as
# escapes, as Carapace's remote text is. A joiner (an emoji's) is kept.
VISIBLE = {
    c: f"\\u{c:04x}"
    for c in (*range(0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A))
}


def quote(text: str, limit: int = QUOTE, spare: Collection[str] = ()) -> str:
    """``text`` with credentials masked (but the kinds in ``spare``), on one line, cut
    to ``limit`` characters."""
    masked, _ = redacted(text, spare)
    flat = " ".join(masked.split()).translate(VISIBLE)
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    if "[redacted" in cut[cut.rfind("[") :]:  # never cut a mask in half
        cut = cut[: cut.rfind("[")]
    return cut.rstrip() + "…"
