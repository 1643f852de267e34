"""The ``chitin`` click group: every command, its help and its global options.

Command modules load lazily (only the invoked command's module is imported), so
``chitin --version`` pays for click and nothing else.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from chitin import __version__
from chitin.cli.global_options import (
    DEBUG_HELP,
    STORE_HELP,
    VERBOSE_HELP,
    SuggestingGroup,
    named_store,
    near_options,
    resolved,
    unknown_option,
)
from chitin.cli.outcome import Failed, conclude, harmless
from chitin.process import leave

# name → (module, function). The order here is the order of ``chitin --help``.
COMMANDS: dict[str, tuple[str, str]] = {
    "init": ("chitin.cli.setup", "init"),
    "contribute": ("chitin.cli.write", "contribute"),
    "get": ("chitin.cli.read", "get"),
    "update": ("chitin.cli.write", "update"),
    "reinforce": ("chitin.cli.write", "reinforce"),
    "archive": ("chitin.cli.write", "archive"),
    "unarchive": ("chitin.cli.write", "unarchive"),
    "merge": ("chitin.cli.write", "merge"),
    "dedupe": ("chitin.cli.dedupe", "dedupe"),
    "list": ("chitin.cli.read", "list_insights"),
    "stats": ("chitin.cli.read", "stats"),
    "similar": ("chitin.cli.read", "similar"),
    "retrieve": ("chitin.cli.retrieve", "retrieve"),
    "render": ("chitin.cli.retrieve", "render"),
    "embed": ("chitin.cli.embed", "embed"),
    "embed-status": ("chitin.cli.embed", "embed_status"),
    "history": ("chitin.cli.log", "history"),
    "changelog": ("chitin.cli.log", "changelog"),
    "diff": ("chitin.cli.diff", "diff"),
    "sync": ("chitin.cli.sync", "sync"),
    "merge-driver": ("chitin.cli.sync", "merge_driver"),
    "reflect": ("chitin.cli.reflect", "reflect"),
    "hooks": ("chitin.cli.agent", "hooks"),
    "export": ("chitin.cli.interop", "export"),
    "import": ("chitin.cli.interop", "import_insights"),
    "promote": ("chitin.cli.carapace", "promote"),
    "import-carapace": ("chitin.cli.carapace", "import_carapace"),
    "carapace-query": ("chitin.cli.carapace", "query"),
    "carapace-register": ("chitin.cli.carapace", "register"),
    "quality": ("chitin.cli.quality", "quality"),
    "quality:score": ("chitin.cli.quality", "quality_score"),
    "skill": ("chitin.cli.skill", "skill"),
    "check": ("chitin.cli.check", "check"),
    "mcp": ("chitin.cli.mcp", "mcp"),
    "where": ("chitin.cli.where", "where"),
    "help": ("chitin.cli.help", "help_command"),
}


class _ReaderGone(Exception):
    """The command's output was cut by its reader (``| head``): click's main answers a
    broken pipe with exit 1 and no word, a write's commit made or not, so it is carried
    past click as this, and ended as outcome.conclude ends a broken pipe."""


class _Interrupted(Exception):
    """Ctrl-C or SIGTERM in a command, carried past click's main, which writes an empty
    line to stderr for a KeyboardInterrupt (its close of a terminal's ``^C`` echo)
    before chitin's one line: outcome.interrupted closes the echo itself, on a terminal
    alone."""

    def __init__(self, interrupt: KeyboardInterrupt) -> None:
        super().__init__()
        self.interrupt = interrupt


class ChitinGroup(SuggestingGroup):
    """Loads commands on demand and turns every failure into one line and an exit code."""

    process_ends = False  # the console script's process ends with the command (``main``)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        command = getattr(importlib.import_module(target[0]), target[1])
        assert isinstance(command, click.Command)
        return command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError as error:  # past click's main, which would exit 1 for it
            raise _ReaderGone from error
        except KeyboardInterrupt as error:  # past click's main, which writes a blank line
            raise _Interrupted(error) from None

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        return resolved(ctx, super().resolve_command(ctx, args))  # type: ignore[no-any-return]

    def main(
        self,
        args: Any = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        argv = list(sys.argv[1:] if args is None else args)

        def run() -> Any:
            try:
                return super(ChitinGroup, self).main(
                    argv, prog_name or "chitin", complete_var, standalone_mode=False, **extra
                )
            except click.UsageError as error:
                raise Failed(_usage_line(error, self.command_named(argv)), 2) from error
            except _Interrupted as error:
                raise error.interrupt from None
            except click.Abort as error:
                if isinstance(error.__context__, KeyboardInterrupt):  # click's wrapping of it
                    error.__context__.closed = True  # type: ignore[attr-defined]  # click's line
                    raise error.__context__ from None
                raise Failed("Aborted.", 1) from error
            except click.ClickException as error:
                raise Failed(f"Error: {error.format_message()}", error.exit_code) from error
            except _ReaderGone:  # the output's reader left: quiet, and 0 (outcome.py)
                raise BrokenPipeError from None

        sys.exit(conclude(run, argv, self.process_ends))

    def command_named(self, argv: list[str]) -> str | None:
        """The command ``argv`` runs: its first word that is not an option or the value
        of one of the group's own options (``--store X``)."""
        valued = {name for param in self.params if not getattr(param, "is_flag", True)
                  for name in getattr(param, "opts", ())}  # fmt: skip
        words = iter(argv)
        for word in words:
            if word in valued:
                next(words, None)
            elif not word.startswith("-"):
                return word if word in COMMANDS else None
        return None


def _usage_line(error: click.UsageError, command: str | None) -> str:
    """``command``: the command argv names, for an error click raised without its
    context (an option lacking its value: "chitin get X --format")."""
    if type(error).__name__ == "NoArgsIsHelpError":  # click >= 8.2: a bare `chitin`
        return error.format_message().rstrip()  # the help itself, laid out as --help
    where = f"chitin {command}" if command else "chitin"
    if error.ctx:
        where = error.ctx.command_path
    message = " ".join(error.format_message().split())
    if isinstance(error, click.NoSuchOption) and (near := near_options(error)):
        message = unknown_option(error.option_name, near)
    # The unknown name or value is echoed: its break or escape must not reach the terminal.
    return f"Error: {harmless(message)} (see '{where} --help')"


@click.group(
    name="chitin", cls=ChitinGroup, context_settings={"help_option_names": ["-h", "--help"]}
)
@click.version_option(__version__, "-V", "--version", prog_name="chitin", message="%(version)s")
@click.option(
    "--store",
    "store",
    type=click.Path(path_type=str),
    metavar="PATH",
    callback=named_store,
    help=STORE_HELP,
)
@click.option("--debug", is_flag=True, help=DEBUG_HELP)
@click.option("--verbose", is_flag=True, help=VERBOSE_HELP)
@click.pass_context
def cli(ctx: click.Context, store: str | None, debug: bool, verbose: bool) -> None:
    """chitin keeps how an agent works best: learned insights, as Markdown files in git.

    \b
    Start:   chitin init --seed
    Recall:  chitin retrieve --query "what I am about to do"
    Learn:   chitin contribute --type skill --claim "..." --confidence 0.8
    Confirm: chitin reinforce <id>
    Browse:  chitin list, chitin get <id>, chitin history <id>

    Ids may be shortened to any unique prefix. --store, --debug and --verbose may
    also follow the command. The store is found as git finds a repository: --store,
    else $CHITIN_STORE, else the folder you stand in or the nearest above it that
    holds insights/ and .git (a store, or a clone of one), else the default store;
    `chitin where` (or `chitin --verbose <command>`) says which.
    """
    from chitin.cli.context import Settings

    ctx.obj = Settings.from_environment(store, debug, verbose)


def main() -> None:
    """The console script (and ``python -m chitin``): run one command, then leave.

    Everything a command writes is written, closed and committed before it returns
    (every store write, the caches' SQLite connections, the model). What is left is
    the interpreter's teardown, which frees each object of every module one by one:
    ~15 ms of a session start here, for memory the operating system takes back anyway.
    So the process flushes its output and ends at once. In-process callers (tests,
    other programs) call ``cli.main`` and keep their interpreter."""
    cli.process_ends = True
    try:
        cli.main()
        code: int = 0
    except SystemExit as done:
        code = _exit_code(done.code)
    leave(code)


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)  # sys.exit("message"), as Python itself reports it
    return 1
