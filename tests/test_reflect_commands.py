"""The ready commands of `chitin reflect` run as they are, from where the agent runs
them: the chitin its shell can start (by path when chitin is not on its PATH) and the
store the markers are in (`--store`, when its shell would find another), as the
closing instructions of PERSONALITY.md name them (issue 24)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import Run, chitin_program, commit_count

TURNS = [
    {"type": "user", "message": {"role": "user", "content": "No, don't use sleep() in tests."}},
    {"type": "user", "message": {"role": "user", "content": "From now on, always run ruff."}},
]


def chitin(program: str, cwd: Path, path: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": path, "CHITIN_BACKGROUND_EMBED": "off"}
    return subprocess.run(
        [program, *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )


def queued(tmp_path: Path, program: str) -> Path:
    """A store (its path has a space) with one ended session waiting for reflection."""
    store = tmp_path / "my store"
    chitin(program, tmp_path, "/usr/bin:/bin", "--store", str(store), "init", "--seed")
    transcript = tmp_path / "s-1.jsonl"
    transcript.write_text("".join(json.dumps(turn) + "\n" for turn in TURNS))
    marker = {"sessionKey": "s-1", "timestamp": "2026-12-01T11:00:00.000Z", "reason": "end"}
    queue = store / ".chitin" / "reflections.json"
    queue.write_text(json.dumps([{**marker, "transcript": str(transcript)}]))
    return store


def digest(program: str, cwd: Path, path: str, store: Path) -> dict[str, Any]:
    shown = chitin(program, cwd, path, "--store", str(store), "reflect", "--format", "json")
    [made] = json.loads(shown.stdout)["digests"]
    return dict(made)


def test_the_ready_commands_name_the_chitin_and_the_store_the_agent_needs(
    tmp_path: Path,
) -> None:
    program = chitin_program()
    store = queued(tmp_path, program)
    project = tmp_path / "project"
    project.mkdir()
    elsewhere = digest(program, project, "/usr/bin:/bin", store)["commands"]
    prefix = f"{program} --store {shlex.quote(str(store))} "
    assert [c.split(" --type ")[0] for c in elsewhere[:2]] == [f"{prefix}contribute"] * 2
    assert elsewhere[-1] == f"{prefix}reflect --done s-1"
    text = chitin(program, project, "/usr/bin:/bin", "--store", str(store), "reflect").stdout
    assert text.rstrip().endswith(f"{prefix}reflect --clear")
    # Run as it is, by a shell without chitin on its PATH, in the project: it works.
    ran = subprocess.run(
        ["sh", "-c", elsewhere[-1]], cwd=project, env={"PATH": "/usr/bin:/bin"}, text=True
    )
    assert ran.returncode == 0
    assert json.loads((store / ".chitin" / "reflections.json").read_text()) == []


def test_standing_in_the_store_with_chitin_on_path_the_commands_stay_short(
    tmp_path: Path,
) -> None:
    program = chitin_program()
    store = queued(tmp_path, program)
    on_path = f"{Path(program).parent}{os.pathsep}/usr/bin:/bin"
    commands = digest(program, store, on_path, store)["commands"]
    assert commands[-1] == "chitin reflect --done s-1"
    assert all(c.startswith("chitin contribute --type ") for c in commands[:-1])


def test_a_session_key_or_id_that_is_no_name_is_refused_at_the_queue(tmp_path: Path) -> None:
    """The key and id of a marker are printed in every digest and ready command: one
    holding a line break, a credential or a novel's length is refused in one line and
    queues nothing (a host's real keys and ids still queue)."""
    program = chitin_program()
    store = tmp_path / "store"
    chitin(program, tmp_path, "/usr/bin:/bin", "--store", str(store), "init")
    token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"
    for flag, value in [
        ("--session-key", f"agent:{token}"),
        ("--session-key", "agent:main\nagent:other"),
        ("--session-key", "k" * 100_000),
        ("--session-id", f"id-{token}"),
        ("--session-id", "a\u200bb"),
        ("--session-key", "agent:\udcff"),  # a byte not UTF-8: once an internal error
    ]:
        args = ["--store", str(store), "reflect", "--queue", "--reason", "new"]
        if flag == "--session-id":
            args += ["--session-key", "agent:main:main"]
        done = subprocess.run([program, *args, flag, value], capture_output=True, text=True)
        assert done.returncode == 1, (flag, value[:40], done.stdout, done.stderr)
        assert done.stderr.count("\n") == 1 and flag.lstrip("-").replace("-", " ") in done.stderr
        assert token not in done.stderr and "Traceback" not in done.stderr
    assert (
        not (store / ".chitin" / "reflections.json").exists()
        or json.loads((store / ".chitin" / "reflections.json").read_text()) == []
    )
    # A host's real keys and ids, and an id of random characters, as a host may make one.
    for key, ended in [
        ("agent:main:telegram:direct:123456789", "5b7e2f0c-3d4a-4c1e-9f55-0d5f1a2b3c4d"),
        ("agent:main:main", "Xq7bK2pL9mN4vR8tW3yZ6cF1hJ5dG0sA"),
    ]:
        chitin(program, tmp_path, "/usr/bin:/bin", "--store", str(store), "reflect", "--queue",
               "--session-key", key, "--session-id", ended, "--reason", "new")  # fmt: skip
    markers = json.loads((store / ".chitin" / "reflections.json").read_text())
    assert [m["sessionId"] for m in markers] == [
        "5b7e2f0c-3d4a-4c1e-9f55-0d5f1a2b3c4d",
        "Xq7bK2pL9mN4vR8tW3yZ6cF1hJ5dG0sA",
    ]


def test_a_transcript_path_under_home_as_claude_code_s_docs_write_it_is_read(
    tmp_path: Path,
) -> None:
    """The hooks reference shows ``"transcript_path": "~/.claude/projects/…"``: the `~`
    is the home folder of the hook's user, and a relative path is taken from the
    event's ``cwd``; either way the marker names the file, and the digest reads it."""
    program = chitin_program()
    home, project = tmp_path / "home", tmp_path / "project"
    folder = home / ".claude" / "projects" / "-project"
    folder.mkdir(parents=True)
    project.mkdir()
    for path in (folder / "s-1.jsonl", project / "s-2.jsonl"):
        path.write_text("".join(json.dumps(turn) + "\n" for turn in TURNS))
    store = tmp_path / "store"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "CHITIN_BACKGROUND_EMBED": "off"}
    subprocess.run([program, "--store", str(store), "init"], env=env, check=True)
    for session, given in (("s-1", "~/.claude/projects/-project/s-1.jsonl"), ("s-2", "s-2.jsonl")):
        hook = {"session_id": session, "transcript_path": given, "cwd": str(project),
                "hook_event_name": "SessionEnd", "reason": "other"}  # fmt: skip
        subprocess.run([program, "--store", str(store), "hooks", "run", "claude-code", "reflect"],
                       input=json.dumps(hook), env=env, text=True, check=True)  # fmt: skip
    shown = subprocess.run([program, "--store", str(store), "reflect", "--format", "json"],
                           env=env, capture_output=True, text=True, check=True)  # fmt: skip
    digests = json.loads(shown.stdout)["digests"]
    assert [d["source"] for d in digests] == [
        str(folder / "s-1.jsonl"),
        str(project / "s-2.jsonl"),
    ]
    assert [(d["warning"], len(d["moments"])) for d in digests] == [(None, 2), (None, 2)]


