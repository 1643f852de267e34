"""Characters that show nothing yet change what a reader sees, refused in every text
field by ``model.insight.check_text`` (docs/compatibility.md, Validation)."""

from __future__ import annotations

import re
import unicodedata

from chitin.errors import InvisibleCharacter

# Characters that show nothing yet change what a reader sees, refused in every text
# field (docs/compatibility.md, "Invisible characters"): the bidirectional embeddings,
# overrides and isolates, which reorder text on screen ("Trojan Source"), the zero-width
# space and the byte order mark. The zero-width non-joiner and joiner shape Persian,
# Indic scripts and emoji sequences, so they are refused only where they cannot: next
# to an ASCII character or at an end of the text, where they only hide a word from the
# duplicate check, the secret detector and a person's eye.
_INVISIBLE_TEXT = (
    "[\u200b\u202a-\u202e\u2066-\u2069\ufeff]"
    "|(?<![^\x00-\x7f])[\u200c\u200d]|[\u200c\u200d](?![^\x00-\x7f])"
)
# Characters that show as nothing though they are no format character (Unicode's
# default ignorables outside category Cf): the combining grapheme joiner, the Hangul
# fillers, the Khmer inherent vowels and the variation selectors. Allowed in text (an
# emoji takes U+FE0F), but the secret detector reads a token without them.
IGNORABLE = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f\u3164\uffa0"
    + "".join(map(chr, range(0xFE00, 0xFE10)))
)
# Compiled at the first non-ASCII text (0.3 ms that a session start need not pay).
_INVISIBLE: re.Pattern[str] | None = None


def refuse_invisible(field: str, value: str) -> None:
    """Raise InvisibleCharacter, naming ``field``, if ``value`` holds one (_INVISIBLE_TEXT)."""
    global _INVISIBLE
    _INVISIBLE = _INVISIBLE or re.compile(_INVISIBLE_TEXT)
    found = _INVISIBLE.search(value)
    if found is None:
        return
    char = f"U+{ord(found.group()):04X}"
    name = unicodedata.name(found.group(), "").title()
    raise InvisibleCharacter(
        field,
        f"{field} must not contain invisible or text-direction characters (found "
        f"{char} {name} at character {found.start() + 1}); they hide or reorder what a "
        "reader sees",
        f"delete the {char} at character {found.start() + 1} of {field} (an editor that "
        "shows invisible characters finds it)",
    )
