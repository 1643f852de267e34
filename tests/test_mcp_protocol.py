"""``chitin mcp`` on the wire (issue 27 item 10): raw JSON-RPC lines, as a careless or
hostile client may write them. Every request gets exactly one answer, with the code
JSON-RPC 2.0 and the MCP specification give it; notifications get none; argument
types are checked as the tool schemas say; nothing reaches stderr as a traceback."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import MCP_INITIALIZE, chitin_program

INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}'


def exchange(store: Path, *lines: str) -> tuple[list[dict[str, Any]], str]:
    """The answers to ``lines`` (after the handshake), in order, and stderr."""
    done = subprocess.run(
        [chitin_program(), "--store", str(store), "mcp"],
        input="\n".join([json.dumps(MCP_INITIALIZE), INITIALIZED, *lines]) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ},
    )
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert answers[0]["id"] == 0 and "result" in answers[0]
    return answers[1:], done.stderr


def call(ident: int, tool: str, arguments: str) -> str:
    """A tools/call line whose arguments are written as raw JSON text."""
    return (
        f'{{"jsonrpc":"2.0","id":{ident},"method":"tools/call",'
        f'"params":{{"name":"{tool}","arguments":{arguments}}}}}'
    )


def tool_error(answer: dict[str, Any]) -> str:
    result = answer["result"]
    assert result["isError"] is True, result
    [block] = result["content"]
    return str(block["text"])


def test_a_lone_surrogate_in_an_argument_is_refused_in_one_line(store: Path) -> None:
    answers, err = exchange(
        store,
        call(1, "contribute", r'{"type":"skill","claim":"\udcff bad","confidence":0.5}'),
        call(2, "retrieve", r'{"query":"x","tags":["ok","\ud800"]}'),
        call(3, "get", r'{"id":"a\udfffb"}'),
        '{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"insight://\\udcff"}}',
        call(5, "stats", "{}"),
    )
    assert [a["id"] for a in answers] == [1, 2, 3, 4, 5]
    assert tool_error(answers[0]) == (
        "Error: claim holds a lone surrogate escape (\\udcff), which is not a character"
    )
    assert tool_error(answers[1]).startswith("Error: tags[1] holds a lone surrogate")
    assert tool_error(answers[2]).startswith("Error: id holds a lone surrogate")
    assert answers[3]["error"]["code"] == -32602
    assert "lone surrogate" in answers[3]["error"]["message"]
    assert answers[4]["result"]["isError"] is False
    assert not list((store / "insights").rglob("*.md")) if (store / "insights").exists() else True
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("line", "code", "ident"),
    [
        ('{"jsonrpc":"2.0","id":7,"method":"tools/list","params":"x"}', -32600, 7),
        ('{"jsonrpc":"2.0","id":7,"method":"tools/list","params":null}', -32600, 7),
        ('{"jsonrpc":"2.0","id":7,"method":"tools/list","params":3}', -32600, 7),
        ('{"jsonrpc":"2.0","id":7,"method":"tools/list","params":[1]}', -32602, 7),
        ('{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}', -32600, None),
        ('{"jsonrpc":"2.0","id":null,"method":"tools/list"}', -32600, None),
        ('{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}', -32600, None),
        ('{"jsonrpc":"2.0","id":true,"method":"tools/list"}', -32600, None),
        ('{"jsonrpc":"1.0","id":7,"method":"tools/list"}', -32600, 7),
        ('{"id":7,"method":"tools/list"}', -32600, 7),
        ('{"jsonrpc":"2.0","id":7,"method":5}', -32600, 7),
        ('{"jsonrpc":"2.0","id":7}', -32600, 7),
        ("[]", -32600, None),
        ('[{"jsonrpc":"2.0","id":7,"method":"ping"}]', -32600, None),
        ('"hello"', -32600, None),
        ("{not json", -32700, None),
        ("[" * 100_000 + "]" * 100_000, -32700, None),
        ('{"jsonrpc":"2.0","id":7,"method":"ping","params":{"a":NaN}}', -32700, None),
        ('{"jsonrpc":"2.0","id":7,"method":"no/such/method"}', -32601, 7),
        ('{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"nope"}}', -32602, 7),
        ('{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{}}', -32602, 7),
        ('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{}}}', -32602, 7),
        (call(7, "stats", '"x"'), -32602, 7),
        ('{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":5}}', -32602, 7),
        ('{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"x://y"}}', -32602, 7),
        ('{"jsonrpc":"2.0","id":"s","method":"initialize","params":{}}', -32602, "s"),
    ],
)
def test_a_malformed_request_gets_one_error_with_the_specs_code(
    store: Path, line: str, code: int, ident: Any
) -> None:
    answers, err = exchange(store, line, '{"jsonrpc":"2.0","id":99,"method":"ping"}')
    assert len(answers) == 2, answers
    error, pong = answers
    assert error["jsonrpc"] == "2.0" and error["id"] == ident
    assert error["error"]["code"] == code
    message = error["error"]["message"]
    assert message and "\n" not in message and "Traceback" not in message
    assert pong == {"jsonrpc": "2.0", "id": 99, "result": {}}
    assert "Traceback" not in err and err == ""


def test_params_of_the_wrong_shape_are_invalid_params_naming_the_problem(store: Path) -> None:
    """fix100: params that are no structured value are not a request (-32600); a
    structured one of the wrong shape is invalid params (-32602), as the SDK's
    validation answers, in one message that names the method and the member: an array,
    or a member whose type MCP's schema fixes (a listing's cursor, _meta, a prompt's
    arguments), which were taken as if absent."""
    request = '{"jsonrpc":"2.0","id":%d,"method":"%s","params":%s}'
    sent = [
        ("tools/list", '"x"'),
        ("tools/list", "[1]"),
        ("tools/call", "[]"),
        ("resources/list", '{"cursor":[1]}'),
        ("tools/list", '{"_meta":5}'),
        ("prompts/get", '{"name":"reflect","arguments":[1]}'),
        ("ping", '{"_meta":{}}'),
        ("tools/list", '{"cursor":"next"}'),
    ]
    answers, err = exchange(store, *(request % (n, m, p) for n, (m, p) in enumerate(sent)))
    said = [(a["error"]["code"], a["error"]["message"]) for a in answers[:6]]
    assert said == [
        (-32600, 'Invalid request: params must be an object, got "x"'),
        (-32602, "tools/list: params must be an object, got an array"),
        (-32602, "tools/call: params must be an object, got an array"),
        (-32602, "resources/list: cursor must be a string, got [1]"),
        (-32602, "tools/list: _meta must be an object, got 5"),
        (-32602, "prompts/get: arguments must be an object, got [1]"),
    ]
    assert answers[6]["result"] == {} and "tools" in answers[7]["result"]
    assert err == ""


def test_an_insight_uri_whose_id_no_insight_may_have_is_invalid_params(store: Path) -> None:
    """``insight://..`` or ``insight://a%2Db`` (an id with a character ids never hold)
    answered -32603, Internal error, as if the store had failed: the id is the client's
    mistake, invalid params naming the uri, as an id that names no insight is."""
    read = '{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":"%s"}}'
    uris = ["insight://..", "insight://a%2Db", "insight://no-such-insight"]
    answers, err = exchange(store, *(read % (n, uri) for n, uri in enumerate(uris, 1)))
    by_id = {answer["id"]: answer["error"] for answer in answers}
    assert sorted(by_id) == [1, 2, 3]
    for n, uri in enumerate(uris, 1):
        assert by_id[n]["code"] == -32602, by_id[n]
        assert by_id[n]["data"] == {"uri": uri}
        assert "\n" not in by_id[n]["message"]
    assert "invalid id 'a%2Db'" in by_id[2]["message"]
    assert err == ""


def test_notifications_and_client_responses_get_no_answer(store: Path) -> None:
    answers, err = exchange(
        store,
        '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":42}}',
        '{"jsonrpc":"2.0","method":"notifications/no-such-thing"}',
        '{"jsonrpc":"2.0","method":"notifications/initialized","params":"odd"}',
        '{"jsonrpc":"2.0","id":5,"result":{}}',
        '{"jsonrpc":"2.0","id":6,"error":{"code":1,"message":"m"}}',
        '{"jsonrpc":"2.0","id":99,"method":"ping"}',
    )
    assert answers == [{"jsonrpc": "2.0", "id": 99, "result": {}}]
    assert err == ""


def test_an_unknown_prompt_is_invalid_params_without_a_traceback(store: Path) -> None:
    answers, err = exchange(
        store, '{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"nope"}}'
    )
    assert answers[0]["error"]["code"] == -32602
    assert answers[0]["error"]["message"] == "Unknown prompt: nope"
    assert err == ""


def test_the_reflect_prompt_refuses_arguments_it_does_not_take(store: Path) -> None:
    get = '{"jsonrpc":"2.0","id":%d,"method":"prompts/get","params":{"name":"reflect"%s}}'
    answers, err = exchange(
        store,
        get % (1, ',"arguments":{"session":"abc"}'),
        get % (2, ',"arguments":{}'),
        get % (3, ""),
    )
    assert answers[0]["error"]["code"] == -32602
    assert answers[0]["error"]["message"] == (
        "prompts/get: the reflect prompt takes no arguments, got session"
    )
    assert "messages" in answers[1]["result"] and "messages" in answers[2]["result"]
    assert err == ""


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        ("retrieve", '{"query":"x","budget":"500"}',
         'budget must be a whole number from 1 to 1000000, got "500"'),
        ("retrieve", '{"query":"x","full":"true"}', 'full must be true or false, got "true"'),
        ("retrieve", '{"query":"x","budget":2.5}',
         "budget must be a whole number from 1 to 1000000, got 2.5"),
        ("retrieve", '{"query":"x","budget":true}',
         "budget must be a whole number from 1 to 1000000, got true"),
        ("retrieve", '{"query":"x","full":1}', "full must be true or false, got 1"),
        ("retrieve", '{"query":"x","min_confidence":"0.8"}',
         'min_confidence must be a number from 0 to 1 or null, got "0.8"'),
        ("retrieve", '{"query":"x","types":"skill"}',
         "types must be a list of texts among behavioral, personality, relational, principle, "
         'skill, trigger or null, got "skill"'),
        ("retrieve", '{"query":"x","types":["skill",3]}',
         "types[1] must be one of behavioral, personality, relational, principle, skill, "
         "trigger, got 3"),
        ("retrieve", '{"query":null}', "query must be a text, got null"),
        ("retrieve", "{}", "query is required"),
        # a range chitin checks names the parameter, not the field it filters on
        ("retrieve", '{"query":"x","min_confidence":2}',
         "min_confidence must be a number from 0 to 1, got 2"),
        ("list", '{"min_confidence":-1}', "min_confidence must be a number from 0 to 1, got -1"),
        ("contribute", '{"type":"skill","claim":"c","confidence":"0.8"}',
         'confidence must be a number from 0 to 1, got "0.8"'),
        ("contribute", '{"type":"skill","claim":"c","confidence":true}',
         "confidence must be a number from 0 to 1, got true"),
        ("contribute", '{"type":"skill","claim":"c","confidence":0.5,"avoid":"false"}',
         'avoid must be true, false or null, got "false"'),
        ("similar", '{"claim":"c","semantic":"yes"}', 'semantic must be true or false, got "yes"'),
        ("changelog", '{"limit":"3"}', 'limit must be a whole number from 1 to 1000000, got "3"'),
    ],
)  # fmt: skip
def test_argument_types_are_checked_as_the_schema_says(
    store: Path, tool: str, arguments: str, message: str
) -> None:
    answers, err = exchange(store, call(1, tool, arguments))
    assert tool_error(answers[0]) == f"Error: {message}"
    assert err == ""


def test_well_typed_arguments_still_work(store: Path) -> None:
    """A whole number written as 2000.0 is a whole number (JSON Schema's integer)."""
    answers, err = exchange(
        store,
        call(1, "retrieve", '{"query":"x","budget":2000.0,"full":true,"min_confidence":1}'),
        call(2, "changelog", '{"limit":3,"days":null}'),
    )
    assert [a["result"]["isError"] for a in answers] == [False, False]
    assert err == ""


def test_a_line_that_is_not_utf8_is_a_parse_error(store: Path) -> None:
    lines = [json.dumps(MCP_INITIALIZE).encode(), b'{"jsonrpc":"2.0","id":7,"method":"\xff\xfe"}',
             b'{"jsonrpc":"2.0","id":8,"method":"ping"}']  # fmt: skip
    done = subprocess.run(
        [chitin_program(), "--store", str(store), "mcp"],
        input=b"\n".join(lines) + b"\n",
        capture_output=True,
        timeout=120,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["id"] for a in answers] == [0, None, 8]
    assert answers[1]["error"]["code"] == -32700
    assert done.returncode == 0 and done.stderr == b""


def test_a_cancelled_request_that_waits_is_neither_run_nor_answered(store: Path) -> None:
    """The warm-up (opening the store, loading the model) runs first on the store's
    thread, for hundreds of milliseconds; the cancellation, in the same write as the
    request, is read within microseconds: the request is still waiting."""
    contribute = call(1, "contribute", '{"type":"skill","claim":"Never kept","confidence":0.5}')
    answers, err = exchange(
        store,
        contribute,
        '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}',
        call(2, "stats", "{}"),
    )
    assert [a["id"] for a in answers] == [2]
    assert json.loads(answers[0]["result"]["content"][0]["text"])["total"] == 0
    assert err == ""


def test_a_huge_number_in_an_argument_is_refused_in_one_short_line(store: Path) -> None:
    answers, err = exchange(
        store,
        call(1, "retrieve", '{"query":"x","budget":1e308}'),
        call(2, "history", '{"id":"x","limit":1000000000000000000000000000000}'),
        call(3, "contribute", '{"type":"skill","claim":"Pin it","confidence":1e308}'),
        call(4, "similar", '{"claim":"x","threshold":-1e308}'),
    )
    refused = [tool_error(a) for a in sorted(answers, key=lambda a: int(a["id"]))]
    assert refused[0] == "Error: budget must be a whole number from 1 to 1000000, got 1e+308"
    assert refused[1] == "Error: limit must be a whole number from 1 to 1000000, got 1e+30"
    assert refused[2] == "Error: confidence must be between 0 and 1, got 1e+308"
    assert refused[3] == "Error: threshold must be a number from 0 to 1, got -1e+308"
    assert "Traceback" not in err


def test_a_huge_text_where_a_word_is_allowed_is_clipped_in_the_error(store: Path) -> None:
    pasted = "x" * 5000
    answers, _ = exchange(
        store,
        call(1, "list", json.dumps({"provenance": pasted})),
        call(2, "contribute", json.dumps({"type": pasted, "claim": "Pin it", "confidence": 0.5})),
        call(3, "reinforce", json.dumps({"id": "x", "evidence": pasted})),
    )
    for answer in answers:
        refused = tool_error(answer)
        assert len(refused) < 300 and "xxx… (allowed: " in refused, refused[:300]


def test_a_repeated_key_in_a_message_is_refused_not_the_last_one_taken(store: Path) -> None:
    """json.loads keeps the last of two equal keys; chitin refuses such a message, as
    `hooks install` refuses such a settings file, rather than guess which was meant."""
    subprocess.run([chitin_program(), "--store", str(store), "init"], check=True, timeout=120)
    answers, err = exchange(
        store,
        call(1, "contribute", '{"type":"skill","claim":"A","claim":"B","confidence":0.5}'),
        '{"jsonrpc":"2.0","id":2,"method":"ping","method":"ping"}',
        '{"jsonrpc":"2.0","id":99,"method":"ping"}',
    )
    assert [a["id"] for a in answers] == [1, 2, 99], answers
    for answer, key in zip(answers[:2], ("claim", "method"), strict=True):
        assert answer["error"]["code"] == -32600, answer
        message = answer["error"]["message"]
        assert f'the key "{key}" twice' in message and "\n" not in message
    assert not list((store / "insights").rglob("*.md"))
    assert "Traceback" not in err
