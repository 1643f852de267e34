"""`chitin reflect` digests the ended sessions from their transcripts (issue 26): the
moments quoted with their pointers, the injected insights touched, ready commands;
masked, bounded, and robust against whatever the transcript file holds."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import Run

from chitin.model.moments import CORRECTION, PREFERENCE, RECOVERY, find_moments, said_kind
from chitin.model.transcript import turns_of
from chitin.store.transcripts import read_transcript

RunJson = Callable[..., Any]
TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def user(text: str, n: int = 0) -> dict[str, Any]:
    stamp = f"2026-12-01T10:{n // 60:02d}:{n % 60:02d}.000Z"
    return {"type": "user", "message": {"role": "user", "content": text}, "timestamp": stamp}


def agent(text: str) -> dict[str, Any]:
    block = {"type": "text", "text": text}
    return {"type": "assistant", "message": {"role": "assistant", "content": [block]}}


def call(command: str, call_id: str = "t") -> dict[str, Any]:
    block = {"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": command}}
    return {"type": "assistant", "message": {"role": "assistant", "content": [block]}}


def result(text: str, failed: bool = False, call_id: str = "t") -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": call_id, "content": text, "is_error": failed}
    return {"type": "user", "message": {"role": "user", "content": [block]}}


def write_jsonl(path: Path, entries: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return path


def turns(entries: list[dict[str, Any]]) -> list[Any]:
    found = []
    for number, entry in enumerate(entries, 1):
        found += turns_of(entry, number)
    return found


SESSION = [
    user("Add a retry to the upload client, please.", 1),
    agent("I'll look at the client."),
    call("pytest tests/test_upload.py"),
    result("Exit code 4\nERROR: file not found: tests/test_upload.py", failed=True),
    call("pytest tests/client/test_upload.py"),
    result("3 passed"),
    user(f"No, don't use requests here, use httpx instead. Token: {TOKEN}", 7),
    agent("Switching to httpx."),
    user("no problem, thanks", 9),
    user("From now on, always run ruff before you commit.", 10),
    agent("Understood."),
]


# ---------------------------------------------------------------- the rules


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("No, use the staging database.", CORRECTION),
        ("don't touch the migrations", CORRECTION),
        ("I said the second file, not the first.", CORRECTION),
        ("Actually, let's keep the old name.", CORRECTION),
        ("Use a dataclass instead.", CORRECTION),
        ("Stop. That deletes the cache.", CORRECTION),
        ("I prefer tabs over spaces in Makefiles.", PREFERENCE),
        ("From now on, answer in French.", PREFERENCE),
        ("Please don't add emojis to commit messages.", PREFERENCE),
        ("Always run the linter before pushing.", PREFERENCE),
        ("no problem, take your time", None),
        ("No worries!", None),
        ("That actually worked, thanks.", None),
        ("It always fails on Mondays, odd.", None),
        ("Looks good to me.", None),
        ("Please use pnpm, not npm.", CORRECTION),
        ("Why did you delete the fixtures?", CORRECTION),
        ("Wait, that's the wrong file.", CORRECTION),
        ("Prefer small functions over long ones.", PREFERENCE),
        ("In this repo, we use tabs.", PREFERENCE),
        ("Stop the server when you are done.", None),
        ("Wait for CI before merging.", None),
        ("No problem at all.", None),
        ("no, that's fine", None),
        ("Don't worry about it.", None),
        ("Never mind.", None),
        ("Actually it works now.", None),
        # Phrasings without the listed words, or with them elsewhere.
        ("Don't bump the major version.", CORRECTION),
        ("I didn't ask for a refactor.", CORRECTION),
        ("I meant the staging one.", CORRECTION),
        ("Why would you delete that?", CORRECTION),
        ("That isn't what I wanted.", CORRECTION),
        ("You edited the wrong file.", CORRECTION),
        ("Let's not touch the CI config.", CORRECTION),
        ("Can you not reformat everything?", CORRECTION),
        ("You were supposed to run the tests first.", CORRECTION),
        ("I don't want you to touch main.", CORRECTION),
        ("That's too verbose.", CORRECTION),
        ("Next time, ask before deleting anything.", PREFERENCE),
        ("Please stick to the standard library.", PREFERENCE),
        ("Don't ever commit secrets.", PREFERENCE),
        ("Don't forget to update the changelog.", PREFERENCE),
        ("We prefer pytest here.", PREFERENCE),
        ("I meant to say thanks.", None),
        ("Let's not worry.", None),
        ("See you next time.", None),
        ("I don't know.", None),
        ("Great, the build is faster. Don't know why.", None),
        ("It's too late now, never mind.", None),
    ],
)
def test_what_a_user_says_is_a_correction_a_preference_or_neither(
    text: str, kind: str | None
) -> None:
    assert said_kind(text) == kind


def test_a_failure_then_a_different_call_that_worked_is_a_recovery() -> None:
    [recovery] = [m for m in find_moments(turns(SESSION)) if m.kind == RECOVERY]
    assert (recovery.number, recovery.then_number) == (3, 5)
    assert "pytest tests/test_upload.py" in recovery.quote and "file not found" in recovery.quote
    assert recovery.then == "Bash: pytest tests/client/test_upload.py"


@pytest.mark.parametrize(
    "entries",
    [
        [agent("Writing the test first; I expect it to fail."), call("pytest -k retry"),
         result("1 failed", failed=True), call("pytest -k 'retry or upload'"), result("ok")],
        [call("make test"), result("boom", failed=True), call("make test"), result("ok")],
        [call("make test"), result("boom", failed=True), agent("Giving up.")],
    ],
    ids=["intended-red", "same-command-again", "never-recovered"],
)  # fmt: skip
def test_look_alike_failures_are_not_recoveries(entries: list[dict[str, Any]]) -> None:
    assert find_moments(turns(entries)) == []


def test_openclaw_session_file_lines_read_as_turns() -> None:
    entries = [
        {"type": "session", "version": 4, "id": "s-1", "timestamp": "2026-12-01T10:00:00Z"},
        {"type": "message", "id": "a", "timestamp": "2026-12-01T10:00:01Z",
         "message": {"role": "user", "content": [{"type": "text", "text": "Never push to main."}]}},
        {"type": "message", "id": "b", "message": {"role": "assistant", "content": [
            {"type": "toolCall", "id": "c1", "name": "exec",
             "arguments": {"command": "git push"}}]}},
        {"type": "message", "id": "c", "message": {"role": "toolResult", "toolCallId": "c1",
         "toolName": "exec", "isError": True, "content": [{"type": "text", "text": "denied"}]}},
        {"type": "message", "id": "d", "message": {"role": "bashExecution",
         "command": "git push origin fix", "output": "ok", "exitCode": 0}},
    ]  # fmt: skip
    read = turns(entries)
    assert [(t.number, t.role) for t in read] == [
        (2, "user"), (3, "call"), (4, "result"), (5, "call"), (5, "result")
    ]  # fmt: skip
    assert read[2].failed and read[0].time == "2026-12-01T10:00:01Z"
    assert [m.kind for m in find_moments(read)] == [PREFERENCE]


# ---------------------------------------------------------------- the command


def queue_with(store: Path, **fields: Any) -> None:
    marker = {"sessionKey": "s-1", "timestamp": "2026-12-01T11:00:00.000Z", "reason": "end"}
    path = store / ".chitin" / "reflections.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([{**marker, **fields}]))


@pytest.fixture
def seeded(run: Run) -> None:
    run("init", "--seed")


@pytest.mark.usefixtures("seeded")
def test_reflect_quotes_the_moments_with_pointers_and_masks_credentials(
    run: Run, run_json: RunJson, store: Path, tmp_path: Path
) -> None:
    transcript = write_jsonl(tmp_path / "s-1.jsonl", SESSION)
    queue_with(store, transcript=str(transcript))
    shown = run("reflect")
    assert TOKEN not in shown.stdout and "[redacted GitHub token]" in shown.stdout
    assert "• recovery, message 3" in shown.stdout
    assert "• correction, message 7, 2026-12-01T10:00:07.000Z: “No, don't use requests" in (
        shown.stdout
    )
    assert "then (message 8): “Switching to httpx.”" in shown.stdout
    assert "• preference, message 10" in shown.stdout and "no problem" not in shown.stdout
    # the commands start as the agent's shell runs chitin (tests/test_reflect_commands.py)
    assert " reflect --done s-1" in shown.stdout and shown.stderr == ""
    [digest] = run_json("reflect")["digests"]
    assert [(m["kind"], m["message"]) for m in digest["moments"]] == [
        (RECOVERY, 3), (CORRECTION, 7), (PREFERENCE, 10)
    ]  # fmt: skip
    assert digest["messages"] == len(SESSION) and digest["warning"] is None
    assert "--provenance correction" in digest["commands"][1]
    assert transcript.read_text() == "".join(json.dumps(e) + "\n" for e in SESSION)


@pytest.mark.usefixtures("seeded")
def test_the_injected_insights_touched_get_a_reinforce_command(
    run_json: RunJson, store: Path, tmp_path: Path
) -> None:
    insights = {i["claim"]: i["id"] for i in run_json("list")}
    [touched] = [i for c, i in insights.items() if c.startswith("Reproduce a bug")]
    [untouched] = [i for c, i in insights.items() if c.startswith("Keep commits small")]
    entries = [user("The export crashes on empty rows.", 1),
               agent("First I'll reproduce the bug with a minimal failing case."),
               agent("Done: a minimal case reproduces the crash.")]  # fmt: skip
    transcript = write_jsonl(tmp_path / "t.jsonl", entries)
    queue_with(store, transcript=str(transcript), injected=[touched, untouched, "gone-id"])
    [digest] = run_json("reflect")["digests"]
    by_id = {i["id"]: i for i in digest["insights"]}
    assert by_id[touched]["touched"] and by_id[touched]["messages"] == [2, 3]
    assert not by_id[untouched]["touched"] and by_id["gone-id"]["claim"] is None
    reinforce = f" reinforce {touched} --source 'session s-1, message 2'"
    assert any(c.endswith(reinforce) for c in digest["commands"])
    assert not any(untouched in c for c in digest["commands"])


@pytest.mark.usefixtures("seeded")
def test_an_insight_the_session_reinforced_is_not_offered_again(
    run: Run, run_json: RunJson, store: Path, tmp_path: Path
) -> None:
    """The context tells the agent to reinforce by id (a short prefix) from its shell,
    or with the MCP tool: the digest says so, and offers no second reinforcement."""
    insights = {i["claim"]: i["id"] for i in run_json("list")}
    [shell] = [i for c, i in insights.items() if c.startswith("Reproduce a bug")]
    [tool] = [i for c, i in insights.items() if c.startswith("Keep commits small")]
    mcp = {
        "type": "tool_use",
        "id": "m",
        "name": "mcp__chitin__reinforce",
        "input": {"id": tool[:5]},
    }
    by_tool = {"type": "assistant", "message": {"role": "assistant", "content": [mcp]}}
    entries = [agent("First I'll reproduce the bug with a minimal failing case."),
               call(f"/opt/venv/bin/chitin --store '/a b' reinforce {shell[:6]} --source x"),
               result("ok"),
               by_tool]  # fmt: skip
    transcript = write_jsonl(tmp_path / "t.jsonl", entries)
    queue_with(store, transcript=str(transcript), injected=[shell, tool])
    [digest] = run_json("reflect")["digests"]
    by_id = {i["id"]: i for i in digest["insights"]}
    assert by_id[shell]["touched"] and by_id[shell]["reinforcedAt"] == [2]
    assert not by_id[tool]["touched"] and by_id[tool]["reinforcedAt"] == [4]
    assert not any(" reinforce " in c for c in digest["commands"])
    shown = run("reflect").stdout
    assert f"• reinforced in the session: {tool} (message 4)" in shown
    assert "not touched" not in shown and "; reinforced at message 2" in shown


@pytest.mark.usefixtures("seeded")
def test_each_digest_keeps_within_its_size(run: Run, store: Path, tmp_path: Path) -> None:
    entries = []
    for n in range(300):
        entries += [user(f"No, use version {n} instead of the one before, " + "x" * 200, n),
                    agent("Fixed " * 40)]  # fmt: skip
    queue_with(store, transcript=str(write_jsonl(tmp_path / "big.jsonl", entries)))
    for limit in (800, 4000):
        shown = run("reflect", "--max-characters", str(limit)).stdout
        block = shown[shown.index("── ") : shown.index("When every session")]
        lines = block.rstrip().splitlines()
        assert len(block) <= limit, block
        # how many moments were left out is said where the cut is (after the moments
        # shown, or after the commands that fit: fix102), and the done command still
        # closes the block
        assert any(" moment(s)" in line and "left out" in line for line in lines), block
        assert lines[-1].endswith("reflect --done s-1"), block
    assert "--max-characters" in run("reflect", "--max-characters", "10", expect=2).stderr


@pytest.mark.usefixtures("seeded")
def test_a_cut_digest_keeps_the_command_that_finishes_its_session(
    run: Run, run_json: RunJson, store: Path, tmp_path: Path
) -> None:
    """However small the size, the block still ends with `reflect --done SESSION`
    (under "Ready commands:"), as the JSON's commands do: the text cut there before,
    when the insights given at the start had filled the size."""
    entries = []
    for n in range(40):
        entries += [user(f"No, write the failing test first, case {n}; " + "why " * 60, n),
                    agent("Fixed " * 40)]  # fmt: skip
    given = [i["id"] for i in run_json("list")]
    queue_with(store, transcript=str(write_jsonl(tmp_path / "s.jsonl", entries)), injected=given)
    for limit in (500, 800, 4000):
        shown = run("reflect", "--max-characters", str(limit)).stdout
        block = shown[shown.index("── ") : shown.index("\n\nWhen every session")]
        assert len(block) <= limit
        lines = block.splitlines()
        assert lines[-1].endswith(" reflect --done s-1") and "    Ready commands:" in lines
    [digest] = run_json("reflect", "--max-characters", "500")["digests"]
    assert digest["commands"][-1].endswith(" reflect --done s-1")


@pytest.mark.usefixtures("seeded")
def test_a_long_list_of_untouched_insights_leaves_the_room_to_the_moments(
    run: Run, run_json: RunJson, store: Path, tmp_path: Path
) -> None:
    """fix110: at --max-characters 800 with the 14 starter insights given and none
    touched, the "not touched" ids' cost was reserved from the size, then their line was
    dropped whole: one moment showed, the room left empty. The line now shows the first
    ids and "+N more", and the moments get the room; the cut line counts what is out."""
    entries = []
    for n in range(6):
        entries += [user(f"No, name the branch release-{n} instead, with a date.", n),
                    agent("Fixed.")]  # fmt: skip
    given = [i["id"] for i in run_json("list")]
    assert len(given) == 14
    queue_with(store, transcript=str(write_jsonl(tmp_path / "s.jsonl", entries)), injected=given)
    for size, least in ((800, 1), (1100, 2)):  # 1100: one moment before the fix
        shown = run("reflect", "--max-characters", str(size)).stdout
        block = shown[shown.index("── ") : shown.index("\n\nWhen every session")]
        assert len(block) <= size, block
        [digest] = run_json("reflect", "--max-characters", str(size))["digests"]
        moments = [line for line in block.splitlines() if line.startswith("    • correction")]
        assert len(moments) == len(digest["moments"]) >= least, block
    lines = block.splitlines()
    [untouched] = [line for line in lines if line.startswith("    • not touched: ")]
    listed = untouched.removeprefix("    • not touched: ").split(" +")[0].split(", ")
    more = int(untouched.rsplit(" +", 1)[1].removesuffix(" more"))
    assert listed == given[: len(listed)] and len(listed) + more == 14, untouched
    # the cut line counts what the text left out, as the JSON holds it all
    [cut] = [line for line in lines if "left out to keep 1100 characters" in line]
    out = len(digest["moments"]) + digest["omitted"] - len(moments)
    assert (f"{out} moment(s)" in cut) == (out > 0) and f"{more} insight(s)" in cut, cut
    assert len(digest["insights"]) == 14 and lines[-1].endswith(" reflect --done s-1")


@pytest.mark.usefixtures("seeded")
def test_a_session_compacted_then_ended_is_digested_once(
    run: Run, run_json: RunJson, tmp_path: Path
) -> None:
    """PreCompact and SessionEnd both queue the same session, with the same transcript
    (Claude Code keeps the lines before a compaction): one digest, not the same moments
    twice for the agent to record twice; both markers stay listed."""
    transcript = write_jsonl(tmp_path / "s-1.jsonl", SESSION)
    for event, reason in (("PreCompact", "compact"), ("SessionEnd", "end")):
        hook = {"session_id": "s-1", "transcript_path": str(transcript),
                "hook_event_name": event, "reason": reason}  # fmt: skip
        run("hooks", "run", "claude-code", "reflect", input=json.dumps(hook))
    shown = run_json("reflect")
    assert [m["reason"] for m in shown["pending"]] == ["compact", "end"]
    assert len(shown["digests"]) == 1
    assert run("reflect").stdout.count("Moments:") == 1


@pytest.mark.usefixtures("seeded")
def test_done_removes_one_sessions_markers(run: Run, run_json: RunJson) -> None:
    run("reflect", "--queue", "--session-key", "chat", "--session-id", "s-1", "--reason", "new")
    run("reflect", "--queue", "--session-key", "other", "--reason", "end")
    said = run("reflect", "--done", "s-1").stdout
    assert said == "✓ Reflected on s-1: 1 marker(s) removed\n"
    assert [m["sessionKey"] for m in run_json("reflect")["pending"]] == ["other"]
    unknown = run("reflect", "--done", "s-1", expect=1)
    assert "no pending reflection on session 's-1'" in unknown.stderr
    assert "cannot be combined" in run("reflect", "--done", "x", "--clear", expect=2).stderr


def claude_line(text: str, **flags: Any) -> dict[str, Any]:
    return {**user(text), "isSidechain": False, "userType": "external", **flags}


@pytest.mark.usefixtures("seeded")
def test_lines_claude_code_writes_itself_are_not_the_persons_words(
    run_json: RunJson, store: Path, tmp_path: Path
) -> None:
    """A compacted conversation's summary is a user line (isCompactSummary, no isMeta)
    holding a model's words; a sub-agent's turns and a `!command`'s echo are not the
    person's either. None of them is quoted as what the user said."""
    entries = [
        user("Fix the flaky upload test, please.", 1),
        agent("Looking at it."),
        claude_line(
            "This session is being continued from a previous conversation that ran out "
            "of context. The user said: never weaken assertions, always run ruff first.",
            isCompactSummary=True,
            isVisibleInTranscriptOnly=True,
        ),
        claude_line("No, don't touch the fixtures; use the factory instead.", isSidechain=True),
        claude_line("<bash-input>ls</bash-input>"),
        claude_line("<bash-stdout></bash-stdout><bash-stderr>don't use sudo</bash-stderr>"),
        claude_line("From now on, always run the linter before you commit."),
    ]
    transcript = write_jsonl(tmp_path / "s-1.jsonl", entries)
    queue_with(store, transcript=str(transcript))
    [digest] = run_json("reflect")["digests"]
    quoted = [m["quote"] for m in digest["moments"]]
    assert quoted == ["From now on, always run the linter before you commit."]


