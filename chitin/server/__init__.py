"""``chitin mcp``: the store served to MCP clients (Claude Desktop, Claude Code,
Cursor, …) over stdio: newline-delimited JSON-RPC 2.0, as MCP's stdio transport says.

The protocol layer is chitin's own (protocol.py, app.py), not the official SDK's:
importing the SDK took most of a second, longer than some clients wait for the
handshake (docs/design.md, "MCP start-up"). The SDK's own client is what the tests
hold the server to.

One process answers a whole client session: the store is opened once and the
embedding model loaded once, on the store's thread from the moment the server starts,
while the handshake and the listings are answered without them; every request first
sees what changed on disk since the last one. Writes are the CLI's: one commit
each, under the store's lock.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from chitin.server import protocol
from chitin.server.app import Server
from chitin.server.protocol import encode
from chitin.server.worker import STOPPING, StoreWorker

# The one notification that changes anything; the others (initialized, …) need nothing.
CANCELLED = "notifications/cancelled"


def serve(
    store: Path,
    env: Mapping[str, str],
    agent: str | None,
    command: tuple[str, ...],
    streams: tuple[IO[bytes], IO[bytes]],
) -> None:
    """Serve ``store`` over ``streams`` (stdin, and a stdout that nothing else writes
    to) until the client closes stdin (the requests read so far are answered first), or
    until SIGTERM, SIGINT or SIGHUP (the request in progress is finished and answered;
    a write is never cut short), then return."""

    def open_store() -> Any:
        from chitin import Chitin  # on the store's thread, after the handshake's answer

        return Chitin(store, env=env, agent=agent, command=command)

    stdin, stdout = streams
    out = Output(stdout)
    worker = StoreWorker(open_store)
    server = Server(worker, out.reply)
    _stop_on_signals(worker, out)
    # The store opens and the model loads on the store's thread from the start: the
    # handshake and the listings need neither, and are answered meanwhile (measured in
    # docs/design.md, "MCP start-up": no later answer to `initialize`, an earlier first
    # `retrieve`).
    worker.start_warming()
    try:
        _read_until_closed(stdin, server, out)
    finally:
        worker.finish()
        out.flush()


def _read_until_closed(stdin: IO[bytes], server: Any, out: Output) -> None:
    while line := stdin.readline():
        message = protocol.read(line)
        if isinstance(message, protocol.Request):
            server.handle(message)
        elif isinstance(message, protocol.Refusal):
            out.send(protocol.error(message.ident, message.error))
        elif isinstance(message, protocol.Notification) and message.method == CANCELLED:
            server.cancel(message.params.get("requestId"))


class Output:
    """stdout, one whole message a line, from whichever thread answers."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self._gone = False

    def reply(self, ident: Any, answer: Any) -> None:
        if isinstance(answer, protocol.ProtocolError):
            self.send(protocol.error(ident, answer))
        else:
            self.send(protocol.result(ident, answer))

    def send(self, message: dict[str, Any]) -> None:
        data = encode(message)
        with self._lock:
            if self._gone:
                return
            try:
                self._stream.write(data)
                self._stream.flush()
            except OSError:  # the client has gone: nobody is left to answer
                self._gone = True

    def flush(self) -> None:
        with self._lock:
            try:
                self._stream.flush()
            except OSError:
                self._gone = True


def _stop_on_signals(worker: Any, out: Output) -> None:
    """On a signal: finish the request in progress (its answer is written), drop the
    others, and end the process. Not in the handler itself: it runs on the thread that
    reads stdin, which may hold the output's lock that the answer needs."""

    def stop() -> None:
        worker.stop()
        out.flush()
        os._exit(0)

    def handler(number: int, frame: Any) -> None:
        threading.Thread(target=stop, name="chitin-stop", daemon=True).start()

    for number in STOPPING:
        signal.signal(number, handler)
