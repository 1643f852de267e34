"""``chitin mcp`` (issue 14), driven by the MCP SDK's own client over stdio, against
the installed ``chitin`` as a subprocess: the tools, resources and prompt a client
sees, every tool's answer against its command's JSON, bad calls against the CLI's
messages, changes made under a running server, and what the process writes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import Run, chitin_program, commit_count, git
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from chitin.model.insight import EVIDENCE_KINDS, PROVENANCES, TYPES

TOOLS = {
    "retrieve",
    "contribute",
    "reinforce",
    "similar",
    "get",
    "list",
    "update",
    "archive",
    "unarchive",
    "merge",
    "history",
    "changelog",
    "reflect",
    "stats",
}
READ_ONLY = {"retrieve", "similar", "get", "list", "history", "changelog", "stats"}


def _params(store: Path, extra_env: dict[str, str] | None = None) -> StdioServerParameters:
    return StdioServerParameters(
        command=chitin_program(),
        args=["--store", str(store), "mcp"],
        env={**os.environ, **(extra_env or {})},
    )


def serve(store: Path, body: Callable[[Client], Awaitable[Any]], **env: str) -> Any:
    """Run ``body(client)`` in one client session with ``chitin mcp`` on ``store``."""

    async def session() -> Any:
        async with Client(_params(store, env)) as client:
            return await body(client)

    return anyio.run(session)


class Called:
    """A tool's result: the JSON of its first block, its text, and whether it failed."""

    def __init__(self, result: Any) -> None:
        self.failed = bool(result.is_error)
        self.blocks = [block.text for block in result.content]
        self.text = self.blocks[0]
        self.structured = result.structured_content

    @property
    def json(self) -> Any:
        assert not self.failed, self.text
        return json.loads(self.text)


async def call(client: Client, tool: str, **arguments: Any) -> Called:
    return Called(await client.call_tool(tool, arguments))


def cli_error(run: Run, *args: str, input: str | None = None) -> str:
    """The one line the CLI prints for a failing command."""
    result = run(*args, input=input, expect=None)
    assert result.exit_code in (1, 2), result.output
    return result.stderr.strip().splitlines()[0].split(" (see 'chitin")[0]


# ------------------------------------------------------------------ what a client sees


def test_a_client_sees_the_tools_resources_and_prompt(store: Path, run: Run) -> None:
    run("init")

    async def look(client: Client) -> Any:
        return (
            (await client.list_tools()).tools,
            (await client.list_resources()).resources,
            (await client.list_resource_templates()).resource_templates,
            (await client.list_prompts()).prompts,
            client.instructions,
        )

    tools, resources, templates, prompts, instructions = serve(store, look)
    by_name = {tool.name: tool for tool in tools}
    assert set(by_name) == TOOLS
    for name, tool in by_name.items():
        assert tool.description and len(tool.description) > 40, name
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is (name in READ_ONLY), name
        assert tool.annotations.open_world_hint is False
    assert by_name["archive"].annotations.destructive_hint is True
    assert by_name["merge"].annotations.destructive_hint is True
    assert by_name["contribute"].annotations.destructive_hint is False
    assert by_name["update"].annotations.idempotent_hint is True

    contribute = by_name["contribute"].input_schema
    assert contribute["required"] == ["type", "claim", "confidence"]
    properties = contribute["properties"]
    assert properties["type"]["enum"] == list(TYPES)
    assert (properties["confidence"]["minimum"], properties["confidence"]["maximum"]) == (0, 1)
    assert properties["provenance"]["anyOf"][0]["enum"] == list(PROVENANCES)
    assert {"reasoning", "context", "limitations", "tags", "source", "condition", "avoid"} <= set(
        properties
    )
    reinforce = by_name["reinforce"].input_schema["properties"]
    assert reinforce["evidence"]["anyOf"][0]["enum"] == list(EVIDENCE_KINDS)
    retrieve = by_name["retrieve"].input_schema
    assert retrieve["required"] == ["query"]
    assert retrieve["properties"]["budget"]["minimum"] == 1
    assert retrieve["properties"]["types"]["anyOf"][0]["items"]["enum"] == list(TYPES)

    assert [str(r.uri) for r in resources] == ["personality://current"]
    assert [t.uri_template for t in templates] == ["insight://{id}"]
    assert [p.name for p in prompts] == ["reflect"]
    assert instructions is not None and "retrieve" in instructions


# ------------------------------------------------------------------ every tool


