"""Claude Code's hooks at run time: the personality its SessionStart hook injects, and
the reflection its SessionEnd and PreCompact hooks queue (``claude_code`` installs them).
Each is handed the opened store (a ``chitin.Chitin``) and asks it through its public
methods, so the facade keeps no host's use case of its own."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from chitin.core import claude_code
from chitin.core.personality import Personality, characters
from chitin.core.retrieving import Query
from chitin.errors import ValidationError
from chitin.model import arguments
from chitin.model.bounds import MAX_BUDGET
from chitin.notices import notice

if TYPE_CHECKING:
    from chitin.model.reflection import Marker, Where


class Host(Protocol):
    """What the hooks ask of the opened store; ``chitin.Chitin`` is one."""

    def render(self, query: Query | str = "", *, limit: int | None = None) -> Personality: ...

    def note_session_start(self, session: str, injected: list[str]) -> None: ...

    def queue_reflection(
        self,
        session_key: str,
        reason: str,
        session_id: str | None = None,
        where: Where | None = None,
    ) -> Marker: ...


def claude_code_session_start(chitin: Host, event: str, budget: int) -> Personality:
    """The personality for the session that ``event`` (the JSON text on the hook's
    stdin) describes, within ``budget`` tokens and, whole, within
    ``claude_code.CLAUDE_CONTEXT_LIMIT`` characters (under Claude Code's cap for a
    hook's context): the budget is lowered to fit. The insights it names are noted
    for the session's reflection."""
    _check_host(chitin, event)
    arguments.count("budget", budget, MAX_BUDGET)  # a text failed min() as a TypeError
    details = claude_code.parse_hook_input(event)
    query = claude_code.coding_session_query(details)
    limit = claude_code.CLAUDE_CONTEXT_LIMIT
    made = chitin.render(Query(query, budget=min(budget, limit // 4)), limit=limit)
    try:
        chitin.note_session_start(claude_code.session_key(details), list(made.ids))
    except ValidationError as refused:  # a name the queue refuses: the start goes on
        notice(f"{refused}; this session's start is not noted for its reflection")
    if characters(made.text) > limit:
        notice(
            f"the PERSONALITY.md template alone is {characters(made.text)} characters, "
            f"over the {limit} kept for Claude Code's context (it shows a preview of "
            f"more than {claude_code.CLAUDE_CONTEXT_CAP}); shorten the template"
        )
    return made


def claude_code_reflect(chitin: Host, event: str) -> None:
    """Claude Code's SessionEnd and PreCompact hooks: queue the session that ``event``
    describes for reflection. An event that names no transcript (empty, not JSON, no
    ``transcript_path``, a relative one without an absolute ``cwd``) is refused: its
    marker gave the digest nothing to read, and ten of them pushed every real marker
    out of the queue."""
    _check_host(chitin, event)
    details = claude_code.parse_hook_input(event)
    where = claude_code.session_place(details)
    if where.transcript is None:
        raise ValidationError("event", claude_code.unplaced(details))
    chitin.queue_reflection(
        claude_code.session_key(details), claude_code.reflection_reason(details), where=where
    )


def _check_host(chitin: object, event: object) -> None:
    """The arguments of a host's call, as a library caller must give them: anything
    else failed deep inside as an AttributeError ('NoneType' object has no 'strip')."""
    if not all(callable(getattr(chitin, name, None)) for name in HOST_CALLS):
        raise ValidationError(
            "chitin", f"chitin must be an opened store (a chitin.Chitin), got {chitin!r:.60}"
        )
    if not isinstance(event, str | bytes):
        raise ValidationError(
            "event", f"event must be the hook's JSON text (str or bytes), got {event!r:.60}"
        )


HOST_CALLS = ("render", "note_session_start", "queue_reflection")  # what Host asks of it
