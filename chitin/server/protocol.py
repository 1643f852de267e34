"""JSON-RPC 2.0 as MCP's stdio transport carries it: one message per line.

A line is read into a ``Request``, a ``Notification``, or the error that answers it,
so that every request gets exactly one answer with the code JSON-RPC 2.0 gives it
(-32700 not JSON, -32600 not a request) and whatever a client sends never reaches the
handlers malformed. Responses from the client are dropped: this server asks nothing.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from chitin.model import strict_json

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

# UTF-16 halves that a JSON escape (\udcff) can name but no UTF-8 text can hold.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")

Ident = int | str


@dataclass(frozen=True)
class Request:
    ident: Ident
    method: str
    params: dict[str, Any]


@dataclass(frozen=True)
class Notification:
    method: str
    params: dict[str, Any]


class ProtocolError(Exception):
    """A request that is answered with a JSON-RPC error instead of a result."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


@dataclass(frozen=True)
class Refusal:
    """The error that answers a line; ``ident`` is None when it could not be read."""

    ident: Ident | None
    error: ProtocolError


Message = Request | Notification | Refusal | None


def read(line: bytes) -> Message:
    """What a line says: a request, a notification, a refusal to send, or None (a
    blank line, or a response from the client, which nothing waits for)."""
    if not line.strip():
        return None
    try:
        value = strict_json.loads(line, parse_constant=_not_json)
    except strict_json.RepeatedKey as repeated:  # json.loads kept the last, silently
        found = repeated.value
        ident = found.get("id") if isinstance(found, dict) else None
        why = f'the message gives the key "{repeated.key}" twice in one object'
        return _refuse(ident if _is_ident(ident) else None, why)
    except ValueError as error:  # UnicodeDecodeError included
        return Refusal(None, ProtocolError(PARSE_ERROR, f"Parse error: {_first_line(error)}"))
    except RecursionError:
        return Refusal(None, ProtocolError(PARSE_ERROR, "Parse error: nested too deeply"))
    if isinstance(value, list):
        return _refuse(None, "a batch (a JSON array) is not supported; send one message a line")
    if not isinstance(value, dict):
        return _refuse(None, "a message must be a JSON object")
    return _message(value)


def _message(value: dict[str, Any]) -> Message:
    has_id = "id" in value
    ident = value.get("id")
    if has_id and not _is_ident(ident):
        return _refuse(None, f"id must be a string or an integer, got {_shown(ident)}")
    if value.get("jsonrpc") != "2.0":
        return _refuse(ident, 'jsonrpc must be "2.0"')
    if "method" not in value and ("result" in value or "error" in value):
        return None  # a response: this server sends no requests, so none is awaited
    method = value.get("method")
    if not isinstance(method, str):
        return _refuse(ident, f"method must be a string, got {_shown(method)}")
    params = value.get("params", {})
    if not isinstance(params, dict | list):
        if not has_id:
            return None  # a notification is never answered, even a malformed one
        return _refuse(ident, f"params must be an object, got {_shown(params)}")
    if not has_id:
        return Notification(method, params if isinstance(params, dict) else {})
    assert ident is not None
    # A structured value of the wrong shape is invalid params (-32602), as the SDK's
    # validation answers it; a value that is not structured at all, above, is not a
    # request (-32600), as JSON-RPC 2.0 says.
    wrong = _wrong_shape(method, params)
    if wrong is not None:
        return Refusal(ident, ProtocolError(INVALID_PARAMS, f"{method}: {wrong}"))
    assert isinstance(params, dict)
    return Request(ident, method, params)


def _wrong_shape(method: str, params: dict[str, Any] | list[Any]) -> str | None:
    """What is wrong with ``params`` whatever the method does with it: the array
    JSON-RPC allows and MCP does not, and the members whose type MCP's schema fixes
    (``_meta``; a listing's ``cursor``; initialize's ``capabilities`` and
    ``clientInfo``; a prompt's ``arguments``). tools/call's own are app.py's."""
    if isinstance(params, list):
        return "params must be an object, got an array"
    objects = ["_meta"]
    objects += ["capabilities", "clientInfo"] if method == "initialize" else []
    objects += ["arguments"] if method == "prompts/get" else []
    for key in objects:
        if params.get(key) is not None and not isinstance(params[key], dict):
            return f"{key} must be an object, got {_shown(params[key])}"
    cursor = params.get("cursor")
    if method.endswith("/list") and cursor is not None and not isinstance(cursor, str):
        return f"cursor must be a string, got {_shown(cursor)}"
    return None


def _is_ident(value: Any) -> bool:
    """MCP's ids: a string or an integer, never null (JSON-RPC's bool is not one)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _refuse(ident: Any, why: str) -> Refusal:
    return Refusal(ident, ProtocolError(INVALID_REQUEST, f"Invalid request: {why}"))


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _first_line(error: ValueError) -> str:
    return str(error).splitlines()[0] if str(error) else type(error).__name__


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 40 else text[:37] + "..."


def lone_surrogate(value: Any, where: str) -> str | None:
    """Where in ``value`` a string (or a key) holds a lone surrogate, and which one,
    in one line; None if every string is text."""
    if isinstance(value, str):
        found = LONE_SURROGATE.search(value)
        if found is None:
            return None
        escape = found.group().encode("unicode_escape").decode("ascii")
        return f"{where} holds a lone surrogate escape ({escape}), which is not a character"
    if isinstance(value, dict):
        for key, item in value.items():
            said = lone_surrogate(key, f"a key of {where}") or lone_surrogate(
                item, f"{where}.{key}" if where else key
            )
            if said:
                return said
    if isinstance(value, list):
        for n, item in enumerate(value):
            if said := lone_surrogate(item, f"{where}[{n}]"):
                return said
    return None


def result(ident: Ident, value: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "result": value}


def error(ident: Ident | None, problem: ProtocolError) -> dict[str, Any]:
    body: dict[str, Any] = {"code": problem.code, "message": problem.message}
    if problem.data is not None:
        body["data"] = problem.data
    return {"jsonrpc": "2.0", "id": ident, "error": body}


def encode(message: dict[str, Any]) -> bytes:
    """One line of JSON. Text is written as UTF-8; a message that echoes a lone
    surrogate back (in an unknown method's name, say) is written in ASCII escapes,
    which every JSON reader takes, rather than not at all."""
    try:
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        return json.dumps(message, separators=(",", ":")).encode("ascii") + b"\n"
