"""``chitin reflect``: the sessions waiting for reflection, each with a digest of what
happened in it (issue 26), and the markers the hooks queue."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

from chitin.cli import bounds
from chitin.cli.context import opened
from chitin.cli.options import GivenPath, format_option
from chitin.cli.output import emit_json, note
from chitin.model.digest import DEFAULT_CHARACTERS, MIN_CHARACTERS
from chitin.model.reflection import REASONS, Where, display_time, legacy_queue
from chitin.render import shapes
from chitin.render.digest import digest_lines, digest_shape, warning_line
from chitin.render.text import fixed

if TYPE_CHECKING:
    from chitin.core.agent import Pending, SessionDigest
    from chitin.model.reflection import Marker


@click.command(short_help="Sessions waiting for reflection: show, queue or clear them.")
@click.option("--queue", "queue_it", is_flag=True, help="Add a marker (what the hooks do).")
@click.option("--session-key", metavar="KEY", help="With --queue: the session that ended.")
@click.option(
    "--session-id",
    metavar="ID",
    help="With --queue: the id of the session that ended, when KEY names the chat "
    "(OpenClaw keeps one key per chat across /new and resets).",
)
@click.option(
    "--transcript",
    type=GivenPath(dir_okay=False, path_type=Path, dash="the transcript file"),
    metavar="PATH",
    help="With --queue: the session's events as JSON lines (Claude Code's "
    "transcript_path, an OpenClaw session file), read for the digest.",
)
@click.option(
    "--agent-database",
    type=GivenPath(dir_okay=False, path_type=Path, dash="the agent database"),
    metavar="PATH",
    help="With --queue and --session-id: OpenClaw's agent database holding the "
    "session's events (read only).",
)
@click.option("--reason", type=click.Choice(REASONS), help="With --queue: why it ended.")
@click.option("--clear", is_flag=True, help="Empty the queue after showing it.")
@click.option(
    "--done",
    metavar="SESSION",
    help="Remove one session's markers (its id or key, as the digest names it), and the others "
    "of its transcript, once reflected on.",
)
@click.option(
    "--max-characters",
    type=bounds.WholeRange(min=MIN_CHARACTERS),
    default=DEFAULT_CHARACTERS,
    show_default=True,
    metavar="N",
    help="The most characters of each session's digest.",
)
@click.option(
    "--pending-path",
    type=GivenPath(dir_okay=False, path_type=Path),
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
    session_id: str | None,
    transcript: Path | None,
    agent_database: Path | None,
    reason: str | None,
    clear: bool,
    done: str | None,
    max_characters: int,
    pending_path: Path | None,
    fmt: str,
) -> None:
    """Show the sessions that ended and are worth reflecting on, with the store's state.

    Agent hooks queue a marker when a session ends (OpenClaw's /new, /reset and daily
    or idle resets, Claude Code's SessionEnd and PreCompact), saying where the session's
    transcript is. For each, a digest quotes the moments worth reflecting on (the user
    correcting the agent, stated preferences, a failure then a different approach that
    worked), each with its message number and time, says which insights given at the
    session's start it touched, and lists ready commands. The transcript is read where
    it is; text that looks like a credential is masked. Then the agent contributes what
    it learned, reinforces what proved itself, and runs `chitin reflect --done
    SESSION` (or `--clear` for all).

    \b
    chitin reflect
    chitin reflect --queue --session-key agent:main:telegram:1 --reason new
    chitin reflect --done 5b7e2f0c-3d4a-4c1e-9f55-0d5f1a2b3c4d
    chitin reflect --clear --format json
    """
    if done is not None and (queue_it or clear):
        raise click.UsageError("--done cannot be combined with --queue or --clear", ctx)
    if queue_it:
        _check_queue_options(ctx, session_key, reason, clear, pending_path)
        assert session_key is not None and reason is not None
        if agent_database is not None and session_id is None:
            raise click.UsageError("--agent-database needs --session-id", ctx)
        where = Where(
            str(transcript.absolute()) if transcript else None,
            str(agent_database.absolute()) if agent_database else None,
        )
        _queue(ctx, session_key, reason, session_id, where, fmt)
        return
    given = (session_key, reason, session_id, transcript, agent_database)
    if any(value is not None for value in given):
        raise click.UsageError(
            "--session-key, --session-id, --transcript, --agent-database and --reason "
            "go with --queue",
            ctx,
        )
    legacy = pending_path or legacy_queue(os.environ)
    if done is not None:
        _done(ctx, done, legacy, fmt)
        return
    _show(ctx, legacy, clear, max_characters, fmt)


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


def _queue(
    ctx: click.Context,
    session_key: str,
    reason: str,
    session_id: str | None,
    where: Where,
    fmt: str,
) -> None:
    with opened(ctx, reading=False) as chitin:
        marker = chitin.queue_reflection(session_key, reason, session_id, where)
    if fmt == "json":
        emit_json(shapes.queued(marker))
    else:
        click.echo(
            f"✓ Queued a reflection on {_session(marker)} ({marker.reason}) — "
            f"{display_time(marker)}"
        )


def _session(marker: Marker) -> str:
    """The session key, and the ended session's id when the marker has one."""
    if marker.session_id is None:
        return marker.session_key
    return f"{marker.session_key}, session {marker.session_id}"


def _done(ctx: click.Context, session: str, legacy: Path | None, fmt: str) -> None:
    with opened(ctx, reading=False) as chitin:
        removed = chitin.reflection_done(session, legacy)
    if fmt == "json":
        emit_json(shapes.reflected(session.strip(), removed))
    else:
        click.echo(f"✓ Reflected on {session.strip()}: {removed} marker(s) removed")


def _show(ctx: click.Context, legacy: Path | None, clear: bool, characters: int, fmt: str) -> None:
    with opened(ctx) as chitin:
        found = chitin.pending_reflections(legacy, clear)
        stats = chitin.stats()
        digests = chitin.reflection_digests(found.markers, characters, shell=True, cleared=clear)
    for path, problem in found.problems:
        note(f"warning: ignored {path}: {problem}")
    if fmt == "json":  # a transcript's warning is the digest's "warning", as in MCP's
        counted = shapes.stats(stats.total, stats.by_type, stats.average_confidence, stats.archived)
        shaped = [digest_shape(d.marker, d.digest, d.warning, clear) for d in digests]
        emit_json(shapes.pending(found.markers, counted, found.cleared if clear else None, shaped))
        return
    lines = _pending_lines(found, stats.total, stats.average_confidence, clear)
    click.echo("\n".join(lines + _digest_lines(digests, characters, clear)))


def _digest_lines(digests: list[SessionDigest], characters: int, cleared: bool) -> list[str]:
    """Each digest of a session whose transcript is known; none for the others, whose
    markers say only that they ended. A cleared queue has nothing left to clear."""

    lines: list[str] = []
    chitin = "chitin"
    for made in digests:
        if made.digest is not None:
            shown = digest_lines(made.marker, made.digest, made.warning, characters, cleared)
            lines += ["", *shown]
            if made.warning and warning_line(made.warning) not in shown:  # cut to the size
                note(warning_line(made.warning).strip())
            chitin = made.digest.chitin
    if lines and not cleared:
        lines += ["", f"When every session is reflected on: {chitin} reflect --clear"]
    return lines


def _pending_lines(found: Pending, total: int, average: float, clear: bool) -> list[str]:
    if found.markers:
        lines = [f"{len(found.markers)} pending reflection(s):", ""]
        lines += [f"  • {_session(m)} ({m.reason}) — {display_time(m)}" for m in found.markers]
    else:
        lines = ["No pending reflections."]
    lines += ["", f"Current state: {total} insight(s), avg confidence {fixed(average, 2)}"]
    if clear and (found.cleared or found.problems):
        lines += ["", "✓ Cleared pending reflections."]
    return lines
