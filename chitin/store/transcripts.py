"""Reading a session's events where the host keeps them, for its digest (issue 26).

A transcript is only read, where it is: nothing is copied into the store. It is
streamed line by line in bounded memory and time, whatever it holds: a line longer
than ``MAX_LINE`` is skipped unread, and of a file longer than twice ``WINDOW`` only
the first and last ``WINDOW`` bytes are read (the start says what the session was
for, the end how it went). What could not be read is said in one warning; what could
be read is digested.

OpenClaw's agent database is opened read-only (SQLite's ``mode=ro``), as OpenClaw may
be writing it, and a session's events are bounded as a file's lines are: an event over
``MAX_LINE`` is skipped in SQLite, and of a session over twice ``WINDOW`` bytes only
the events of its first and last ``WINDOW`` bytes are read.
OpenClaw 2026.9.6 stores an event zstd-compressed (``event_zstd``, with
``event_json`` NULL) when the Node it runs on has zstd (Node 22.15 and later, and the
Node its npm package ships), the event is 1 KB to 4 MB of plain UTF-8 (no ``\\u``
escape) and compressing saves a tenth: long tool outputs and messages, that is. Python
has zstd from 3.14 (``compression.zstd``); before, the ``backports.zstd`` package (the
same module, one small wheel, chitin's ``zstd`` extra) reads them. Without either,
those rows are skipped, counted, and the warning says what to install.
"""

from __future__ import annotations

import importlib
import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any, NamedTuple

from chitin.model.transcript import Turn, is_message, turns_of

MAX_LINE = 1 << 20  # bytes: no message worth quoting is longer
WINDOW = 16 << 20  # bytes read from each end of an enormous file
# Each event as its row holds it, or, for one over MAX_LINE bytes (as text, or already
# compressed, when its text is longer still), NULLs and a flag: SQLite skips it, so
# Python never holds it whole, as it never holds a line of a file over MAX_LINE.
BOUNDED_EVENTS = (  # each size once: SQLite factors the same expression
    "SELECT CASE WHEN length(CAST(event_json AS BLOB)) > ?1 THEN NULL ELSE event_json END,"
    " CASE WHEN length(event_zstd) > ?1 THEN NULL ELSE event_zstd END,"
    " length(CAST(event_json AS BLOB)) > ?1, length(event_zstd) > ?1"
    " FROM transcript_events WHERE session_id = ?2 AND seq BETWEEN ?3 AND ?4 ORDER BY seq"
)
# Each event's size in bytes, for the window: measured in SQLite, read by nobody.
# Streamed from either end, and only as far as the window needs: however many events
# a session holds, its last ones are reached (the end says how the session went).
_SIZE = "coalesce(length(CAST(event_json AS BLOB)), 0) + coalesce(length(event_zstd), 0)"
EVENT_SIZES = (
    f"SELECT seq, {_SIZE} FROM transcript_events WHERE session_id = ? ORDER BY seq {{order}}"
)
TOTAL_SIZE = f"SELECT sum({_SIZE}) FROM transcript_events WHERE session_id = ?"


class Read(NamedTuple):
    turns: list[Turn]
    warning: str | None  # what could not be read, in one line


class _Tally:
    """What went wrong while reading, counted, for the one warning."""

    def __init__(self) -> None:
        self.bad = 0  # lines that are not JSON
        self.long = 0  # lines over MAX_LINE
        self.skipped = ""  # a part not read at all
        self.compressed = 0  # compressed events not read: no zstd here
        self.corrupt = 0  # compressed events that do not decompress


def read_transcript(path: Path, window: int = WINDOW) -> Read:
    """The turns of a JSONL transcript (Claude Code's, or an OpenClaw session file)."""
    tally = _Tally()
    if path.exists() and not path.is_file():  # a folder, or a FIFO that would block
        return Read([], f"{path} is not a regular file")
    try:
        with path.open("rb") as handle:
            turns = _turns(_lines(handle, window, tally), tally)
    except FileNotFoundError:
        return Read([], f"{path} is gone (the host may have removed it)")
    except OSError as error:
        return Read([], f"{path} cannot be read ({error.strerror or error})")
    return Read(turns, _warning(path, tally, bool(turns)))


def read_agent_database(path: Path, session_id: str, window: int = WINDOW) -> Read:
    """The turns of one session's events in OpenClaw's agent database: of a session
    longer than twice ``window`` bytes, the events of its first and last ``window``
    bytes, as of an enormous file."""
    if not path.is_file():
        if path.exists():
            return Read([], f"{path} is not a regular file")
        return Read([], f"{path} is gone (the host may have removed it)")
    tally = _Tally()
    try:
        connection = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True, timeout=2)
    except sqlite3.Error as error:
        return Read([], f"{path} cannot be opened ({error})")
    try:
        spans, gap = _spans(connection, session_id, window)
        rows = (
            row
            for first, last in spans
            for row in connection.execute(BOUNDED_EVENTS, (MAX_LINE, session_id, first, last))
        )
        turns = _turns(_events(rows, tally, zstd_codec()), tally)
    except sqlite3.Error as error:
        return Read([], f"{path}: the session's events cannot be read ({error})")
    finally:
        connection.close()
    skipped = [gap] if gap else []
    if tally.compressed:
        skipped.append(
            f"{tally.compressed} compressed event(s) skipped (reading them needs zstd: "
            "Python 3.14, or pip install backports.zstd)"
        )
    tally.skipped = "; ".join(skipped)
    if not turns and not (tally.compressed or tally.corrupt or tally.bad or tally.long):
        return Read([], f"{path} holds no events of session {session_id}")
    return Read(turns, _warning(path, tally, bool(turns)))