# ---------------------------------------------------------------- robust


def one_warning(run: Run, run_json: RunJson) -> tuple[str, dict[str, Any]]:
    """The one warning, said in the digest (never again on stderr), and the digest."""
    shown = run("reflect")
    said = (shown.stdout + shown.stderr).splitlines()
    warnings = [line.strip() for line in said if line.strip().startswith("warning:")]
    assert len(warnings) == 1 and shown.stderr == "", shown.stdout + shown.stderr
    [digest] = run_json("reflect")["digests"]
    return warnings[0], digest


@pytest.mark.usefixtures("seeded")
def test_a_missing_transcript_gives_one_warning_and_an_empty_digest(
    run: Run, run_json: RunJson, store: Path, tmp_path: Path
) -> None:
    queue_with(store, transcript=str(tmp_path / "gone.jsonl"))
    warning, digest = one_warning(run, run_json)
    assert "gone.jsonl is gone" in warning and digest["moments"] == []


@pytest.mark.usefixtures("seeded")
def test_an_unreadable_transcript_gives_one_warning(
    run: Run, run_json: RunJson, store: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "a-folder.jsonl"
    folder.mkdir()
    queue_with(store, transcript=str(folder))
    warning, digest = one_warning(run, run_json)
    assert "a-folder.jsonl is not a regular file" in warning and digest["messages"] == 0
    fifo = tmp_path / "a-pipe.jsonl"
    os.mkfifo(fifo)  # opening it would wait for a writer forever
    queue_with(store, transcript=str(fifo))
    warning, _ = one_warning(run, run_json)
    assert "a-pipe.jsonl is not a regular file" in warning


@pytest.mark.usefixtures("seeded")
def test_a_truncated_and_malformed_transcript_gives_what_could_be_read(
    run: Run, run_json: RunJson, store: Path, tmp_path: Path
) -> None:
    text = "".join(json.dumps(e) + "\n" for e in SESSION)
    garbage = b"not json\n\xff\xfe\x00\n" + b"[" * 100_000 + b"\n" + b'{"type": "user", "mess'
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"{}\n[1, 2]\n" + text.encode() + garbage)
    queue_with(store, transcript=str(path))
    warning, digest = one_warning(run, run_json)
    assert "line(s) not JSON skipped" in warning
    assert [m["kind"] for m in digest["moments"]] == [RECOVERY, CORRECTION, PREFERENCE]


