"""The MCP tools: one per command an agent uses, answering with that command's JSON
(``chitin <command> --format json``) and failing with its one-line messages.

What a client sees of each tool (its name, description, input schema and
annotations) is data, in tools.json beside this file: the listing the MCP SDK
generated from the tools' signatures (tool_calls.py) when chitin served on it, kept
byte for byte, except the parameters that are an insight's fields: contribute's and
update's ``"$fields"`` stands for one parameter per editable field of model/fields.py's
table, in its order and words (``schema``), so that a new field is a new parameter.
arguments.py checks the JSON types against it; chitin itself checks the
allowed values and ranges, as it checks the CLI's flags, so that an agent reads the
same message a person would (``Error: confidence must be between 0 and 1, got 2``).

Each tool (tool_calls.py) checks its arguments where it is called and returns the
work to do on the store's thread (worker.py); the server runs it and answers with
``answer``, or ``failure``.
"""

from __future__ import annotations

import functools
import json
import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chitin.model import fields
from chitin.model.fields import CLAIM, FLAG, LIST, NUMBER, SECTION, TEXT, WORD, Field
from chitin.model.numbers import js_json, js_numbers
from chitin.notices import take
from chitin.render.failures import describe

if TYPE_CHECKING:
    from chitin.server.tool_calls import Work


# A flag of the CLI that a message names (`--condition "when …"`, `--allow-secret`),
# or a shell command in backticks, with the verb before it ("run `chitin unarchive
# x`"): one a tool does is said as its call, another keeps its flags (`chitin sync --abort`).
FLAG_OR_COMMAND = re.compile(r"(?:\b([Rr]un|[Ss]ee) )?(`[^`\n]*`)|(?<![\w-])--([a-z][a-z-]*)")
# A value said as it is in a call; any other is quoted as JSON quotes it.
PLAIN_VALUE = re.compile(r"[\w.:/@<>…-]+")


def listing() -> list[dict[str, Any]]:
    """The tools as ``tools/list`` gives them (tools.json)."""
    text = Path(__file__).with_name("tools.json").read_text(encoding="utf-8")
    found: list[dict[str, Any]] = json.loads(text)
    for tool in found:
        _with_fields(tool["inputSchema"])
    return found


def _with_fields(schema: dict[str, Any]) -> None:
    """``"$fields"`` in a tool's properties, replaced by the editable fields' parameters
    where it stands; contribute's required ones lead its ``required``."""
    tool = schema["properties"].get("$fields")
    if tool is None:
        return
    updating = tool == "update"
    properties: dict[str, Any] = {}
    for name, value in schema["properties"].items():
        if name != "$fields":
            properties[name] = value
            continue
        for field in fields.EDITABLE_FIELDS:
            properties[field.name] = parameter(field, updating)
    schema["properties"] = properties
    if not updating:
        schema["required"] = [*fields.REQUIRED, *schema["required"]]


def parameter(field: Field, updating: bool) -> dict[str, Any]:
    """A field's parameter in contribute's or update's input schema, as the MCP SDK
    wrote it (keys in alphabetical order): required by contribute, or else optional
    (null by default); update may clear an optional word with ''."""
    value = _json_type(field, clearable=updating and not field.required)
    said = {"description": fields.tool_help(field, updating), "title": _title(field.name)}
    if field.required and not updating:
        return dict(sorted({**value, **said}.items()))
    return {"anyOf": [value, {"type": "null"}], "default": None, **said}


def _json_type(field: Field, clearable: bool) -> dict[str, Any]:
    if field.form == WORD:
        return {"enum": [*field.choices, *[""] * clearable], "type": "string"}
    if field.form == NUMBER:
        return {"maximum": 1, "minimum": 0, "type": "number"}
    if field.form == LIST:
        return {"items": {"type": "string"}, "type": "array"}
    if field.form == FLAG:
        return {"type": "boolean"}
    assert field.form in (CLAIM, TEXT, SECTION), field
    return {"type": "string"}


def _title(name: str) -> str:
    """A parameter's title as pydantic made it: ``allow_secret`` is "Allow Secret"."""
    return name.replace("_", " ").title()


