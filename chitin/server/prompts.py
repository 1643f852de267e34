"""The ``reflect`` prompt: end-of-session reflection, in the words of SKILL.md.

The guidance is SKILL.md's own sections, read from the shipped file, so that the
skill and the prompt never drift apart; the prompt adds what is pending now.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chitin.resources import asset_path

if TYPE_CHECKING:
    from chitin import Chitin

# SKILL.md's sections that guide a reflection, in the order the prompt gives them.
SECTIONS = ("The reflection loop", "When to contribute", "How to contribute", "Keep insights true")

LEAD = """\
Reflect on the sessions that ended, and keep what you learned as chitin insights.

Every `chitin <command>` below is also a tool of this server, by the same name and \
with the same options: `chitin similar "…" --semantic` is `similar` with `semantic: \
true`, and `chitin reflect --clear` is `reflect` with `clear: true`."""


# The prompt as ``prompts/list`` gives it.
LISTED: dict[str, Any] = {
    "arguments": [],
    "description": "Walk through the sessions waiting for reflection: contribute what "
    "you learned, reinforce what proved true, then clear the queue.",
    "name": "reflect",
    "title": "Reflect on ended sessions",
}


def reflection(chitin: Chitin) -> str:
    """The prompt's text: what it asks, what waits now, and SKILL.md's guidance."""
    return "\n\n".join([LEAD, pending_lines(chitin), *skill_sections(SECTIONS)])


def pending_lines(chitin: Chitin) -> str:
    """The sessions waiting, and the digest of each whose transcript is known
    (tool_calls.py's, which loads with the first call that needs the store)."""
    from chitin.server.tool_calls import pending_text

    return pending_text(chitin)


def skill_sections(titles: tuple[str, ...]) -> list[str]:
    """The sections of the shipped SKILL.md with these titles, each as it is written."""

    text = asset_path("SKILL.md").read_text(encoding="utf-8")
    sections = {}
    for part in text.split("\n## ")[1:]:
        title, _, body = part.partition("\n")
        sections[title.strip()] = f"## {title.strip()}\n{body.rstrip()}"
    return [sections[title] for title in titles if title in sections]
