"""Commands for the agent's side of chitin: reflect, and the hooks that run in agent hosts."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from chitin.cli.context import Settings, emit_json, format_option, note, opened, running_chitin
from chitin.model.reflection import LEGACY_QUEUE, REASONS

if TYPE_CHECKING:
    from chitin.core.agent import Pending
    from chitin.core.hooks import Outcome

HOSTS = ("openclaw", "claude-code")
PERSONALITY_BUDGET = 5000  # tokens, as the original hook asked for


# ------------------------------------------------------------------ reflect


@click.command(short_help="Sessions waiting for reflection: show, queue or clear them.")
@click.option("--queue", "queue_it", is_flag=True, help="Add a marker (what the hooks do).")
@click.option("--session-key", metavar="KEY", help="With --queue: the session that ended.")
@click.option("--reason", type=click.Choice(REASONS), help="With --queue: why it ended.")
@click.option("--clear", is_flag=True, help="Empty the queue after showing it.")
@click.option(
    "--pending-path",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="PATH",
    help="chitin 1.4.5's queue, read and cleared too. "
    "Default: ~/.config/chitin/pending-reflection.json.",
)
@format_option
@click.pass_context
def reflect(
    ctx: click.Context,
    queue_it: bool,
    session_key: str | None,
    reason: str | None,
    clear: bool,
    pending_path: Path | None,
    fmt: str,
) -> None:
    """Show the sessions that ended and are worth reflecting on, with the store's state.

    Agent hooks queue a marker when a session ends (OpenClaw's /new and /reset, Claude
    Code's SessionEnd and PreCompact). Later, the agent reviews them: contribute what it
    learned, reinforce what proved itself, then run `chitin reflect --clear`.

    \b
    chitin reflect
    chitin reflect --queue --session-key agent:main:telegram:1 --reason new
    chitin reflect --clear --format json
    """
    if queue_it:
        _check_queue_options(ctx, session_key, reason, clear, pending_path)
        assert session_key is not None and reason is not None
        _queue(ctx, session_key, reason, fmt)
        return
    if session_key is not None or reason is not None:
        raise click.UsageError("--session-key and --reason go with --queue", ctx)
    _show(ctx, pending_path or Path.home() / LEGACY_QUEUE, clear, fmt)


def _check_queue_options(
    ctx: click.Context,
    session_key: str | None,
    reason: str | None,
    clear: bool,
    pending_path: Path | None,
) -> None:
    if clear:
        raise click.UsageError("--queue and --clear cannot be combined", ctx)
    if pending_path is not None:
        raise click.UsageError(
            "--pending-path is read, never written: --queue adds to the store's queue", ctx
        )
    if session_key is None or reason is None:
        raise click.UsageError(
            f"--queue needs --session-key and --reason ({'|'.join(REASONS)})", ctx
        )


def _queue(ctx: click.Context, session_key: str, reason: str, fmt: str) -> None:
    from chitin.model.reflection import display_time
    from chitin.render import shapes

    with opened(ctx, reading=False) as chitin:
        marker = chitin.queue_reflection(session_key, reason)
    if fmt == "json":
        emit_json(shapes.queued(marker))
    else:
        click.echo(
            f"✓ Queued a reflection on {marker.session_key} ({marker.reason}) — "
            f"{display_time(marker)}"
        )


def _show(ctx: click.Context, legacy: Path, clear: bool, fmt: str) -> None:
    from chitin.render import shapes

    with opened(ctx) as chitin:
        found = chitin.pending_reflections(legacy, clear)
        stats = chitin.stats()
    for path, problem in found.problems:
        note(f"warning: ignored {path}: {problem}")
    if fmt == "json":
        counted = shapes.stats(stats.total, stats.by_type, stats.average_confidence, stats.archived)
        emit_json(shapes.pending(found.markers, counted, found.cleared if clear else None))
        return
    click.echo("\n".join(_pending_lines(found, stats.total, stats.average_confidence, clear)))


def _pending_lines(found: Pending, total: int, average: float, clear: bool) -> list[str]:
    from chitin.model.reflection import display_time
    from chitin.render.text import fixed

    if found.markers:
        lines = [f"{len(found.markers)} pending reflection(s):", ""]
        lines += [f"  • {m.session_key} ({m.reason}) — {display_time(m)}" for m in found.markers]
    else:
        lines = ["No pending reflections."]
    lines += ["", f"Current state: {total} insight(s), avg confidence {fixed(average, 2)}"]
    if clear and (found.cleared or found.problems):
        lines += ["", "✓ Cleared pending reflections."]
    return lines


# ------------------------------------------------------------------ hooks


@click.group(short_help="Install the hooks that bring chitin into agent hosts.")
def hooks() -> None:
    """Install (or uninstall) the hooks that bring chitin into an agent host.

    \b
    openclaw     PERSONALITY.md at agent bootstrap; a reflection marker on /new, /reset
    claude-code  the insights at SessionStart; a reflection marker on SessionEnd and
                 PreCompact

    A failing or missing chitin never blocks the host: the hooks give up quietly.

    \b
    chitin hooks install openclaw
    chitin hooks install claude-code --dir ~/code/my-project
    chitin hooks uninstall claude-code
    """


def _dir_option(function: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--dir",
        "directory",
        type=click.Path(file_okay=False, path_type=Path),
        metavar="PATH",
        help="openclaw: the hooks folder (default ~/.openclaw/hooks). claude-code: the "
        "folder whose .claude/settings.json to change (default ~, for every project).",
    )(function)


@hooks.command(short_help="Install chitin's hook into openclaw or claude-code.")
@click.argument("host", type=click.Choice(HOSTS))
@_dir_option
@format_option
def install(host: str, directory: Path | None, fmt: str) -> None:
    """Install chitin's hook into HOST (openclaw or claude-code). Running it again
    changes nothing; an older version of the hook is brought up to date.

    The hook runs this very chitin, by its absolute path, so it works even when the
    host's PATH does not hold chitin's folder (a virtual environment). If that chitin
    moves or is removed, the hook gives up quietly: install it again from the new one
    (`chitin check` points it out)."""
    from chitin import install_hook

    _report(install_hook(host, directory or _default_dir(host), running_chitin()), fmt)


@hooks.command(short_help="Remove chitin's hook from openclaw or claude-code.")
@click.argument("host", type=click.Choice(HOSTS))
@_dir_option
@format_option
def uninstall(host: str, directory: Path | None, fmt: str) -> None:
    """Remove chitin's hook from HOST, and nothing else: other hooks and settings stay."""
    from chitin import uninstall_hook

    _report(uninstall_hook(host, directory or _default_dir(host)), fmt)


def _default_dir(host: str) -> Path:
    return Path.home() / ".openclaw" / "hooks" if host == "openclaw" else Path.home()


_MESSAGES = {
    "installed": "✓ Installed the chitin hook for {host} in {path}",
    "updated": "✓ Updated the chitin hook for {host} in {path}",
    "unchanged": "✓ The chitin hook for {host} is already installed in {path}; nothing changed",
    "removed": "✓ Removed the chitin hook for {host} from {path}",
    "absent": "The chitin hook for {host} is not installed in {path}; nothing changed",
}
_NEXT_STEP = {
    "openclaw": "  Next: `openclaw hooks enable chitin`, then restart the gateway.",
    "claude-code": "  New Claude Code sessions pick it up (see /hooks).",
}


def _report(outcome: Outcome, fmt: str) -> None:
    if fmt == "json":
        from chitin.render import shapes

        emit_json(shapes.hook_outcome(outcome.host, outcome.action, str(outcome.path)))
        return
    click.echo(_MESSAGES[outcome.action].format(host=outcome.host, path=outcome.path))
    if outcome.action in ("installed", "updated"):
        click.echo(_NEXT_STEP[outcome.host])


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
    settings: Settings = ctx.find_root().obj
    try:
        stdin = "" if sys.stdin.isatty() else sys.stdin.read()
        _run_claude_code(ctx, event, stdin)
    except Exception as error:  # a hook must never break its host; say why, once
        from chitin.render.failures import describe

        if settings.debug:
            import traceback

            traceback.print_exc()
        note(f"chitin: the {event} hook did nothing: {describe(error)[0]}")


def _run_claude_code(ctx: click.Context, event: str, stdin: str) -> None:
    from chitin.render import shapes

    if event == "reflect":
        with opened(ctx, reading=False) as chitin:
            chitin.claude_code_reflect(stdin)
        return
    with opened(ctx, reading=False) as chitin:
        made = chitin.claude_code_session_start(stdin, PERSONALITY_BUDGET)
    if made.found.degraded:
        note(f"chitin: {made.found.degraded}")
    emit_json(shapes.session_start(made.text))
