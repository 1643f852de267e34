"""``chitin where``: which store a command here would use, and why."""

from __future__ import annotations

import click

from chitin.cli.context import Settings
from chitin.cli.options import format_option
from chitin.cli.output import emit_json
from chitin.location import is_store
from chitin.render import shapes


@click.command(short_help="Say which store commands here use, and why.")
@format_option
@click.pass_context
def where(ctx: click.Context, fmt: str) -> None:
    """Print the store that chitin uses here, and how it was found.

    \b
    The rule, as git finds a repository:
      1. --store PATH (before or after the command)
      2. $CHITIN_STORE
      3. this folder, or the nearest folder above it, that is a store: one
         holding an insights/ folder and .git (what `chitin init` makes, and a
         clone of a store; a clone of one with no insight yet has no insights/,
         and chitin's .gitattributes marks it)
      4. ${XDG_DATA_HOME:-~/.local/share}/chitin
    """

    settings: Settings = ctx.find_root().obj
    located = settings.located
    exists = is_store(located.path)
    if fmt == "json":
        emit_json(shapes.where(str(located.path), located.source, exists))
        return
    click.echo("\n".join(located.lines()))
