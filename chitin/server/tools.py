"""The MCP tools: one per command an agent uses, answering with that command's JSON
(``chitin <command> --format json``) and failing with its one-line messages.

What a client sees of each tool (its name, description, input schema and
annotations) is data, in tools.json beside this file: the listing the MCP SDK
generated from the tools' signatures (tool_calls.py) when chitin served on it, kept
byte for byte. arguments.py checks the JSON types against it; chitin itself checks the
allowed values and ranges, as it checks the CLI's flags, so that an agent reads the
same message a person would (``Error: confidence must be between 0 and 1, got 2``).

Each tool (tool_calls.py) checks its arguments where it is called and returns the
work to do on the store's thread (worker.py); the server runs it and answers with
``answer``, or ``failure``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chitin.server.tool_calls import Work


def listing() -> list[dict[str, Any]]:
    """The tools as ``tools/list`` gives them (tools.json)."""
    text = Path(__file__).with_name("tools.json").read_text(encoding="utf-8")
    found: list[dict[str, Any]] = json.loads(text)
    return found


def answer(value: Any, warnings: list[str]) -> dict[str, Any]:
    """A tool's result: the JSON as the command prints it (and as structured
    content), with chitin's warnings in a second block."""
    texts = [
        json.dumps(value, indent=2, ensure_ascii=False),
        *(["\n".join(warnings)] * bool(warnings)),
    ]
    structured = value if isinstance(value, dict) else {"result": value}
    return {"content": _blocks(texts), "structuredContent": structured, "isError": False}


def failure(error: BaseException, ran: bool = True) -> dict[str, Any]:
    """A tool's failure, in the line the CLI prints for it, and what chitin had to say
    on the way (requests run one at a time on the store's thread, so the notices are
    this one's). A call refused before it ran (``ran`` false: its arguments) says
    none: they belong to the work in progress, or to the next answer."""
    from chitin.notices import take
    from chitin.render.failures import describe

    message, _ = describe(error)
    texts = [f"{getattr(error, 'prefix', 'Error')}: {message}"]
    if ran and (notices := take()):
        texts.append("\n".join(f"warning: {line}" for line in notices))
    return {"content": _blocks(texts), "isError": True}


def refusal(text: str) -> dict[str, Any]:
    """A tool call refused before any tool ran (an unknown tool), as a tool's error."""
    return {"content": _blocks([text]), "isError": True}


def _blocks(texts: list[str]) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text} for text in texts]


def tools() -> dict[str, Callable[..., Work]]:
    """Every tool by its name: called with its checked arguments, it returns the work
    to run on the store's thread (or raises ValidationError)."""
    from chitin.server.tool_calls import TOOLS

    return TOOLS
