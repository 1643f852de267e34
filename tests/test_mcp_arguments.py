"""Every tool, every parameter, given a value of the wrong JSON type: one line naming
the parameter and what it takes, the value as JSON writes it (null, true, "x"), never
Python's spelling of it (None, True, 'x', NoneType, "expected str")."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from mcp import Client
from test_mcp import Called, call, serve

from chitin.server.tools import listing

PYTHON_WORDS = re.compile(
    r"\bNone\b|\bTrue\b|\bFalse\b|NoneType|expected (?:str|int|float|bool|list|dict)"
    r"|list index|not subscriptable|has no attribute|object is not|Traceback|<class"
)
# A value of each JSON type, for the parameters that take another.
WRONG = {"string": 5, "number": "x", "integer": "x", "boolean": "yes", "array": "x"}
FILLED = {"string": "an-id", "number": 0.5, "integer": 1, "boolean": False, "array": ["a"]}


def _kind(schema: dict[str, Any]) -> tuple[str, bool]:
    """The JSON type a parameter takes (the first, for merge's source: a text or a list
    of texts), and whether null is allowed."""
    for alternative in schema.get("anyOf", ()):
        if alternative != {"type": "null"}:
            return str(alternative["type"]), {"type": "null"} in schema["anyOf"]
    return str(schema["type"]), False


def _takes_a_list(schema: dict[str, Any]) -> bool:
    return any(a.get("type") == "array" for a in [schema, *schema.get("anyOf", ())])


def wrong_calls() -> list[tuple[str, str, dict[str, Any]]]:
    """(tool, parameter, arguments) for each wrong value of each parameter."""
    calls = []
    for tool in listing():
        properties = tool["inputSchema"]["properties"]
        required = tool["inputSchema"].get("required", [])
        base = {name: FILLED[_kind(properties[name])[0]] for name in required}
        for name, schema in properties.items():
            kind, nullable = _kind(schema)
            values = [WRONG[kind], {"a": 1}, True if _takes_a_list(schema) else [1, None]]
            values += [] if nullable else [None]
            calls += [(tool["name"], name, {**base, name: value}) for value in values]
    return calls


def test_every_wrong_type_is_refused_in_one_line_of_json_words(store: Path) -> None:
    calls = wrong_calls()
    with_parameters = [t for t in listing() if t["inputSchema"]["properties"]]
    assert len({tool for tool, _, _ in calls}) == len(with_parameters) >= 13

    async def sweep(client: Client) -> list[Called]:
        return [await call(client, tool, **arguments) for tool, _, arguments in calls]

    answers = serve(store, sweep)
    for (tool, name, arguments), answer in zip(calls, answers, strict=True):
        where = (tool, name, arguments[name], answer.text)
        assert answer.failed and answer.blocks == [answer.text], where
        assert "\n" not in answer.text and not PYTHON_WORDS.search(answer.text), where
        said = re.fullmatch(
            rf"Error: {re.escape(name)}(?:\[\d+\])? must be (.+), got (.+)", answer.text
        )
        assert said is not None, where
        assert json.loads(said.group(2)) == arguments[name], where


def test_an_argument_no_tool_takes_is_refused_by_name_with_what_it_takes(store: Path) -> None:
    async def misspell(client: Client) -> list[Called]:
        return [
            await call(client, "retrieve", query="tests", max_result=3),
            await call(client, "stats", verbose=True),
            await call(client, "retrieve", query="tests", max_results=3),
            await call(client, "retrieve", query="tests", MAX_RESULTS=3),
        ]

    near, none, right, shouted = serve(store, misspell)
    takes = next(t for t in listing() if t["name"] == "retrieve")["inputSchema"]["properties"]
    assert near.failed and near.text == (
        'Error: unknown argument "max_result" (did you mean max_results?); '
        f"this tool takes {', '.join(takes)}"
    )
    assert none.failed
    assert none.text == 'Error: unknown argument "verbose"; this tool takes no arguments'
    assert not right.failed
    # in any case, as the CLI's options are (`list --TYPE`)
    assert shouted.text.startswith(
        'Error: unknown argument "MAX_RESULTS" (did you mean max_results?)'
    )


def test_a_misspelt_required_argument_is_named_and_one_cut_short_gets_its_whole_name(
    store: Path,
) -> None:
    """`confidance` for `confidence` was answered "confidence is required": the agent
    learned nothing of what it wrote wrong, and its next call, with both, was refused
    again. And `max` (carapace-query's option) got no suggestion: difflib scores it
    0.43 against `max_results`, as the CLI's did for `--max` (`--format` first)."""

    async def misspell(client: Client) -> list[Called]:
        return [
            await call(client, "contribute", type="skill", claim="Pin it", confidance=0.5),
            await call(client, "retrieve", query="tests", max=3),
        ]

    required, cut = serve(store, misspell)
    assert required.failed and required.text.startswith(
        'Error: unknown argument "confidance" (did you mean confidence?); this tool takes'
    )
    assert cut.failed and cut.text.startswith(
        'Error: unknown argument "max" (did you mean max_results?); this tool takes'
    )


def test_an_unknown_tool_gets_the_nearest_and_the_tools_there_are(store: Path) -> None:
    """`Unknown tool: Retrieve` (the SDK's words, kept) said neither that `retrieve`
    was meant nor which tools there are, as an unknown argument says both."""

    async def misnamed(client: Client) -> list[Called]:
        return [await call(client, "Retrieve", query="x"), await call(client, "frobnicate")]

    near, none = serve(store, misnamed)
    names = ", ".join(t["name"] for t in listing())
    assert near.failed and near.text == (
        f"Unknown tool: Retrieve (did you mean retrieve?); the tools are {names}"
    )
    assert none.failed and none.text == f"Unknown tool: frobnicate; the tools are {names}"


def out_of_range_calls() -> list[tuple[str, str, dict[str, Any], tuple[Any, Any]]]:
    """(tool, parameter, arguments, (minimum, maximum)) for a value under the minimum,
    one far under it and one over the maximum, of every numeric parameter of every tool."""
    calls = []
    for tool in listing():
        properties = tool["inputSchema"]["properties"]
        required = tool["inputSchema"].get("required", [])
        base = {name: FILLED[_kind(properties[name])[0]] for name in required}
        base |= {"type": "skill"} if "type" in base else {}  # so that the range is read
        for name, schema in properties.items():
            kind, _ = _kind(schema)
            if kind not in ("integer", "number"):
                continue
            ranged = next(a for a in schema.get("anyOf", [schema]) if a != {"type": "null"})
            low, high = ranged["minimum"], ranged["maximum"]
            for value in (low - 1, -5, high + 1):
                calls.append((tool["name"], name, {**base, name: value}, (low, high)))
    return calls


def test_every_count_out_of_range_is_refused_in_the_parameters_words(store: Path) -> None:
    """fix110: a count or budget out of range answered in click's words ("Invalid value
    for 'budget': 0 is not in the range 1<=x<=1000000."), phrased for a command line."""
    calls = out_of_range_calls()
    assert {(tool, name) for tool, name, _, _ in calls} >= {
        ("retrieve", "budget"),
        ("retrieve", "max_results"),
        ("history", "limit"),
        ("changelog", "days"),
        ("changelog", "limit"),
        ("contribute", "confidence"),
    }

    async def sweep(client: Client) -> list[Called]:
        made = await call(client, "contribute", type="skill", claim="Pin it", confidence=0.5)
        known = {"id": made.json["insight"]["id"]}  # so that update reads the range
        return [
            await call(client, tool, **(arguments | (known if "id" in arguments else {})))
            for tool, _, arguments, _ in calls
        ]

    answers = serve(store, sweep)
    for (tool, name, arguments, (low, high)), answer in zip(calls, answers, strict=True):
        where = (tool, name, arguments[name], answer.text)
        assert answer.failed and answer.blocks == [answer.text], where
        assert "\n" not in answer.text and not PYTHON_WORDS.search(answer.text), where
        assert "--" not in answer.text and "Invalid value" not in answer.text, where
        assert "not in the range" not in answer.text and "<=" not in answer.text, where
        said = re.fullmatch(
            rf"Error: {re.escape(name)} must be (?:a whole number |a number )?"
            rf"(?:from {low} to {high}|between {low} and {high}), got (.+)",
            answer.text,
        )
        assert said is not None, where
        assert json.loads(said.group(1)) == arguments[name], where


def test_a_refusal_names_the_tools_parameter_not_the_clis_flag(store: Path) -> None:
    """fix111: the MCP contribute tool answered a trigger without a condition with
    'a trigger needs a condition (--condition "when …")', a flag no tool has. Every
    refusal that names a --flag names the parameter instead; a shell command in
    backticks (`chitin unarchive …`) is left as it is."""
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"

    async def refused(client: Client) -> dict[str, Called]:
        trigger = await call(
            client, "contribute", type="trigger", claim="Pin it", confidence=0.5, condition="x"
        )
        made = trigger.json["insight"]["id"]
        calls = {
            "contribute": ("contribute", {"type": "trigger", "claim": "Do it", "confidence": 0.5}),
            "update": ("update", {"id": made, "condition": ""}),
            "credential": ("reinforce", {"id": made, "source": token}),
        }
        return {name: await call(client, tool, **args) for name, (tool, args) in calls.items()}

    answers = serve(store, refused)
    for answer in answers.values():
        assert answer.failed and re.search(r"(?<![\w`])--\w", answer.text) is None, answer.text
    needs = 'Error: a trigger needs a condition (condition: "when …")'
    assert answers["contribute"].text == needs and answers["update"].text == needs
    assert answers["credential"].text.endswith("(use allow_secret: true if it is not one)")
