"""What `chitin hooks run claude-code EVENT` does: read the host's event on stdin, then
start the session with the insights or queue its reflection.

Without click, so that the session start's parser (cli/lean.py) runs the very code the
click command in cli/agent.py runs.
"""

from __future__ import annotations

from chitin.cli.context import Settings, opened_at
from chitin.cli.output import emit_json, note, standard_input
from chitin.render import shapes

PERSONALITY_BUDGET = 5000  # tokens, as the original hook asked for


def run_hook(settings: Settings, host: str, event: str) -> None:
    """Run a HOST hook for EVENT. It always ends well: on any failure it prints nothing
    on stdout and one line on stderr, so a broken store never blocks the agent."""
    try:
        stdin = "" if standard_input().isatty() else _read_stdin()
        _run_claude_code(settings, event, stdin)
    except Exception as error:  # a hook must never break its host; say why, once
        from chitin.render.failures import describe

        if settings.debug:
            import traceback

            traceback.print_exc()
        note(f"chitin: the {event} hook did nothing: {describe(error)[0]}")


def _read_stdin() -> str:
    """The event text; bytes that are not UTF-8 read as U+FFFD, so that a garbled
    event still starts the session with the insights (as any unreadable event does)."""
    given = standard_input()
    raw = getattr(given, "buffer", None)
    if raw is None:
        return given.read()
    data: bytes = raw.read()
    return data.decode("utf-8", "replace")


def _run_claude_code(settings: Settings, event: str, stdin: str) -> None:
    from chitin import claude_code_reflect, claude_code_session_start

    if event == "reflect":
        with opened_at(settings, reading=False) as chitin:
            claude_code_reflect(chitin, stdin)
        return
    with opened_at(settings, reading=False) as chitin:
        made = claude_code_session_start(chitin, stdin, PERSONALITY_BUDGET)
    if made.found.degraded:
        note(f"chitin: {made.found.degraded}")
    emit_json(shapes.session_start(made.text))
