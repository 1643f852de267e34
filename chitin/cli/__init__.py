"""The ``chitin`` command line: the only layer that prints, reads the environment and exits.

Command modules load lazily (only the invoked command's module is imported), so
``chitin --version`` pays for click and nothing else.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

import click

from chitin import __version__
from chitin.cli.global_options import DEBUG_HELP, STORE_HELP, SuggestingGroup, resolved
from chitin.notices import take
from chitin.process import PREFETCHED, leave

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
}


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
        try:
            try:
                code = super().main(
                    argv, prog_name or "chitin", complete_var, standalone_mode=False, **extra
                )
            finally:
                PREFETCHED.drop()  # a git status the console started that nobody took
                _release_signals(self.process_ends)
                _say_notices()
        except click.UsageError as error:
            _fail(_usage_line(error), 2)
        except click.Abort as error:
            if isinstance(error.__context__, KeyboardInterrupt):  # click's wrapping of it
                _fail_interrupted(error.__context__)
            _fail("Aborted.", 1)
        except click.ClickException as error:
            _fail(f"Error: {error.format_message()}", error.exit_code)
        except BrokenPipeError:
            _silence_stdout()
            sys.exit(0)
        except KeyboardInterrupt as error:
            _fail_interrupted(error)
        except Exception as error:
            from chitin.render.failures import INTERNAL, describe

            message, code = describe(error)
            if code == INTERNAL:
                if "--debug" in argv:
                    raise
                message += " (run again with --debug for the traceback)"
            _fail(f"{getattr(error, 'prefix', 'Error')}: {message}", code)
        sys.exit(code if isinstance(code, int) else 0)


def _fail_interrupted(error: KeyboardInterrupt) -> None:
    """Ctrl-C or SIGTERM: a write it stopped has been undone (store/interrupts.py)."""
    signum = getattr(error, "signum", 2)  # a write's guard says which signal came
    _fail("Interrupted: nothing was changed.", 128 + signum)


def _release_signals(process_ends: bool) -> None:
    """The command has said what it did: a signal that came after its commit is
    reported, and signals act as usual again (store/interrupts.py's hand-off, loaded
    by the commands that write). The console script's process, which ends right after
    the command, keeps noting them to the end, so that one in the last milliseconds
    after a commit is not taken for an interruption of the write."""
    module = sys.modules.get("chitin.store.interrupts")
    if module is not None:
        module.HANDOFF.release(restore=not process_ends)


def _say_notices() -> None:
    """What chitin repaired by itself during the command (chitin.notices), once each."""

    for message in take():
        click.echo(f"warning: {message}", err=True)


def _usage_line(error: click.UsageError) -> str:
    if type(error).__name__ == "NoArgsIsHelpError":  # click >= 8.2: a bare `chitin`
        return error.format_message().rstrip()  # the help itself, laid out as --help
    where = error.ctx.command_path if error.ctx else "chitin"
    message = " ".join(error.format_message().split())
    return f"Error: {message} (see '{where} --help')"


def _fail(message: str, code: int) -> None:
    click.echo(message, err=True)
    sys.exit(code)


def _silence_stdout() -> None:
    # Output piped into `head` closed early: exit quietly, without a second error at exit.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


@click.group(
    name="chitin", cls=ChitinGroup, context_settings={"help_option_names": ["-h", "--help"]}
)
@click.version_option(__version__, "-V", "--version", prog_name="chitin", message="%(version)s")
@click.option(
    "--store",
    "store",
    type=click.Path(path_type=str),
    metavar="PATH",
    help=STORE_HELP,
)
@click.option("--debug", is_flag=True, help=DEBUG_HELP)
@click.pass_context
def cli(ctx: click.Context, store: str | None, debug: bool) -> None:
    """chitin keeps how an agent works best: learned insights, as Markdown files in git.

    \b
    Start:   chitin init --seed
    Recall:  chitin retrieve --query "what I am about to do"
    Learn:   chitin contribute --type skill --claim "..." --confidence 0.8
    Confirm: chitin reinforce <id>
    Browse:  chitin list, chitin get <id>, chitin history <id>

    Ids may be shortened to any unique prefix. --store and --debug may also follow
    the command. The store is found as git finds a repository: --store, else
    $CHITIN_STORE, else the folder you stand in or the nearest above it that holds
    insights/ and .git (a store, or a clone of one), else the default store;
    `chitin where` says which.
    """
    from chitin.cli.context import Settings

    ctx.obj = Settings.from_environment(store, debug)


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