@pytest.mark.parametrize(
    "cwd", [None, 7, ["/x"], "project"], ids=["none", "number", "list", "relative"]
)
def test_a_relative_transcript_path_without_a_usable_cwd_queues_nothing(
    tmp_path: Path, cwd: object
) -> None:
    """fix102: an event whose ``cwd`` is missing, not a string or not absolute, with a
    relative ``transcript_path``: the path was taken from the folder the hook process
    ran in, which nothing ties to the session (a hook runner's own folder, say), so the
    marker could name another session's file of that name. Now the path is not guessed
    at: the real hook command queues nothing and says why in one line, exit 0."""
    program = chitin_program()
    home, project = tmp_path / "home", tmp_path / "project"
    for folder in (home, project):
        folder.mkdir(exist_ok=True)
    (project / "s-3.jsonl").write_text("".join(json.dumps(turn) + "\n" for turn in TURNS))
    store = tmp_path / "store"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "CHITIN_BACKGROUND_EMBED": "off"}
    subprocess.run([program, "--store", str(store), "init"], env=env, check=True)
    hook: dict[str, object] = {"session_id": "s-3", "transcript_path": "s-3.jsonl",
                               "hook_event_name": "SessionEnd", "reason": "other"}  # fmt: skip
    if cwd is not None:
        hook["cwd"] = cwd
    done = subprocess.run([program, "--store", str(store), "hooks", "run", "claude-code",
                           "reflect"], input=json.dumps(hook), env=env, text=True,
                          capture_output=True, cwd=project)  # fmt: skip
    assert (done.returncode, done.stdout) == (0, ""), done.stderr
    [line] = done.stderr.splitlines()
    assert "relative" in line and "cwd" in line and "nothing was queued" in line, line
    shown = subprocess.run([program, "--store", str(store), "reflect", "--format", "json"],
                           env=env, capture_output=True, text=True, check=True)  # fmt: skip
    assert json.loads(shown.stdout)["pending"] == []


