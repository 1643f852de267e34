"""Reflection markers: a note that a session ended, so the agent reflects on it later.

A queue file is a JSON array of ``{"sessionKey", "timestamp", "reason"}`` objects,
newest last, the last ``MAX_PENDING`` kept (chitin 1.4.5's pending-reflection.json,
reference §6.1). A marker may also hold ``"sessionId"``: the id of the session that
ended, where the host gives one apart from the chat's key (OpenClaw's
``previousSessionEntry.sessionId``); a marker without it (all of 1.4.5's) reads as
before. Issue 26 adds where the session's events are, for the digest: ``"transcript"``
(a JSONL file: Claude Code's ``transcript_path``, an OpenClaw session file) or
``"agentDatabase"`` (OpenClaw's agent SQLite database, read by ``sessionId``), and
``"injected"``, the ids of the insights put into that session's start. Everything
here is pure: parsing, validation and serialization.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

from chitin.errors import ValidationError
from chitin.location import home_folder
from chitin.model.bounds import MAX_SESSION_NAME
from chitin.model.quoting import quote
from chitin.model.search_text import well_formed
from chitin.model.secret_rules import RANDOM_TOKEN

# new and reset come from OpenClaw's /new and /reset (as in the original), daily and
# idle from its automatic resets (session:auto-reset); compact and end from Claude
# Code's PreCompact and SessionEnd hooks.
REASONS: tuple[str, ...] = ("new", "reset", "daily", "idle", "compact", "end")
# Where chitin 1.4.5 queued reflections, below the home folder: read (and cleared) too.
LEGACY_QUEUE = ".config/chitin/pending-reflection.json"


def legacy_queue(env: Mapping[str, str]) -> Path | None:
    """chitin 1.4.5's queue in the home folder; with no home, none: Path.home() made
    an empty HOME "/", so /.config/chitin/pending-reflection.json was read and cleared
    (a ready `reflect --done` runs in the agent's shell, which may have no HOME)."""
    home = home_folder(env)
    return None if home is None else home / LEGACY_QUEUE


MAX_PENDING = 10
UNKNOWN = "unknown"
# Characters of a marker's reason or time as a queue file holds them (an ISO 8601
# time is 24): what is longer is cut when read.
SHORT_FIELD = 64


class Marker(NamedTuple):
    session_key: str
    timestamp: str | None  # as written (ISO 8601, ms, Z); None when the file had none
    reason: str
    session_id: str | None = None  # the session that ended, when the key names a chat
    transcript: str | None = None  # the session's events as JSON lines (a file's path)
    agent_database: str | None = None  # OpenClaw's agent database holding them instead
    injected: tuple[str, ...] = ()  # ids of the insights given at the session's start


class Where(NamedTuple):
    """Where a session's events are, as a hook was told (all optional)."""

    transcript: str | None = None
    agent_database: str | None = None
    injected: tuple[str, ...] = ()


class Parsed(NamedTuple):
    """A queue file's markers, or why the file cannot be used (then no markers)."""

    markers: list[Marker]
    problem: str | None = None


NOWHERE = Where()


def check_reason(reason: str) -> str:
    if reason not in REASONS:
        raise ValidationError(
            "reason", f"reason must be one of: {', '.join(REASONS)}; got {reason!r}"
        )
    return reason


def check_session_key(key: str) -> str:
    cleaned = key.strip()
    if not cleaned:
        raise ValidationError("sessionKey", "the session key cannot be empty")
    return cleaned


def marker_timestamp(moment: datetime) -> str:
    """ISO 8601 in UTC with milliseconds and Z, as JavaScript's toISOString writes it."""
    utc = moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def new_marker(
    session_key: str,
    reason: str,
    now: datetime,
    session_id: str | None = None,
    where: Where = NOWHERE,
) -> Marker:
    ended = None
    if session_id is not None:
        ended = session_id.strip()
        if not ended:
            raise ValidationError("sessionId", "the session id cannot be empty")
    return Marker(
        check_session_key(session_key),
        marker_timestamp(now),
        check_reason(reason),
        ended,
        _path(where.transcript, "transcript"),
        _path(where.agent_database, "agentDatabase"),
        tuple(dict.fromkeys(i.strip() for i in where.injected if i.strip())),
    )


def _path(value: str | None, name: str) -> str | None:
    if value is None:
        return None
    cleaned = value.strip()
    if not cleaned or "\0" in cleaned:
        raise ValidationError(name, f"the {name} path must be a non-empty path")
    try:  # a byte that is not UTF-8 (\udcff): the queue's JSON could not be written
        cleaned.encode("utf-8")
    except UnicodeEncodeError as error:
        shown = cleaned.encode("utf-8", "backslashreplace").decode()
        raise ValidationError(
            name,
            f"the {name} path {shown} is not valid UTF-8 (at character {error.start + 1}); "
            "name a file whose path is",
        ) from None
    return cleaned


def parse_queue(text: str) -> Parsed:
    """The markers in a queue file's text. A file that is not a JSON array of objects
    is reported, never guessed at: its problem is returned and no marker is."""
    if not text.strip():
        return Parsed([])  # an empty file is an empty queue
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        return Parsed([], f"not valid JSON ({error.msg} at line {error.lineno})")
    except RecursionError:  # json's decoder recurses once per [ or {
        return Parsed([], "not valid JSON (nested too deeply to read)")
    if not isinstance(data, list):
        return Parsed([], f"not a JSON array of markers (found {_json_kind(data)})")
    for position, item in enumerate(data, 1):
        if not isinstance(item, dict):
            return Parsed([], f"marker {position} is not an object (found {_json_kind(item)})")
    return Parsed([_marker_from(item) for item in data])


def marker_name(text: str) -> str:
    """A session's key or id, or an insight's id, as a marker read from a file holds
    it: quoted as a digest quotes a transcript (``quote``), since a file edited by hand,
    or chitin 1.4.5's (whose hook wrote any key it was given), may hold an escape
    sequence or a credential, and the name is printed in the pending list, each
    digest's heading and commands, and the MCP prompt. A random-looking run is kept (a
    host may name its sessions so), and the bound is the one ``--queue`` enforces, so
    the names chitin queues itself read back unchanged."""
    return quote(text, MAX_SESSION_NAME, (RANDOM_TOKEN,))


def _marker_from(raw: dict[str, Any]) -> Marker:
    """Lenient about the fields of an object: what is missing reads as unknown. Half a
    UTF-16 pair (a JSON escape 1.4.5's hook may have written) reads as U+FFFD: no
    output, nor the queue's next write, could encode it. Every field that is shown is
    read as a digest's quotes are (``marker_name``); the paths are read as written
    (a digest shows them quoted)."""
    item = {name: _whole(value) for name, value in raw.items()}
    key, stamp, reason = item.get("sessionKey"), item.get("timestamp"), item.get("reason")
    ended = item.get("sessionId")
    injected = item.get("injected")
    return Marker(
        UNKNOWN if key is None else marker_name(str(key)),
        quote(stamp, SHORT_FIELD) if isinstance(stamp, str) else None,
        UNKNOWN if reason is None else quote(str(reason), SHORT_FIELD),
        marker_name(str(ended)) if isinstance(ended, (str, int)) and str(ended).strip() else None,
        _text(item.get("transcript")),
        _text(item.get("agentDatabase")),
        tuple(n for i in injected if isinstance(i, str) and (n := marker_name(i)))
        if isinstance(injected, list)
        else (),
    )


def _whole(value: Any) -> Any:
    if isinstance(value, str):
        return well_formed(value)
    return [_whole(item) for item in value] if isinstance(value, list) else value


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _json_kind(value: object) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    return names.get(type(value), "a number")


def appended(markers: list[Marker], marker: Marker) -> list[Marker]:
    """The queue with ``marker`` added last, keeping the newest MAX_PENDING."""
    return [*markers, marker][-MAX_PENDING:]


def to_json(marker: Marker) -> dict[str, Any]:
    """1.4.5's three fields; ``sessionId``, ``transcript``, ``agentDatabase`` and
    ``injected`` after them, each only when the marker has it."""
    data: dict[str, Any] = {
        "sessionKey": marker.session_key,
        "timestamp": marker.timestamp,
        "reason": marker.reason,
    }
    if marker.session_id is not None:
        data["sessionId"] = marker.session_id
    if marker.transcript is not None:
        data["transcript"] = marker.transcript
    if marker.agent_database is not None:
        data["agentDatabase"] = marker.agent_database
    if marker.injected:
        data["injected"] = list(marker.injected)
    return data


def serialize(markers: Iterable[Marker]) -> str:
    """Pretty JSON (2 spaces) with a final newline, as the original wrote the file."""
    return json.dumps([to_json(m) for m in markers], indent=2, ensure_ascii=False) + "\n"


def parse_time(marker: Marker) -> datetime | None:
    if marker.timestamp is None:
        return None
    try:
        moment = datetime.fromisoformat(marker.timestamp.strip())
    except ValueError:
        return None
    return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)


def display_time(marker: Marker) -> str:
    """ISO 8601 UTC to the second; an unreadable time is shown as written."""
    moment = parse_time(marker)
    if moment is None:
        return marker.timestamp or UNKNOWN
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def oldest_first(*queues: list[Marker]) -> list[Marker]:
    """Markers of several queues in one list, oldest first; markers without a readable
    time count as oldest, and ties keep their order."""
    earliest = datetime.min.replace(tzinfo=UTC)
    merged = [marker for queue in queues for marker in queue]
    return sorted(merged, key=lambda marker: parse_time(marker) or earliest)