@pytest.mark.usefixtures("seeded")
def test_a_lone_surrogate_in_a_transcript_is_shown_as_a_replacement_character(
    run: Run, run_json: RunJson, store: Path, tmp_path: Path
) -> None:
    """A message cut in the middle of an emoji (a JSON escape of half a UTF-16 pair)
    cannot be written as UTF-8: `reflect` failed with an internal error, and the MCP
    server wrote JSON its client could not parse, so the client waited forever."""
    import anyio
    from test_mcp import call as call_tool
    from test_mcp import serve

    half = "\\ud83d"  # as a JavaScript host writes a lone surrogate in JSON
    lines = [json.dumps(e) for e in SESSION]
    lines.append(json.dumps(user("From now on, always sign off with XX.", 11)).replace("XX", half))
    lines.append(json.dumps(call("ls XX")).replace("XX", half))
    path = tmp_path / "half.jsonl"
    path.write_text("\n".join(lines) + "\n")
    queue_with(store, transcript=str(path))
    shown = run("reflect")
    assert "always sign off with \ufffd." in shown.stdout and shown.stderr == ""
    [digest] = run_json("reflect")["digests"]
    assert digest["moments"][-1]["quote"] == "From now on, always sign off with \ufffd."

    async def ask(client: Any) -> Any:
        with anyio.fail_after(120):  # the client waited forever for an answer it dropped
            prompt = await client.get_prompt("reflect", {})
            return prompt, (await call_tool(client, "reflect")).json

    prompt, answered = serve(store, ask)
    assert "always sign off with \ufffd." in prompt.messages[0].content.text
    assert answered["digests"][0]["moments"][-1]["quote"].endswith("with \ufffd.")


