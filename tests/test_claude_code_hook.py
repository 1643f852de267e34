"""The Claude Code hooks as Claude Code runs them: the command that `chitin hooks install
claude-code` wrote into settings.json, run by the installed chitin through `sh -c`, with
the JSON that Claude Code's hooks reference documents on stdin.

The documented input (code.claude.com/docs/en/hooks, "Hook input"):
- every event: session_id, transcript_path, cwd, permission_mode, hook_event_name;
- SessionStart: source (startup, resume, clear, compact), and model when known;
- SessionEnd: reason (clear, resume, logout, prompt_input_exit,
  bypass_permissions_disabled, other);
- PreCompact: trigger (manual, auto) and custom_instructions (what the user typed after
  /compact; empty for auto).
The documented output of SessionStart: {"hookSpecificOutput": {"hookEventName":
"SessionStart", "additionalContext": "..."}}, on stdout and nothing else, exit 0. Hook
output strings are capped at 10,000 characters (a longer one is saved to a file and the
session sees a preview); chitin keeps its context within CLAUDE_CONTEXT_LIMIT.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import Run, chitin_program

# Claude Code's documented cap on a hook's context, and the figure chitin keeps under
# (README, Hooks: Claude Code), in UTF-16 code units as JavaScript counts them.
CLAUDE_CONTEXT_CAP = 10_000
CLAUDE_CONTEXT_LIMIT = 8_000

SESSION = "5b7e2f0c-3d4a-4c1e-9f55-0d5f1a2b3c4d"
SOURCES = ("startup", "resume", "clear", "compact")
END_REASONS = (
    "clear",
    "resume",
    "logout",
    "prompt_input_exit",
    "bypass_permissions_disabled",
    "other",
)
EVENTS = ("SessionStart", "SessionEnd", "PreCompact")

RunJson = Callable[..., Any]


def utf16_length(text: str) -> int:
    """How Claude Code (JavaScript) counts a string's characters."""
    return len(text.encode("utf-16-le")) // 2


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "code" / "billing-service"
    folder.mkdir(parents=True)
    return folder


