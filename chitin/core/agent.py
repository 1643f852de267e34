"""The reflection queue: sessions that ended and are worth reflecting on.

The queue lives in the store, at ``.chitin/reflections.json``; chitin 1.4.5's
``pending-reflection.json`` (the *legacy* file) is read too, and cleared with ours, so
markers an old hook wrote are not lost.
"""

from __future__ import annotations

import contextlib
import json
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from chitin.core.reading import Reading
from chitin.core.session import Session
from chitin.errors import ChitinError, NotFoundError, StoreError, ValidationError
from chitin.model import arguments
from chitin.model.bounds import MAX_SESSION_NAME
from chitin.model.digest import MIN_CHARACTERS, Digest, make_digest
from chitin.model.reflection import (
    NOWHERE,
    Marker,
    Where,
    appended,
    marker_name,
    new_marker,
    oldest_first,
)
from chitin.model.secret_rules import RANDOM_TOKEN
from chitin.model.secrets import article, find_secrets
from chitin.store.reflections import (
    QueueFile,
    queue_lock,
    queue_path,
    read_places,
    read_queue,
    read_session_note,
    write_places,
    write_queue,
    write_session_note,
)
from chitin.store.transcripts import Read, read_agent_database, read_transcript


@dataclass
class Pending:
    """The markers of every queue, oldest first, and the files that had to be ignored."""

    markers: list[Marker]
    problems: list[tuple[Path, str]] = field(default_factory=list)
    cleared: int = 0  # markers removed, when clearing


def pending(opened: Session, legacy: Path | None, clear: bool = False) -> Pending:
    """What is waiting for reflection; with ``clear``, also empty the queues.

    Clearing holds the queue's lock from reading to writing, so a marker a hook queues
    meanwhile is either shown and cleared, or kept: never cleared unseen.
    """
    legacy = arguments.path("legacy", legacy)
    clear = arguments.flag("clear", clear)  # a text ("no") would read as true, and clear
    if opened.missing:  # a read must not create the store; only the legacy file is left
        return _collect([], legacy, clear)
    if not clear:  # queue files are replaced atomically: reading needs no lock
        return _collect([read_queue(queue_path(opened.root))], legacy, clear)
    with queue_lock(opened.root):
        own = read_queue(queue_path(opened.root))
        if clear:
            _empty(own)
        return _collect([own], legacy, clear)


def _collect(queues: list[QueueFile], legacy: Path | None, clear: bool) -> Pending:
    if legacy is not None:
        old = read_queue(legacy)
        if clear:
            _empty(old)
        queues.append(old)
    return Pending(
        oldest_first(*(queue.markers for queue in queues)),
        [(queue.path, queue.problem) for queue in queues if queue.problem],
        sum(len(queue.markers) for queue in queues) if clear else 0,
    )


def _empty(queue: QueueFile) -> None:
    """Write an empty queue over one with markers, or over an unusable one (clearing is
    how the user discards a file they were warned about); leave others untouched."""
    if not queue.markers and not (queue.problem and queue.exists):
        return
    try:
        write_queue(queue.path, [])
    except OSError as error:
        raise StoreError(f"cannot clear {queue.path}: {error.strerror or error}") from None


def queue_reflection(
    opened: Session,
    session_key: str,
    reason: str,
    now: datetime,
    session_id: str | None = None,
    where: Where | None = None,
) -> Marker:
    """Add a marker to the store's queue, keeping the newest ten.

    ``session_id`` names the session that ended where ``session_key`` names the chat;
    ``where`` says where its events are and what it was given at its start.

    Under the queue's own lock (not the store's, which a long sync holds), so two
    hooks firing at once both land, in milliseconds whatever a writer is doing. An
    unusable queue file is left as it is rather than replaced: it may hold markers
    worth reading.
    """
    arguments.text("sessionKey", session_key)  # text first: the checks below read it
    _check_session_name("sessionKey", "session key", session_key)
    if session_id is not None:
        arguments.text("sessionId", session_id)
        _check_session_name("sessionId", "session id", session_id)
    if where is not None and not isinstance(where, Where):
        raise ValidationError("where", f"where must be a Where or None, got {where!r:.80}")
    where = where or NOWHERE
    for name, place in (("transcript", where.transcript), ("agentDatabase", where.agent_database)):
        if place is not None:
            arguments.text(name, place)
    where = where._replace(injected=arguments.texts("injected", where.injected))  # not 'a', 'b'
    if not where.injected and opened.root.is_dir():
        noted = read_session_note(opened.root, session_id or session_key)
        if not noted and session_id:  # OpenClaw notes a bootstrap by the chat's key
            noted = read_session_note(opened.root, session_key)
        where = where._replace(injected=tuple(noted))
    marker = new_marker(session_key, reason, now, session_id, where)
    if opened.missing:
        raise StoreError(f"no store at {opened.root}; run `chitin init` first")
    path = queue_path(opened.root)
    with queue_lock(opened.root):
        current = read_queue(path)
        if current.problem:
            raise StoreError(
                f"{path}: {current.problem}; it was left as it is. Fix it, or empty it "
                "with `chitin reflect --clear`"
            )
        try:
            write_queue(path, appended(current.markers, marker))
        except OSError as error:
            raise StoreError(f"cannot write {path}: {error.strerror or error}") from None
    return marker


