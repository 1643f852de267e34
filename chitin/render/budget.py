"""Fitting ranked insights into a token budget, and the retrieve output formats.

The original's marshalling (reference §3.5), with its defects fixed:
- no cost is charged for a header that is never printed;
- a section header is printed only with at least one line under it;
- insights are chosen in rank order, so the budget goes to the most relevant ones
  (the original filled sections in a fixed type order, and personality insights could
  crowd out the skills a coding task needed). They are printed grouped by type, best
  first: the group of the best insight leads, and each group lists its own best first;
- when insights are left out for the budget, one short line says how many;
- each line starts with the insight's short id (``[abcd]``, the shortest prefix that
  names it), so the agent can reinforce or correct what it reads; the ids count in
  the budget like every other character.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from chitin.model import fields
from chitin.model.insight import TYPES, Insight
from chitin.model.packing import NO_LABELS, Labels, Packed

if TYPE_CHECKING:
    from chitin.model.results import Retrieval

LABELS = {kind: kind.capitalize() for kind in TYPES}
# The lines under a claim in the full format: (label, field name), model/fields.py's
# ``full_at``.
FULL_LINES = tuple((fields.label(field), field.name) for field in fields.ordered("full_at"))


def estimate_tokens(text: str) -> int:
    """The original's estimate: a token per four UTF-16 code units, rounded up."""
    # ASCII is one unit a character: no encoding (whose codec alone costs a session
    # start ~0.5 ms to load).
    units = len(text) if text.isascii() else len(text.encode("utf-16-le")) // 2
    return math.ceil(units / 4)


def line(insight: Insight, full: bool = False, label: str | None = None) -> str:
    """One insight as a Markdown bullet, after its ``label`` (its short id) if it has
    one; a trigger with a condition reads as a reflex."""
    head = f"- [{label}] " if label else "- "
    claim = one_line(insight.claim)
    if insight.type == "trigger" and insight.condition:
        action = "avoid" if insight.avoid else "do"
        text = f"{head}When: {one_line(insight.condition)} → {action}: {claim}"
    else:
        text = f"{head}{claim}"
    if full:
        for name, field in FULL_LINES:
            value = getattr(insight, field)
            if value:
                text += f"\n  {name}: {one_line(value)}"
    return text


def one_line(text: str) -> str:
    """A field of a file on one line of the context: a claim a person wrapped in an
    editor (a Markdown paragraph's lines are one sentence) or a section of several
    paragraphs would start lines of its own, with no id, or read as a list item or a
    header of the context."""
    return " ".join(text.split())


def _cost(text: str) -> int:
    return estimate_tokens(text + "\n")


def omission_note(count: int) -> str:
    return f"({count} more insight{'s' if count != 1 else ''} left out to fit the token budget)"


def pack(
    ranked: Sequence[Insight], budget: int, full: bool = False, labels: Labels = NO_LABELS
) -> Packed:
    """Choose insights in rank order while their lines (and the header of a new section)
    fit in ``budget``; reserve room for the omission note when anything is left out."""
    chosen = _greedy(ranked, budget, full, labels)
    if len(chosen) == len(ranked):
        return Packed(chosen, 0, labels=labels)
    room = budget - _cost(omission_note(len(ranked))) - 1  # the note and its blank line
    if room < 0:
        return Packed(chosen, len(ranked) - len(chosen), labels=labels)
    chosen = _greedy(ranked, room, full, labels)
    return Packed(chosen, len(ranked) - len(chosen), note=True, labels=labels)


def packed_of(found: Retrieval) -> Packed:
    """What of ``found`` fits its query's budget (``Chitin.retrieve`` packs it)."""
    assert found.packed is not None, "a retrieval from Chitin.retrieve is packed"
    return found.packed


def _greedy(ranked: Sequence[Insight], budget: int, full: bool, labels: Labels) -> list[Insight]:
    chosen: list[Insight] = []
    sections: set[str] = set()
    used = 0
    for insight in ranked:
        cost = _cost(line(insight, full, labels.get(insight.id)))
        if insight.type not in sections:
            # A new section: its header, and the blank line that separates sections.
            cost += _cost(f"### {LABELS.get(insight.type, insight.type)}") + (1 if sections else 0)
        if used + cost <= budget:
            chosen.append(insight)
            sections.add(insight.type)
            used += cost
    return chosen


def marshal(packed: Packed, full: bool = False) -> str:
    """The chosen insights grouped by type, best first: groups in the order of their best
    insight, and rank order inside each group."""
    groups: dict[str, list[Insight]] = {}
    for insight in packed.chosen:
        groups.setdefault(insight.type, []).append(insight)
    blocks = [
        "\n".join(
            [
                f"### {LABELS.get(kind, kind)}",
                *(line(i, full, packed.labels.get(i.id)) for i in members),
            ]
        )
        for kind, members in groups.items()
    ]
    if packed.note:
        blocks.append(omission_note(packed.omitted))
    return "\n\n".join(blocks)
