"""The global options, accepted after the command too (``chitin list --store X``), as
git and the best Python CLIs accept them; and "did you mean" for a misspelled command."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import click

from chitin.cli.output import note

STORE_HELP = (
    "The store to use. Without it: $CHITIN_STORE; else the store you stand in (this "
    "folder or the nearest above it holding insights/ and .git); else "
    "${XDG_DATA_HOME:-~/.local/share}/chitin. `chitin where` says which, and why."
)
DEBUG_HELP = "Show the traceback of unexpected errors."
VERBOSE_HELP = "Say first, on stderr, which store the command uses and why (as `chitin where`)."
_MARK = "_chitin_global_options"  # set on a command once it has them


def _late_options() -> list[click.Option]:
    """The global options as a command takes them after its name: each read by a
    callback (the group's own values are bound before the command runs)."""
    return [
        click.Option(
            ["--store"], metavar="PATH", expose_value=False, callback=late_store,
            help="The store to use (as `chitin --store`).",
        ),
        click.Option(
            ["--debug"], is_flag=True, expose_value=False, callback=_late_debug,
            help=DEBUG_HELP,
        ),
        click.Option(
            ["--verbose"], is_flag=True, expose_value=False, callback=_late_verbose,
            help=VERBOSE_HELP,
        ),
    ]  # fmt: skip


def with_global_options(command: click.Command) -> click.Command:
    """Give ``command`` (and, for a group, each command under it) ``--store``,
    ``--debug`` and ``--verbose``, unless it has options of those names already
    (``check --store``); and a command (not a group) the announcement of --verbose."""
    if getattr(command, _MARK, False):
        return command
    names = {name for param in command.params for name in getattr(param, "opts", ())}
    for option in _late_options():
        if option.opts[0] not in names:
            command.params.append(option)
    setattr(command, _MARK, True)
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            with_global_options(sub)
    else:
        command.params.append(_Announcement())  # last: after every option is read
    return command


def named_store(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """A --store that names something: an empty one (``--store "$UNSET"``) is refused,
    as git refuses ``-C ""``, rather than read as none given and another store used."""
    if value is not None and not str(value).strip():
        raise click.BadParameter(
            "it is empty; name the store's folder (is the variable it came from unset?)",
            ctx,
            param,
        )
    return value


def late_store(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``--store`` after the command (or a command's own, check's): the store of this
    invocation, as if given first, which --verbose names."""
    named_store(ctx, param, value)
    if value:
        from chitin.cli.context import Settings

        root = ctx.find_root()
        settings: Settings = root.obj
        root.obj = Settings.from_environment(value, settings.debug, settings.verbose)
    return value


def _late_debug(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        root = ctx.find_root()
        root.obj = root.obj._replace(debug=True)


def _late_verbose(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        root = ctx.find_root()
        root.obj = root.obj._replace(verbose=True)


class _Announcement(click.Option):
    """--verbose's line, said once the command's options are all read (a --store after
    the command among them) and valid, before the command runs. An option no command
    line can give: click processes the options not given in the order they were
    declared, and this one is declared last."""

    def __init__(self) -> None:
        super().__init__(
            ["--chitin-announcement"], hidden=True, expose_value=False, callback=_announce
        )

    def add_to_parser(self, parser: Any, ctx: click.Context) -> None:
        """Nothing: it is never read from the command line."""


def _announce(ctx: click.Context, param: click.Parameter, value: Any) -> None:
    announce(ctx)


def announce(ctx: click.Context) -> None:
    """Say, for --verbose, which store the command uses and why: what a command's last
    option does, and a group that runs itself (``chitin quality``) calls."""
    settings = ctx.find_root().obj
    if settings is not None and settings.verbose and not ctx.resilient_parsing:
        note("\n".join(settings.located.lines()))


# Words other tools taught (git, the shell, note apps), and chitin's command for each:
# too far from it in letters for difflib ("ls" and "list" score 0.67).
HABITS = {
    "ls": "list", "show": "get", "cat": "get", "view": "get", "add": "contribute",
    "new": "contribute", "create": "contribute", "learn": "contribute", "rm": "archive",
    "delete": "archive", "remove": "archive", "search": "retrieve", "find": "retrieve",
    "query": "retrieve", "recall": "retrieve", "status": "stats", "pull": "sync",
    "push": "sync", "fetch": "sync", "lint": "check", "fsck": "check", "doctor": "check",
    "validate": "check", "edit": "update", "set": "update", "confirm": "reinforce",
    "log": "history", "restore": "unarchive", "backup": "export", "dedup": "dedupe",
    "serve": "mcp", "install": "hooks",
}  # fmt: skip


def unknown_command(name: str, known: Iterable[str]) -> click.UsageError:
    """The usage error for a command chitin does not have, with the nearest ones: the
    command a habit from another tool means, else the closest in letters."""
    commands = list(known)
    habit = HABITS.get(name.lower())
    close = [habit] if habit in commands else []
    close = close or _closest(name, commands, 0.7)
    message = f"No such command '{name}'."
    if close:
        message += " Did you mean " + " or ".join(f"'{c}'" for c in close) + "?"
    return click.UsageError(message)


def unknown_option(name: str, close: list[str]) -> str:
    """A misspelt option's message, worded as a misspelt command's: the nearest first
    (click sorts them by name: "(Did you mean one of: '--condition', '--confidence', …?)")."""
    begun = _begun_by(name, close)
    nearest = (begun + _closest(name, [c for c in close if c not in begun], 0.0))[:3]
    return f"No such option '{name}'. Did you mean " + " or ".join(f"'{c}'" for c in nearest) + "?"


def near_options(error: click.NoSuchOption) -> list[str]:
    """The options near a misspelt one: those the typed word begins ('--max':
    '--max-results', which difflib scores under '--format'), then click's (difflib's,
    case-sensitive), else those near it whatever the case ('--TYPE': '--type')."""
    ctx = error.ctx
    names = [
        name
        for param in (ctx.command.get_params(ctx) if ctx is not None else [])
        if isinstance(param, click.Option)
        for name in (*param.opts, *param.secondary_opts)
        if name.startswith("--")
    ]
    begun = _begun_by(error.option_name, names)
    near = list(error.possibilities or ()) or _closest(error.option_name, names, 0.6)
    return [*begun, *(name for name in near if name not in begun)]


def _begun_by(name: str, candidates: list[str]) -> list[str]:
    """Up to three of ``candidates`` that ``name`` (in any case) is the start of."""
    lower = name.lower()
    return [c for c in candidates if c.startswith(lower) and c != lower][:3]


def _closest(name: str, candidates: list[str], cutoff: float) -> list[str]:
    """Up to three of ``candidates`` (lower case, as chitin's commands and options
    are), the nearest to ``name`` in any case first: 'LIST' is 'list' in Caps Lock."""
    import difflib  # only for a misspelling: --version loads nothing more

    lower = name.lower()
    if lower in candidates:
        return [lower]
    return difflib.get_close_matches(lower, candidates, n=3, cutoff=cutoff)


class SuggestingGroup(click.Group):
    """A group whose unknown command gets the nearest ones ("did you mean")."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if name and not name.startswith("-") and name not in self.list_commands(ctx):
            error = unknown_command(name, self.list_commands(ctx))
            error.ctx = ctx
            raise error
        return super().resolve_command(ctx, args)


def resolved(ctx: click.Context, result: Any) -> Any:
    """click's resolve_command result, with the command given its global options."""
    name, command, rest = result
    if command is not None:
        with_global_options(command)
    return name, command, rest