def test_every_tool_answers_as_its_command(store: Path, run: Run) -> None:
    run("init")
    commits = commit_count(store)
    run("reflect", "--queue", "--session-key", "agent:main:1", "--reason", "new")

    async def work(client: Client) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        made = await call(
            client,
            "contribute",
            type="skill",
            claim="Reproduce a flaky test in a loop before changing it",
            confidence=0.7,
            tags=["testing", "flaky"],
            provenance="observation",
            reasoning="Two fixes missed the race.",
        )
        seen["contribute"] = made.json
        assert made.structured == made.json
        twin = await call(
            client,
            "contribute",
            type="skill",
            claim="Reproduce a flaky test in a loop before changing anything",
            confidence=0.6,
        )
        seen["twin"] = twin.json
        trigger = await call(
            client,
            "contribute",
            type="trigger",
            claim="weakening the assertion",
            condition="a test fails and editing it is quickest",
            avoid=True,
            confidence=0.9,
        )
        seen["trigger"] = trigger.json
        first = made.json["insight"]["id"]
        seen["similar"] = (await call(client, "similar", claim="reproduce a flaky test")).json
        seen["get"] = (await call(client, "get", id=first[:-2])).json
        seen["list"] = (await call(client, "list", types=["skill"])).json
        seen["update"] = (
            await call(client, "update", id=first, limitations="Not for tests of timing")
        ).json
        seen["reinforce"] = (
            await call(client, "reinforce", id=first, evidence="internal", source="ran it")
        ).json
        seen["history"] = (await call(client, "history", id=first)).json
        seen["changelog"] = (await call(client, "changelog", days=1)).json
        seen["archive"] = (await call(client, "archive", id=trigger.json["insight"]["id"])).json
        seen["unarchive"] = (await call(client, "unarchive", id=trigger.json["insight"]["id"])).json
        seen["merge"] = (
            await call(client, "merge", source=twin.json["insight"]["id"], target=first)
        ).json
        seen["retrieve"] = (
            await call(client, "retrieve", query="fix the flaky test", budget=500)
        ).json
        seen["get-after"] = (await call(client, "get", id=first)).json
        seen["stats"] = (await call(client, "stats")).json
        seen["reflect"] = (await call(client, "reflect")).json
        seen["reflect-clear"] = (await call(client, "reflect", clear=True)).json
        seen["reflect-after"] = (await call(client, "reflect")).json
        return seen

    seen = serve(store, work)
    first = seen["contribute"]["insight"]["id"]
    trigger = seen["trigger"]["insight"]["id"]
    # Each write is one commit, as the CLI makes it: 3 contributions, update, reinforce,
    # archive, unarchive, merge.
    assert commit_count(store) == commits + 8
    assert seen["contribute"]["path"] == f"insights/skill/{first}.md"
    assert seen["twin"]["duplicates"][0]["id"] == first
    assert seen["trigger"]["insight"]["avoid"] is True
    assert seen["similar"][0]["id"] == first
    assert seen["update"]["limitations"] == "Not for tests of timing"
    assert seen["reinforce"]["reinforcementCount"] == 1
    # what changed, as the CLI's JSON says it: the confidence before, beside the new one
    assert seen["reinforce"]["previousConfidence"] < seen["reinforce"]["confidence"]
    assert seen["archive"]["archived"] is True and seen["unarchive"]["archived"] is False
    assert seen["merge"]["reinforcementCount"] >= 1
    assert first in [r["id"] for r in seen["retrieve"]["insights"]]
    assert seen["retrieve"]["context"] and seen["retrieve"]["tokenEstimate"] <= 500
    assert seen["reflect"]["pending"][0]["sessionKey"] == "agent:main:1"
    assert seen["reflect-clear"]["cleared"] == 1
    assert seen["reflect-after"]["pending"] == []

    # The answers are the commands' own JSON, byte for byte where time cannot differ.
    def cli(*args: str) -> Any:
        return json.loads(run(*args, "--format", "json").stdout)

    assert seen["stats"] == cli("stats")
    # The retrieve after the merge noted when it gave the insight: get says so since.
    assert seen["get-after"] == cli("get", first)
    assert seen["get-after"]["lastRetrievedAt"] == cli("get", first)["lastRetrievedAt"]
    assert seen["merge"] == {k: v for k, v in cli("get", first).items() if k != "lastRetrievedAt"}
    now_known = {k: v for k, v in seen["reinforce"].items() if k != "previousConfidence"}
    assert seen["history"]["insight"] == now_known
    told = seen["history"]["history"]
    assert len(told) == 3 and told == cli("history", first)["history"][:3]
    made_then = [seen["twin"]["insight"], seen["contribute"]["insight"]]  # the same second:
    assert sorted(seen["list"], key=str) == sorted(made_then, key=str)  # in either order
    assert seen["get"] == seen["contribute"]["insight"]
    assert {entry["insightId"] for entry in seen["changelog"]} >= {first, trigger}


# ------------------------------------------------------------------ bad calls


