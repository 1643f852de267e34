"""Claude Code's hooks at run time: the personality its SessionStart hook injects, and
the reflection its SessionEnd and PreCompact hooks queue (``claude_code`` installs them)."""

from __future__ import annotations

from chitin.core import agent, claude_code, personality
from chitin.core.personality import Personality, characters
from chitin.core.retrieving import Query, Retrieving
from chitin.core.session import Session
from chitin.notices import notice


def session_start(retrieving: Retrieving, event: str, budget: int) -> Personality:
    """The personality for the session that ``event`` (the JSON text on the hook's
    stdin) describes, within ``budget`` tokens and, whole, within
    ``claude_code.CLAUDE_CONTEXT_LIMIT`` characters (under Claude Code's cap for a
    hook's context): the budget is lowered to fit. The insights it names are noted
    for the session's reflection."""
    details = claude_code.parse_hook_input(event)
    query = claude_code.coding_session_query(details)
    limit = claude_code.CLAUDE_CONTEXT_LIMIT
    asked = Query(query, budget=min(budget, limit // 4))
    now = retrieving.session.now()
    made = personality.render_personality(retrieving, asked, now=now, limit=limit)
    agent.note_session_start(retrieving.session, claude_code.session_key(details), list(made.ids))
    if characters(made.text) > limit:
        notice(
            f"the PERSONALITY.md template alone is {characters(made.text)} characters, "
            f"over the {limit} kept for Claude Code's context (it shows a preview of "
            f"more than {claude_code.CLAUDE_CONTEXT_CAP}); shorten the template"
        )
    return made


def queue_for_reflection(opened: Session, event: str) -> None:
    """Queue the session that ``event`` describes for reflection."""
    details = claude_code.parse_hook_input(event)
    agent.queue_reflection(
        opened,
        claude_code.session_key(details),
        claude_code.reflection_reason(details),
        opened.now(),
        where=claude_code.session_place(details),
    )