@pytest.mark.usefixtures("seeded")
def test_a_quote_cannot_drive_the_terminal_it_is_shown_in(
    run: Run, run_json: RunJson, store: Path, tmp_path: Path
) -> None:
    """A transcript holds whatever a tool fetched: an escape sequence in a quoted
    message (OSC 0 sets the terminal's title; OSC 52 writes its clipboard) or a
    bidirectional override reached the terminal of the person running `reflect`. They
    are shown as escapes, as Carapace's remote text is; an emoji's joiner is kept."""
    said = "No, don't \x1b]0;pwned\x07 use the cache \u202eevil\u202c from now on. 👩\u200d💻"
    path = write_jsonl(tmp_path / "esc.jsonl", [*SESSION, user(said, 11)])
    queue_with(store, transcript=str(path))
    shown = run("reflect").stdout
    assert not any(c in shown for c in "\x1b\x07\u202e\u202c"), repr(shown)
    assert "don't \\u001b]0;pwned\\u0007 use the cache \\u202eevil\\u202c" in shown
    assert "👩\u200d💻" in shown
    [digest] = run_json("reflect")["digests"]
    assert "\\u001b]0;pwned" in digest["moments"][-1]["quote"]


@pytest.mark.usefixtures("seeded")
def test_an_enormous_transcript_is_read_at_both_ends_only(
    run: Run, run_json: RunJson, store: Path, tmp_path: Path
) -> None:
    """A 1 GB file (sparse: no disk is used) of one endless line, with a session at each
    end: both ends' moments, one warning naming what was skipped."""
    head = "".join(json.dumps(e) + "\n" for e in SESSION[:8]).encode()
    tail = b"\n" + json.dumps(user("Never force-push to main.", 50)).encode() + b"\n"
    path = tmp_path / "huge.jsonl"
    with path.open("wb") as handle:
        handle.write(head)
        handle.truncate((1 << 30) - len(tail))
        handle.seek(0, 2)
        handle.write(tail)
    queue_with(store, transcript=str(path))
    warning, digest = one_warning(run, run_json)
    assert "only the first and last 16 MB of 1.0 GB read" in warning
    assert [m["kind"] for m in digest["moments"]] == [RECOVERY, CORRECTION, PREFERENCE]