def test_bad_calls_fail_with_the_clis_messages(store: Path, run: Run, add: Any) -> None:
    known = add("skill", "Write the failing test first", 0.8)["id"]
    commits = commit_count(store)
    stdin_missing_claim = json.dumps({"type": "skill", "confidence": 0.5})
    stdin_high = json.dumps({"type": "skill", "claim": "A claim", "confidence": 2})
    stdin_bad_type = json.dumps({"type": "skil", "claim": "A claim", "confidence": 0.5})
    expected = {
        "unknown id": cli_error(run, "get", "nope"),
        "confidence 2": cli_error(run, "contribute", "--json", input=stdin_high),
        "missing claim": cli_error(run, "contribute", "--json", input=stdin_missing_claim),
        "bad type": cli_error(run, "contribute", "--json", input=stdin_bad_type),
        "bad filter": cli_error(run, "retrieve", "--query", "x", "--type", "skill,nope"),
        "bad evidence": cli_error(run, "reinforce", known, "--evidence", "hearsay"),
        "bad provenance": cli_error(run, "list", "--provenance", "rumour"),
        "merge itself": cli_error(run, "merge", known, known),
    }
    # The one line the CLI words differently: the refusal of an exact duplicate names
    # the tool and the parameter an MCP client has, not the command and the flag.
    said_on_the_cli = cli_error(run, "contribute", "--type", "skill", "--claim",
                                "write the failing test first!", "--confidence", "0.5")  # fmt: skip
    assert f"run `chitin reinforce {known}`" in said_on_the_cli
    expected["exact duplicate"] = (
        f"Error: already known as {known}: call reinforce with id: {known} "
        f"(`chitin reinforce {known}` in a shell) to strengthen it "
        "(force: true writes a second copy anyway)"
    )
    # So is the refusal of a credential: the parameter, not the CLI's --allow-secret.
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    assert "(use --allow-secret if" in cli_error(run, "reinforce", known, "--source", token)
    expected["a credential"] = (
        "Error: source looks like it holds a GitHub token; an insight must not contain "
        "credentials (use allow_secret: true if it is not one)"
    )

    async def bad(client: Client) -> dict[str, Called]:
        calls = {
            "unknown id": ("get", {"id": "nope"}),
            "confidence 2": ("contribute", {"type": "skill", "claim": "A claim", "confidence": 2}),
            "missing claim": ("contribute", {"type": "skill", "confidence": 0.5}),
            "bad type": ("contribute", {"type": "skil", "claim": "A claim", "confidence": 0.5}),
            "bad filter": ("retrieve", {"query": "x", "types": ["skill", "nope"]}),
            "bad threshold": ("similar", {"claim": "x", "threshold": 2}),
            "bad evidence": ("reinforce", {"id": known, "evidence": "hearsay"}),
            "bad provenance": ("list", {"provenance": "rumour"}),
            "merge itself": ("merge", {"source": known, "target": known}),
            "exact duplicate": (
                "contribute",
                {"type": "skill", "claim": "write the failing test first!", "confidence": 0.5},
            ),
            "a credential": ("reinforce", {"id": known, "source": token}),
            "budget 0": ("retrieve", {"query": "x", "budget": 0}),
            "words for a number": (
                "contribute",
                {"type": "skill", "claim": "c", "confidence": "high"},
            ),
            "a number for a text": ("get", {"id": 5}),
            "tags not a list": (
                "contribute",
                {"type": "skill", "claim": "c", "confidence": 0.5, "tags": {"a": 1}},
            ),
            "unknown tool": ("forget", {}),
        }
        answers = {name: await call(client, tool, **args) for name, (tool, args) in calls.items()}
        answers["still serving"] = await call(client, "get", id=known)
        return answers

    answers = serve(store, bad)
    for name, line in expected.items():
        assert answers[name].failed, name
        assert answers[name].blocks == [line], name
    assert answers["bad threshold"].text == ("Error: threshold must be a number from 0 to 1, got 2")
    assert answers["budget 0"].text == (
        "Error: budget must be a whole number from 1 to 1000000, got 0"
    )
    assert (
        answers["words for a number"].text
        == 'Error: confidence must be a number from 0 to 1, got "high"'
    )
    assert answers["a number for a text"].text == "Error: id must be a text, got 5"
    assert (
        answers["tags not a list"].text
        == 'Error: tags must be a list of texts or null, got {"a": 1}'
    )
    assert answers["unknown tool"].failed and "forget" in answers["unknown tool"].text
    assert not answers["still serving"].failed
    assert commit_count(store) == commits  # nothing was written by any of them
    for answer in answers.values():
        assert "\n" not in answer.text or not answer.failed
        assert "Traceback" not in answer.text


# ------------------------------------------------------------------ changes under it


