"""``chitin mcp``: the store served to MCP clients (Claude Desktop, Claude Code,
Cursor, …) over stdio, by the official MCP SDK (``pip install 'chitin-personality[mcp]'``).

One process answers a whole client session: the store is opened once, the embedding
model is loaded once (while the client is still listing the tools), and every request
first sees what changed on disk since the last one. Writes are the CLI's: one commit
each, under the store's lock.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chitin.server.worker import StoreWorker

INSTALL = "pip install 'chitin-personality[mcp]'"


class MissingSDK(Exception):
    """The MCP SDK is not installed (it is an optional extra)."""


def check_sdk() -> None:
    """Raise MissingSDK, naming the install command, when the SDK cannot be imported."""
    import importlib.util

    try:
        found = importlib.util.find_spec("mcp.server.mcpserver") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise MissingSDK(f"chitin mcp needs the MCP SDK, an optional extra: {INSTALL}")


def serve(store: Path, env: Mapping[str, str], agent: str | None, command: tuple[str, ...]) -> None:
    """Serve ``store`` over stdin and stdout until the client closes them, or until
    SIGTERM or SIGINT: the request in progress is finished first (a write is never
    cut short), then the process ends."""
    import anyio

    from chitin import Chitin
    from chitin.server.app import build
    from chitin.server.worker import StoreWorker

    worker = StoreWorker(lambda: Chitin(store, env=env, agent=agent, command=command))
    try:
        anyio.run(_serve_until_stopped, build(worker), worker)
    except KeyboardInterrupt:  # Ctrl-C before the server listened for it
        pass
    finally:
        worker.close()


STOPPING = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
ANSWER_DRAIN = 0.2  # seconds for the last answer to reach stdout after its work ends


async def _serve_until_stopped(server: Any, worker: StoreWorker) -> None:
    """The server, until its client closes stdin or a signal asks it to stop."""
    import anyio

    async with anyio.create_task_group() as group:

        async def stop_on_signal() -> None:
            with anyio.open_signal_receiver(*STOPPING) as signals:
                async for _ in signals:
                    # The request in progress finishes (a write is never cut short),
                    # and its answer is given the moment the SDK needs to write it
                    # (milliseconds). Then the process ends here: the SDK reads stdin on
                    # a thread that no cancellation reaches, so a graceful return would
                    # wait for the client's next line, which a client that sent SIGTERM
                    # never sends.
                    await anyio.to_thread.run_sync(worker.close)
                    await anyio.sleep(ANSWER_DRAIN)
                    os._exit(0)

        group.start_soon(stop_on_signal)
        await server.run_stdio_async()
        group.cancel_scope.cancel()
