"""Reflection markers as the queue files hold them, and what `reflect` makes of them:
the fields of a marker chitin did not write (a hand-edited queue, chitin 1.4.5's),
shown as safely as a digest's quotes (fix122)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
from conftest import Run, chitin_program
from mcp import Client, StdioServerParameters

TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"
SAID = {"type": "user", "message": {"role": "user", "content": "No, always run ruff first."}}


def transcript(tmp_path: Path, name: str, *lines: str) -> Path:
    path = tmp_path / name
    path.write_text("".join(line + "\n" for line in lines) or json.dumps(SAID) + "\n")
    return path


def write_markers(path: Path, markers: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(markers, indent=2) + "\n")


def prompt_text(store: Path) -> str:
    """The MCP `reflect` prompt, as a client gets it from `chitin mcp`."""
    params = StdioServerParameters(
        command=chitin_program(), args=["--store", str(store), "mcp"], env={**os.environ}
    )

    async def session() -> str:
        async with Client(params) as client:
            prompt = await client.get_prompt("reflect")
            return str(prompt.messages[0].content.text)

    return anyio.run(session)


def test_a_marker_s_fields_from_a_file_are_shown_as_the_digest_quotes(
    run: Run, store: Path, tmp_path: Path
) -> None:
    """A queue edited by hand, and 1.4.5's (whose hook wrote any key it was given),
    held a key, reason and time with an escape sequence, a bidirectional override and a
    token: the pending list, the digest's heading and commands, and the MCP prompt
    printed them as written. Now they are read as the digest's quotes are: the token
    masked, the control characters as escapes; `--done` takes the name as shown."""
    run("init")
    said = transcript(tmp_path, "s.jsonl")
    hostile = {
        "sessionKey": f"agent:\x1b]0;owned\x07:{TOKEN}",
        "timestamp": "2026-12-01T11:00:00.000Z\u202e",
        "reason": "new\x1b]8;;http://x\x07",
        "transcript": str(said),
    }
    write_markers(store / ".chitin" / "reflections.json", [hostile])
    legacy = tmp_path / "home" / ".config" / "chitin" / "pending-reflection.json"
    write_markers(legacy, [{"sessionKey": f"old\x9b2J {TOKEN}", "reason": "reset\n\x07"}])
    shown = run("reflect").stdout
    prompt = prompt_text(store)
    data = run("reflect", "--format", "json").stdout
    for text in (shown, prompt, data):
        assert TOKEN not in text and "[redacted GitHub token]" in text
    for text in (shown, prompt):
        assert not any(ch in text for ch in "\x1b\x07\x9b\u202e"), text
        assert "agent:\\u001b]0;owned\\u0007:[redacted GitHub token]" in text
        assert "new\\u001b]8;;http://x\\u0007" in text
        assert "old\\u009b2J [redacted GitHub token]" in text and "reset \\u0007" in text
    assert "2026-12-01T11:00:00.000Z\\u202e" in shown
    [made] = [d for d in json.loads(data)["digests"] if d["source"]]
    done = made["commands"][-1].split(" reflect --done ")[1]
    assert done == "'agent:\\u001b]0;owned\\u0007:[redacted GitHub token]'"
    assert "1 marker(s) removed" in run("reflect", "--done", done.strip("'")).stdout
    left = {"sessionKey": "old\\u009b2J [redacted GitHub token]", "reason": "reset \\u0007"}
    pending = json.loads(run("reflect", "--format", "json").stdout)["pending"]
    assert pending == [{**left, "timestamp": None}]


def test_a_marker_chitin_queued_reads_back_as_it_was_queued(
    run: Run, store: Path, tmp_path: Path
) -> None:
    """What the queue checks (one line, no credential but a random-looking id, at most
    1,000 characters) is left as it is, so its `--done` still names it."""
    run("init")
    said = transcript(tmp_path, "s.jsonl")
    key, ended = "agent:main:" + "k" * 980, "Xq7bK2pL9mN4vR8tW3yZ6cF1hJ5dG0sA"
    run("reflect", "--queue", "--session-key", key, "--session-id", ended, "--reason", "end",
        "--transcript", str(said))  # fmt: skip
    [marker] = json.loads(run("reflect", "--format", "json").stdout)["pending"]
    assert (marker["sessionKey"], marker["sessionId"]) == (key, ended)
    assert "1 marker(s) removed" in run("reflect", "--done", ended).stdout


def test_a_transcript_s_warning_is_said_once_in_text_and_in_json(
    run: Run, store: Path, tmp_path: Path
) -> None:
    """A transcript with a garbled line: text mode said its warning twice, on stderr and
    in the digest on stdout (which the reflecting agent reads), and JSON on stderr beside
    the digest's "warning". Now it is said once, in the digest, in both (as the MCP
    tool answers): stderr says it only when a digest cut to its size left it out."""
    run("init")
    garbled = transcript(tmp_path, "s.jsonl", json.dumps(SAID), "garbled{{{")
    run("reflect", "--queue", "--session-key", "k", "--reason", "end",
        "--transcript", str(garbled))  # fmt: skip
    said = f"{garbled}: 1 line(s) not JSON skipped"
    shown = run("reflect")
    assert (shown.stdout + shown.stderr).count(said) == 1 and shown.stderr == ""
    assert f"    warning: {said}\n" in shown.stdout
    data = run("reflect", "--format", "json")
    assert data.stderr == "" and json.loads(data.stdout)["digests"][0]["warning"] == said
    other = transcript(tmp_path, "t.jsonl", json.dumps(SAID), "garbled{{{")
    long = "agent:" + "k" * 990  # its heading and --done alone overflow 500 characters
    run("reflect", "--queue", "--session-key", long, "--reason", "end",
        "--transcript", str(other))  # fmt: skip
    small = run("reflect", "--max-characters", "500")
    cut = f"{other}: 1 line(s) not JSON skipped"
    assert (small.stdout + small.stderr).count(said) == 1 and said in small.stdout
    assert cut not in small.stdout and small.stderr == f"warning: {cut}\n"


def test_done_clears_every_marker_of_the_transcript_it_names(
    run: Run, store: Path, tmp_path: Path
) -> None:
    """Markers with different keys for one transcript (a compaction, then the end, as
    a host keyed them; one in 1.4.5's queue too) are digested once, by the newest's
    name; `--done` on that name left the others queued, so the next `reflect` showed
    the same session again. It now clears every marker of that transcript."""
    run("init")
    said, other = transcript(tmp_path, "s.jsonl"), transcript(tmp_path, "t.jsonl")
    for key, ended, events in [("agent:main:main", "s-1", said), ("chat-9", None, said),
                               ("else", None, other)]:  # fmt: skip
        named = ["--session-id", ended] if ended else []
        run("reflect", "--queue", "--session-key", key, *named, "--reason", "compact",
            "--transcript", str(events))  # fmt: skip
    legacy = tmp_path / "home" / ".config" / "chitin" / "pending-reflection.json"
    old = {"sessionKey": "old", "timestamp": "2026-01-01T00:00:00Z", "reason": "new"}
    write_markers(legacy, [{**old, "transcript": str(said)}])
    digests = json.loads(run("reflect", "--format", "json").stdout)["digests"]
    assert [d["session"] for d in digests] == ["chat-9", "else"]
    done = run("reflect", "--done", "chat-9")
    assert done.stdout == "✓ Reflected on chat-9: 3 marker(s) removed\n"
    left = json.loads(run("reflect", "--format", "json").stdout)
    assert [m["sessionKey"] for m in left["pending"]] == ["else"]
    assert json.loads(legacy.read_text()) == []
    data = json.loads(run("reflect", "--done", "else", "--format", "json").stdout)
    assert data == {"done": "else", "removed": 1}