def test_the_server_sees_changes_made_under_it(store: Path, run: Run, add: Any) -> None:
    """A CLI write from another process, a hand edit, a git operation and a removed
    .chitin/ are all seen by the next request."""
    known = add("skill", "Keep commits small and focused", 0.8)
    path = store / "insights" / "skill" / f"{known['id']}.md"

    def elsewhere(*args: str) -> str:
        done = subprocess.run(
            [chitin_program(), "--store", str(store), *args],
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout

    async def session(client: Client) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        first = await call(client, "retrieve", query="deploy the service to production")
        seen["before"] = [r["id"] for r in first.json["insights"]]
        made = json.loads(
            elsewhere(
                "contribute",
                "--type",
                "principle",
                "--claim",
                "Deploy to production only after the staging checks pass",
                "--confidence",
                "0.9",
                "--format",
                "json",
            )
        )["insight"]["id"]
        seen["made"] = made
        after = await call(client, "retrieve", query="deploy the service to production")
        seen["after"] = [r["id"] for r in after.json["insights"]]
        path.write_text(path.read_text().replace("small and focused", "small and reviewed"))
        seen["edited"] = (await call(client, "get", id=known["id"])).json["claim"]
        git(store, "rm", "-q", f"insights/principle/{made}.md")
        git(store, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "drop it")
        seen["removed"] = (await call(client, "get", id=made)).text
        import shutil

        shutil.rmtree(store / ".chitin")
        seen["without cache"] = (await call(client, "stats")).json["total"]
        return seen

    seen = serve(store, session)
    assert seen["made"] not in seen["before"]
    assert seen["after"][0] == seen["made"]
    assert seen["edited"] == "Keep commits small and reviewed"
    # The MCP get of an insight deleted under the server names the delete (fix61).
    assert seen["removed"].startswith(f"Error: insight {seen['made']} was deleted in commit")
    assert seen["without cache"] == 1


def test_an_embedding_provider_chosen_under_the_server_is_the_one_it_asks(
    store: Path, run: Run
) -> None:
    """`chitin embed --provider openai` from another process while the server runs: the
    next retrieve embeds its query with that provider. The server kept the model it had
    opened first (the local one) and ranked by it against stale vectors, silently."""
    from ollama_server import OllamaServer

    run("init", "--seed")

    with OllamaServer() as ollama:

        async def session(client: Client) -> list[Any]:
            await call(client, "retrieve", query="an ambiguous requirement")
            subprocess.run(
                [chitin_program(), "--store", str(store), "embed", "--provider", "openai",
                 "--model", "nomic-embed-text"],
                env={**os.environ, "OPENAI_BASE_URL": ollama.url},
                capture_output=True,
                check=True,
            )  # fmt: skip
            asked = len(ollama.requests)
            answer = await call(client, "retrieve", query="an ambiguous requirement")
            assert answer.json.get("degraded") is None, answer.text
            return [body["input"] for _, body in ollama.requests[asked:]]

        sent = serve(store, session, OPENAI_BASE_URL=ollama.url)
    assert ["an ambiguous requirement"] in sent


def test_writes_from_the_server_and_the_cli_at_once_are_all_kept(store: Path, run: Run) -> None:
    """Every write is one commit under the store's lock, whoever makes it."""
    run("init")
    commits = commit_count(store)

    def cli_writes() -> None:
        for n in range(6):
            subprocess.run(
                [chitin_program(), "--store", str(store), "contribute", "--type", "skill",
                 "--claim", f"Command line lesson number {n} about topic {n * 7}",
                 "--confidence", "0.6", "--force"],
                check=True, capture_output=True,
            )  # fmt: skip

    async def server_writes(client: Client) -> list[Called]:
        writer = threading.Thread(target=cli_writes)
        writer.start()
        made = [
            await call(
                client,
                "contribute",
                type="behavioral",
                claim=f"Server lesson number {n} about subject {n * 11}",
                confidence=0.6,
                force=True,
            )
            for n in range(6)
        ]
        await anyio.to_thread.run_sync(writer.join)
        return made

    made = serve(store, server_writes)
    assert all(not m.failed for m in made)
    assert commit_count(store) == commits + 12
    assert len(list((store / "insights").rglob("*.md"))) == 12
    assert git(store, "status", "--porcelain") == ""


# ------------------------------------------------------------------ resources, prompt


def test_retrieve_with_full_gives_the_context_of_retrieve_format_full(
    store: Path, run: Run, add: Any
) -> None:
    """The tool's ``full`` says "Give each insight's context, reasoning, limitations":
    its context is `chitin retrieve --format full`'s text (it was the compact one)."""
    add(
        "behavioral",
        "Summarise the plan before editing many files",
        0.8,
        context="multi-file edits",
        reasoning="it saved a rework",
        limitations="not for one-line fixes",
    )

    async def both(client: Client) -> tuple[Any, Any]:
        full = await call(client, "retrieve", query="plan the edit", full=True)
        compact = await call(client, "retrieve", query="plan the edit")
        return full.json, compact.json

    full, compact = serve(store, both)
    assert full["context"] == run(
        "retrieve", "--query", "plan the edit", "--format", "full"
    ).stdout.rstrip("\n")
    assert "Context: multi-file edits" in full["context"]
    assert "Limitations: not for one-line fixes" in full["context"]
    assert compact["context"] == run("retrieve", "--query", "plan the edit").stdout.rstrip("\n")
    assert full["tokenEstimate"] > compact["tokenEstimate"]


def test_the_resources_serve_personality_md_and_insight_files(
    store: Path, run: Run, add: Any
) -> None:
    known = add("personality", "Lead with the answer, then the detail", 0.9)
    file_text = (store / "insights" / "personality" / f"{known['id']}.md").read_text()

    async def read(client: Client) -> dict[str, Any]:
        found = {
            "personality": (await client.read_resource("personality://current")).contents[0],
            "insight": (await client.read_resource(f"insight://{known['id'][:10]}")).contents[0],
        }
        try:
            await client.read_resource("insight://no-such-insight")
        except MCPError as error:
            found["missing"] = str(error)
        return found

    found = serve(store, read)
    # `chitin render`'s text, but for the closing instructions: the agent acts through
    # the server's tools, not a shell (issue 24).
    rendered, served = run("render").stdout, found["personality"].text
    assert "call chitin's `reinforce` tool with that id" in served
    assert "chitin reinforce <id>" in rendered and "chitin reinforce" not in served
    cut = rendered.index("Each insight starts with its id")
    assert served[:cut] == rendered[:cut]
    assert found["personality"].mime_type == "text/markdown"
    assert found["insight"].text == file_text
    assert "Insight not found: no-such-insight" in found["missing"]


def test_the_insight_resource_keeps_a_files_crlf_line_endings(store: Path, add: Any) -> None:
    """ "One insight's file as it is on disk": a file saved with Windows line endings
    (an editor, git's autocrlf) is served with them, not with the \\n Python reads."""
    known = add("skill", "Keep line endings as the editor saved them", 0.8, reasoning="seen")
    path = store / "insights" / "skill" / f"{known['id']}.md"
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))

    async def read(client: Client) -> Any:
        return (await client.read_resource(f"insight://{known['id']}")).contents[0]

    served = serve(store, read)
    assert served.text == path.read_bytes().decode("utf-8")
    assert "\r\n" in served.text


