"""The MCP server itself: what each method answers (the tools of tools.py, two
resources, the reflect prompt), as MCP's handshake-era revisions (2024-11-05 to
2025-11-25) define them.

Answers that need no store (the handshake, the listings, ping) are given at once, on
the thread that reads stdin; the others are handed to the store's thread
(worker.py), in order, and answered from there. ``reply`` writes an answer; this
module never writes anything else.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

# As modules, not from the package: the package (__init__.py) imports this one.
import chitin.server.arguments as arguments
import chitin.server.prompts as prompts
import chitin.server.tools as tools
from chitin import __version__
from chitin.errors import AmbiguousIdError, NotFoundError, ValidationError
from chitin.render.failures import describe
from chitin.server.protocol import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    Ident,
    ProtocolError,
    Request,
    lone_surrogate,
)

if TYPE_CHECKING:
    from chitin import Chitin
    from chitin.server.worker import StoreWorker

Reply = Callable[[Ident, "dict[str, Any] | ProtocolError"], None]

# The revisions reached by the `initialize` handshake, oldest first. A client that asks
# for another one is offered the newest (the specification's negotiation).
PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")

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

CAPABILITIES = {
    "prompts": {"listChanged": False},
    "resources": {"listChanged": False, "subscribe": False},
    "tools": {"listChanged": False},
}
MARKDOWN = "text/markdown"
PERSONALITY = {
    "description": "The insights for a session, rendered as `chitin render` writes "
    "PERSONALITY.md (the strongest ones, within 2,000 tokens).",
    "mimeType": MARKDOWN,
    "name": "personality",
    "title": "PERSONALITY.md",
    "uri": "personality://current",
}
INSIGHT_TEMPLATE = {
    "description": "One insight's Markdown file as it is on disk (YAML frontmatter, then "
    "its sections). The id may be any unique prefix.",
    "mimeType": MARKDOWN,
    "name": "insight",
    "title": "An insight's file",
    "uriTemplate": "insight://{id}",
}
INSIGHT_URI = re.compile(r"insight://(?P<id>[^/?#]+)\Z")


class Server:
    """One client session: the methods, over a store worker and a way to reply."""

    def __init__(self, worker: StoreWorker, reply: Reply) -> None:
        self.worker = worker
        self.reply = reply
        self._tools: list[dict[str, Any]] | None = None
        self.pending: set[Ident] = set()  # handed to the store's thread, not answered
        self.cancelled: set[Ident] = set()

    def cancel(self, ident: Any) -> None:
        """notifications/cancelled: a request still waiting or running gets no answer
        (a write in progress still finishes: worker.py)."""
        if ident in self.pending:
            self.cancelled.add(ident)

    def handle(self, request: Request) -> None:
        """Answer ``request``, now or from the store's thread; exactly once."""
        method = METHODS.get(request.method)
        if method is None:
            problem = ProtocolError(METHOD_NOT_FOUND, f"Method not found: {request.method}")
            self.reply(request.ident, problem)
            return
        try:
            answer = method(self, request)
        except ProtocolError as problem:
            answer = problem
        except Exception as error:  # a defect: said in one line, the session goes on
            answer = _internal(error)
        if answer is not None:
            self.reply(request.ident, answer)

    # ------------------------------------------------------------------ the methods

    def initialize(self, request: Request) -> dict[str, Any]:
        asked = request.params.get("protocolVersion")
        if not isinstance(asked, str):
            raise ProtocolError(INVALID_PARAMS, "initialize: protocolVersion must be a string")
        return {
            "capabilities": CAPABILITIES,
            "instructions": INSTRUCTIONS,
            "protocolVersion": asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[-1],
            "serverInfo": {"name": "chitin", "title": "chitin", "version": __version__},
        }

    def ping(self, request: Request) -> dict[str, Any]:
        return {}

    def list_tools(self, request: Request) -> dict[str, Any]:
        if self._tools is None:
            self._tools = tools.listing()
        return {"tools": self._tools}

    def list_resources(self, request: Request) -> dict[str, Any]:
        return {"resources": [PERSONALITY]}

    def list_templates(self, request: Request) -> dict[str, Any]:
        return {"resourceTemplates": [INSIGHT_TEMPLATE]}

    def list_prompts(self, request: Request) -> dict[str, Any]:
        return {"prompts": [prompts.LISTED]}

    def call_tool(self, request: Request) -> None:
        name = _text(request, "name")
        given = request.params.get("arguments", {})
        if given is None:
            given = {}
        if not isinstance(given, dict):
            raise ProtocolError(INVALID_PARAMS, "tools/call: arguments must be an object")
        listed = self.list_tools(request)["tools"]
        schema = next((t["inputSchema"] for t in listed if t["name"] == name), None)
        if schema is None:  # as the SDK answered it, then what was meant
            known = [t["name"] for t in listed]
            self.reply(request.ident, tools.refusal(arguments.unknown_tool(name, known)))
            return
        try:
            work = tools.tools()[name](**arguments.checked(schema, given))
        except Exception as error:
            self.reply(request.ident, tools.failure(error, ran=False, schema=schema))
            return
        self._run(request, work, tools.answer, lambda error: tools.failure(error, schema=schema))

    def read_resource(self, request: Request) -> None:
        uri = _text(request, "uri")
        if uri == PERSONALITY["uri"]:
            work: Callable[[Chitin], str] = lambda chitin: chitin.render(mcp=True).text  # noqa: E731
        elif found := INSIGHT_URI.match(uri):
            ref = found["id"]
            work = lambda chitin: insight_file(chitin, ref)  # noqa: E731
        else:
            raise ProtocolError(INVALID_PARAMS, f"Unknown resource: {uri}", {"uri": uri})

        def contents(text: str, warnings: list[str]) -> dict[str, Any]:
            return {"contents": [{"uri": uri, "mimeType": MARKDOWN, "text": text}]}

        self._run(request, work, contents, lambda error: _resource_error(error, uri))

    def get_prompt(self, request: Request) -> None:
        name = _text(request, "name")
        if name != prompts.LISTED["name"]:
            raise ProtocolError(INVALID_PARAMS, f"Unknown prompt: {name}")
        given = request.params.get("arguments") or {}
        if not isinstance(given, dict) or given:  # it lists none; tools refuse theirs too
            said = ", ".join(map(str, given)) if isinstance(given, dict) else "not an object"
            raise ProtocolError(
                INVALID_PARAMS, f"prompts/get: the {name} prompt takes no arguments, got {said}"
            )

        def message(text: str, warnings: list[str]) -> dict[str, Any]:
            said = {"role": "user", "content": {"type": "text", "text": text}}
            return {"description": prompts.LISTED["description"], "messages": [said]}

        self._run(request, prompts.reflection, message, _internal)

    # ------------------------------------------------------------------ on the store

    def _run(
        self,
        request: Request,
        work: Callable[[Chitin], Any],
        answer: Callable[[Any, list[str]], dict[str, Any]],
        failure: Callable[[BaseException], dict[str, Any] | ProtocolError],
    ) -> None:
        """``work`` on the store's thread, answered there. A request the client
        cancels is not answered (the specification's rule): not run if it still waits,
        its answer dropped if it runs (a write is never cut short)."""
        ident = request.ident

        def wanted() -> bool:
            if ident in self.cancelled:
                self.cancelled.discard(ident)
                self.pending.discard(ident)
                return False
            return True

        def done(value: Any, warnings: list[str], error: BaseException | None) -> None:
            self.pending.discard(ident)
            if ident in self.cancelled:
                self.cancelled.discard(ident)
                return
            try:
                said = failure(error) if error is not None else answer(value, warnings)
            except Exception as defect:
                said = _internal(defect)
            self.reply(ident, said)

        self.pending.add(ident)
        self.worker.submit(work, done, wanted)