def test_a_line_over_the_limit_is_skipped_unread(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    long_line = json.dumps(user("No, " + "y" * (2 << 20)))
    path.write_text(long_line + "\n" + json.dumps(user("Never mind; I prefer tabs.")) + "\n")
    read = read_transcript(path)
    assert [t.number for t in read.turns] == [1]
    assert read.warning is not None and "1 line(s) over 1 MB skipped" in read.warning


def test_a_long_line_across_the_gap_of_an_enormous_file_is_counted_once(
    tmp_path: Path,
) -> None:
    """Reading resumes after the gap inside the long line the start was reading: the
    rest of that line is skipped as the gap's, neither counted as a second long line
    nor as a line that is not JSON (it is no line: its start was skipped)."""
    path = tmp_path / "t.jsonl"
    first = json.dumps(user("I prefer tabs.", 1))
    last = json.dumps(user("Never force-push to main.", 9))
    long_line = json.dumps(user("No, " + "y" * (5 << 20)))
    path.write_text(first + "\n" + long_line + "\n" + last + "\n")
    read = read_transcript(path, window=2 << 20)
    assert [t.text for t in read.turns] == ["I prefer tabs.", "Never force-push to main."]
    assert read.warning is not None
    said = read.warning.split("; ", 1)[1]
    assert said == "1 line(s) over 1 MB skipped"


def openclaw_database(path: Path, session_id: str, entries: list[dict[str, Any]]) -> None:
    """The table as OpenClaw 2026.9.6 creates it (its agent schema), the columns chitin
    reads; a compressed row has event_json NULL (this one's bytes are no zstd)."""
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, "
            "event_json TEXT, created_at INTEGER NOT NULL, event_zstd BLOB, "
            "event_utf8_bytes INTEGER, navigation_json TEXT, PRIMARY KEY (session_id, seq))"
        )
        rows = [(session_id, n, json.dumps(e), 0) for n, e in enumerate(entries)]
        rows.append(("another", 0, json.dumps(entries[1]), 0))
        db.executemany("INSERT INTO transcript_events VALUES (?, ?, ?, ?, NULL, NULL, NULL)", rows)
        db.execute("INSERT INTO transcript_events VALUES (?, 99, NULL, 0, x'28', 5, '{}')",
                   (session_id,))  # fmt: skip
    db.close()


@pytest.mark.usefixtures("seeded")
def test_an_openclaw_sessions_events_are_read_from_its_agent_database(
    run: Run, run_json: RunJson, store: Path, tmp_path: Path
) -> None:
    said = {"role": "user", "content": [{"type": "text", "text": "No, use the EU bucket instead."}]}
    entries = [
        {"type": "session", "version": 4, "id": "s-9", "timestamp": "2026-12-01T10:00:00Z"},
        {"type": "message", "id": "m1", "timestamp": "2026-12-01T10:00:05Z", "message": said},
    ]
    database = tmp_path / "openclaw-agent.sqlite"
    openclaw_database(database, "s-9", entries)
    before = database.read_bytes()
    queue_with(store, sessionId="s-9", agentDatabase=str(database))
    warning, digest = one_warning(run, run_json)
    assert "1 compressed event(s) that do not decompress skipped" in warning
    assert [(m["kind"], m["message"], m["time"]) for m in digest["moments"]] == [
        (CORRECTION, 1, "2026-12-01T10:00:05Z")
    ]
    assert database.read_bytes() == before


