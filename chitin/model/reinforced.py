"""Which insights a session reinforced itself, from its tool calls (pure).

The closing instructions of the session's context tell the agent to run
`chitin reinforce <id>` (or call the MCP ``reinforce`` tool) when an insight proves
itself. A digest that offered the same reinforcement again would count it twice, and
calling such an insight "not touched" would be wrong: the calls say it was.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable, Sequence
from pathlib import PurePath

from chitin.model.transcript import CALL, Turn

# reinforce's options that take a value: the word after them is not the id.
_VALUED = frozenset(["--source", "--evidence", "--store", "--format"])
SHORTEST = 4  # the shortest id prefix the context shows


def reinforced(turns: Sequence[Turn], ids: Iterable[str]) -> dict[str, tuple[int, ...]]:
    """For each of ``ids``, the messages whose tool calls reinforced it: by its id or a
    prefix naming it alone among ``ids``."""
    wanted = list(ids)
    found: dict[str, list[int]] = {insight_id: [] for insight_id in wanted}
    for turn in turns:
        if turn.role != CALL:
            continue
        for ref in references(turn):
            hits = [i for i in wanted if i.startswith(ref) and (len(ref) >= SHORTEST or i == ref)]
            if len(hits) == 1 and turn.number not in found[hits[0]]:
                found[hits[0]].append(turn.number)
    return {insight_id: tuple(numbers) for insight_id, numbers in found.items()}


def references(turn: Turn) -> list[str]:
    """The ids a tool call reinforces: the MCP tool's ``id``, or the id after
    `chitin … reinforce` in a shell command."""
    if turn.tool.lower().endswith("reinforce"):
        try:
            given = json.loads(turn.text)
        except ValueError:
            return []
        value = given.get("id") if isinstance(given, dict) else None
        return [value] if isinstance(value, str) else []
    try:
        words = shlex.split(turn.text)
    except ValueError:  # an unclosed quote: the words as they are
        words = turn.text.split()
    return [ref for ref in _after_reinforce(words) if ref]


def _after_reinforce(words: list[str]) -> Iterable[str]:
    ran_chitin = False
    for position, word in enumerate(words):
        if PurePath(word).name == "chitin":
            ran_chitin = True
        elif word in ("&&", "||", ";", "|"):
            ran_chitin = False
        elif word == "reinforce" and ran_chitin:
            yield _first_argument(words[position + 1 :])


def _first_argument(words: list[str]) -> str:
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in _VALUED:
            skip = True
        elif not word.startswith("-"):
            return word.rstrip(";&|")  # `chitin reinforce abcd; …`: shlex keeps the ;
    return ""