def _check_session_name(field: str, name: str, value: str) -> None:
    """Refuse a session key or id that no host sends: it is printed in every digest and
    ready command, so a line break would split them, and a credential would be shown."""
    problem = None
    if len(value) > MAX_SESSION_NAME:
        problem = f"is {len(value):,} characters long (at most {MAX_SESSION_NAME:,})"
    elif any(unicodedata.category(ch) == "Cs" for ch in value):
        # A byte that is not UTF-8 (\udcff for \xff): the queue's JSON could not be
        # written, and the write failed as an internal error.
        problem = "is not valid UTF-8"
    elif any(unicodedata.category(ch) in ("Cc", "Cf") for ch in value):
        problem = "holds a control or invisible character (a line break, a zero-width space …)"
    elif found := [s for s in find_secrets(value) if s.kind != RANDOM_TOKEN]:
        problem = f"looks like it holds {article(found[0].kind)} {found[0].kind}"
    if problem is not None:
        raise ValidationError(
            field,
            f"the {name} {problem}; it names the session in every digest and ready command, "
            f"so it must be one line of 1 to {MAX_SESSION_NAME:,} characters, no credentials",
        )


def note_session_start(opened: Session, session: str, injected: list[str] | None) -> None:
    """Note what a session was given at its start, for its marker when it ends. Only
    in a store that exists, and never at the cost of the session's start (a write that
    fails is let go); a session name the queue would refuse is refused first."""
    arguments.text("session", session)  # a number raised AttributeError (no 'strip')
    # The rule of queue_reflection, which this session's marker must pass: a key it
    # would refuse (not UTF-8, a line break) is refused here too, not noted for nothing.
    _check_session_name("session", "session", session)
    if injected is None:  # the name checked before the work it notes (render --output)
        return
    injected = list(arguments.texts("injected", injected))  # ids, written as given
    if opened.missing or not session.strip() or session == "unknown":
        return
    with contextlib.suppress(OSError):
        write_session_note(opened.root, session.strip(), injected)


# ------------------------------------------------------------------ digests


@dataclass
class SessionDigest:
    """One pending session's digest; ``digest`` is None when its marker does not say
    where the session's events are (chitin 1.x's markers, OpenClaw without either)."""

    marker: Marker
    digest: Digest | None
    warning: str | None = None


def digests(
    reading: Reading,
    markers: list[Marker],
    characters: int,
    chitin: str = "chitin",
    reflected: bool = False,
) -> list[SessionDigest]:
    """A digest of each session whose events can be found, read where they are; its
    commands start with ``chitin``. Markers that name the same events (a session
    compacted, then ended: Claude Code's transcript keeps the lines before a
    compaction) get one digest, the newest marker's, with every insight they name.

    Incremental: a session reflected on before (``done``) is digested from the message
    after the last one its digest showed then, since a compacted session goes on in
    the same transcript. How far each digest reads is noted as shown (with
    ``reflected``, when the queue is being cleared, as reflected on)."""
    markers = arguments.instances(
        "markers", markers, Marker, "the markers pending_reflections gives"
    )
    characters = arguments.at_least("characters", characters, MIN_CHARACTERS)
    reflected = arguments.flag("cleared", reflected)
    root = None if reading.session.missing else reading.session.root
    places = read_places(root) if root is not None else {}
    made = [_digest(reading, marker, characters, chitin, places) for marker in _once(markers)]
    if root is not None and _note_shown(places, made, reflected):
        with contextlib.suppress(OSError):  # a note lost costs a repeat, never a skip
            write_places(root, places)
    return made


def _note_shown(places: dict[str, dict[str, int]], made: list[SessionDigest], done: bool) -> bool:
    """Note each digest's last message as shown (and reflected on, ``done``) in
    ``places``; whether anything changed."""
    changed = False
    for found in made:
        place = _key(found.marker)
        if place is None or found.digest is None:
            continue
        noted = dict(places.pop(place, {}), shown=found.digest.messages)
        if done:
            noted["through"] = found.digest.messages
        changed = changed or places.get(place) != noted
        places[place] = noted  # the newest last
    return changed