def _spans(
    connection: sqlite3.Connection, session_id: str, window: int
) -> tuple[list[tuple[int, int]], str]:
    """The ranges of ``seq`` to read: all of the session's events, or, past twice
    ``window`` bytes, the first and the last events that fit in ``window`` bytes each;
    and what the gap left out, for the warning ('' for none)."""
    first, head, last, whole = _edge(connection, session_id, "ASC", window)
    if whole:
        return ([(first, last)] if first is not None and last is not None else []), ""
    end, tail, _, _ = _edge(connection, session_id, "DESC", window)
    spans = [(first, head)] if first is not None and head is not None else []
    spans += [(tail, end)] if tail is not None and end is not None else []
    total = connection.execute(TOTAL_SIZE, (session_id,)).fetchone()[0] or 0
    return spans, (
        f"only the first and last {window >> 20} MB of {_size(total)} of the session's "
        "events read (message numbers after the gap count from where reading resumed)"
    )


def _edge(
    connection: sqlite3.Connection, session_id: str, order: str, window: int
) -> tuple[int | None, int | None, int | None, bool]:
    """Reading the events' sizes from one end (``order``), streamed and only as far
    as needed: the seq of the first event, of the farthest within ``window`` bytes, and
    of the farthest within twice that; and whether that reached the other end (the
    whole session fits in twice ``window``)."""
    first = near = far = None
    used = 0
    for seq, size in connection.execute(EVENT_SIZES.format(order=order), (session_id,)):
        used += size
        if used > 2 * window:
            return first, near, far, False
        first = seq if first is None else first
        near = seq if used <= window else near
        far = seq
    return first, near, far, True


class _TooLong(Exception):
    """A compressed event over ``MAX_LINE`` bytes, as a line of a file would be."""


def zstd_codec() -> Callable[[bytes], bytes] | None:
    """A zstd decompressor that stops at ``MAX_LINE`` bytes of output (raising
    ``_TooLong``), or None where Python has no zstd."""
    for name in ("compression.zstd", "backports.zstd"):
        try:
            module: Any = importlib.import_module(name)
        except ImportError:
            continue
        return lambda data: _bounded_zstd(module, data)
    return None


def _bounded_zstd(module: Any, data: bytes) -> bytes:
    decompressor = module.ZstdDecompressor()
    out: bytes = decompressor.decompress(data, max_length=MAX_LINE)
    if not decompressor.eof:
        raise _TooLong if len(out) >= MAX_LINE else module.ZstdError("cut short")
    return out


def _events(
    rows: Iterable[tuple[Any, ...]], tally: _Tally, decompress: Callable[[bytes], bytes] | None
) -> Iterator[str]:
    """Each row's event as text: ``event_json``, else ``event_zstd`` decompressed."""
    for text, packed, long_text, long_packed in rows:
        if long_text or long_packed:
            tally.long += 1
        elif isinstance(text, str):
            yield text
        elif decompress is None:
            tally.compressed += 1
        else:
            event = _unpacked(packed, decompress, tally)
            if event is not None:
                yield event


def _unpacked(packed: Any, decompress: Callable[[bytes], bytes], tally: _Tally) -> str | None:
    try:
        return decompress(bytes(packed)).decode("utf-8", "replace")
    except _TooLong:
        tally.long += 1
    except Exception:  # the codec's ZstdError (a corrupt row), or a row that is no bytes
        tally.corrupt += 1
    return None


def _lines(handle: IO[bytes], window: int, tally: _Tally) -> Iterator[str]:
    """The file's lines, skipping those over MAX_LINE and, in an enormous file, the
    middle; a last line cut short (a host still writing) is just not JSON."""
    size = handle.seek(0, 2)
    handle.seek(0)
    if size <= 2 * window:
        yield from _bounded(handle, size, tally)
        return
    yield from _bounded(handle, window, tally)
    handle.seek(size - window)
    rest = handle.readline(MAX_LINE)  # the rest of a line cut by the seek: the gap's,
    while rest and not rest.endswith(b"\n"):  # however long, in bounded pieces
        rest = handle.readline(MAX_LINE)
    tally.skipped = (
        f"only the first and last {window >> 20} MB of {_size(size)} read (message "
        "numbers after the gap count from where reading resumed)"
    )
    yield from _bounded(handle, size, tally)


def _bounded(handle: IO[bytes], end: int, tally: _Tally) -> Iterator[str]:
    while handle.tell() < end:
        line = handle.readline(MAX_LINE)
        if not line:
            return
        if len(line) >= MAX_LINE and not line.endswith(b"\n"):
            tally.long += 1
            while line and not line.endswith(b"\n") and handle.tell() < end:
                line = handle.readline(MAX_LINE)  # the rest, in bounded pieces
            continue
        yield line.decode("utf-8", "replace")


def _turns(lines: Iterable[str], tally: _Tally) -> list[Turn]:
    turns: list[Turn] = []
    number = 0
    for line in lines:
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            tally.bad += 1
            continue
        if is_message(entry):
            number += 1
            turns += turns_of(entry, number)
    return turns


def _warning(path: Path, tally: _Tally, any_turns: bool) -> str | None:
    said = []
    if tally.skipped:
        said.append(tally.skipped)
    if tally.bad:
        said.append(f"{tally.bad} line(s) not JSON skipped")
    if tally.corrupt:
        said.append(f"{tally.corrupt} compressed event(s) that do not decompress skipped")
    if tally.long:
        said.append(f"{tally.long} line(s) over {MAX_LINE >> 20} MB skipped")
    if not said:
        return None if any_turns else f"{path} holds no messages"
    return f"{path}: {'; '.join(said)}"


def _size(size: int) -> str:
    return f"{size / (1 << 30):.1f} GB" if size >= 1 << 30 else f"{size >> 20} MB"