@pytest.mark.usefixtures("seeded")
def test_a_marker_without_a_place_has_no_digest(run: Run, run_json: RunJson) -> None:
    run("reflect", "--queue", "--session-key", "old", "--reason", "end")
    assert run_json("reflect")["digests"] == [
        {"session": "old", "sessionKey": "old", "source": None, "digest": None}
    ]
    assert "──" not in run("reflect").stdout


@pytest.mark.usefixtures("seeded")
def test_the_mcp_prompt_carries_the_digest(store: Path, tmp_path: Path) -> None:
    from chitin import Chitin
    from chitin.server.prompts import pending_lines

    queue_with(store, transcript=str(write_jsonl(tmp_path / "s.jsonl", SESSION)))
    with Chitin(store=store) as chitin:
        text = pending_lines(chitin)
    assert "• correction, message 7" in text and TOKEN not in text


def test_the_reinforcements_of_a_session_are_read_from_its_calls() -> None:
    from chitin.model.reinforced import reinforced
    from chitin.model.transcript import CALL, Turn

    calls = [
        Turn(1, None, CALL, "cd /x && chitin reinforce abcd; chitin --store '/a b' "
             "reinforce --source 'y z' efgh && echo done", tool="Bash"),
        Turn(2, None, CALL, '{"id": "ijkl"}', tool="mcp__chitin__reinforce"),
        Turn(3, None, CALL, "git commit -m 'reinforce mnop'", tool="Bash"),
        Turn(4, None, CALL, "chitin reinforce ab", tool="Bash"),  # too short to name one
    ]  # fmt: skip
    ids = ["abcd-1", "efgh-2", "ijkl-3", "mnop-4", "abzz-5"]
    assert reinforced(calls, ids) == {
        "abcd-1": (1,), "efgh-2": (1,), "ijkl-3": (2,), "mnop-4": (), "abzz-5": ()
    }  # fmt: skip


# One message for each alternative of PREFERENCE_RULES and CORRECTION_RULES, some in
# letters IGNORECASE takes for ASCII ones (ſ for s, K for k, ı and İ for i): the words
# model/moments.py looks for before running the rules must let every one through.
CUES = {
    PREFERENCE: [
        "We'd really PREFER tabs",
        "I'd rather keep it",
        "From now on, squash",
        "Fine. Next time ask",
        "ok. Stick with pytest",
        "don't ever push to main",
        "don't forget to tag it",
        "going forward use uv",
        "in future, ask",
        "as a rule, pin",
        "please never force-push",
        "make ſure to lint",
        "remember to rebase",
        "the convention is kebab",
        "I want you to always ask",
        "I never want merges",
        "I'd like you to never guess",
        "prefer small diffs",
        "by default use ruff",
        "İn this repo we squash",
        "ALWAYS run the tests",
        "you should never delete files",
    ],
    CORRECTION: [
        "No, the other one",
        "nah, leave it",
        "Stop. Look first",
        "wait a sec",
        "Undo that",
        "use pnpm, not npm",
        "Why did you delete it",
        "that's incorrect",
        "not what I want",
        "you should have asked",
        "Wrong file",
        "I told you twice",
        "that's not right",
        "that's wrong",
        "you broKe the build",
        "don't touch main",
        "actually, use the stable one",
        "use yarn instead",
        "merge rather than rebase",
        "stop doing that",
        "switch back",
        "please roll back",
        "Done. Don't rename it",
        "I didn't ask for that",
        "I meant the tests",
        "I don't want that",
        "why are you doing this",
        "this isn't how",
        "the wrong branch",
        "let's not",
        "could you not",
        "you were supposed to ask",
        "way too long",
        "ıt is the wrong one",
    ],
}


@pytest.mark.parametrize(
    ("kind", "text"), [(kind, text) for kind, texts in CUES.items() for text in texts]
)
def test_every_cue_phrase_passes_the_word_check_before_the_rules(kind: str, text: str) -> None:
    from chitin.model.moments import CORRECTION_RULES, PREFERENCE_RULES, cue_kind

    rules = PREFERENCE_RULES if kind == PREFERENCE else CORRECTION_RULES
    assert rules.search(text), text  # the example is one of the rules' own
    assert cue_kind(text) == kind


@pytest.mark.usefixtures("seeded")
@pytest.mark.parametrize("kept", [10, 20, 31, 39])
def test_a_credential_cut_at_a_messages_end_is_not_quoted_in_part(
    run: Run, run_json: RunJson, store: Path, tmp_path: Path, kept: int
) -> None:
    """fix102: a message is kept to its first 2,000 characters, and it was cut before the
    credential scan saw it: a token across the cut lost its tail, was no longer
    recognised, and its first ``kept`` characters were quoted (text, JSON, MCP)."""
    opening = "No, don't use requests here, use httpx instead."
    padding = "\n" * (2_000 - kept - len(opening))
    said = opening + padding + TOKEN + " and that is all"
    command = "curl -H 'X: 1' " + "\t" * (2_000 - kept - 15) + TOKEN + " https://x"
    entries = [user(said, 1), agent("Switching to httpx."), call("curl https://x"),
               result("Exit code 6", failed=True), call(command), result("ok")]  # fmt: skip
    queue_with(store, transcript=str(write_jsonl(tmp_path / "s.jsonl", entries)))
    shown = run("reflect").stdout
    [digest] = run_json("reflect")["digests"]
    assert "No, don't use requests" in shown and "curl" in json.dumps(digest["moments"])
    for part in (TOKEN[:kept], TOKEN[4:kept]):
        assert part not in shown and part not in json.dumps(digest)


