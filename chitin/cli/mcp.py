"""``chitin mcp``: the store as an MCP server, for agents in MCP clients."""

from __future__ import annotations

import sys

import click

from chitin.cli.context import Settings, note, running_chitin


@click.command(short_help="Serve the store to MCP clients (Claude Desktop, Cursor, …).")
@click.pass_context
def mcp(ctx: click.Context) -> None:
    """Serve the store over stdio to an MCP client, which starts this command itself:
    `chitin hooks install claude-desktop` (or cursor, claude-code-mcp) writes the
    client's entry. Needs the MCP SDK: pip install 'chitin-personality[mcp]'.

    The tools are the commands an agent uses (retrieve, contribute, reinforce,
    similar, get, list, update, archive, unarchive, merge, history, changelog,
    reflect, stats), answering with their --format json. The resources are
    personality://current (PERSONALITY.md) and insight://{id} (one insight's file);
    the reflect prompt guides an end-of-session reflection.

    One process serves the whole client session: the embedding model loads once,
    and every request sees what changed on disk since the last one.
    """
    from chitin.server import MissingSDK, check_sdk, serve

    try:
        check_sdk()
    except MissingSDK as error:
        raise click.ClickException(str(error)) from None
    settings: Settings = ctx.find_root().obj
    if sys.stdin.isatty():
        note(
            "chitin mcp speaks the Model Context Protocol on stdin and stdout, for an "
            "MCP client to start it (see `chitin hooks install --help`); Ctrl-C ends it."
        )
    import os

    serve(settings.store, os.environ, settings.agent, running_chitin())
