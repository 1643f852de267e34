"""JSON read strictly: an object that gives one key twice is refused.

``json.loads`` keeps the last of two equal keys, so ``{"claim": "A", "claim": "B"}``
would silently become claim B. chitin reads every JSON door it parses itself (import,
``contribute --json``, the MCP server's messages, a host's settings file) through
``loads`` here, and each door says which key, and where, in its own words.
"""

from __future__ import annotations

import json
from typing import Any


class RepeatedKey(ValueError):
    """An object gave ``key`` twice; ``item`` is the index, in a top-level array, of
    the element that holds it (None when the document is not an array)."""

    def __init__(self, key: str, item: int | None, value: Any) -> None:
        super().__init__(f'the key "{key}" is given twice in one object')
        self.key = key
        self.item = item
        self.value = value  # the document as json.loads reads it (the last value kept)


def loads(text: str | bytes, **options: Any) -> Any:
    """``json.loads(text, **options)``, raising RepeatedKey for a repeated key."""
    repeated: list[tuple[dict[str, Any], str]] = []

    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        made = dict(pairs)
        if len(made) < len(pairs) and not repeated:  # objects end innermost first
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    repeated.append((made, key))
                    break
                seen.add(key)
        return made

    value = json.loads(text, object_pairs_hook=unique, **options)
    if repeated:
        holder, key = repeated[0]
        raise RepeatedKey(key, _item_holding(value, holder), value)
    return value


def _item_holding(document: Any, holder: dict[str, Any]) -> int | None:
    """The index of the top-level array's element that is or holds ``holder``."""
    if not isinstance(document, list):
        return None
    for index, item in enumerate(document):
        stack = [item]
        while stack:  # no recursion: a document may nest deeper than Python's stack
            found = stack.pop()
            if found is holder:
                return index
            if isinstance(found, dict):
                stack.extend(found.values())
            elif isinstance(found, list):
                stack.extend(found)
    return None