@pytest.fixture
def commands(project: Path) -> dict[str, str]:
    """Each event's command line, as the installed chitin wrote it into settings.json."""
    done = subprocess.run(
        [chitin_program(), "hooks", "install", "claude-code", "--dir", str(project)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    found: dict[str, str] = {}
    for event, groups in settings["hooks"].items():
        [group] = groups
        [hook] = group["hooks"]
        assert hook["type"] == "command" and isinstance(hook["timeout"], int)
        found[event] = hook["command"]
    assert sorted(found) == sorted(EVENTS)
    assert settings["hooks"]["SessionStart"][0]["matcher"] == "|".join(SOURCES)
    return found


def event(name: str, project: Path, home: Path, **fields: str) -> dict[str, Any]:
    """An event as the hooks reference documents it, with the common fields."""
    return {
        "session_id": SESSION,
        "transcript_path": str(
            home / ".claude" / "projects" / "-code-billing" / f"{SESSION}.jsonl"
        ),
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": name,
        **fields,
    }


def start_event(project: Path, home: Path, source: str) -> dict[str, Any]:
    return event("SessionStart", project, home, source=source, model="claude-sonnet-4-6")


def run_command(
    command: str,
    stdin: str | bytes,
    *,
    store: Path,
    cwd: Path,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run a settings.json command line as Claude Code does: through a shell, in the
    project folder, the event on stdin. Bytes out, so that nothing is decoded away."""
    environment = {**os.environ, "CHITIN_STORE": str(store), **(env or {})}
    return subprocess.run(
        ["sh", "-c", command],
        cwd=cwd,
        input=stdin if isinstance(stdin, bytes) else stdin.encode("utf-8"),
        capture_output=True,
        env=environment,
        timeout=120,
    )


def session_context(done: subprocess.CompletedProcess[bytes]) -> str:
    """The additionalContext of a SessionStart run, after checking that stdout holds
    exactly the documented object and nothing else."""
    assert done.returncode == 0, done.stderr.decode()
    output = json.loads(done.stdout.decode("utf-8"))
    assert list(output) == ["hookSpecificOutput"]
    specific = output["hookSpecificOutput"]
    assert sorted(specific) == ["additionalContext", "hookEventName"]
    assert specific["hookEventName"] == "SessionStart"
    context = specific["additionalContext"]
    assert isinstance(context, str) and context.strip()
    assert utf16_length(context) <= CLAUDE_CONTEXT_LIMIT
    return context


def header_query(context: str) -> str:
    found = re.search(r"for the query '(.*?)' within (\d+) tokens", context.splitlines()[0])
    assert found, context.splitlines()[0]
    return found.group(1)


def header_budget(context: str) -> int:
    found = re.search(r" within (\d+) tokens", context.splitlines()[0])
    assert found, context.splitlines()[0]
    return int(found.group(1))


def assert_failed_quietly(done: subprocess.CompletedProcess[bytes], *words: str) -> None:
    """A failure: exit 0, nothing on stdout, one line on stderr saying why."""
    assert (done.returncode, done.stdout) == (0, b""), done.stderr.decode()
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1, lines
    assert "Traceback" not in lines[0]
    for word in words:
        assert word in lines[0]


@pytest.fixture
def seeded(run: Run, run_json: RunJson) -> list[str]:
    run("init", "--seed")
    return [insight["claim"] for insight in run_json("list")]


# ----------------------------------------------------------------- SessionStart


QUERY_FOR_SOURCE = {
    "startup": "coding session in the project billing-service",
    "clear": "coding session in the project billing-service",
    "resume": "coding session in the project billing-service, the session resumed "
    "partway through a task",
    "compact": "coding session in the project billing-service, the context was compacted "
    "partway through a task",
}


@pytest.mark.parametrize("source", SOURCES)
def test_session_start_gives_the_documented_output_for_every_source(
    commands: dict[str, str],
    project: Path,
    store: Path,
    tmp_path: Path,
    seeded: list[str],
    source: str,
) -> None:
    stdin = json.dumps(start_event(project, tmp_path / "home", source))
    done = run_command(commands["SessionStart"], stdin, store=store, cwd=project)
    context = session_context(done)
    assert header_query(context) == QUERY_FOR_SOURCE[source]
    assert sum(claim in context for claim in seeded) >= 3


def test_the_query_names_the_events_cwd_not_the_hooks_folder(
    commands: dict[str, str], store: Path, tmp_path: Path, seeded: list[str]
) -> None:
    """Claude Code names the project in "cwd" (a worktree, say), whatever folder the
    hook process happens to run in."""
    worktree = tmp_path / "worktrees" / "payments-api"
    worktree.mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    stdin = json.dumps(start_event(worktree, tmp_path / "home", "startup"))
    context = session_context(
        run_command(commands["SessionStart"], stdin, store=store, cwd=elsewhere)
    )
    assert header_query(context) == "coding session in the project payments-api"
    without_cwd = {k: v for k, v in json.loads(stdin).items() if k != "cwd"}
    context = session_context(
        run_command(commands["SessionStart"], json.dumps(without_cwd), store=store, cwd=elsewhere)
    )
    assert header_query(context) == "coding session"


LINE = re.compile(r"\n- \[[a-z0-9-]{4,}\] In a coding session")  # a line, after its short id


def long_insights(count: int) -> list[dict[str, Any]]:
    """Insights of about 1,300 characters each, all about coding in billing-service, each
    a lesson of its own (the same lesson twice would be one line of the context)."""
    return [
        {
            "type": ("skill", "behavioral", "principle")[n % 3],
            "claim": f"In a coding session in the project billing-service, step {n}: "
            + "; ".join(f"check case{n}x{k} in the diff" for k in range(50)),
            "confidence": 0.6 + (n % 4) / 10,
        }
        for n in range(count)
    ]


def test_the_context_stays_well_under_claude_codes_cap_at_a_large_store(
    commands: dict[str, str], project: Path, store: Path, tmp_path: Path, run: Run
) -> None:
    """15 insights of 1,300 characters would be 20,000 characters at the budget of 5,000
    tokens: twice Claude Code's cap, so the session would see a 2,000-character preview.
    The budget is lowered to what fits in CLAUDE_CONTEXT_LIMIT, template included."""
    source = tmp_path / "long.json"
    source.write_text(json.dumps(long_insights(300)))
    run("import", str(source))
    stdin = json.dumps(start_event(project, tmp_path / "home", "startup"))
    context = session_context(
        run_command(commands["SessionStart"], stdin, store=store, cwd=project)
    )
    assert utf16_length(context) <= CLAUDE_CONTEXT_LIMIT
    assert len(LINE.findall(context)) >= 3  # still worth injecting
    assert header_budget(context) <= CLAUDE_CONTEXT_LIMIT // 4
    assert "left out to fit the token budget" in context


def test_the_limit_is_the_one_the_readme_names() -> None:
    from chitin.core import claude_code

    assert (claude_code.CLAUDE_CONTEXT_CAP, claude_code.CLAUDE_CONTEXT_LIMIT) == (
        CLAUDE_CONTEXT_CAP,
        CLAUDE_CONTEXT_LIMIT,
    )


def test_a_long_store_template_lowers_the_budget_further(
    commands: dict[str, str], project: Path, store: Path, tmp_path: Path, run: Run
) -> None:
    source = tmp_path / "long.json"
    source.write_text(json.dumps(long_insights(60)))
    run("import", str(source))
    preamble = "Read these before you start; they are yours. " * 70  # 3,220 characters
    (store / "templates").mkdir()
    (store / "templates" / "PERSONALITY.md").write_text(f"$header\n\n{preamble}\n\n$insights\n")
    stdin = json.dumps(start_event(project, tmp_path / "home", "resume"))
    context = session_context(
        run_command(commands["SessionStart"], stdin, store=store, cwd=project)
    )
    assert preamble in context
    assert utf16_length(context) <= CLAUDE_CONTEXT_LIMIT
    assert header_budget(context) <= (CLAUDE_CONTEXT_LIMIT - len(preamble)) // 4
    assert LINE.search(context)


def test_a_store_template_longer_than_the_limit_gives_way_to_chitins_own(
    commands: dict[str, str], project: Path, store: Path, tmp_path: Path, run: Run
) -> None:
    """qa33: a store template of 9,000 characters alone went in whole, over the 8,000
    kept for Claude Code (a preview past 10,000), with no insight: the agent got the
    preamble and nothing it could act on. Set aside like a template that cannot be
    filled, with one warning naming it."""
    run("init", "--seed")
    preamble = "Read these before you start; they are yours. " * 200  # 9,200 characters
    (store / "templates").mkdir()
    (store / "templates" / "PERSONALITY.md").write_text(f"$header\n\n{preamble}\n\n$insights\n")
    stdin = json.dumps(start_event(project, tmp_path / "home", "startup"))
    done = run_command(commands["SessionStart"], stdin, store=store, cwd=project)
    context = session_context(done)
    assert utf16_length(context) <= CLAUDE_CONTEXT_LIMIT
    assert preamble not in context and context.count("\n- [") >= 3
    [line] = done.stderr.decode().splitlines()
    assert "templates/PERSONALITY.md" in line and "chitin's own template is used" in line


def test_wide_characters_are_counted_as_claude_code_counts_them(
    commands: dict[str, str], project: Path, store: Path, tmp_path: Path, run: Run
) -> None:
    """An emoji is one character to Python and two to JavaScript: the limit holds in
    JavaScript's count."""
    source = tmp_path / "wide.json"
    items = [
        {
            "type": "skill",
            "claim": f"Coding session in the project billing-service {n}: " + "🚀 ship it " * 120,
            "confidence": 0.9,
        }
        for n in range(40)
    ]
    source.write_text(json.dumps(items))
    run("import", str(source))
    stdin = json.dumps(start_event(project, tmp_path / "home", "startup"))
    context = session_context(
        run_command(commands["SessionStart"], stdin, store=store, cwd=project)
    )
    assert "🚀" in context and utf16_length(context) <= CLAUDE_CONTEXT_LIMIT


# ----------------------------------------------------------------- SessionEnd, PreCompact


def pending(run_json: RunJson) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = run_json("reflect")["pending"]
    return found


@pytest.mark.parametrize("reason", END_REASONS)
def test_session_end_queues_a_reflection_on_the_session(
    commands: dict[str, str],
    project: Path,
    store: Path,
    tmp_path: Path,
    seeded: list[str],
    run_json: RunJson,
    reason: str,
) -> None:
    stdin = json.dumps(event("SessionEnd", project, tmp_path / "home", reason=reason))
    done = run_command(commands["SessionEnd"], stdin, store=store, cwd=project)
    assert (done.returncode, done.stdout) == (0, b""), done.stderr.decode()
    [marker] = pending(run_json)
    assert (marker["sessionKey"], marker["reason"]) == (SESSION, "end")


@pytest.mark.parametrize(
    ("trigger", "instructions"), [("manual", "keep the names of the failing tests"), ("auto", "")]
)
def test_pre_compact_queues_a_reflection_on_the_session(
    commands: dict[str, str],
    project: Path,
    store: Path,
    tmp_path: Path,
    seeded: list[str],
    run_json: RunJson,
    trigger: str,
    instructions: str,
) -> None:
    stdin = json.dumps(
        event(
            "PreCompact",
            project,
            tmp_path / "home",
            trigger=trigger,
            custom_instructions=instructions,
        )
    )
    done = run_command(commands["PreCompact"], stdin, store=store, cwd=project)
    assert (done.returncode, done.stdout) == (0, b""), done.stderr.decode()
    [marker] = pending(run_json)
    assert (marker["sessionKey"], marker["reason"]) == (SESSION, "compact")


def test_a_session_ended_after_a_compaction_is_queued_twice(
    commands: dict[str, str],
    project: Path,
    store: Path,
    tmp_path: Path,
    seeded: list[str],
    run_json: RunJson,
) -> None:
    home = tmp_path / "home"
    compacting = event("PreCompact", project, home, trigger="auto", custom_instructions="")
    ending = event("SessionEnd", project, home, reason="prompt_input_exit")
    for name, stdin in (("PreCompact", compacting), ("SessionEnd", ending)):
        run_command(commands[name], json.dumps(stdin), store=store, cwd=project)
    assert [(m["sessionKey"], m["reason"]) for m in pending(run_json)] == [
        (SESSION, "compact"),
        (SESSION, "end"),
    ]


def test_a_session_id_json_cannot_store_is_still_queued(
    commands: dict[str, str], project: Path, store: Path, seeded: list[str], run_json: RunJson
) -> None:
    """A lone surrogate is valid JSON but no UTF-8 file can hold it."""
    stdin = (
        '{"session_id": "ab\\ud800cd", "hook_event_name": "SessionEnd", "reason": "other", '
        '"transcript_path": "/tmp/ab.jsonl"}'
    )
    done = run_command(commands["SessionEnd"], stdin, store=store, cwd=project)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    [marker] = pending(run_json)
    assert marker["sessionKey"] == "ab?cd"


def test_a_hand_edited_session_note_with_a_lone_surrogate_still_queues(
    commands: dict[str, str], project: Path, store: Path, seeded: list[str], run_json: RunJson
) -> None:
    """fix110: a session note (.chitin/sessions/) edited by hand to hold half a UTF-16
    pair (a JSON escape) made the queue's write fail: the hook's marker was lost, and
    `reflect --queue` exited 3 with an internal UnicodeEncodeError. Invalid UTF-8 in a
    note lost its ids. Both read now, the broken character as U+FFFD."""
    notes = store / ".chitin" / "sessions"
    notes.mkdir(parents=True, exist_ok=True)
    for session, body in (
        ("half", b'{"session": "half", "injected": ["lead\\udc80", "ask-one"]}'),
        ("bytes", b'{"session": "bytes", "injected": ["lead\xff", "ask-one"]}'),
    ):
        digest = hashlib.sha256(session.encode()).hexdigest()[:32]
        (notes / f"{digest}.json").write_bytes(body)
        stdin = json.dumps(
            {"session_id": session, "hook_event_name": "SessionEnd", "reason": "other",
             "transcript_path": "/tmp/ab.jsonl"}
        )  # fmt: skip
        done = run_command(commands["SessionEnd"], stdin, store=store, cwd=project)
        assert (done.returncode, done.stderr) == (0, b""), session
    markers = pending(run_json)
    assert [m["sessionKey"] for m in markers] == ["half", "bytes"]
    assert [m["injected"] for m in markers] == [["lead\ufffd", "ask-one"]] * 2


def test_a_session_id_the_queue_refuses_still_gets_its_start(
    commands: dict[str, str], project: Path, store: Path, seeded: list[str]
) -> None:
    """The session's name is checked by the queue's rule when its start is noted (qa56,
    render --session); a Claude Code session whose id it refuses keeps its context."""
    stdin = '{"session_id": "ab\\u200bcd", "hook_event_name": "SessionStart"}'
    done = run_command(commands["SessionStart"], stdin, store=store, cwd=project)
    assert done.returncode == 0
    assert json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert b"invisible character" in done.stderr and b"not noted" in done.stderr
    assert not list(store.glob(".chitin/sessions/*"))


# ----------------------------------------------------------------- failures


def stdin_for(name: str, project: Path, home: Path) -> str:
    extra = {"SessionStart": {"source": "startup"}, "SessionEnd": {"reason": "logout"}}
    fields = extra.get(name, {"trigger": "auto", "custom_instructions": ""})
    return json.dumps(event(name, project, home, **fields))


@pytest.mark.parametrize("name", EVENTS)
def test_a_store_path_that_is_a_file_fails_quietly(
    commands: dict[str, str], project: Path, tmp_path: Path, name: str
) -> None:
    a_file = tmp_path / "store-file"
    a_file.write_text("not a store\n")
    done = run_command(
        commands[name], stdin_for(name, project, tmp_path / "home"), store=a_file, cwd=project
    )
    assert_failed_quietly(done, f"the store path {a_file} is a file")
    assert a_file.read_text() == "not a store\n"


@pytest.mark.parametrize(
    "breakage",
    ["chitin.yaml", ".chitin is a file", "no git objects"],
)
@pytest.mark.parametrize("name", EVENTS)
def test_a_broken_store_never_breaks_the_session(
    commands: dict[str, str],
    project: Path,
    store: Path,
    tmp_path: Path,
    seeded: list[str],
    name: str,
    breakage: str,
) -> None:
    """Whatever is wrong with the store, the hook exits 0 and stdout holds either the
    documented object or nothing at all (then one line on stderr says why)."""
    if breakage == "chitin.yaml":
        (store / "chitin.yaml").write_text("retrieval: [unclosed\n")
    elif breakage == ".chitin is a file":
        subprocess.run(["rm", "-rf", str(store / ".chitin")], check=True)
        (store / ".chitin").write_text("")
    else:
        subprocess.run(["rm", "-rf", str(store / ".git" / "objects")], check=True)
    done = run_command(
        commands[name], stdin_for(name, project, tmp_path / "home"), store=store, cwd=project
    )
    assert done.returncode == 0
    if name == "SessionStart" and done.stdout:
        session_context(done)
    elif done.stderr.strip():
        assert_failed_quietly(done)
    else:
        assert done.stdout == b""


def test_without_a_store_session_start_gives_the_template_and_creates_nothing(
    commands: dict[str, str], project: Path, store: Path, tmp_path: Path
) -> None:
    stdin = stdin_for("SessionStart", project, tmp_path / "home")
    context = session_context(
        run_command(commands["SessionStart"], stdin, store=store, cwd=project)
    )
    assert "from an empty store" in context and "chitin contribute" in context
    assert not store.exists()


@pytest.mark.parametrize("name", ["SessionEnd", "PreCompact"])
def test_without_a_store_a_reflection_fails_quietly_and_creates_nothing(
    commands: dict[str, str], project: Path, store: Path, tmp_path: Path, name: str
) -> None:
    done = run_command(
        commands[name], stdin_for(name, project, tmp_path / "home"), store=store, cwd=project
    )
    assert_failed_quietly(done, "run `chitin init`")
    assert not store.exists()


GARBAGE: dict[str, bytes] = {
    "empty": b"",
    "not JSON": b"session started",
    "a JSON array": b'[{"session_id": "x"}]',
    "wrong types": b'{"session_id": 5, "cwd": ["/x"], "source": null}',
    "not UTF-8": b'\xff\xfe{"session_id": "x"}',
    "cut short": b'{"session_id": "5b7e", "cwd": "/code/bill',
}


# Python reads stdin strictly as UTF-8 in a locale such as en_US.UTF-8, as a person's
# Claude Code passes it on; in the C locales (all this test may find installed) it
# escapes bad bytes instead. PYTHONIOENCODING sets the strict reading either way.
UTF8_LOCALE = {"PYTHONIOENCODING": "utf-8:strict"}


@pytest.mark.parametrize("garbage", list(GARBAGE), ids=list(GARBAGE))
def test_garbage_stdin_still_gives_a_session_start_context(
    commands: dict[str, str], project: Path, store: Path, seeded: list[str], garbage: str
) -> None:
    done = run_command(
        commands["SessionStart"], GARBAGE[garbage], store=store, cwd=project, env=UTF8_LOCALE
    )
    context = session_context(done)
    assert header_query(context) == "coding session"
    assert any(claim in context for claim in seeded)


@pytest.mark.parametrize("garbage", list(GARBAGE), ids=list(GARBAGE))
@pytest.mark.parametrize("name", ["SessionEnd", "PreCompact"])
def test_garbage_stdin_queues_nothing_and_says_why(
    commands: dict[str, str],
    project: Path,
    store: Path,
    seeded: list[str],
    run_json: RunJson,
    name: str,
    garbage: str,
) -> None:
    """An event that names no transcript gives the digest nothing to read: a marker
    for it ("unknown", no transcript) only pushed real ones out of the queue."""
    done = run_command(commands[name], GARBAGE[garbage], store=store, cwd=project, env=UTF8_LOCALE)
    assert_failed_quietly(done, "reflect hook did nothing", "transcript")
    assert pending(run_json) == []


def test_junk_events_never_push_a_real_marker_out_of_the_queue(
    commands: dict[str, str],
    project: Path,
    store: Path,
    tmp_path: Path,
    seeded: list[str],
    run_json: RunJson,
) -> None:
    real = json.dumps(event("SessionEnd", project, tmp_path / "home", reason="other"))
    done = run_command(commands["SessionEnd"], real, store=store, cwd=project)
    assert done.returncode == 0, done.stderr.decode()
    no_transcript = {"session_id": "abc", "hook_event_name": "SessionEnd"}
    for junk in [b"", b"{}", json.dumps(no_transcript).encode()] * 4:
        done = run_command(commands["SessionEnd"], junk, store=store, cwd=project)
        assert_failed_quietly(done, "transcript")
    [marker] = pending(run_json)
    assert marker["sessionKey"] == SESSION


# ----------------------------------------------------------------- where the session is


def test_the_marker_names_the_transcript_and_the_insights_the_session_was_given(
    commands: dict[str, str],
    project: Path,
    store: Path,
    tmp_path: Path,
    seeded: list[str],
    run_json: RunJson,
) -> None:
    """Issue 26: SessionStart notes which insights it gave; SessionEnd's marker carries
    them, and the transcript_path Claude Code handed over (left where it is)."""
    home = tmp_path / "home"
    start = run_command(
        commands["SessionStart"], json.dumps(start_event(project, home, "startup")),
        store=store, cwd=project,
    )  # fmt: skip
    context = session_context(start)
    end = json.dumps(event("SessionEnd", project, home, reason="other"))
    assert run_command(commands["SessionEnd"], end, store=store, cwd=project).returncode == 0
    [marker] = pending(run_json)
    assert marker["transcript"] == event("SessionEnd", project, home)["transcript_path"]
    given = marker["injected"]
    claims = {i["id"]: i["claim"] for i in run_json("list")}
    assert given and set(given) <= set(claims)
    assert all(claims[i] in context for i in given)
    assert not Path(marker["transcript"]).exists()  # nothing was copied or made


def test_a_pre_compact_marker_names_the_transcript_and_an_event_without_one_is_not_queued(
    commands: dict[str, str],
    project: Path,
    store: Path,
    tmp_path: Path,
    seeded: list[str],
    run_json: RunJson,
) -> None:
    compact = event("PreCompact", project, tmp_path / "home", trigger="auto")
    bare: dict[str, Any] = {**event("SessionEnd", project, tmp_path / "h"), "transcript_path": 7}
    for sent in (compact, bare):
        done = run_command(
            commands[sent["hook_event_name"]], json.dumps(sent), store=store, cwd=project
        )
    assert_failed_quietly(done, "names no session transcript", "nothing was queued")
    [first] = pending(run_json)
    assert first["transcript"] == compact["transcript_path"]
