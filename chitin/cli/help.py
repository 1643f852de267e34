"""``chitin help [COMMAND]...``: the help of chitin or of a command, as ``git help``
and chitin 1.4.5's ``help`` command give it."""

from __future__ import annotations

import click


@click.command("help", short_help="Show the help of chitin or of a command.")
@click.argument("words", nargs=-1, metavar="[COMMAND]...")
@click.pass_context
def help_command(ctx: click.Context, words: tuple[str, ...]) -> None:
    """Print the help of COMMAND (`chitin help hooks install`), or chitin's own: the
    same text as `--help`."""
    context = ctx.find_root()
    for word in words:
        command = context.command
        if not isinstance(command, click.Group):
            raise click.UsageError(f"{context.command_path} has no subcommands", ctx=context)
        # The group's own lookup: a misspelt name gets its "did you mean".
        name, found, _ = command.resolve_command(context, [word])
        assert found is not None and name is not None  # resolve_command raises otherwise
        context = click.Context(found, info_name=name, parent=context)
    click.echo(context.get_help())