def _once(markers: list[Marker]) -> list[Marker]:
    """``markers`` with each place of events kept once, at its newest marker (the
    queue is oldest first), which takes the injected ids of the others."""
    newest: dict[object, Marker] = {}
    for marker in markers:
        place = _place(marker) or marker  # no place: each marker is its own
        known = newest.pop(place, None)
        injected = (*known.injected, *marker.injected) if known else marker.injected
        newest[place] = marker._replace(injected=tuple(dict.fromkeys(injected)))
    return list(newest.values())


def _place(marker: Marker) -> tuple[str | None, ...] | None:
    if marker.transcript is not None:
        return ("transcript", marker.transcript)
    if marker.agent_database is not None and marker.session_id is not None:
        return ("database", marker.agent_database, marker.session_id)
    return None


def _key(marker: Marker) -> str | None:
    """Where a marker's events are, as the key of the places noted."""
    place = _place(marker)
    return json.dumps(place) if place is not None else None


def _read(marker: Marker) -> Read | None:
    if marker.transcript is not None:
        return read_transcript(Path(marker.transcript))
    if marker.agent_database is not None and marker.session_id is not None:
        return read_agent_database(Path(marker.agent_database), marker.session_id)
    return None


def _digest(
    reading: Reading,
    marker: Marker,
    characters: int,
    chitin: str,
    places: dict[str, dict[str, int]],
) -> SessionDigest:
    read = _read(marker)
    if read is None:
        return SessionDigest(marker, None)
    label = f"session {marker.session_id or marker.session_key}"
    claims = _claims(reading, marker.injected)
    since = places.get(_key(marker) or "", {}).get("through", 0)
    if since > max((t.number for t in read.turns), default=0):
        since = 0  # fewer messages than were reflected on: the events were written anew
    made = make_digest(read.turns, claims, label, characters, chitin, since)
    return SessionDigest(marker, made, read.warning)


def _claims(reading: Reading, ids: tuple[str, ...]) -> dict[str, str | None]:
    """Each injected insight's claim; None for one no longer in the store."""
    claims: dict[str, str | None] = {}
    for insight_id in ids:
        try:
            claims[insight_id] = None if reading.session.missing else reading.get(insight_id).claim
        except ChitinError:
            claims[insight_id] = None
    return claims


def done(opened: Session, legacy: Path | None, session: str) -> int:
    """Remove the markers of ``session`` (its key or its id) from every queue, and every
    other marker of the events they name (a digest shows those once, by the newest
    marker's name: left queued, they showed the same session again); how many went.
    Under the queue's lock, as clearing is."""
    # As a marker read from a file names it: the name a digest shows, or the one written.
    wanted = marker_name(arguments.text("session", session).strip())
    legacy = arguments.path("legacy", legacy)
    paths = [] if opened.missing else [queue_path(opened.root)]
    if legacy is not None:
        paths.append(legacy)
    removed = 0
    gone: list[Marker] = []
    with contextlib.ExitStack() as stack:
        if not opened.missing:
            stack.enter_context(queue_lock(opened.root))
        queues = [read_queue(path) for path in paths]
        named = [m for q in queues for m in q.markers if wanted in (m.session_key, m.session_id)]
        places = {_place(m) for m in named} - {None}
        for queue in queues:
            kept = [m for m in queue.markers if m not in named and _place(m) not in places]
            gone += [m for m in queue.markers if m not in kept]
            if len(kept) != len(queue.markers):
                removed += len(queue.markers) - len(kept)
                try:
                    write_queue(queue.path, kept)
                except OSError as error:
                    raise StoreError(
                        f"cannot write {queue.path}: {error.strerror or error}"
                    ) from None
    if not removed:
        raise NotFoundError(f"no pending reflection on session {wanted!r}; see `chitin reflect`")
    if not opened.missing:
        with contextlib.suppress(OSError):
            _reflected(opened.root, gone)
    return removed


def _reflected(root: Path, markers: list[Marker]) -> None:
    """Note the sessions of ``markers`` as reflected on through the last message their
    digest showed; one never shown, through the messages it holds now."""
    places = read_places(root)
    for marker in markers:
        place = _key(marker)
        if place is None:
            continue
        noted = places.pop(place, {})
        if "shown" not in noted:
            read = _read(marker)
            noted["shown"] = max((t.number for t in read.turns), default=0) if read else 0
        places[place] = {**noted, "through": noted["shown"]}
    write_places(root, places)
