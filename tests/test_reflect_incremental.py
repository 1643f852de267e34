"""A session reflected on, then grown (Claude Code compacts a conversation and goes on,
appending to the same transcript): its next digest covers only the new messages, so
the agent is not handed the same moments to record twice, and the new part is never
skipped."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import Run
from test_reflect_digest import SESSION, agent, user, write_jsonl

RunJson = Callable[..., Any]
LATER = [
    user("Please stick to the standard library for the retry.", 20),
    agent("Using urllib then."),
]


def hook(run: Run, transcript: Path, event: str, reason: str) -> None:
    fields = {"session_id": "s-1", "transcript_path": str(transcript),
              "hook_event_name": event, "reason": reason}  # fmt: skip
    run("hooks", "run", "claude-code", "reflect", input=json.dumps(fields))


def moments(run_json: RunJson) -> list[int]:
    [digest] = run_json("reflect")["digests"]
    return [m["message"] for m in digest["moments"]]


@pytest.fixture
def compacted(run: Run, run_json: RunJson, tmp_path: Path) -> Path:
    run("init", "--seed")
    transcript = write_jsonl(tmp_path / "s-1.jsonl", SESSION)
    hook(run, transcript, "PreCompact", "compact")
    assert moments(run_json) == [3, 7, 10]
    return transcript


def test_a_session_grown_after_its_digest_gets_only_its_new_part(
    run: Run, run_json: RunJson, compacted: Path
) -> None:
    run("reflect", "--done", "s-1")
    write_jsonl(compacted, [*SESSION, *LATER])  # the conversation went on
    hook(run, compacted, "SessionEnd", "other")
    first_new = len(SESSION) + 1
    assert moments(run_json) == [first_new]
    [digest] = run_json("reflect")["digests"]
    assert digest["messages"] == len(SESSION) + len(LATER)
    assert digest["reflectedBefore"] == len(SESSION)
    shown = run("reflect").stdout
    assert f"messages {first_new}–{len(SESSION) + len(LATER)}" in shown
    assert f"1–{len(SESSION)} reflected on before" in shown
    assert "httpx" not in shown and "standard library" in shown


def test_what_was_shown_is_what_done_marks_reflected(
    run: Run, run_json: RunJson, compacted: Path
) -> None:
    # The session grows between the digest and --done: the part never shown is kept.
    write_jsonl(compacted, [*SESSION, *LATER])
    run("reflect", "--done", "s-1")
    hook(run, compacted, "SessionEnd", "other")
    assert moments(run_json) == [len(SESSION) + 1]


def test_a_transcript_written_anew_is_digested_whole(
    run: Run, run_json: RunJson, compacted: Path
) -> None:
    run("reflect", "--done", "s-1")
    write_jsonl(compacted, SESSION[:7])  # shorter than what was reflected on: another
    hook(run, compacted, "SessionEnd", "other")
    assert moments(run_json) == [3, 7]


def test_clearing_the_queue_counts_what_it_showed_as_reflected_on(
    run: Run, run_json: RunJson, compacted: Path
) -> None:
    assert "httpx" in run("reflect", "--clear").stdout
    write_jsonl(compacted, [*SESSION, *LATER])
    hook(run, compacted, "SessionEnd", "other")
    assert moments(run_json) == [len(SESSION) + 1]


def test_a_place_noted_as_true_is_no_count(
    run: Run, run_json: RunJson, store: Path, tmp_path: Path
) -> None:
    """`.chitin/reflected.json` is machine-local, but a person may edit it: a count of
    true (an int to Python) was taken as 1, and the digest said "1–True reflected on
    before". A noted count that is not a whole number is ignored, as a negative one is."""
    run("init", "--seed")
    transcript = write_jsonl(tmp_path / "s-1.jsonl", SESSION)
    hook(run, transcript, "SessionEnd", "end")
    place = json.dumps(["transcript", str(transcript)])
    (store / ".chitin" / "reflected.json").write_text(
        json.dumps({place: {"shown": True, "through": True}})
    )
    assert "True" not in run("reflect").stdout
    [digest] = run_json("reflect")["digests"]
    assert digest["reflectedBefore"] == 0 and digest["messages"] == len(SESSION)