def test_the_reflect_prompt_lists_what_waits_in_skill_md_s_words(store: Path, run: Run) -> None:
    run("init")
    run("reflect", "--queue", "--session-key", "agent:main:telegram:7", "--reason", "reset")

    async def ask(client: Client) -> str:
        prompt = await client.get_prompt("reflect")
        return prompt.messages[0].content.text

    text = serve(store, ask)
    skill = (Path(__file__).parents[1] / "chitin" / "assets" / "SKILL.md").read_text()
    loop = skill[skill.index("## The reflection loop") :].split("\n## ")[0].rstrip()
    assert "agent:main:telegram:7 (reset)" in text
    assert loop in text
    assert "## When to contribute" in text


def test_the_reflect_tool_finishes_one_session_as_the_digest_says(
    store: Path, run: Run, run_json: Any
) -> None:
    """The prompt says each `chitin <command>` is a tool with the same options, and the
    digest's ready command is `chitin reflect --done SESSION`: the tool takes ``done``,
    answers as `reflect --done --format json`, and refuses as the CLI refuses, naming the
    tool's call where the CLI names its command."""
    run("init")
    run("reflect", "--queue", "--session-key", "agent:main:1", "--reason", "new")
    run("reflect", "--queue", "--session-key", "agent:main:2", "--reason", "reset")

    async def work(client: Client) -> list[Called]:
        return [
            await call(client, "reflect", done="agent:main:1"),
            await call(client, "reflect"),
            await call(client, "reflect", done="no-such-session"),
            await call(client, "reflect", done="agent:main:2", clear=True),
        ]

    done, after, unknown, both = serve(store, work)
    assert done.json == run_json("reflect", "--done", "agent:main:2") | {"done": "agent:main:1"}
    assert [m["sessionKey"] for m in after.json["pending"]] == ["agent:main:2"]
    assert unknown.failed
    said_on_the_cli = cli_error(run, "reflect", "--done", "no-such-session")
    assert said_on_the_cli.endswith("; see `chitin reflect`")  # the tool's words: its call
    assert unknown.text == said_on_the_cli.replace(
        "see `chitin reflect`", "call reflect (`chitin reflect` in a shell)"
    )
    assert both.failed and both.text == "Error: done cannot be combined with clear"
    assert run_json("reflect")["pending"] == []  # the CLI's --done above took the other


def test_a_file_that_does_not_parse_is_named_beside_the_answer(
    store: Path, run: Run, add: Any
) -> None:
    add("skill", "Prefer small pull requests", 0.8)
    (store / "insights" / "skill" / "broken.md").write_text("---\nclaim: [unclosed\n---\n")

    async def ask(client: Client) -> Called:
        return await call(client, "list")

    listed = serve(store, ask)
    assert not listed.failed and len(listed.json) == 1
    assert listed.blocks[1].startswith("warning: skipped insights/skill/broken.md:")


def test_update_names_the_tags_an_empty_tag_cleared(store: Path, add: Any) -> None:
    """``tags: [""]`` cleared the tags without naming them in ``cleared`` (``[]`` did)."""
    made = add("skill", "Prefer small pull requests", 0.8, tags="review")

    async def clear(client: Client) -> Called:
        return await call(client, "update", id=made["id"], tags=[""])

    shown = serve(store, clear).json
    assert shown["tags"] == [] and shown["cleared"] == ["tags"]


