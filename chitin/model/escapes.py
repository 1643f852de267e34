"""Characters that would let a text drive the terminal it is shown in, and their
escapes. Apart from quoting.py (which masks credentials too, and so loads the secret
detector's rules) so that read commands escape what they show at no cost."""

from __future__ import annotations

# Control characters (escape sequences) and the bidirectional ones that reorder what
# is read; shown as escapes, as Carapace's remote text is. A joiner (an emoji's) is kept.
VISIBLE = {
    c: f"\\u{c:04x}"
    for c in (*range(0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A))
}


def visible(text: str) -> str:
    """``text`` with every character of VISIBLE as its escape, nothing else changed."""
    return text.translate(VISIBLE)
