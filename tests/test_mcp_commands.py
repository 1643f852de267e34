"""A refusal that names a chitin command an MCP tool does (`chitin unarchive <id>`)
says, through the MCP server, the call of that tool with its parameters; a command no
tool does (`chitin embed`, `chitin init`) stays as it is (server/tools.py,
``as_parameters``)."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import Run, git
from mcp import Client
from test_mcp import Called, call, serve

from chitin.server.tools import as_parameters, listing

CLAIM = "Reproduce a bug before fixing it"


def test_each_refusal_naming_a_tools_command_names_the_call(store: Path, run: Run) -> None:
    run("init")

    async def refused(client: Client) -> tuple[list[str], dict[str, Called]]:
        made = await call(client, "contribute", type="skill", claim=CLAIM, confidence=0.8)
        archived = made.json["insight"]["id"]
        await call(client, "archive", id=archived)
        other = await call(client, "contribute", type="skill", claim="Ask first", confidence=0.6)
        kept = other.json["insight"]["id"]
        gone = await call(client, "contribute", type="skill", claim="Pin it", confidence=0.5)
        deleted = gone.json["insight"]["id"]
        (path,) = store.glob(f"insights/skill/{deleted}.md")
        git(store, "rm", "-q", str(path.relative_to(store)))
        git(store, "-c", "user.name=Me", "-c", "user.email=me@example.com", "commit", "-qm", "rm")
        calls = {
            "reinforce": ("reinforce", {"id": archived}),
            "update": ("update", {"id": archived, "confidence": 0.5}),
            "merge": ("merge", {"source": archived, "target": kept}),
            "deleted": ("get", {"id": deleted}),
            "reflect": ("reflect", {"done": "no-such-session"}),
            "duplicate": ("contribute", {"type": "skill", "claim": "Ask first", "confidence": 0.5}),
        }
        said = {name: await call(client, tool, **args) for name, (tool, args) in calls.items()}
        return [archived, kept, deleted], said

    (archived, kept, deleted), answers = serve(store, refused)
    for name, answer in answers.items():
        assert answer.failed, (name, answer.text)
        # the tool's call first; the CLI's command only beside it, as the shell's
        assert answer.text.count("`chitin") == answer.text.count("` in a shell)"), answer.text
    unarchive = (
        f"Error: Insight {archived} is archived; call unarchive with id: {archived} "
        f"(`chitin unarchive {archived}` in a shell) first"
    )
    assert answers["reinforce"].text == unarchive
    assert answers["update"].text == unarchive
    assert answers["merge"].text == unarchive
    assert answers["deleted"].text.endswith(
        f"; a call of history with id: {deleted} (`chitin history {deleted}` in a shell) "
        "shows its history"
    )
    assert answers["reflect"].text == (
        "Error: no pending reflection on session 'no-such-session'; "
        "call reflect (`chitin reflect` in a shell)"
    )
    assert answers["duplicate"].text == (
        f"Error: already known as {kept}: call reinforce with id: {kept} "
        f"(`chitin reinforce {kept}` in a shell) to strengthen it "
        "(force: true writes a second copy anyway)"
    )


def test_a_command_no_tool_does_and_a_flag_no_tool_takes_stay_as_they_are() -> None:
    schema = next(t["inputSchema"] for t in listing() if t["name"] == "reflect")
    stays = [
        "3 insight(s) have no vector yet; run `chitin embed` first",
        "no store at /x; run `chitin init` first",
        "run `chitin sync --continue`",
        "see `chitin reflect --queue`",  # a flag the reflect tool has no parameter for
        "run `git commit`",
    ]
    for message in stays:
        assert as_parameters(message, schema) == message
    said = as_parameters("Fix it, or empty it with `chitin reflect --clear`", schema)
    assert said == (
        "Fix it, or empty it with a call of reflect with clear: true "
        "(`chitin reflect --clear` in a shell)"
    )
    said = as_parameters('run `chitin similar "a claim" --semantic`', schema)
    assert said == (
        'call similar with claim: "a claim", semantic: true '
        '(`chitin similar "a claim" --semantic` in a shell)'
    )
    said = as_parameters("Run `chitin merge a b` or see `chitin get b`", schema)
    assert said == (
        "Call merge with source: a, target: b (`chitin merge a b` in a shell) "
        "or call get with id: b (`chitin get b` in a shell)"
    )
    assert re.search("`", as_parameters("run `chitin history`", schema))  # its id missing
