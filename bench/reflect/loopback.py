"""A loopback model for Claude Code that answers from a script (issue 26's bench set).

Anthropic's Messages API, streamed, on 127.0.0.1: for a request of the main
conversation (one that offers tools), the answer is the script's next step for the
steps in order; every other request (titles, summaries) gets "Done.".

A script is a list of exchanges, one per user message: ``{"user": "…", "steps":
[{"bash": "command"} | {"text": "…"} | {"text": "…", "bash": "command"}]}``: a step with
a command calls Bash (after the text, if any); one without ends the agent's turn, so the
last step of an exchange is a text alone.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# A content block as it starts, and the one delta that fills it.
Block = tuple[dict[str, Any], dict[str, Any]]


class Model(ThreadingHTTPServer):
    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Turn)
        self.steps: list[dict[str, Any]] = []
        self.taken = 0
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def load(self, script: list[dict[str, Any]]) -> None:
        """The steps of every exchange, in the order the conversation takes them."""
        with self.lock:
            self.steps = [step for exchange in script for step in exchange["steps"]]
            self.taken = 0

    def next_step(self) -> dict[str, Any]:
        """Claude Code sends the main conversation's requests one at a time, each after
        the last answer's tool ran, so the script is simply taken in order."""
        with self.lock:
            if self.taken >= len(self.steps):
                return {"text": "Done."}
            self.taken += 1
            return self.steps[self.taken - 1]


class _Turn(BaseHTTPRequestHandler):
    server: Model

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        if not self.path.startswith("/v1/messages") or "count_tokens" in self.path:
            self.send_error(404)
            return
        if not body.get("tools"):
            self._stream(body, [({"type": "text", "text": ""}, _text("Done."))], "end_turn")
            return
        step = self.server.next_step()
        blocks: list[Block] = []
        if "text" in step:
            blocks.append(({"type": "text", "text": ""}, _text(step["text"])))
        if "bash" in step:
            number = self.server.taken
            name = _shell_tool(body["tools"])
            block = {"type": "tool_use", "id": f"toolu_{number:04d}", "name": name, "input": {}}
            arguments = {"command": step["bash"], "description": "run it"}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(arguments)}
            blocks.append((block, delta))
        self._stream(body, blocks, "tool_use" if "bash" in step else "end_turn")

    def _stream(self, body: dict[str, Any], blocks: list[Block], stop: str) -> None:
        stream_message(self, body.get("model"), blocks, stop)

    def log_message(self, *args: Any) -> None:
        pass


def stream_message(
    handler: BaseHTTPRequestHandler, model: object, blocks: list[Block], stop: str
) -> None:
    """Answer ``handler``'s request with one assistant message of ``blocks``, streamed
    as the Messages API's server-sent events."""
    message = {"id": "msg_1", "type": "message", "role": "assistant", "content": [],
               "model": model, "stop_reason": None, "stop_sequence": None,
               "usage": {"input_tokens": 1, "output_tokens": 1}}  # fmt: skip
    events: list[dict[str, Any]] = [{"type": "message_start", "message": message}]
    for index, (block, delta) in enumerate(blocks):
        events += [
            {"type": "content_block_start", "index": index, "content_block": block},
            {"type": "content_block_delta", "index": index, "delta": delta},
            {"type": "content_block_stop", "index": index},
        ]
    end = {"stop_reason": stop, "stop_sequence": None}
    events += [
        {"type": "message_delta", "delta": end, "usage": {"output_tokens": 1}},
        {"type": "message_stop"},
    ]
    handler.send_response(200)
    handler.send_header("content-type", "text/event-stream")
    handler.end_headers()
    for event in events:
        handler.wfile.write(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())
    handler.wfile.flush()


def _shell_tool(tools: list[dict[str, Any]]) -> str:
    """The host's shell tool: Claude Code's ``Bash``, OpenClaw's ``exec``."""
    names = [str(tool.get("name")) for tool in tools]
    return next((n for n in ("Bash", "exec", "bash") if n in names), "Bash")


def _text(text: str) -> dict[str, str]:
    return {"type": "text_delta", "text": text}
