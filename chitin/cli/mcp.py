"""``chitin mcp``: the store as an MCP server, for agents in MCP clients."""

from __future__ import annotations

import os
import sys
from typing import BinaryIO

import click

from chitin.cli.context import Settings, running_chitin
from chitin.cli.output import note, standard_input


@click.command(short_help="Serve the store to MCP clients (Claude Desktop, Cursor, …).")
@click.pass_context
def mcp(ctx: click.Context) -> None:
    """Serve the store over stdio to an MCP client, which starts this command itself:
    `chitin hooks install claude-desktop` (or cursor, claude-code-mcp) writes the
    client's entry.

    The tools are the commands an agent uses (retrieve, contribute, reinforce,
    similar, get, list, update, archive, unarchive, merge, history, changelog,
    reflect, stats), answering with their --format json. The resources are
    personality://current (PERSONALITY.md) and insight://{id} (one insight's file);
    the reflect prompt guides an end-of-session reflection.

    One process serves the whole client session: the embedding model loads once,
    and every request sees what changed on disk since the last one.
    """
    from chitin.server import serve

    settings: Settings = ctx.find_root().obj
    given = standard_input()
    if given.isatty():
        note(
            "chitin mcp speaks the Model Context Protocol on stdin and stdout, for an "
            "MCP client to start it (see `chitin hooks install --help`); Ctrl-C ends it."
        )
    serve(
        settings.store,
        os.environ,
        settings.agent,
        running_chitin(),
        (given.buffer, _protocol_stdout()),
    )


def _protocol_stdout() -> BinaryIO:
    """The protocol's own handle on stdout; file descriptor 1 itself then points at
    stderr, so that nothing else (a library's print, git's output) can put a line
    into the protocol."""
    sys.stdout.flush()
    private = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(private, "wb")
