"""The MCP server itself: the tools (tools.py), two resources and a prompt, on the
official SDK's ``MCPServer``, over stdio.

Arguments of the wrong JSON type are refused by the SDK before a tool runs; its
message (pydantic's, several lines) is reworded here into chitin's one line, so that
every refusal an agent reads is worded alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from pydantic import ValidationError as ArgumentError

from chitin import __version__
from chitin.errors import ValidationError
from chitin.server import prompts, tools

if TYPE_CHECKING:
    from mcp.server.mcpserver import Context
    from mcp.types import CallToolResult, InputRequiredResult

    from chitin import Chitin
    from chitin.server.worker import StoreWorker

INSTRUCTIONS = """\
chitin keeps how you work best: insights (lessons, reflexes, preferences) that you \
earned by doing the work, kept as Markdown files in a git repository.
- At the start of a task, call `retrieve` with what you are about to do, and follow \
what it returns (the triggers whose situation fits, first).
- When you learn a lesson (a correction, a lasting instruction, a pattern seen \
several times, a technique that worked), check `similar`, then `contribute` it or \
`reinforce` the insight that already says it.
- Never store secrets, credentials or private data.
- At a quiet moment, use the `reflect` prompt on the sessions that ended."""

# pydantic's error types, by the start of their name: what the argument must be.
_EXPECTED = {
    "int": "a whole number",
    "float": "a number",
    "string": "a text",
    "bool": "true or false",
    "list": "a list",
    "dict": "an object",
}


class ChitinServer(MCPServer[Any]):
    def __init__(self, worker: StoreWorker, **settings: Any) -> None:
        super().__init__(**settings)
        self.worker = worker
        self._warming = False

    async def list_tools(self) -> list[Any]:
        """The tools; the first listing also starts the warm-up (StoreWorker), which
        loads the model while the client goes on. Not before: on two cores its imports
        would hold up the answer to ``initialize`` by a third of a second at 10,000
        insights, and every client lists the tools right after it."""
        if not self._warming:
            self._warming = True
            self.worker.start_warming()
        return await super().list_tools()

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        """A tool's answer; whatever it raised, the line the CLI prints for it."""
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as error:
            cause = error.__cause__
            if isinstance(cause, ArgumentError):
                return tools.failure(ValidationError("arguments", argument_problem(cause)))
            if cause is None:  # the SDK's own refusal: an unknown tool
                raise
            return tools.failure(cause)


def argument_problem(error: ArgumentError) -> str:
    """The first thing wrong with a tool's arguments, in one line."""
    first = error.errors()[0]
    where = [str(part) for part in first["loc"]]
    name = where[0] + "".join(f"[{part}]" for part in where[1:]) if where else "arguments"
    if first["type"] == "missing":
        return f"{name} is required"
    expected = _EXPECTED.get(first["type"].split("_")[0])
    if expected is None:
        return f"{name}: {first['msg']}"
    return f"{name} must be {expected}, got {first.get('input')!r}"


def build(worker: StoreWorker) -> ChitinServer:
    server = ChitinServer(
        worker,
        name="chitin",
        title="chitin",
        version=__version__,
        instructions=INSTRUCTIONS,
        log_level="WARNING",
    )
    tools.register(server, worker)
    _resources(server, worker)
    prompts.register(server, worker)
    return server


def _resources(server: ChitinServer, worker: StoreWorker) -> None:
    @server.resource(
        "personality://current",
        name="personality",
        title="PERSONALITY.md",
        description="The insights for a session, rendered as `chitin render` writes "
        "PERSONALITY.md (the strongest ones, within 2,000 tokens).",
        mime_type="text/markdown",
    )
    async def personality() -> str:
        return str(await _read(worker, lambda chitin: chitin.render(mcp=True).text))

    @server.resource(
        "insight://{id}",
        name="insight",
        title="An insight's file",
        description="One insight's Markdown file as it is on disk (YAML frontmatter, then "
        "its sections). The id may be any unique prefix.",
        mime_type="text/markdown",
    )
    async def insight(id: str) -> str:
        return str(await _read(worker, lambda chitin: insight_file(chitin, id)))


def insight_file(chitin: Chitin, ref: str) -> str:
    found = chitin.get(ref)
    return (chitin.root / chitin.path_of(found.id)).read_text(encoding="utf-8")


async def _read(worker: StoreWorker, work: Any) -> Any:
    """A resource's content; chitin's errors as the SDK's resource errors (one line)."""
    from chitin.errors import AmbiguousIdError, ChitinError, NotFoundError
    from chitin.render.failures import describe

    try:
        value, _ = await worker.run(work)
    except (NotFoundError, AmbiguousIdError) as error:
        raise ResourceNotFoundError(str(error)) from None
    except (ChitinError, OSError) as error:
        raise ResourceError(describe(error)[0]) from None
    return value
