"""OpenClaw's compressed events (issue 26): OpenClaw 2026.9.6 keeps an event of 1 KB to
4 MB zstd-compressed in its agent database (``event_zstd``, ``event_json`` NULL) when
its Node has zstd, as the Node its npm package ships does. chitin reads them with
Python's zstd (3.14) or backports.zstd (its ``zstd`` extra, in the test extra), and
without either says what it skipped and what to install."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import Run

from chitin.store import transcripts
from chitin.store.transcripts import read_agent_database

try:
    from compression import zstd  # type: ignore[import-not-found,unused-ignore]
except ImportError:
    from backports import zstd  # type: ignore[import-not-found,no-redef,unused-ignore]

RunJson = Callable[..., Any]
HEADER = {"type": "session", "version": 4, "id": "s-9", "timestamp": "2026-12-01T10:00:00Z"}
# Padding that makes the message long enough for OpenClaw to compress it (1 KB or more).
CONTEXT = " The upload goes to the bucket named in the config." * 30


def message(ident: str, role: str, text: str, second: int) -> dict[str, Any]:
    return {
        "type": "message",
        "id": ident,
        "timestamp": f"2026-12-01T10:00:{second:02d}Z",
        "message": {"role": role, "content": [{"type": "text", "text": text}]},
    }


def database(path: Path, events: list[dict[str, Any]], packed: set[int]) -> Path:
    """OpenClaw's table, with the events at the indexes ``packed`` stored as OpenClaw
    stores a compressed one: zstd level 1 with a checksum, and its UTF-8 size."""
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, "
            "event_json TEXT, created_at INTEGER NOT NULL, event_zstd BLOB, "
            "event_utf8_bytes INTEGER, navigation_json TEXT, PRIMARY KEY (session_id, seq))"
        )
        for seq, event in enumerate(events):
            text = json.dumps(event)
            raw = text.encode()
            level = {zstd.CompressionParameter.compression_level: 1}
            options = {**level, zstd.CompressionParameter.checksum_flag: 1}
            body = zstd.compress(raw, options=options) if seq in packed else None
            db.execute(
                "INSERT INTO transcript_events VALUES ('s-9', ?, ?, 0, ?, ?, ?)",
                (seq, None if body else text, body, len(raw), "{}" if body else None),
            )
    db.close()
    return path


def queue(store: Path, agent_database: Path) -> None:
    marker = {"sessionKey": "k", "timestamp": "2026-12-01T11:00:00.000Z", "reason": "new",
              "sessionId": "s-9", "agentDatabase": str(agent_database)}  # fmt: skip
    path = store / ".chitin" / "reflections.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([marker]))


def test_a_compressed_event_is_read_as_openclaw_wrote_it(
    run: Run, run_json: RunJson, store: Path, tmp_path: Path
) -> None:
    run("init", "--seed")
    correction = "No, use the EU bucket instead." + CONTEXT
    events = [HEADER, message("m1", "user", "Upload the report.", 1),
              message("m2", "user", correction, 5)]  # fmt: skip
    path = database(tmp_path / "openclaw-agent.sqlite", events, packed={2})
    before = path.read_bytes()
    queue(store, path)
    shown = run("reflect")
    assert "warning:" not in shown.stderr + shown.stdout
    [digest] = run_json("reflect")["digests"]
    assert [(m["kind"], m["message"]) for m in digest["moments"]] == [("correction", 2)]
    assert digest["moments"][0]["quote"].startswith("No, use the EU bucket instead.")
    assert path.read_bytes() == before


def test_without_zstd_the_warning_says_what_was_skipped_and_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(transcripts, "zstd_codec", lambda: None)
    events = [HEADER, message("m1", "user", "No, not that one." + CONTEXT, 1),
              message("m2", "user", "I prefer short answers.", 5)]  # fmt: skip
    read = read_agent_database(database(tmp_path / "db.sqlite", events, {1}), "s-9")
    assert [t.text for t in read.turns] == ["I prefer short answers."]
    assert read.warning is not None
    assert "1 compressed event(s) skipped" in read.warning
    assert "Python 3.14, or pip install backports.zstd" in read.warning


def test_a_compressed_event_over_the_line_limit_is_not_unpacked(tmp_path: Path) -> None:
    """Two megabytes of one letter compress to a few hundred bytes: decompressing stops
    at the limit a line of a file has, and the event is counted as one over it."""
    events = [HEADER, message("m1", "user", "No, " + "y" * (2 << 20), 1),
              message("m2", "user", "Stop, use the staging bucket.", 5)]  # fmt: skip
    read = read_agent_database(database(tmp_path / "db.sqlite", events, {1}), "s-9")
    assert [t.number for t in read.turns] == [1]
    assert read.warning is not None and "1 line(s) over 1 MB skipped" in read.warning


def test_a_plain_event_over_the_line_limit_is_skipped_as_a_compressed_one_is(
    tmp_path: Path,
) -> None:
    """An event OpenClaw kept uncompressed (``event_json``; a Node without zstd, or
    ``\\u`` escapes in it) is bounded as a line of a file is: one over the limit is
    skipped in SQLite, never handed to Python whole, and counted in the warning."""
    events = [HEADER, message("m1", "user", "No, " + "y" * (2 << 20), 1),
              message("m2", "user", "Stop, use the staging bucket.", 5)]  # fmt: skip
    read = read_agent_database(database(tmp_path / "db.sqlite", events, set()), "s-9")
    assert [(t.number, t.text) for t in read.turns] == [(1, "Stop, use the staging bucket.")]
    assert read.warning is not None and "1 line(s) over 1 MB skipped" in read.warning


def test_an_enormous_session_in_the_database_is_read_at_both_ends_only(tmp_path: Path) -> None:
    """As an enormous file is: past twice the window, only the events of the first and
    of the last window's worth of bytes are read (bounded time, whatever the session
    holds), and the one warning says so."""
    filler = " The upload goes to the bucket named in the config." * 2000  # ~100 KB
    events = [HEADER, message("m1", "user", "I prefer short answers.", 1)]
    events += [message(f"f{n}", "assistant", "Working." + filler, 2) for n in range(40)]
    events.insert(20, message("mid", "user", "No, use the EU bucket instead.", 3))
    events.append(message("m9", "user", "Never force-push to main.", 9))
    path = database(tmp_path / "db.sqlite", events, set())
    read = read_agent_database(path, "s-9", window=1 << 20)
    said = [t.text for t in read.turns if not t.text.startswith("Working.")]
    assert said == ["I prefer short answers.", "Never force-push to main."]
    assert read.warning is not None
    assert "only the first and last 1 MB of 3 MB of the session's events read" in read.warning
    whole = read_agent_database(path, "s-9")
    assert "No, use the EU bucket instead." in [t.text for t in whole.turns]
    assert whole.warning is None


def test_a_session_of_very_many_small_events_is_read_to_its_end(tmp_path: Path) -> None:
    """The end of a session says how it went: one of a quarter of a million small events
    (a few MB, so read whole) is read to its last event, whatever their number (reading
    stopped after the first 200,000 events, and said nothing)."""
    events = [HEADER, message("m1", "user", "I prefer short answers.", 1)]
    path = database(tmp_path / "db.sqlite", events, set())
    tick = json.dumps({"type": "custom", "customType": "tick"})
    with sqlite3.connect(path) as db:
        db.executemany(
            "INSERT INTO transcript_events VALUES ('s-9', ?, ?, 0, NULL, NULL, NULL)",
            ((seq, tick) for seq in range(2, 250_000)),
        )
        last = message("m9", "user", "No, use the EU bucket instead.", 9)
        db.execute(
            "INSERT INTO transcript_events VALUES ('s-9', 250000, ?, 0, NULL, NULL, NULL)",
            (json.dumps(last),),
        )
    db.close()
    read = read_agent_database(path, "s-9")
    said = [t.text for t in read.turns]
    assert said == ["I prefer short answers.", "No, use the EU bucket instead."]
    assert read.warning is None
    cut = read_agent_database(path, "s-9", window=1 << 20)  # ~9 MB: past twice 1 MB
    assert [t.text for t in cut.turns] == said
    assert cut.warning is not None and "only the first and last 1 MB of 9 MB" in cut.warning