# ------------------------------------------------------------------ the process


def _raw_server(store: Path, **env: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [chitin_program(), "--store", str(store), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **env},
    )


def _send(process: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert process.stdin is not None
    process.stdin.write((json.dumps(message) + "\n").encode())
    process.stdin.flush()


def _request(n: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": n, "method": method, "params": params}


INITIALIZE = _request(
    0,
    "initialize",
    {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
)
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _tool(n: int, name: str, **arguments: Any) -> dict[str, Any]:
    return _request(n, "tools/call", {"name": name, "arguments": arguments})


def test_stdout_carries_nothing_but_the_protocol(store: Path, run: Run, add: Any) -> None:
    """Every line the server writes on stdout is a JSON-RPC message, whatever chitin
    has to say (a skipped file, a repaired cache) and whatever git prints."""
    add("skill", "Read the error message before searching the web", 0.8)
    (store / "insights" / "skill" / "broken.md").write_text("not frontmatter at all\n")
    (store / ".chitin" / "cache.sqlite3").write_bytes(b"garbage" * 100)
    process = _raw_server(store)
    for message in (
        INITIALIZE,
        INITIALIZED,
        _request(1, "tools/list", {}),
        _tool(2, "retrieve", query="debug an error"),
        _tool(3, "contribute", type="skill", claim="Check the logs first", confidence=0.7),
        _tool(4, "get", id="nope"),
        _tool(5, "history", id="read-the-error"),
        _request(6, "resources/read", {"uri": "personality://current"}),
        _request(7, "prompts/get", {"name": "reflect"}),
    ):
        _send(process, message)
    out, err = process.communicate(timeout=60)
    lines = out.decode().splitlines()
    messages = [json.loads(line) for line in lines]  # each line parses
    assert all(m["jsonrpc"] == "2.0" for m in messages)
    assert sorted(m["id"] for m in messages if "id" in m) == list(range(8))
    assert process.returncode == 0
    assert b"Traceback" not in err


def _read_all(stream: Any, into: list[bytes]) -> None:
    into.append(stream.read())


def test_sigterm_finishes_the_write_in_progress_and_ends(store: Path, run: Run) -> None:
    """SIGTERM (how a client stops its server) at any point of a stream of writes:
    the process ends at once, by itself, every answered write is in the store, each
    one commit, and the store is left clean."""
    run("init")
    for delay in (0.0, 0.05, 0.15, 0.3):
        process = _raw_server(store)
        _send(process, INITIALIZE)
        _send(process, INITIALIZED)
        for n in range(1, 30):
            claim = f"Lesson {n} of run {delay} on subject {n * 13}"
            _send(process, _tool(n, "contribute", type="skill", claim=claim, confidence=0.5))
        assert process.stdout is not None and process.stderr is not None
        process.stdout.readline()  # the initialize answer
        out_parts: list[bytes] = []
        reader = threading.Thread(target=_read_all, args=(process.stdout, out_parts))
        reader.start()  # as a client reads its server's answers, while they come
        time.sleep(delay)
        process.send_signal(signal.SIGTERM)
        # It ends by itself, stdin still open: a client that sends SIGTERM sends nothing
        # more (the SDK's read of stdin would otherwise wait for a next line).
        assert process.wait(timeout=30) == 0
        reader.join(timeout=30)
        out, err = out_parts[0], process.stderr.read()
        for pipe in (process.stdin, process.stdout, process.stderr):
            pipe.close()
        answered = [json.loads(line) for line in out.decode().splitlines()]
        for answer in answered:
            made = json.loads(answer["result"]["content"][0]["text"])["insight"]["id"]
            assert (store / "insights" / "skill" / f"{made}.md").is_file()
        assert b"Traceback" not in err
        assert git(store, "status", "--porcelain") == ""
        assert not (store / ".git" / "index.lock").exists()
    files = len(list((store / "insights").rglob("*.md")))
    assert commit_count(store) == files + 1  # each insight its commit, plus init's
    assert run("check").exit_code == 0


def test_a_signal_as_stdin_ends_still_ends_the_server(store: Path, run: Run) -> None:
    """A client that closes stdin and sends SIGTERM at once (as a host does when it
    quits): the end of stdin's ``finish`` and the signal's ``stop`` meet. ``stop`` must
    not drop the end mark ``finish`` queued, or the store's thread waits for a job that
    never comes, and the server never ends (seen with the resident front: its worker
    starts fast enough to meet the window)."""
    run("init")
    from chitin import Chitin
    from chitin.server.worker import StoreWorker

    started, release = threading.Event(), threading.Event()

    def work(chitin: Chitin) -> None:  # the request in progress when both come
        started.set()
        release.wait(10)

    worker = StoreWorker(lambda: Chitin(store))
    worker.submit(work, lambda *done: None, lambda: True)
    assert started.wait(30)
    finishing = threading.Thread(target=worker.finish, daemon=True)
    finishing.start()  # stdin ended: the end mark is queued behind the request
    time.sleep(0.2)
    stopping = threading.Thread(target=worker.stop, daemon=True)
    stopping.start()  # the signal: drops what waits
    time.sleep(0.2)
    release.set()
    finishing.join(10)
    stopping.join(10)
    assert not finishing.is_alive() and not stopping.is_alive()


def test_serving_needs_neither_the_sdk_nor_pydantic(tmp_path: Path, store: Path) -> None:
    """The server is chitin's own (a second of the SDK's import was most of its
    start): with the SDK, pydantic and anyio unimportable, a session still works, and
    a session imports none of them."""
    shadow = tmp_path / "shadow"
    for package in ("mcp", "pydantic", "anyio"):
        (shadow / package).mkdir(parents=True)
        (shadow / package / "__init__.py").write_text(f"raise ImportError('no {package}')\n")
    lines = [INITIALIZE, INITIALIZED, _request(1, "tools/list", {}), _tool(2, "stats")]
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "chitin", "--store", str(store), "mcp"],
        input="".join(json.dumps(line) + "\n" for line in lines),
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(shadow)},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["id"] for a in answers] == [0, 1, 2]
    assert len(answers[1]["result"]["tools"]) == len(TOOLS)
    assert json.loads(answers[2]["result"]["content"][0]["text"])["total"] == 0
    loaded = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert "chitin.server.app" in loaded  # the import times were read
    assert not {m for m in loaded if m.split(".")[0] in ("mcp", "pydantic", "anyio")}


