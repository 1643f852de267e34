"""A pending session's digest, for people (``chitin reflect``) and for programs
(``--format json``), each session within its size (issue 26)."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Any

from chitin.model.moments import RECOVERY
from chitin.model.reflection import display_time

if TYPE_CHECKING:
    from chitin.model.digest import Digest, Touch
    from chitin.model.moments import Moment
    from chitin.model.reflection import Marker

INDENT = "    "
READY = f"{INDENT}Ready commands:"


def session_name(marker: Marker) -> str:
    """What ``reflect --done`` takes for the session: its id, else its key."""
    return marker.session_id or marker.session_key


def digest_lines(
    marker: Marker,
    digest: Digest | None,
    warning: str | None,
    characters: int,
    cleared: bool = False,
) -> list[str]:
    """One session's digest as text, at most ``characters`` long (lines past the limit
    are left out, and a last line says so); ``cleared``: its marker is gone already, so
    no `reflect --done` for it."""
    lines = [f"── {session_name(marker)} ({marker.reason}) — {display_time(marker)}"]
    where = marker.transcript or marker.agent_database or ""
    if digest is None:
        return [*lines, f"{INDENT}(the marker does not say where the session is: no digest)"]
    lines.append(f"{INDENT}read from {where} ({_read_part(digest)})")
    if warning:
        lines.append(f"{INDENT}warning: {warning}")
    lines += _moment_lines(digest)
    lines += _touch_lines(digest.touches)
    commands = _commands(marker, digest, cleared)
    if not commands:
        return _within(lines, characters, None)
    lines += [READY, *(f"{INDENT}  {command}" for command in commands)]
    return _within(lines, characters, lines[-1])


def _read_part(digest: Digest) -> str:
    if not digest.since:
        return f"{digest.messages} message(s)"
    if digest.since >= digest.messages:
        return f"{digest.messages} message(s), all reflected on before: nothing new"
    return f"messages {digest.since + 1}–{digest.messages}; 1–{digest.since} reflected on before"


def _commands(marker: Marker, digest: Digest, cleared: bool) -> list[str]:
    """The ready commands: the digest's, then the one that removes the session's
    marker once reflected on (none when the queue was cleared: it would fail)."""
    done = f"{digest.chitin} reflect --done {_quoted(session_name(marker))}"
    return [*digest.commands] if cleared else [*digest.commands, done]


def _moment_lines(digest: Digest) -> list[str]:
    if not digest.moments and not digest.omitted:
        return [f"{INDENT}No corrections, stated preferences or recoveries found."]
    lines = [f"{INDENT}Moments:"]
    for moment in digest.moments:
        lines += _moment(moment)
    if digest.omitted:
        lines.append(f"{INDENT}({digest.omitted} more moment(s) left out to keep the size)")
    return lines


def _moment(moment: Moment) -> list[str]:
    when = f", {moment.time}" if moment.time else ""
    head = f"{INDENT}• {moment.kind}, message {moment.number}{when}: {_said(moment.quote)}"
    if not moment.then:
        return [head]
    verb = "worked" if moment.kind == RECOVERY else "then"
    return [head, f"{INDENT}    {verb} (message {moment.then_number}): {_said(moment.then)}"]


def _touch_lines(touches: list[Touch]) -> list[str]:
    """The touched insights with their claim and where; the others by id, on one line."""
    if not touches:
        return []
    lines = [f"{INDENT}Insights given at the start:"]
    for touch in touches:
        if touch.claim is not None and touch.numbers:
            where = ", ".join(str(n) for n in touch.numbers)
            claim = _said(touch.claim[:160])
            done = (
                f"; reinforced at message {_numbers(touch.reinforced)}" if touch.reinforced else ""
            )
            lines.append(f"{INDENT}• {touch.id} {claim}: touched at message(s) {where}{done}")
            lines.append(f"{INDENT}    {_said(touch.quote)}")
    known = [t for t in touches if t.claim is not None and not t.numbers]
    done_only = [f"{t.id} (message {_numbers(t.reinforced)})" for t in known if t.reinforced]
    untouched = [t.id for t in known if not t.reinforced]
    gone = [t.id for t in touches if t.claim is None]
    if done_only:
        lines.append(f"{INDENT}• reinforced in the session: {', '.join(done_only)}")
    if untouched:
        lines.append(f"{INDENT}• not touched: {', '.join(untouched)}")
    if gone:
        lines.append(f"{INDENT}• no longer in the store: {', '.join(gone)}")
    return lines


def _numbers(numbers: tuple[int, ...]) -> str:
    return ", ".join(str(n) for n in numbers)


def _said(text: str) -> str:
    return "“" + text + "”"


def _quoted(text: str) -> str:
    return shlex.quote(text)


def _within(lines: list[str], characters: int, done: str | None) -> list[str]:
    """``lines`` within ``characters``: cut short, a line says so, and the command that
    finishes the session (``done``) still closes the block, under its heading (the
    JSON's commands keep it too). The heading and that command are kept whole even
    when they alone are longer (a session's name may be 1,000 characters): the line
    then says so, and the block is longer than asked rather than without them."""
    room = characters - 80  # the line that says what was left out
    if _length(lines) <= room:
        return lines
    tail = [READY, done] if done else []
    room -= _length(tail)
    kept = lines[:1]
    for line in lines[1:]:
        if _length(kept) + len(line) + 1 > room:
            break
        kept.append(line)
    if READY in kept:
        tail = tail[1:]
    said = f"the rest left out to keep {characters} characters"
    if _length(kept) > room:
        promised = "heading and the reflect --done command" if done else "heading"
        said = (
            f"the rest left out: {characters} characters cannot hold more than the "
            f"{promised} of a session so named"
        )
    return [*kept, f"{INDENT}({said})", *tail]


def _length(lines: list[str]) -> int:
    return sum(len(line) + 1 for line in lines)


def digest_shape(
    marker: Marker, digest: Digest | None, warning: str | None, cleared: bool = False
) -> dict[str, Any]:
    """reflect --format json: one session's digest (``cleared``: as digest_lines)."""
    data: dict[str, Any] = {"session": session_name(marker), "sessionKey": marker.session_key}
    data["source"] = marker.transcript or marker.agent_database
    if digest is None:
        return {**data, "digest": None}
    return {
        **data,
        "messages": digest.messages,
        "reflectedBefore": digest.since,
        "warning": warning,
        "moments": [_moment_shape(m) for m in digest.moments],
        "omitted": digest.omitted,
        "insights": [_touch_shape(t) for t in digest.touches],
        "commands": _commands(marker, digest, cleared),
    }


def _moment_shape(moment: Moment) -> dict[str, Any]:
    return {
        "kind": moment.kind,
        "message": moment.number,
        "time": moment.time,
        "quote": moment.quote,
        "then": moment.then or None,
        "thenMessage": moment.then_number,
    }


def _touch_shape(touch: Touch) -> dict[str, Any]:
    return {
        "id": touch.id,
        "claim": touch.claim,
        "touched": bool(touch.numbers),
        "messages": list(touch.numbers),
        "quote": touch.quote or None,
        "reinforcedAt": list(touch.reinforced),
    }
