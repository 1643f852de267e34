"""A tool's arguments, checked against its input schema (tools.json) before it runs.

Only the JSON types are checked here, strictly as the schema says them: "500" is not
an integer, "true" not a boolean. The allowed values and ranges (enums, minimum,
maximum) are chitin's own checks, so that an agent reads the message a person reads
from the CLI. Every refusal is one line: ``<argument> must be <kind>, got <value>``.
"""

from __future__ import annotations

from typing import Any

from chitin.errors import ValidationError
from chitin.server.protocol import lone_surrogate

# The schema's types, in the words of a refusal.
KINDS = {
    "integer": "a whole number",
    "number": "a number",
    "string": "a text",
    "boolean": "true or false",
    "array": "a list",
    "object": "an object",
}


def checked(schema: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    """``given`` with every argument the schema names, defaults filled in; arguments
    it does not name are left out (as the SDK left them). Raise ValidationError."""
    properties: dict[str, Any] = schema.get("properties", {})
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


def _value(where: str, value: Any, schema: dict[str, Any]) -> Any:
    alternatives = schema.get("anyOf")
    if alternatives is not None:
        if value is None and {"type": "null"} in alternatives:
            return None
        schema = next(a for a in alternatives if a != {"type": "null"})
    kind = str(schema.get("type"))
    if kind == "array" and isinstance(value, list):
        items = schema.get("items", {})
        return [_value(f"{where}[{n}]", item, items) for n, item in enumerate(value)]
    if not _is(kind, value):
        raise ValidationError(where, f"{where} must be {KINDS.get(kind, kind)}, got {value!r}")
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