def test_a_run_without_spaces_past_the_scan_is_left_out_whole() -> None:
    """A credential across the cut is seen whole when it ends within 2,000 characters
    after it; a run without spaces longer than that is not kept in part."""
    head = "Use the other key: "
    [turn] = turns([agent(head + "Zq9" * 2_000)])
    assert turn.text == head
    said = "No, use staging.\n" + "-" * 1_970 + " " + TOKEN + " ok"
    [turn] = turns([agent(said)])
    assert TOKEN[:6] not in turn.text and turn.text.endswith("- ")  # no half mask either
    # A person's message is kept from both ends: neither end keeps part of either.
    [turn] = turns([user(head + "Zq9" * 2_000)])
    assert turn.text == head + "\n…\n"
    [turn] = turns([user(said)])
    assert TOKEN[:6] not in turn.text and turn.text.endswith("\n…\n[redacted GitHub token] ok")


@pytest.mark.usefixtures("seeded")
def test_a_size_too_small_for_a_long_session_name_still_keeps_the_done_command(
    run: Run, run_json: RunJson, store: Path, tmp_path: Path
) -> None:
    """fix102: a session key may be 1,000 characters long, and the heading and the
    `reflect --done` command each print it: at --max-characters 500 neither fitted, and
    the block was one line saying the rest was left out, without the command the docs
    promise. The promised parts are kept whole, and the block says why it is longer."""
    key = "k" * 1_000
    entries = [user("No, use version 2 instead of the one before, please", 1), agent("Fixed")]
    queue_with(store, sessionKey=key, transcript=str(write_jsonl(tmp_path / "s.jsonl", entries)))
    shown = run("reflect", "--max-characters", "500").stdout
    block = shown[shown.index("── ") : shown.index("\n\nWhen every session")]
    lines = block.splitlines()
    assert lines[0].startswith(f"── {key} (end) — ")
    assert lines[-2:] == ["    Ready commands:", lines[-1]] and lines[-1].endswith(
        f" reflect --done {key}"
    )
    assert "500 characters cannot hold more" in block, block
    [digest] = run_json("reflect", "--max-characters", "500")["digests"]
    assert digest["commands"][-1].endswith(f" reflect --done {key}")


@pytest.mark.usefixtures("seeded")
def test_a_small_size_still_shows_the_weightiest_moment_and_counts_what_it_left_out(
    run: Run, run_json: RunJson, store: Path, tmp_path: Path
) -> None:
    """fix102: each moment was costed at its quote plus ~220 characters, so at
    --max-characters 500 none was ever shown; and the text cut the insights given at
    the start without a word while the JSON listed them all. Now the weightiest moment
    is shown, shortened, and the text says how many of each it left out."""
    given = [i["id"] for i in run_json("list")]
    entries = [user("Thanks, that looks fine to me.", 1), agent("Glad to help."),
               user("No, I said never push to main: open a pull request instead, "
                    "and from now on always run the whole test suite first. " + "Really. " * 40,
                    3),
               agent("Understood, opening a pull request.")]  # fmt: skip
    queue_with(store, transcript=str(write_jsonl(tmp_path / "s.jsonl", entries)), injected=given)
    [digest] = run_json("reflect", "--max-characters", "500")["digests"]
    assert [m["message"] for m in digest["moments"]] == [3]
    assert len(digest["insights"]) == len(given)
    shown = run("reflect", "--max-characters", "500").stdout
    block = shown[shown.index("── ") : shown.index("\n\nWhen every session")]
    assert len(block) <= 500, block
    assert "message 3" in block and "“No, I said never push to main" in block
    assert f"{len(given)} insight(s) given at the start" in block, block
    assert block.splitlines()[-1].endswith(" reflect --done s-1")


@pytest.mark.usefixtures("seeded")
def test_a_moments_time_is_masked_escaped_and_bounded_as_its_quote_is(
    run: Run, run_json: RunJson, store: Path, tmp_path: Path
) -> None:
    """The time is the transcript's text too: a hand-edited or hostile line's
    ``timestamp`` holding a credential, an escape sequence or a megabyte of text was
    printed as it was, unmasked, and blew the digest's size."""
    said = user("No, don't use requests here, use httpx instead.")
    said["timestamp"] = f"\x1b]0;t\x07 {TOKEN} " + "x" * 5_000
    transcript = write_jsonl(tmp_path / "s-1.jsonl", [said, agent("Switching to httpx.")])
    queue_with(store, transcript=str(transcript))
    shown = run("reflect").stdout
    [digest] = run_json("reflect")["digests"]
    [moment] = digest["moments"]
    for text in (shown, moment["time"]):
        assert TOKEN not in text and "\x1b" not in text and "\x07" not in text
    assert moment["time"].startswith("\\u001b]0;t\\u0007") and len(moment["time"]) <= 64
    assert "• correction, message 1, \\u001b]0;t\\u0007" in shown


@pytest.mark.usefixtures("seeded")
def test_a_prompt_typed_while_the_agent_worked_is_weighed_too(
    run_json: RunJson, store: Path, tmp_path: Path
) -> None:
    """Claude Code puts the prompts a person typed while the agent worked into the
    next tool result's message, one text block each (bench/reflect/sessions/claude-code
    holds such lines, written by the real Claude Code). Only the message's first block
    was weighed, so a rule typed second was never shown."""
    queued = {
        "type": "user",
        "message": {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t", "content": "installed"},
                {"type": "text", "text": "Thanks, that's done."},
                {"type": "text", "text": "From now on, always pin versions in requirements.txt."},
            ],
        },
        "timestamp": "2026-12-01T10:00:03.000Z",
    }
    session = [user("Add requests to the project.", 1), call("pip install requests"), queued]
    transcript = write_jsonl(tmp_path / "s-1.jsonl", [*session, agent("Pinned.")])
    queue_with(store, transcript=str(transcript))
    [digest] = run_json("reflect")["digests"]
    assert [(m["kind"], m["message"], m["quote"]) for m in digest["moments"]] == [
        (PREFERENCE, 3, "From now on, always pin versions in requirements.txt.")
    ]


