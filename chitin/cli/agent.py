"""Commands for the agent's side of chitin: the hooks that run in agent hosts (reflect is
in cli/reflect.py)."""

from __future__ import annotations

import difflib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from chitin.cli.context import Settings, running_chitin
from chitin.cli.global_options import SuggestingGroup
from chitin.cli.hook_report import MCP_CLIENTS, report
from chitin.cli.options import GivenPath, format_option
from chitin.cli.session_hook import run_hook
from chitin.location import NO_HOME_FOLDER, home_folder, needed_home

HOSTS = ("openclaw", "claude-code", "claude-desktop", "cursor", "claude-code-mcp")


class HostChoice(click.Choice):  # type: ignore[type-arg]  # click < 8.2 is not generic
    """The host argument: a misspelt host gets the nearest one, as a misspelt command
    gets "did you mean" (cli/global_options.py)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter as error:
            # in lower case, as hosts are: CLAUDE-CODE is claude-code in Caps Lock
            close = difflib.get_close_matches(str(value).lower(), HOSTS, n=1, cutoff=0.7)
            if not close:
                raise
            self.fail(f"{error.message} Did you mean '{close[0]}'?", param, ctx)


# ------------------------------------------------------------------ hooks


@click.group(
    cls=SuggestingGroup,
    short_help="Install chitin into agent hosts: hooks and MCP server entries.",
)
def hooks() -> None:
    """Install (or uninstall) what brings chitin into an agent host.

    \b
    openclaw         PERSONALITY.md at agent bootstrap; a reflection marker on
                     /new, /reset and daily or idle resets
    claude-code      the insights at SessionStart; a reflection marker on
                     SessionEnd and PreCompact
    claude-desktop   chitin's MCP server (`chitin mcp`) in Claude Desktop's
                     claude_desktop_config.json
    cursor           chitin's MCP server in ~/.cursor/mcp.json (or a project's
                     .cursor/mcp.json)
    claude-code-mcp  chitin's MCP server in ~/.claude.json (or a project's .mcp.json)

    A failing or missing chitin never blocks the host: the hooks give up quietly.

    \b
    chitin hooks install openclaw
    chitin hooks install claude-code --dir ~/code/my-project
    chitin --store ~/work-store hooks install cursor
    chitin hooks uninstall claude-desktop
    """


def _dir_option(function: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--dir",
        "directory",
        type=GivenPath(file_okay=False, path_type=Path),
        metavar="PATH",
        help="openclaw: the hooks folder (default: OpenClaw's, $OPENCLAW_STATE_DIR/hooks, "
        "else beside $OPENCLAW_CONFIG_PATH, else ~/.openclaw/hooks). claude-code: the "
        "folder whose .claude/settings.json to change (default ~, for every project). "
        "claude-desktop: the folder holding claude_desktop_config.json (default: "
        "Claude's, ~/Library/Application Support/Claude on macOS, "
        "${XDG_CONFIG_HOME:-~/.config}/Claude on Linux). cursor: the project whose "
        ".cursor/mcp.json to change (default ~/.cursor/mcp.json, every project). "
        "claude-code-mcp: the project whose .mcp.json to change (default ~/.claude.json, "
        "every project). The folder must exist: a mistyped one is refused, not made.",
    )(function)


@hooks.command(short_help="Install chitin's hook or MCP server into an agent host.")
@click.argument("host", type=HostChoice(HOSTS), metavar="HOST")
@_dir_option
@format_option
@click.pass_context
def install(ctx: click.Context, host: str, directory: Path | None, fmt: str) -> None:
    """Install chitin into HOST: openclaw or claude-code (hooks), claude-desktop,
    cursor or claude-code-mcp (chitin's MCP server). Running it again changes
    nothing; an older install is brought up to date, and everything else in the
    host's files stays as it is.

    The host runs this very chitin, by its absolute path, so it works even when the
    host's PATH does not hold chitin's folder (a virtual environment). If that chitin
    moves or is removed, install it again from the new one (`chitin check` points it
    out).

    The store is bound as chitin finds it here (`chitin where`): a store named by
    --store or $CHITIN_STORE, or the one you stand in, is written into what the host
    runs (`chitin --store PATH hooks run …` for Claude Code, chitin.json for OpenClaw,
    $CHITIN_STORE in an MCP server entry), since the host runs chitin in a folder and
    environment of its own. Otherwise the host's chitin uses the default store. The
    line printed says which; `chitin check` warns when a bound store is gone.

    The MCP server entry is named "chitin" and runs `chitin mcp`. A file that is not
    valid JSON, or a "chitin" server that is not chitin's, is left alone with an
    error."""
    from chitin import install_hook

    store = _named_store(ctx)
    settings: Settings = ctx.find_root().obj
    home = _home(directory)
    outcome = install_hook(
        host,
        directory or _default_dir(host, home),
        running_chitin(),
        store=store,
        home=home,
        platform=sys.platform,
        env=os.environ,
    )
    report(outcome, fmt, store, directory, None if store else settings.store)


@hooks.command(short_help="Remove chitin's hook or MCP server from an agent host.")
@click.argument("host", type=HostChoice(HOSTS), metavar="HOST")
@_dir_option
@format_option
def uninstall(host: str, directory: Path | None, fmt: str) -> None:
    """Remove chitin's hook or MCP server entry from HOST, and nothing else: other
    hooks, servers and settings stay (an emptied "mcpServers" object stays too).
    From OpenClaw's own hooks folder, the entry `openclaw hooks enable chitin` wrote
    into openclaw.json is removed too."""
    from chitin import uninstall_hook

    home = _home(directory)
    outcome = uninstall_hook(
        host,
        directory or _default_dir(host, home),
        home=home,
        platform=sys.platform,
        env=os.environ,
    )
    report(outcome, fmt, None, directory)


def _default_dir(host: str, home: Path | None) -> Path | None:
    """The folder to install into when --dir is not given; None for openclaw and the
    MCP clients, whose folders core finds (OpenClaw's from $OPENCLAW_STATE_DIR,
    $OPENCLAW_CONFIG_PATH or the home, as OpenClaw does)."""
    if host in MCP_CLIENTS or host == "openclaw":
        return None
    return home


def _home(directory: Path | None) -> Path | None:
    """The home the hosts' default folders are in. Without --dir it must be set: an
    empty HOME put ~/.claude/settings.json at /.claude/settings.json."""
    return (
        home_folder(os.environ)
        if directory is not None
        else needed_home(os.environ, NO_HOME_FOLDER)
    )


def _named_store(ctx: click.Context) -> Path | None:
    """The store, unless it is the default one (named by --store or $CHITIN_STORE, or
    the one you stand in): what the host runs is told it. None: the host's chitin
    finds its store as every chitin command does."""
    settings: Settings = ctx.find_root().obj
    return settings.store if settings.located.named else None


@hooks.command(short_help="What the Claude Code hooks run (reads the event on stdin).")
@click.argument("host", type=click.Choice(["claude-code"]))
@click.argument("event", type=click.Choice(["session-start", "reflect"]))
@click.pass_context
def run(ctx: click.Context, host: str, event: str) -> None:
    """Run a HOST hook for EVENT, with the host's event JSON on stdin.

    \b
    session-start  print the insights for this project as SessionStart context
    reflect        queue a reflection on the session (SessionEnd, PreCompact)

    It always exits 0: on any failure it prints nothing on stdout and one line on
    stderr, so a broken store never blocks the agent.
    """
    run_hook(ctx.find_root().obj, host, event)
