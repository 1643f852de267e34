"""The body of an insight file, read: the claim, the known sections under their '## '
headings, and what else a person wrote there, in order (for ``Layout.body``)."""

from __future__ import annotations

import re

from chitin.format.conflicts import unescape_markers
from chitin.model.fields import SECTION_FIELDS

SECTION_TITLES: dict[str, str] = {field.name: field.title or "" for field in SECTION_FIELDS}
CLAIM_PART = ("claim", "")
HEADING = re.compile(r"^## +(\S.*?)\s*$")


def unescape(text: str) -> str:
    return unescape_markers(re.sub(r"(?m)^\\(\\*## )", r"\1", text))


def paragraphs(body: str) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """Split the body into its claim lines and the blocks that follow, by '## ' headings."""
    lines = body.split("\n")
    index = 0
    while index < len(lines) and not lines[index].strip():
        index += 1
    claim: list[str] = []
    while index < len(lines) and lines[index].strip() and not HEADING.match(lines[index]):
        claim.append(lines[index].rstrip())
        index += 1
    blocks: list[tuple[str, list[str]]] = [("", [])]
    for line in lines[index:]:
        heading = HEADING.match(line)
        if heading:
            blocks.append((heading.group(1), [line]))
        else:
            blocks[-1][1].append(line)
    return claim, blocks


def body_fields(body: str) -> dict[str, str | None]:
    claim, blocks = paragraphs(body)
    fields: dict[str, str | None] = {"claim": unescape("\n".join(claim)) or None}
    for index, name in _sections_at(blocks).items():
        fields[name] = _section_text(blocks[index][1])
    return fields


def _section_text(lines: list[str]) -> str | None:
    return unescape("\n".join(lines[1:]).strip("\n").rstrip()) or None


def _sections_at(blocks: list[tuple[str, list[str]]]) -> dict[int, str]:
    """The block that holds each known section: the first of its title with text, else
    the first of its title. Any other block of that title is a person's text, kept as
    it is: were an empty first one the section, a rewrite, which leaves an empty
    section out, would make the next reader take the second one's text (qa115)."""
    chosen: dict[str, int] = {}
    for index, (title, lines) in enumerate(blocks):
        name = title.lower()
        if name not in SECTION_TITLES:
            continue
        held = chosen.get(name)
        if held is None or (not _section_text(blocks[held][1]) and _section_text(lines)):
            chosen[name] = index
    return {index: name for name, index in chosen.items()}


def body_layout(body: str) -> tuple[tuple[str, str], ...]:
    _, blocks = paragraphs(body)
    layout: list[tuple[str, str]] = [CLAIM_PART]
    sections = _sections_at(blocks)
    for index, (_title, lines) in enumerate(blocks):
        if index in sections:
            layout.append(("section", sections[index]))
            continue
        raw = "\n".join(lines).strip("\n").rstrip()
        if raw:
            layout.append(("text", raw))
    return tuple(layout)
