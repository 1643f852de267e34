"""The text of an imported item as its file will read it back: an export gives a
claim or a section as the file holds it, and an import that changed it (a claim a
person wrapped over lines, a code block opening the reasoning) would not restore the
store it came from (issue 25)."""

from __future__ import annotations

from chitin.model.fields import SECTION_FIELDS
from chitin.model.insight import check_claim, check_text, normalize_claim, optional_text


def imported_claim(value: object) -> str:
    """The claim as the item gives it, where its file reads back the same: lines none
    blank nor ending in white space (a claim a person wrapped by hand, as an export gives
    it); else folded into one line, as contribute folds it."""
    claim = check_claim(value)
    kept = all(line.strip() and line == line.rstrip() for line in claim.split("\n"))
    return claim if kept else normalize_claim(claim)


def imported_text(name: str, value: object) -> str | None:
    """A free text; a section keeps the indentation of its first line, as its file
    reads it back (a code block in the reasoning), where ``optional_text`` strips it."""
    text = optional_text(name, value)
    if text is None or name not in _SECTIONS:
        return text
    lines = check_text(name, str(value)).split("\n")
    while not lines[0].strip():
        lines.pop(0)
    return "\n".join(lines).rstrip()


_SECTIONS = {field.name for field in SECTION_FIELDS}