def test_an_insight_whose_topic_is_one_word_is_touched_by_it(
    run: Run, run_json: RunJson, store: Path, tmp_path: Path
) -> None:
    """A claim with one telling word ("Use pnpm": "use" is too short to count) can share
    at most one word with the session; two were required, so it was never touched,
    however much the session was about it."""
    run("init")
    added = run_json("contribute", "--type", "skill", "--claim", "Use pnpm", "--confidence", "0.8")
    given = added["insight"]["id"]
    entries = [user("Set up the frontend dependencies.", 1), call("npm install"),
               user("No, use pnpm here, not npm.", 3), agent("Switching to pnpm.")]  # fmt: skip
    queue_with(store, transcript=str(write_jsonl(tmp_path / "t.jsonl", entries)), injected=[given])
    [digest] = run_json("reflect")["digests"]
    [insight] = digest["insights"]
    assert insight["touched"] and insight["messages"] == [3, 4]
    assert f" reinforce {given} --source 'session s-1, message 3'" in "\n".join(digest["commands"])


@pytest.mark.usefixtures("seeded")
def test_a_password_said_with_is_and_a_colon_is_masked(
    run: Run, run_json: RunJson, store: Path, tmp_path: Path
) -> None:
    """A password said "the password is Xk9…" was masked, "the password is: Xk9…" (as
    people type it in a chat) was quoted whole; the write guard, the same detector, let
    it in too."""
    value = "Xk9mQ2vL7pR4wZ8t!"
    said = f"No, don't hard-code it: the staging password is: {value} Use the env var instead."
    transcript = write_jsonl(tmp_path / "s-1.jsonl", [user(said, 1), agent("Using the env var.")])
    queue_with(store, transcript=str(transcript))
    [digest] = run_json("reflect")["digests"]
    [moment] = digest["moments"]
    assert value not in moment["quote"] and "[redacted password or secret]" in moment["quote"]
    assert value not in run("reflect").stdout
    refused = run("contribute", "--type", "skill", "--claim", said, "--confidence", "0.5", expect=1)
    assert "password or secret" in refused.stderr


@pytest.mark.usefixtures("seeded")
@pytest.mark.parametrize(
    "lesson",
    [
        "No, don't just add retries. Fix the timeout handling in the client instead.",
        "From now on, always read the logs before you change any code.",
    ],
)
def test_a_cue_after_a_pasted_log_is_quoted_from_its_sentence(
    run_json: RunJson, store: Path, tmp_path: Path, lesson: str
) -> None:
    """A person pastes what they saw, then says what to do: the quote (300 characters)
    starts at the sentence whose cue phrase made it a moment, not at the paste."""
    log = "\n".join(f"10:00:{i:02d} ERROR worker-{i}: /api/orders timed out" for i in range(12))
    pasted = user(f"Here is last night's log:\n{log}\n\n{lesson}", 2)
    said = [user("The order sync keeps timing out."), agent("I added a retry loop."), pasted]
    queue_with(store, transcript=str(write_jsonl(tmp_path / "s-1.jsonl", said)))
    [digest] = run_json("reflect")["digests"]
    [moment] = digest["moments"]
    assert moment["message"] == 3 and moment["quote"] == f"… {lesson}"


@pytest.mark.usefixtures("seeded")
def test_what_a_person_says_after_a_long_paste_is_read(
    run_json: RunJson, store: Path, tmp_path: Path
) -> None:
    """A message longer than what a turn keeps (a pasted log, then the instruction):
    its end is read too, since that is where the person says what to do."""
    log = "\n".join(
        f"10:00:{i % 60:02d} ERROR worker-{i}: /api/orders timed out" for i in range(90)
    )
    lesson = "Don't just add retries. Fix the timeout handling in the client instead."
    pasted = user(f"Here is last night's log:\n{log}\n\n{lesson} {TOKEN}", 2)
    said = [user("The order sync keeps timing out."), agent("I added a retry loop."), pasted]
    queue_with(store, transcript=str(write_jsonl(tmp_path / "s-1.jsonl", said)))
    [digest] = run_json("reflect")["digests"]
    [moment] = digest["moments"]
    assert moment["kind"] == CORRECTION and moment["message"] == 3
    assert moment["quote"] == f"… {lesson} [redacted GitHub token]"


PYTEST_RED = """Exit code 1
============================= test session starts ==============================
platform linux -- Python 3.11.7, pytest-8.3.3
collected 3 items

tests/test_app.py F..

=================================== FAILURES ===================================
___________________________________ test_sum ___________________________________
>       assert total([1, 2]) == 3
E       assert 2 == 3
=========================== short test summary info ============================
FAILED tests/test_app.py::test_sum - assert 2 == 3
========================= 1 failed, 2 passed in 0.02s ========================="""
TRACEBACK = """Exit code 1
Traceback (most recent call last):
  File "/w/app.py", line 1, in <module>
    import requests
ModuleNotFoundError: No module named 'requests'"""


@pytest.mark.usefixtures("seeded")
@pytest.mark.parametrize(
    ("output", "telling"),
    [
        (PYTEST_RED, "Exit code 1: FAILED tests/test_app.py::test_sum - assert 2 == 3"),
        (TRACEBACK, "Exit code 1: ModuleNotFoundError: No module named 'requests'"),
    ],
)
def test_a_recovery_quotes_the_line_that_says_what_failed(
    run_json: RunJson, store: Path, tmp_path: Path, output: str, telling: str
) -> None:
    """A failing test run or a Python traceback starts with a banner; the recovery
    quotes the line that says what failed, not the banner."""
    said = [user("Run the checks."), call("python3 app.py", "a"), result(output, True, "a"),
            call("python3 -m app", "b"), result("ok", call_id="b")]  # fmt: skip
    queue_with(store, transcript=str(write_jsonl(tmp_path / "s-1.jsonl", said)))
    [digest] = run_json("reflect")["digests"]
    [moment] = digest["moments"]
    assert moment["kind"] == RECOVERY and moment["quote"] == f"Bash: python3 app.py → {telling}"
