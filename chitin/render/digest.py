"""A pending session's digest, for people (``chitin reflect``) and for programs
(``--format json``), each session within its size (issue 26)."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, NamedTuple

from chitin.model.moments import RECOVERY
from chitin.model.quoting import quote
from chitin.model.reflection import display_time

if TYPE_CHECKING:
    from chitin.model.digest import Digest, Touch
    from chitin.model.moments import Moment
    from chitin.model.reflection import Marker

INDENT = "    "
READY = f"{INDENT}Ready commands:"
# What a cut text counts as left out, by kind; OMITTED: the moments the digest itself
# left out, whose line a cut text folds into its count.
MOMENTS, INSIGHTS, COMMANDS, OMITTED = "moment", "insight", "command", "omitted"
_NAMES = {
    MOMENTS: "moment(s)",
    INSIGHTS: "insight(s) given at the start",
    COMMANDS: "ready command(s)",
}
SHORTEST = 40  # characters of a moment's quote cut to fit: fewer say too little
PLACE = 1_000  # characters of where a session's events are, as its marker says


# A part's lines cut to fit a room, and how many of its kind they leave out; None
# where they cannot be.
_Short = Callable[[int], "tuple[list[str], int] | None"]


class _Part(NamedTuple):
    """Some lines of a digest, and what leaving them out leaves out: ``many`` of
    ``kind`` ("" for framing, which is not counted); ``short``: the lines cut to fit a
    room (a moment: its quote cut; a list of ids: its first ids), or None where they
    cannot be (what followed is left out)."""

    lines: list[str]
    kind: str = ""
    many: int = 0
    short: _Short | None = None


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
    """One session's digest as text, at most ``characters`` long (what is left out is
    counted on a last line, and its `reflect --done` command still closes the block);
    ``cleared``: its marker is gone already, so no `reflect --done` for it."""
    heading = f"── {session_name(marker)} ({marker.reason}) — {display_time(marker)}"
    if digest is None:
        return [heading, f"{INDENT}(the marker does not say where the session is: no digest)"]
    where = quote(marker.transcript or marker.agent_database or "", PLACE)  # as written
    read = f" ({_read_part(digest)})"
    named = [f"{INDENT}read from {PurePath(where).name}{read}"]
    parts = [_Part([f"{INDENT}read from {where}{read}"], short=lambda _: (named, 0))]
    if warning:
        parts.append(_Part([warning_line(warning)]))
    parts += _moment_parts(digest)
    parts += _touch_parts(digest.touches)
    commands = _commands(marker, digest, cleared)
    done = None if cleared else f"{INDENT}  {commands.pop()}"
    if commands:
        parts.append(_Part([READY]))
    parts += [_Part([f"{INDENT}  {command}"], COMMANDS, 1) for command in commands]
    return _within(heading, parts, done, characters)


def warning_line(warning: str) -> str:
    """What could not be read of the session, as its digest says it: once, here (the
    reflecting agent reads the digest), on stderr only when the digest left it out."""
    return f"{INDENT}warning: {quote(warning, PLACE + 200)}"


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


def _moment_parts(digest: Digest) -> list[_Part]:
    if not digest.moments and not digest.omitted:
        return [_Part([f"{INDENT}No corrections, stated preferences or recoveries found."])]
    header = [f"{INDENT}Moments:"]
    parts = []
    for moment in digest.moments:
        parts.append(_moment_part(moment, header))
        header = []
    if digest.omitted:
        said = f"{INDENT}({digest.omitted} more moment(s) left out to keep the size)"
        parts.append(_Part([*header, said], OMITTED, digest.omitted))
    return parts


def _moment_part(moment: Moment, header: list[str]) -> _Part:
    when = f", {moment.time}" if moment.time else ""
    head = f"{INDENT}• {moment.kind}, message {moment.number}{when}: "
    lines = [*header, head + _said(moment.quote)]
    if moment.then:
        verb = "worked" if moment.kind == RECOVERY else "then"
        lines.append(f"{INDENT}    {verb} (message {moment.then_number}): {_said(moment.then)}")

    def short(room: int) -> tuple[list[str], int] | None:
        left = room - _length([*header, head]) - 2  # the quote marks
        if left < SHORTEST:
            return None
        return [*header, head + _said(quote(moment.quote, left))], 0

    return _Part(lines, MOMENTS, 1, short)


def _touch_parts(touches: list[Touch]) -> list[_Part]:
    """The touched insights with their claim and where; the others by id, one line for
    each kind."""
    header = [f"{INDENT}Insights given at the start:"]
    parts = []
    for touch in touches:
        if touch.claim is not None and touch.numbers:
            where = ", ".join(str(n) for n in touch.numbers)
            claim = _said(touch.claim[:160])
            done = (
                f"; reinforced at message {_numbers(touch.reinforced)}" if touch.reinforced else ""
            )
            line = f"{INDENT}• {touch.id} {claim}: touched at message(s) {where}{done}"
            parts.append(_Part([*header, line, f"{INDENT}    {_said(touch.quote)}"], INSIGHTS, 1))
            header = []
    known = [t for t in touches if t.claim is not None and not t.numbers]
    rest = (
        (
            "reinforced in the session",
            [f"{t.id} (message {_numbers(t.reinforced)})" for t in known if t.reinforced],
        ),
        ("not touched", [t.id for t in known if not t.reinforced]),
        ("no longer in the store", [t.id for t in touches if t.claim is None]),
    )
    for said, ids in rest:
        if ids:
            line = f"{INDENT}• {said}: {', '.join(ids)}"
            parts.append(_Part([*header, line], INSIGHTS, len(ids), _first_ids(header, said, ids)))
            header = []
    return parts


def _first_ids(header: list[str], said: str, ids: list[str]) -> _Short:
    """The line of ``ids`` cut to ``room``: the first ids and "+N more" (N counted as
    left out), rather than the whole line dropped and the room it was given wasted."""

    def short(room: int) -> tuple[list[str], int] | None:
        for shown in range(len(ids) - 1, 0, -1):
            more = len(ids) - shown
            line = f"{INDENT}• {said}: {', '.join(ids[:shown])} +{more} more"
            if _length([*header, line]) <= room:
                return [*header, line], more
        return None

    return short


def _numbers(numbers: tuple[int, ...]) -> str:
    return ", ".join(str(n) for n in numbers)


def _said(text: str) -> str:
    return "“" + text + "”"


def _quoted(text: str) -> str:
    return shlex.quote(text)


def _within(heading: str, parts: list[_Part], done: str | None, characters: int) -> list[str]:
    """The block within ``characters``: the parts in order while they fit (a moment's
    quote cut to fit rather than none shown), a line counting the moments, insights and
    commands left out (the JSON lists them all), then the command that finishes the
    session (``done``), under its heading. The heading and that command are kept whole
    even when they alone are longer (a session's name may be 1,000 characters): the
    line then says so, and the block is longer than asked rather than without them."""
    has_ready = any(part.lines == [READY] for part in parts)
    whole = [heading, *(line for part in parts for line in part.lines)]
    whole += [] if done is None else [done] if has_ready else [READY, done]
    if _length(whole) <= characters:
        return whole
    everything = _count(parts)
    room = characters - _length([heading, _left_out(characters, everything, done, False)])
    room -= _length([READY, done] if done is not None else [])
    kept, dropped = _layout(parts, room)
    named = parts[0].short(0) if parts[0].short is not None else None
    if named is not None and any(part.kind == MOMENTS for part in dropped):
        # a moment before the path of the file read: the file's name will do
        kept, dropped = _layout([parts[0]._replace(lines=named[0]), *parts[1:]], room)
    tail = [] if done is None else [done] if READY in kept else [READY, done]
    said = _left_out(characters, _count(dropped), done, over=False)
    if _length([heading, *kept, said, *tail]) > characters:
        said = _left_out(characters, _count(dropped), done, over=True)
    return [heading, *kept, said, *tail]


def _layout(parts: list[_Part], room: int) -> tuple[list[str], list[_Part]]:
    """The lines of ``parts`` that fit in ``room``, in order (a part cut to fit where it
    can be), and the parts left out: each after the first that did not fit."""
    kept: list[str] = []
    dropped: list[_Part] = []
    cut: list[_Part] = []  # what a part cut to fit leaves out of its kind
    for part in parts:
        fits = part.kind != OMITTED and not any(d.kind != OMITTED for d in dropped)
        shortened = (part.lines, 0) if fits else None
        if shortened is not None and _length(kept) + _length(part.lines) > room:
            shortened = part.short(room - _length(kept)) if part.short else None
        if shortened is None:
            dropped.append(part)
        else:
            kept += shortened[0]
            cut += [part._replace(many=shortened[1])] if shortened[1] else []
    return kept, dropped + cut


def _count(dropped: list[_Part]) -> dict[str, int]:
    """How many of each kind ``dropped`` leaves out, the digest's own omitted moments
    among them."""
    left = dict.fromkeys(_NAMES, 0)
    for part in dropped:
        if part.kind:
            left[MOMENTS if part.kind == OMITTED else part.kind] += part.many
    return left


def _left_out(characters: int, left: dict[str, int], done: str | None, over: bool) -> str:
    said = ", ".join(f"{n} {_NAMES[kind]}" for kind, n in left.items() if n)
    line = (
        f"left out to keep {characters} characters: {said}"
        if said
        else f"the rest left out to keep {characters} characters"
    )
    if over:
        promised = "heading and the reflect --done command" if done else "heading"
        line += (
            f"; {characters} characters cannot hold more than the {promised} of a session so named"
        )
    return f"{INDENT}({line})"


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
