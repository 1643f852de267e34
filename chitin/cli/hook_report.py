"""What `chitin hooks install` and `uninstall` say: what they did, the store the host's
chitin uses, and the next step in the host."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING

import click

from chitin.cli.output import emit_json
from chitin.location import is_store
from chitin.render import shapes

if TYPE_CHECKING:
    from chitin.core.host_files import Outcome

MCP_CLIENTS = ("claude-desktop", "cursor", "claude-code-mcp")  # chitin's MCP server


_MESSAGES = {
    "installed": "✓ Installed {what} for {host} in {path}",
    "updated": "✓ Updated {what} for {host} in {path}",
    "unchanged": "✓ {What} for {host} is already installed in {path}; nothing changed",
    "removed": "✓ Removed {what} for {host} from {path}",
    "absent": "{What} for {host} is not installed in {path}; nothing changed",
}
_NEXT_STEP = {
    "openclaw": "  Next: `openclaw hooks enable chitin`, then restart the gateway "
    "(only the gateway loads hooks: `openclaw agent --local` does not).",
    "claude-code": "  New Claude Code sessions pick it up (see /hooks).",
    "claude-desktop": "  Next: quit Claude Desktop and start it again; it starts the server.",
    "cursor": "  Next: in Cursor's Settings → MCP, check that chitin is on (refresh it).",
    "claude-code-mcp": "  New Claude Code sessions start the server (a project's .mcp.json "
    "asks for your approval once); see /mcp.",
}
# A pack written into a folder of one's choice is installed by OpenClaw's own installer.
_OPENCLAW_PACK_STEP = (
    "  Next: `openclaw plugins install --force {path}` (it installs and enables the "
    "pack), then restart the gateway."
)


def report(
    outcome: Outcome,
    fmt: str,
    store: Path | None,
    directory: Path | None,
    default: Path | None = None,
) -> None:
    """``store``: the store bound (None: the default one, ``default``, is used)."""
    installing = outcome.action in ("installed", "updated", "unchanged")
    if fmt == "json":
        path = str(outcome.path)
        if installing:
            bound = str(store) if store else None
            emit_json(shapes.hook_installed(outcome.host, outcome.action, path, bound))
        else:
            emit_json(shapes.hook_outcome(outcome.host, outcome.action, path))
        return
    mcp = outcome.host in MCP_CLIENTS
    what, what_first = (
        ("chitin's MCP server",) * 2 if mcp else ("the chitin hook", "The chitin hook")
    )
    line = _MESSAGES[outcome.action].format(
        what=what, What=what_first, host=outcome.host, path=outcome.path
    )
    click.echo(line)
    if installing:
        click.echo(_store_line(store, mcp, default))
    if outcome.action in ("installed", "updated"):
        click.echo(_next_step(outcome, directory))


def _store_line(store: Path | None, mcp: bool, default: Path | None = None) -> str:
    """Which store the host's chitin uses, as bound at install."""
    uses = "It serves" if mcp else "It uses"
    if store is None and default is not None:
        line = (
            f"  {uses} the default store, {default} (or $CHITIN_STORE where the host runs "
            "it); `chitin --store PATH hooks install …` binds another."
        )
        if is_store(default):
            return line
        # As for a mistyped --store: every session would see no insights, unannounced.
        return (
            f"{line}\n  But there is no store at {default} yet: run `chitin init`, or "
            "install again with the right --store; until then the host's sessions see no "
            "insights."
        )
    if store is not None and not is_store(store):
        # A mistyped --store would give every session an empty store, unannounced.
        return (
            f"  {uses} the store at {store}.\n  But there is no store at {store} yet: "
            f"run `chitin --store {shlex.quote(str(store))} init`, or install again with "
            "the right --store; until then the host's sessions see no insights."
        )
    if store is not None:
        return f"  {uses} the store at {store}."
    return (
        f"  {uses} the default store (or $CHITIN_STORE where the host runs it); "
        "`chitin --store PATH hooks install …` binds another."
    )


def _next_step(outcome: Outcome, directory: Path | None) -> str:
    if outcome.host == "openclaw" and directory is not None:
        # a command to paste into a shell: a folder with a space is quoted
        return _OPENCLAW_PACK_STEP.format(path=shlex.quote(str(outcome.path)))
    return _NEXT_STEP[outcome.host]
