"""A tool's arguments, checked against its input schema (tools.json) before it runs.

Only the JSON types are checked here, strictly as the schema says them: "500" is not
an integer, "true" not a boolean. The allowed values and ranges (enums, minimum,
maximum) are chitin's own checks, so that an agent reads the message a person reads
from the CLI. Every refusal is one line naming the argument and what it takes, the
value as the client wrote it (JSON: null, true, "x"; not Python's None, True, 'x'):
``<argument> must be <what the schema allows>, got <value>``.
"""

from __future__ import annotations

import json
from difflib import get_close_matches
from typing import Any

from chitin.errors import ValidationError
from chitin.model.numbers import js_number
from chitin.server.protocol import lone_surrogate

# The schema's types, in the words of a refusal (one value; then several).
KINDS = {
    "integer": ("a whole number", "whole numbers"),
    "number": ("a number", "numbers"),
    "string": ("a text", "texts"),
    "boolean": ("true or false", "true or false"),
    "array": ("a list", "lists"),
    "object": ("an object", "objects"),
}
SHOWN = 60  # the most of a refused value a message repeats


def checked(schema: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    """``given`` with every argument the schema names, defaults filled in. Raise
    ValidationError, also for an argument the schema does not name: the SDK dropped
    those silently, so an agent that wrote ``limit`` for ``max_results`` got an
    answer to a question it did not ask, and never learned the right name."""
    properties: dict[str, Any] = schema.get("properties", {})
    # The unknown first: a required argument misspelt is missing only because of it.
    if unknown := [name for name in given if name not in properties]:
        raise ValidationError("arguments", _unknown(unknown[0], list(properties)))
    for name in schema.get("required", ()):
        if name not in given:
            raise ValidationError("arguments", f"{name} is required")
    arguments = {}
    for name, property_schema in properties.items():
        if name in given:
            arguments[name] = _value(name, given[name], property_schema)
        else:
            arguments[name] = property_schema.get("default")
    return arguments


def _unknown(name: str, known: list[str]) -> str:
    """One line: the argument no schema names, a near name, and what the tool takes."""
    said = f"unknown argument {shown(name)}"
    # in lower case, as the names are: MAX_RESULTS is max_results in Caps Lock; a
    # name cut short (max) first, which difflib scores under its cutoff
    lower = name.lower()
    begun = [n for n in known if n.startswith(lower)] if lower else []
    if close := begun[:1] or get_close_matches(lower, known, n=1, cutoff=0.6):
        said += f" (did you mean {close[0]}?)"
    takes = ", ".join(known) if known else "no arguments"
    return f"{said}; this tool takes {takes}"


def unknown_tool(name: str, known: list[str]) -> str:
    """One line, the SDK's words first: the tool no one serves, the nearest one, and
    the tools there are."""
    said = f"Unknown tool: {name}"
    if close := get_close_matches(name.lower(), known, n=1, cutoff=0.6):
        said += f" (did you mean {close[0]}?)"
    return f"{said}; the tools are {', '.join(known)}"


def _value(where: str, value: Any, schema: dict[str, Any]) -> Any:
    alternatives = schema.get("anyOf")
    said = ""
    if alternatives is not None:
        if value is None and {"type": "null"} in alternatives:
            return None
        # merge's source: a text or a list of texts; the one of the value's type
        kinds = [a for a in alternatives if a != {"type": "null"}]
        schema = next((a for a in kinds if _is(str(a.get("type")), value)), kinds[0])
        said = " or ".join(allowed(a) for a in kinds)
        if {"type": "null"} in alternatives:
            said = "true, false or null" if said == "true or false" else f"{said} or null"
    kind = str(schema.get("type"))
    if kind == "array" and isinstance(value, list):
        items = schema.get("items", {})
        return [_value(f"{where}[{n}]", item, items) for n, item in enumerate(value)]
    if not _is(kind, value):
        said = said or allowed(schema)
        raise ValidationError(where, f"{where} must be {said}, got {shown(value)}")
    if kind == "integer":
        return int(value)
    if problem := lone_surrogate(value, where):
        raise ValidationError(where, problem)
    return value


def _is(kind: str, value: Any) -> bool:
    """Whether ``value`` is of the JSON Schema type ``kind`` (a bool is no number)."""
    if isinstance(value, bool):
        return kind == "boolean"
    if kind == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if kind == "number":
        return isinstance(value, int | float)
    python: type | None = {"string": str, "boolean": bool, "array": list, "object": dict}.get(kind)
    return python is not None and isinstance(value, python)


def allowed(schema: dict[str, Any], many: bool = False) -> str:
    """What ``schema`` takes, in words: "a number from 0 to 1", "a list of texts",
    "one of external, internal, social"."""
    kind = str(schema.get("type"))
    if "enum" in schema:
        choices = ", ".join(str(choice) or '""' for choice in schema["enum"])  # "": clears
        return f"{KINDS['string'][1]} among {choices}" if many else f"one of {choices}"
    if kind == "array":
        return f"a list of {allowed(schema.get('items', {}), many=True)}"
    words = KINDS.get(kind, (kind, kind))[many]
    if "minimum" in schema and "maximum" in schema:
        low, high = (js_number(schema[end]) for end in ("minimum", "maximum"))
        return f"{words} from {low} to {high}"
    return words


def shown(value: Any) -> str:
    """``value`` as JSON writes it, cut short to one readable piece."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except ValueError:  # an integer of more than 4,300 digits
        return "a number of more than 4,300 digits"
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"