def test_the_cli_does_not_load_the_sdk(store: Path, add: Any) -> None:
    """The extra costs the CLI nothing: no command but ``mcp`` imports it."""
    add("skill", "Name the branch after the issue", 0.8)
    for command in (["retrieve", "--query", "x"], ["contribute", "--help"], ["--help"]):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "chitin", "--store", str(store), *command],
            capture_output=True,
            text=True,
            check=True,
            env=dict(os.environ, CHITIN_FRONT="0"),  # what this process imports, not a front
        )
        loaded = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
        assert "chitin.cli" in loaded  # the import times were read
        assert not {m for m in loaded if m.split(".")[0] in ("mcp", "pydantic", "anyio")}


def test_a_missing_store_reads_empty_and_the_first_write_makes_it(store: Path) -> None:
    async def session(client: Client) -> tuple[Called, Called, Called]:
        empty = await call(client, "retrieve", query="anything at all")
        made = await call(client, "contribute", type="skill", claim="Start small", confidence=0.6)
        found = await call(client, "retrieve", query="start small")
        return empty, made, found

    empty, made, found = serve(store, session)
    assert empty.json["insights"] == [] and empty.json["degraded"] is None
    # said beside the answer, as the CLI says it (the empty results alone looked like a
    # store with nothing matching)
    notice = f"No store at {store} yet (run `chitin init`); showing an empty store."
    assert empty.blocks[1:] == [notice]
    assert found.blocks == [found.text]  # a store now: nothing more to say
    assert not made.failed and (store / ".git").is_dir()
    assert commit_count(store) == 2  # the store's first commit, then the insight's
    assert [r["id"] for r in found.json["insights"]] == [made.json["insight"]["id"]]


def test_a_store_that_cannot_be_opened_fails_each_call_and_the_server_lives(
    tmp_path: Path,
) -> None:
    not_a_folder = tmp_path / "store-file"
    not_a_folder.write_text("I am a file\n")

    async def session(client: Client) -> tuple[Called, Called, int]:
        first = await call(client, "stats")
        again = await call(client, "retrieve", query="x")
        return first, again, len((await client.list_tools()).tools)

    first, again, tools = serve(not_a_folder, session)
    expected = (
        f"Error: the store path {not_a_folder} is a file, not a folder "
        "(--store and $CHITIN_STORE name the store's folder)"
    )
    assert first.failed and first.text == expected
    assert again.failed and again.text == expected
    assert tools == len(TOOLS)


def test_a_cache_repaired_before_the_first_request_is_said_with_its_answer(
    store: Path, add: Any
) -> None:
    """The warm-up (or the request itself) rebuilds a damaged cache; the person hears
    of it once, with the first answer, as after a command."""
    add("skill", "Bisect before guessing at a regression", 0.8)
    (store / ".chitin" / "cache.sqlite3").write_bytes(b"not a database" * 100)

    async def ask(client: Client) -> list[Called]:
        return [await call(client, "stats"), await call(client, "stats")]

    first, second = serve(store, ask)
    assert first.json["total"] == 1
    assert len(first.blocks) == 2
    assert first.blocks[1].startswith("warning: .chitin/cache.sqlite3 was damaged (")
    assert first.blocks[1].endswith("rebuilt it from the insight files")
    assert second.blocks == [second.text]  # said once