def _text(request: Request, name: str) -> str:
    """A parameter that must be a string of text, or the -32602 that says it is not."""
    value = request.params.get(name)
    if not isinstance(value, str):
        raise ProtocolError(INVALID_PARAMS, f"{request.method}: {name} must be a string")
    if problem := lone_surrogate(value, name):
        raise ProtocolError(INVALID_PARAMS, f"{request.method}: {problem}")
    return value


def insight_file(chitin: Chitin, ref: str) -> str:
    found = chitin.get(ref)
    # The bytes decoded as they are: read_text would turn a file's \r\n into \n.
    return (chitin.root / chitin.path_of(found.id)).read_bytes().decode("utf-8")


def _resource_error(error: BaseException, uri: str) -> ProtocolError:
    """A resource's failure as the SDK gave it: an unknown insight, or an id no insight
    may have, is invalid params (naming the uri); the store's own failures are internal
    errors, in one line."""

    if isinstance(error, NotFoundError | AmbiguousIdError | ValidationError):
        return ProtocolError(INVALID_PARAMS, str(error), {"uri": uri})
    return _internal(error)


def _internal(error: BaseException) -> ProtocolError:
    return ProtocolError(INTERNAL_ERROR, describe(error)[0].splitlines()[0])


METHODS: dict[str, Callable[[Server, Request], Any]] = {
    "initialize": Server.initialize,
    "ping": Server.ping,
    "tools/list": Server.list_tools,
    "tools/call": Server.call_tool,
    "resources/list": Server.list_resources,
    "resources/templates/list": Server.list_templates,
    "resources/read": Server.read_resource,
    "prompts/list": Server.list_prompts,
    "prompts/get": Server.get_prompt,
}