def answer(value: Any, warnings: list[str]) -> dict[str, Any]:
    """A tool's result: the JSON as the command prints it (and as structured
    content), with chitin's warnings in a second block."""
    value = js_numbers(value)  # 1, not 1.0: as the command prints it, and 1.4.5
    texts = [
        js_json(value),
        *(["\n".join(warnings)] * bool(warnings)),
    ]
    structured = value if isinstance(value, dict) else {"result": value}
    return {"content": _blocks(texts), "structuredContent": structured, "isError": False}


def failure(
    error: BaseException, ran: bool = True, schema: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A tool's failure, in the line the CLI prints for it, and what chitin had to say
    on the way (requests run one at a time on the store's thread, so the notices are
    this one's). A call refused before it ran (``ran`` false: its arguments) says
    none: they belong to the work in progress, or to the next answer. A flag the line
    names is said as the parameter of the tool (``schema``, its input schema)."""

    message, _ = describe(error)
    texts = [f"{getattr(error, 'prefix', 'Error')}: {as_parameters(message, schema)}"]
    if ran and (notices := take()):
        texts.append("\n".join(f"warning: {line}" for line in notices))
    return {"content": _blocks(texts), "isError": True}


def as_parameters(message: str, schema: dict[str, Any] | None) -> str:
    """``message`` with each CLI flag that is one of the tool's parameters said as the
    parameter: ``--condition "when …"`` as ``condition: "when …"``, a switch such as
    ``--allow-secret`` as ``allow_secret: true``; and each command in backticks that a
    tool does said as its call, the command beside it: "run `chitin unarchive x`
    first" as "call unarchive with id: x (`chitin unarchive x` in a shell) first"
    (elsewhere "a call of unarchive with id: x (…)"). A shell command
    no tool does, and a flag the tool has no parameter for, are left as they are."""
    properties = (schema or {}).get("properties", {})

    def said(found: re.Match[str]) -> str:
        if found[2] is not None:
            call = _tool_call(found[2][1:-1])
            if call is None:
                return found[0]
            # The CLI's command stays beside the call: the message is the CLI's line
            # (issue 14), and a person reading an agent's log knows the command.
            call = f"{call} ({found[2]} in a shell)"
            verb = "Call" if found[1] in ("Run", "See") else "call"
            return f"{verb} {call}" if found[1] else f"a call of {call}"
        name = found[3].replace("-", "_")
        if name not in properties:
            return found[0]
        return f"{name}: true" if _is_switch(properties[name]) else f"{name}:"

    return FLAG_OR_COMMAND.sub(said, message)


def _tool_call(command: str) -> str | None:
    """``chitin <command> …`` as the call of the tool that does it ("unarchive with
    id: x"), or None where no tool does it with these arguments."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    schema = _schemas().get(words[1]) if words[:1] == ["chitin"] and len(words) > 1 else None
    if schema is None:
        return None
    properties, given, positional = schema["properties"], {}, []
    rest = iter(words[2:])
    for word in rest:
        if not word.startswith("--"):
            positional.append(word)
            continue
        name = word[2:].replace("-", "_")
        value = "true" if name in properties and _is_switch(properties[name]) else next(rest, None)
        if name not in properties or value is None:
            return None
        given[name] = value
    unnamed = [name for name in schema.get("required", []) if name not in given]
    if len(positional) != len(unnamed):
        return None
    given.update(zip(unnamed, positional, strict=True))
    named = ", ".join(f"{name}: {_value(given[name])}" for name in properties if name in given)
    return f"{words[1]} with {named}" if named else words[1]


def _value(word: str) -> str:
    return word if PLAIN_VALUE.fullmatch(word) else json.dumps(word, ensure_ascii=False)


def _is_switch(parameter: dict[str, Any]) -> bool:
    kinds = [parameter, *parameter.get("anyOf", [])]
    return any(kind.get("type") == "boolean" for kind in kinds)


@functools.cache
def _schemas() -> dict[str, dict[str, Any]]:
    """Each tool's input schema, by the tool's name."""
    return {tool["name"]: tool["inputSchema"] for tool in listing()}


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