def test_get_of_an_id_merged_twice_names_where_it_is_now(store: Path, run: Run, add: Any) -> None:
    """A merged into B, then B into C: the tool's error follows the chain to C (fix70b)."""
    a = add("skill", "Reproduce bugs with a failing test", 0.7)["id"]
    b = add("skill", "Keep commits small and focused", 0.85)["id"]
    c = add("principle", "Deploy only after the staging checks pass", 0.8)["id"]
    run("merge", a, b)
    run("merge", b, c)

    async def session(client: Client) -> Called:
        return await call(client, "get", id=a)

    got = serve(store, session)
    assert got.failed
    assert got.text == cli_error(run, "get", a)
    assert f"it was merged into {b} (" in got.text and f"), then into {c} (" in got.text


def _as_a_folder(matrix: Path) -> None:
    matrix.unlink()
    matrix.mkdir()
    (matrix / "inside").write_text("not chitin's")


def _zeroed(matrix: Path) -> None:
    matrix.write_bytes(bytes(matrix.stat().st_size))


@pytest.mark.parametrize(
    ("damage", "said"),
    [(_as_a_folder, "is not a regular file"), (_zeroed, "not unit vectors")],
    ids=["a folder", "zeros"],
)
def test_a_matrix_damaged_under_the_server_is_said_and_rebuilt(
    store: Path, run: Run, damage: Callable[[Path], None], said: str
) -> None:
    """The server opened the vector sidecar before the damage, so nothing made room for
    the matrix again: a folder in its place made the next retrieve "internal error:
    IsADirectoryError" (issue 10: a damaged derived file is never fatal, whichever
    process reads it), and zeros, its size kept (a crash on some filesystems), scored
    every insight 0 by meaning without a word. Both are damage, said and rebuilt."""
    run("init", "--seed")
    matrix = store / ".chitin" / "vectors" / "matrix.f32"

    async def session(client: Client) -> list[Called]:
        answers = [await call(client, "retrieve", query="fix the failing test before the release")]
        damage(matrix)
        answers.append(await call(client, "retrieve", query="reply to the review comments"))
        answers.append(await call(client, "retrieve", query="deploy the service to production"))
        return answers

    first, damaged, again = serve(store, session)
    assert first.json["degraded"] is None
    assert not damaged.failed, damaged.text
    degraded = damaged.json["degraded"]
    assert "matrix.f32" in degraded and said in degraded, degraded
    assert damaged.json["insights"]
    assert again.json["degraded"] is None and matrix.is_file()


def test_a_vector_sidecar_another_command_replaced_is_opened_anew(store: Path, run: Run) -> None:
    """Another command made a new .chitin/vectors under the server (it set a damaged one
    aside, or it found none: .chitin/ is safe to delete). The next retrieve that had a
    hand-edited insight to embed failed: "the vector sidecar ... was removed or replaced
    while this command used it" (qa130). The server opens the new sidecar, as it opens
    a new cache."""
    import shutil

    run("init", "--seed")
    edited = next((store / "insights" / "skill").glob("*.md"))

    async def session(client: Client) -> list[Called]:
        answers = [await call(client, "retrieve", query="write a failing test first")]
        shutil.rmtree(store / ".chitin" / "vectors")
        run("retrieve", "--query", "anything at all")  # another command: a new sidecar
        text = edited.read_text().replace("\n---\n\n", "\n---\n\nEdited by hand. ", 1)
        edited.write_text(text)
        answers.append(await call(client, "retrieve", query="write a failing test again"))
        return answers

    first, after = serve(store, session)
    assert first.json["degraded"] is None
    assert not after.failed, after.text
    assert after.json["degraded"] is None and after.json["insights"]


def test_merge_takes_several_sources_as_the_cli_and_the_library_do(
    store: Path, run: Run, add: Any
) -> None:
    """fix113: the merge tool took one source only, where `chitin merge a b c target`
    (what dedupe suggests) and Chitin.merge take several. A list folds each in, in one
    commit; one text still works; an empty list is refused in the CLI's words."""
    a = add("skill", "Reproduce bugs with a failing test", 0.7)["id"]
    b = add("skill", "Keep commits small and focused", 0.85)["id"]
    c = add("skill", "Name branches after their ticket", 0.6)["id"]
    d = add("principle", "Deploy only after the staging checks pass", 0.8)["id"]
    e = add("skill", "Rebase before asking for review", 0.6)["id"]
    before = commit_count(store)

    async def session(client: Client) -> list[Called]:
        return [
            await call(client, "merge", source=[a, b], target=d),
            await call(client, "merge", source=c, target=d),
            await call(client, "merge", source=[], target=d),
            await call(client, "merge", source=[e, 5], target=d),
        ]

    several, one, empty, wrong = serve(store, session)
    assert several.json["id"] == d and several.json["reinforcementCount"] == 0
    assert commit_count(store) == before + 2  # one commit per call
    assert one.json["id"] == d
    for gone in (a, b, c):
        assert f"it was merged into {d}" in cli_error(run, "get", gone)
    assert empty.failed and empty.text == "Error: merge needs at least one source insight"
    assert wrong.failed and wrong.text == "Error: source[1] must be a text, got 5"
