"""A recovery pairs a failed shell command with a later try at the same thing, and a
person's words come before it when the digest's room is short (fix137)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import Run
from test_reflect_digest import agent, call, queue_with, result, turns, user, write_jsonl

from chitin.model.moments import CORRECTION, RECOVERY, find_moments

UNRELATED = [
    user("Check the API, the database and the bucket.", 1),
    call("curl -H 'Authorization: Bearer x' https://api.example.com/v1/users"),
    result("Exit code 22\ncurl: (22) The requested URL returned error: 401", failed=True),
    call("psql -h db.internal -U app -c 'select 1'"),
    result('psql: error: connection to server at "db.internal" refused', failed=True),
    call("aws s3 ls s3://reports"),
    result("2026-12-01 report.csv"),
    agent("The bucket is there; the API and the database refused me."),
]


def recoveries(entries: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(m.quote.split("\n")[0], m.then) for m in find_moments(turns(entries))
            if m.kind == RECOVERY]  # fmt: skip


def test_an_unrelated_command_that_worked_recovers_nothing() -> None:
    assert recoveries(UNRELATED) == []


@pytest.mark.parametrize(
    ("failed", "worked"),
    [
        ("DATABASE_URL=postgres://db psql -c 'select 1'", "sudo psql -h localhost -c 'select 1'"),
        ("cd app && pytest tests/test_upload.py", "python -m pytest tests/test_upload.py"),
        ("make docs", "make -C docs html"),
    ],
    ids=["same-program-after-assignments-and-sudo", "shared-main-word", "same-program"],
)
def test_another_try_at_the_same_command_is_its_recovery(failed: str, worked: str) -> None:
    entries = [user("Go.", 1), call(failed), result("Exit code 1\nboom", failed=True),
               call("ls"), result("a b"), call(worked), result("ok")]  # fmt: skip
    assert recoveries(entries) == [(f"Bash: {failed}", f"Bash: {worked}")]


def test_a_tool_other_than_a_shell_still_pairs_by_tool() -> None:
    read = {"type": "tool_use", "id": "r", "name": "Read", "input": {"file_path": "a.py"}}
    again = {**read, "input": {"file_path": "src/a.py"}}
    entries = [user("Go.", 1), {"type": "assistant", "message": {"content": [read]}},
               result("no such file", failed=True, call_id="r"),
               {"type": "assistant", "message": {"content": [again]}},
               result("x = 1", call_id="r")]  # fmt: skip
    assert recoveries(entries) == [("Read: a.py", "Read: src/a.py")]


def test_a_call_the_agent_says_is_another_way_is_the_recovery() -> None:
    entries = [user("Run the app.", 1), agent("Trying the Makefile."), call("make run"),
               result("make: *** No rule to make target 'run'.  Stop.", failed=True),
               agent("No run target; running it directly."), call("python3 src/app.py"),
               result("hello")]  # fmt: skip
    assert recoveries(entries) == [("Bash: make run", "Bash: python3 src/app.py")]
    entries[4] = agent("No run target. Let me look at the bucket.")
    assert recoveries(entries) == []


@pytest.fixture
def seeded(run: Run) -> None:
    run("init", "--seed")


@pytest.mark.usefixtures("seeded")
def test_a_persons_correction_comes_before_a_recovery_when_room_is_short(
    run: Run, store: Path, tmp_path: Path
) -> None:
    entries = [
        user("Load the fixtures into the staging database.", 1),
        call("psql -h staging -U app -f fixtures.sql"),
        result("psql: error: FATAL: password authentication failed", failed=True),
        call("PGPASSWORD=hunter2 psql -h staging -U app -f fixtures.sql"),
        result("COPY 120"),
        agent("Loaded, with the password in PGPASSWORD."),
        user("No, never put the password in the command line.", 7),
        agent("Understood: I'll use ~/.pgpass."),
    ]
    queue_with(store, transcript=str(write_jsonl(tmp_path / "s-1.jsonl", entries)))
    shown = run("reflect", "--max-characters", "500").stdout
    assert "never put the password in the command line" in shown, shown
    assert "• recovery" not in shown, shown
    roomy = run("reflect").stdout
    assert "• recovery, message 2" in roomy and "message 7" in roomy, roomy


# Claude Code's words when the user rejects a tool call and types a reason.
REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. "
    "if it was a file edit, the new_string was NOT written to the file). To tell you how "
    "to proceed, the user said:\n"
)


def test_the_reason_a_user_gave_for_rejecting_a_call_is_a_correction() -> None:
    entries = [user("Load the fixtures.", 1), call("PGPASSWORD=x psql -f fixtures.sql"),
               result(REJECTED + "keep the password out of the command line", failed=True),
               call("psql -f fixtures.sql"), result("COPY 120"),
               agent("Loaded, with the password from ~/.pgpass.")]  # fmt: skip
    [moment] = find_moments(turns(entries))
    assert (moment.kind, moment.number) == (CORRECTION, 3)
    assert moment.quote == "keep the password out of the command line"
    assert moment.then == "Bash: psql -f fixtures.sql"


@pytest.mark.parametrize(
    "said",
    [
        REJECTED.removesuffix(" To tell you how to proceed, the user said:\n")
        + " STOP what you are doing and wait for the user to tell you how to proceed.",
        REJECTED + "The user wants to clarify these questions.\n    This means they may have",
    ],
    ids=["no-reason", "clarify-questions"],
)
def test_a_rejection_without_the_users_words_is_no_moment(said: str) -> None:
    entries = [user("Load the fixtures.", 1), call("psql -f fixtures.sql"),
               result(said, failed=True), agent("Waiting.")]  # fmt: skip
    assert find_moments(turns(entries)) == []


def openclaw_exec(command: str, output: str, code: int, n: int) -> list[dict[str, Any]]:
    """An OpenClaw exec call and its result (a non-zero exit code is its failure)."""
    called = {"type": "toolCall", "id": f"c{n}", "name": "exec", "arguments": {"command": command}}
    done = {"role": "toolResult", "toolCallId": f"c{n}", "toolName": "exec",
            "isError": False, "details": {"exitCode": code},
            "content": [{"type": "text", "text": output}]}  # fmt: skip
    return [{"type": "message", "message": {"role": "assistant", "content": [called]}},
            {"type": "message", "message": done}]  # fmt: skip


def test_openclaw_exec_pairs_a_failure_with_another_try_only() -> None:
    asked = {"type": "message", "message": {"role": "user", "content": "Check the API."}}
    entries = [asked, *openclaw_exec("curl -sf https://api.example.com/v1", "401", 22, 1),
               *openclaw_exec("aws s3 ls s3://reports", "report.csv", 0, 2),
               *openclaw_exec("curl -sf -H 'Authorization: x' https://api.example.com/v1",
                              "{}", 0, 3)]  # fmt: skip
    assert recoveries(entries) == [
        ("exec: curl -sf https://api.example.com/v1",
         "exec: curl -sf -H 'Authorization: x' https://api.example.com/v1")
    ]  # fmt: skip