def test_a_cleared_queue_offers_no_command_that_needs_its_markers(tmp_path: Path) -> None:
    """qa60: `reflect --clear` shows the digests, then empties the queue, yet its ready
    commands ended with `reflect --done s-1` (which then fails: "no pending reflection
    on session 's-1'") and its text closed with "When every session is reflected on:
    chitin reflect --clear", as if nothing had been cleared. The contribute commands
    stay: they still record what the session taught."""
    program = chitin_program()
    store = queued(tmp_path, program)
    on_path = f"{Path(program).parent}{os.pathsep}/usr/bin:/bin"
    shown = chitin(program, store, on_path, "reflect", "--clear", "--format", "json")
    [made] = json.loads(shown.stdout)["digests"]
    assert made["commands"] and all(" contribute " in f" {c} " for c in made["commands"])
    (tmp_path / "again").mkdir()
    store2 = queued(tmp_path / "again", program)
    text = chitin(program, store2, on_path, "reflect", "--clear").stdout
    assert "reflect --done" not in text and "When every session" not in text, text
    assert "✓ Cleared pending reflections." in text
    assert "chitin contribute --type " in text


def test_a_contribute_skeleton_run_as_it_is_writes_nothing(
    run: Run, store: Path, tmp_path: Path
) -> None:
    """The digest's `contribute … --claim "…"` is a skeleton: the claim is the agent's to
    write. Run as it was shown, it stored an insight whose claim is "…" (and the next
    one was refused as "already known", pointing the agent at reinforcing it)."""
    run("init")
    said = {"type": "user", "message": {"role": "user", "content": "No, use httpx instead."}}
    transcript = tmp_path / "s.jsonl"
    transcript.write_text(json.dumps(said) + "\n")
    run("reflect", "--queue", "--session-key", "s-1", "--reason", "end",
        "--transcript", str(transcript))  # fmt: skip
    [digest] = json.loads(run("reflect", "--format", "json").stdout)["digests"]
    [skeleton] = [c for c in digest["commands"] if " contribute " in c]
    before = commit_count(store)
    refused = run(*shlex.split(skeleton)[1:], expect=1)
    assert refused.stderr.startswith('Error: claim is "…", the placeholder')
    assert len(refused.stderr.strip().splitlines()) == 1
    assert (
        commit_count(store) == before and json.loads(run("list", "--format", "json").stdout) == []
    )
