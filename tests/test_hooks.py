"""The agent hooks, each run as its host runs it: OpenClaw's handler under node, Claude
Code's commands through bash, with the installed chitin on PATH."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from conftest import Run

from chitin.cli import cli

NODE = shutil.which("node")
BASH = shutil.which("bash") or "/bin/bash"
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")

RunJson = Callable[..., Any]


def chitin_dir() -> Path:
    beside = Path(sys.executable).parent / "chitin"
    found = str(beside) if beside.exists() else shutil.which("chitin")
    assert found, "the chitin console script is not installed (pip install -e .)"
    return Path(found).parent


@pytest.fixture
def seeded(run: Run, run_json: RunJson) -> list[str]:
    """A store with the starter insights; their claims."""
    run("init", "--seed")
    return [insight["claim"] for insight in run_json("list")]


@pytest.fixture
def host_env(store: Path) -> dict[str, str]:
    """The environment a host gives its hooks: the installed chitin on PATH, the store."""
    return {
        **os.environ,
        "PATH": f"{chitin_dir()}{os.pathsep}{os.environ.get('PATH', '')}",
        "CHITIN_STORE": str(store),
    }


def fake_chitin(folder: Path, script: str) -> Path:
    """A stand-in `chitin` (a shell script) in ``folder``; returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    program = folder / "chitin"
    program.write_text("#!/bin/sh\n" + script + "\n")
    program.chmod(program.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return folder


# ================================================================ OpenClaw

DRIVER = """\
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [handlerPath, eventPath, times, fresh] = process.argv.slice(2);
const { default: handler } = await import(pathToFileURL(handlerPath).href);
const event = JSON.parse(readFileSync(eventPath, "utf8"));
event.timestamp = new Date();
event.messages = [];
const given = event.context?.bootstrapFiles;
let threw = null;
const lists = [];
for (let n = 0; n < Number(times); n++) {
  // "fresh": a new copy of the list on every run, as the real OpenClaw does
  if (fresh === "fresh" && Array.isArray(given)) event.context.bootstrapFiles = [...given];
  try {
    await handler(event);
  } catch (error) {
    threw = String(error);
  }
  lists.push(event.context?.bootstrapFiles ?? null);
}
const bootstrapFiles = event.context?.bootstrapFiles ?? null;
process.stdout.write(JSON.stringify({ bootstrapFiles, threw, lists }));
"""


@pytest.fixture
def openclaw_handler(tmp_path: Path) -> Path:
    """The handler that `chitin hooks install openclaw --dir` wrote, with no store bound
    (the host's $CHITIN_STORE chooses it)."""
    hooks = str(tmp_path / "openclaw-hooks")
    Path(hooks).mkdir()
    assert CliRunner().invoke(cli, ["hooks", "install", "openclaw", "--dir", hooks]).exit_code == 0
    return tmp_path / "openclaw-hooks" / "chitin" / "hooks" / "chitin" / "handler.js"


@pytest.fixture
def call_handler(
    openclaw_handler: Path, tmp_path: Path, host_env: dict[str, str]
) -> Callable[..., dict[str, Any]]:
    """Call the installed handler with ``event`` under node, as the gateway would."""
    driver = tmp_path / "driver.mjs"
    driver.write_text(DRIVER)

    def call(
        event: dict[str, Any],
        env: dict[str, str] | None = None,
        times: int = 1,
        stderr: list[str] | None = None,
        fresh: bool = False,
    ) -> dict[str, Any]:
        event_file = tmp_path / "event.json"
        event_file.write_text(json.dumps(event))
        assert NODE is not None
        args = [str(openclaw_handler), str(event_file), str(times), "fresh" if fresh else ""]
        result = subprocess.run(
            [NODE, str(driver), *args],
            capture_output=True,
            text=True,
            env={**host_env, **(env or {})},
            timeout=20,  # generous: a hook that hangs fails here
        )
        assert result.returncode == 0, result.stderr
        if stderr is not None:
            stderr.append(result.stderr)
        found: dict[str, Any] = json.loads(result.stdout)
        if not fresh:
            del found["lists"]
        return found

    return call


def bootstrap_event(workspace: Path, files: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    key = "agent:main:telegram:42"
    return {
        "type": "agent",
        "action": "bootstrap",
        "sessionKey": key,
        "context": {
            "workspaceDir": str(workspace),
            "bootstrapFiles": files if files is not None else [AGENTS_MD],
            "agentId": "main",
            "sessionKey": key,
        },
    }


AGENTS_MD = {"name": "AGENTS.md", "path": "/ws/AGENTS.md", "content": "x", "missing": False}


@needs_node
def test_bootstrap_adds_personality_md(
    call_handler: Callable[..., dict[str, Any]], seeded: list[str], tmp_path: Path
) -> None:
    workspace = tmp_path / "workspace" / "billing-service"
    files = call_handler(bootstrap_event(workspace))["bootstrapFiles"]
    assert files[0] == AGENTS_MD and len(files) == 2
    added = files[1]
    assert added["name"] == "PERSONALITY.md" and added["missing"] is False
    assert added["path"] == str(workspace / "PERSONALITY.md")
    content = added["content"]
    assert content.startswith("<!-- Generated by chitin")
    assert "agent: main, telegram chat, workspace billing-service" in content  # the query
    assert sum(claim in content for claim in seeded) >= 3


@needs_node
def test_bootstrap_twice_adds_one_personality_md(
    call_handler: Callable[..., dict[str, Any]], seeded: list[str], tmp_path: Path
) -> None:
    files = call_handler(bootstrap_event(tmp_path / "ws"), times=2)["bootstrapFiles"]
    assert [f["name"] for f in files] == ["AGENTS.md", "PERSONALITY.md"]


@needs_node
def test_fresh_lists_of_one_session_render_once(
    call_handler: Callable[..., dict[str, Any]], tmp_path: Path
) -> None:
    """The real OpenClaw hands the hook a new copy of its cached list on every run
    (tests/test_openclaw_host.py): each gets PERSONALITY.md, chitin runs once."""
    log = tmp_path / "calls.log"
    fake = fake_chitin(tmp_path / "fake", f'echo "$*" >> "{log}"\necho "# From the fake"')
    env = {"CHITIN_BIN": str(fake / "chitin")}
    found = call_handler(bootstrap_event(tmp_path / "ws"), env, times=3, fresh=True)
    assert [[f["name"] for f in files] for files in found["lists"]] == [
        ["AGENTS.md", "PERSONALITY.md"]
    ] * 3
    assert len(log.read_text().splitlines()) == 1


@needs_node
def test_the_duplicate_guard_comes_before_chitin_runs(
    call_handler: Callable[..., dict[str, Any]], tmp_path: Path
) -> None:
    log = tmp_path / "calls.log"
    fake = fake_chitin(tmp_path / "fake", f'echo "$*" >> "{log}"\necho "# From the fake"')
    env = {"CHITIN_BIN": str(fake / "chitin")}
    files = call_handler(bootstrap_event(tmp_path / "ws", []), env, times=3)["bootstrapFiles"]
    assert [f["content"] for f in files] == ["# From the fake\n"]
    assert log.read_text().splitlines() == [
        "render --query agent: main, telegram chat, workspace ws --budget 5000 "
        "--session agent:main:telegram:42"
    ]
    present = [{"name": "PERSONALITY.md", "path": "/p", "content": "old", "missing": False}]
    log.unlink()
    assert call_handler(bootstrap_event(tmp_path / "ws", present), env)["bootstrapFiles"] == present
    assert not log.exists()  # chitin was not even run


@needs_node
def test_bootstrap_without_a_file_list_does_nothing(
    call_handler: Callable[..., dict[str, Any]], tmp_path: Path
) -> None:
    log = tmp_path / "calls.log"
    fake = fake_chitin(tmp_path / "fake", f'echo "$*" >> "{log}"')
    event = bootstrap_event(tmp_path / "ws")
    del event["context"]["bootstrapFiles"]
    found = call_handler(event, {"CHITIN_BIN": str(fake / "chitin")})
    assert found == {"bootstrapFiles": None, "threw": None}
    assert not log.exists()


@needs_node
def test_an_empty_answer_adds_nothing(
    call_handler: Callable[..., dict[str, Any]], tmp_path: Path
) -> None:
    fake = fake_chitin(tmp_path / "fake", "echo '   '")
    found = call_handler(bootstrap_event(tmp_path / "ws"), {"CHITIN_BIN": str(fake / "chitin")})
    assert found["bootstrapFiles"] == [AGENTS_MD]


def failing_chitins(tmp_path: Path) -> dict[str, dict[str, str]]:
    """Environments in which chitin fails: it errs, it hangs, it is not there."""
    sleep = shutil.which("sleep") or "/bin/sleep"
    erring = fake_chitin(tmp_path / "erring", "echo partial output\necho boom >&2\nexit 1")
    hanging = fake_chitin(tmp_path / "hanging", f"{sleep} 60")
    empty = tmp_path / "empty-path"
    empty.mkdir()
    return {
        "exits 1": {"CHITIN_BIN": str(erring / "chitin")},
        "hangs": {"CHITIN_BIN": str(hanging / "chitin"), "CHITIN_HOOK_TIMEOUT_MS": "300"},
        "missing": {"CHITIN_BIN": str(empty / "chitin"), "PATH": str(empty)},
    }


FAILURES = ["exits 1", "hangs", "missing"]


@needs_node
@pytest.mark.parametrize("failure", FAILURES)
def test_a_failing_chitin_leaves_the_bootstrap_files_alone(
    call_handler: Callable[..., dict[str, Any]], tmp_path: Path, failure: str
) -> None:
    env = failing_chitins(tmp_path)[failure]
    found = call_handler(bootstrap_event(tmp_path / "ws"), env)
    assert found == {"bootstrapFiles": [AGENTS_MD], "threw": None}


@needs_node
def test_failures_are_logged_only_in_debug_mode(
    call_handler: Callable[..., dict[str, Any]], tmp_path: Path
) -> None:
    env = failing_chitins(tmp_path)["exits 1"]
    said: list[str] = []
    call_handler(bootstrap_event(tmp_path / "ws"), env, stderr=said)
    call_handler(bootstrap_event(tmp_path / "ws"), {**env, "CHITIN_DEBUG": "1"}, stderr=said)
    assert said[0] == ""
    assert said[1].startswith("[chitin] ") and " render failed" in said[1] and "boom" in said[1]


@needs_node
def test_the_handler_runs_the_installing_chitin_and_falls_back_to_path(
    call_handler: Callable[..., dict[str, Any]],
    openclaw_handler: Path,
    seeded: list[str],
    tmp_path: Path,
) -> None:
    """chitin.json names the chitin that installed the hook; the gateway's PATH need not
    hold it. When it is gone, `chitin` on PATH runs, and without one the hook is quiet."""
    recorded = json.loads((openclaw_handler.parent / "chitin.json").read_text())["command"]
    assert recorded == [str(chitin_dir() / "chitin")]
    bare = {"PATH": "/usr/bin:/bin"}
    found = call_handler(bootstrap_event(tmp_path / "ws"), bare)["bootstrapFiles"]
    assert [f["name"] for f in found] == ["AGENTS.md", "PERSONALITY.md"]
    gone = {"command": [str(tmp_path / "removed-venv" / "bin" / "chitin")]}
    (openclaw_handler.parent / "chitin.json").write_text(json.dumps(gone))
    log = tmp_path / "calls.log"
    fake = fake_chitin(tmp_path / "on-path", f'echo "$*" >> "{log}"\necho "# From PATH"')
    on_path = call_handler(bootstrap_event(tmp_path / "ws"), {"PATH": f"{fake}:/usr/bin:/bin"})
    assert on_path["bootstrapFiles"][-1]["content"].startswith("# From PATH")
    quiet = call_handler(bootstrap_event(tmp_path / "ws"), bare)
    assert quiet == {"bootstrapFiles": [AGENTS_MD], "threw": None}


@needs_node
@pytest.mark.parametrize("failure", FAILURES)
def test_a_failing_chitin_does_not_break_new_or_reset(
    call_handler: Callable[..., dict[str, Any]], tmp_path: Path, failure: str
) -> None:
    env = {**failing_chitins(tmp_path)[failure], "CHITIN_DEBUG": "1"}
    event = {"type": "command", "action": "reset", "sessionKey": "k", "context": {}}
    assert call_handler(event, env)["threw"] is None


@needs_node
@pytest.mark.parametrize("action", ["new", "reset"])
def test_new_and_reset_queue_a_reflection(
    call_handler: Callable[..., dict[str, Any]],
    seeded: list[str],
    run_json: RunJson,
    action: str,
) -> None:
    event = {"type": "command", "action": action, "sessionKey": "agent:main:discord:7"}
    event["context"] = {"commandSource": "discord"}
    call_handler(event)
    [marker] = run_json("reflect")["pending"]
    assert marker["sessionKey"] == "agent:main:discord:7" and marker["reason"] == action


@needs_node
def test_a_command_naming_no_session_queues_nothing_and_says_why_in_the_debug_log(
    call_handler: Callable[..., dict[str, Any]], seeded: list[str], run_json: RunJson
) -> None:
    """No key, no id, no file: a marker "unknown" with nothing to digest, which pushed
    a real one out of the ten the queue keeps."""
    said: list[str] = []
    call_handler({"type": "command", "action": "new", "context": {}},
                 env={"CHITIN_DEBUG": "1"}, stderr=said)  # fmt: skip
    assert run_json("reflect")["pending"] == []
    assert "names no session" in said[0] and "nothing queued" in said[0], said


@needs_node
@pytest.mark.parametrize(
    "event",
    [
        {"type": "command", "action": "stop", "sessionKey": "k", "context": {}},
        {"type": "session", "action": "compact:before", "sessionKey": "k", "context": {}},
        {"type": "agent", "action": "bootstrap", "sessionKey": "k"},
    ],
    ids=["command:stop", "session:compact", "bootstrap-without-context"],
)
def test_other_events_are_ignored(
    call_handler: Callable[..., dict[str, Any]], tmp_path: Path, event: dict[str, Any]
) -> None:
    log = tmp_path / "calls.log"
    fake = fake_chitin(tmp_path / "fake", f'echo "$*" >> "{log}"')
    assert call_handler(event, {"CHITIN_BIN": str(fake / "chitin")})["threw"] is None
    assert not log.exists()


def test_the_hook_pack_declares_itself_to_openclaw(openclaw_handler: Path) -> None:
    folder = openclaw_handler.parent
    head = (folder / "HOOK.md").read_text().split("---\n")[1]
    front = yaml.safe_load(head)
    assert front["name"] == "chitin" and front["description"]
    for key in ("openclaw", "clawdbot"):
        meta = front["metadata"][key]
        assert meta["emoji"] == "🦞"
        assert meta["events"] == [
            "agent:bootstrap",
            "command:new",
            "command:reset",
            "session:auto-reset",
        ]
        assert "requires" not in meta  # chitin need not be on the gateway's PATH
    # OpenClaw's frontmatter reader wants metadata as JSON on one line.
    [line] = [line for line in head.splitlines() if line.startswith("metadata:")]
    json.loads(line.removeprefix("metadata:"))
    package = json.loads((folder.parent.parent / "package.json").read_text())
    assert package["type"] == "module"  # handler.js is an ES module
    assert package["openclaw"] == {"hooks": ["./hooks/chitin"]}  # as `plugins install` wants
    handler = openclaw_handler.read_text()
    assert "execSync" not in handler and "Personal/chitin" not in handler
    assert "export default" in handler


def test_installing_openclaw_again_changes_nothing(
    run: Run, run_json: RunJson, tmp_path: Path, store: Path
) -> None:
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    first = run_json("hooks", "install", "openclaw", "--dir", str(hooks))
    path = str(hooks / "chitin")
    assert first == {"host": "openclaw", "action": "installed", "path": path, "store": str(store)}
    stamps = {p: p.stat().st_mtime_ns for p in (hooks / "chitin").rglob("*") if p.is_file()}
    assert len(stamps) == 4
    again = run("hooks", "install", "openclaw", "--dir", str(hooks)).stdout
    assert "already installed" in again and "nothing changed" in again
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps


def test_installing_openclaw_repairs_a_changed_file(run_json: RunJson, tmp_path: Path) -> None:
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    run_json("hooks", "install", "openclaw", "--dir", str(hooks))
    handler = hooks / "chitin" / "hooks" / "chitin" / "handler.js"
    shipped = handler.read_text()
    handler.write_text("// edited\n")
    assert run_json("hooks", "install", "openclaw", "--dir", str(hooks))["action"] == "updated"
    assert handler.read_text() == shipped


def test_uninstalling_openclaw_removes_only_our_files(run_json: RunJson, tmp_path: Path) -> None:
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    run_json("hooks", "install", "openclaw", "--dir", str(hooks))
    (hooks / "chitin" / "notes.txt").write_text("mine")
    (hooks / "other-hook").mkdir()
    assert run_json("hooks", "uninstall", "openclaw", "--dir", str(hooks))["action"] == "removed"
    assert sorted(p.name for p in (hooks / "chitin").iterdir()) == ["notes.txt"]
    (hooks / "chitin" / "notes.txt").unlink()
    run_json("hooks", "install", "openclaw", "--dir", str(hooks))
    run_json("hooks", "uninstall", "openclaw", "--dir", str(hooks))
    assert sorted(p.name for p in hooks.iterdir()) == ["other-hook"]
    again = run_json("hooks", "uninstall", "openclaw", "--dir", str(hooks))
    assert again["action"] == "absent"


def test_the_default_openclaw_folder_is_in_the_home(run: Run, tmp_path: Path) -> None:
    run("hooks", "install", "openclaw")
    pack = tmp_path / "home" / ".openclaw" / "hooks" / "chitin"
    assert (pack / "hooks" / "chitin" / "handler.js").is_file()


# ================================================================ Claude Code

SOMEONE_ELSES = {
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test)"]},
    "hooks": {
        "SessionStart": [
            {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}
        ],
        "PreCompact": [
            {"matcher": "manual", "hooks": [{"type": "command", "command": "./save.sh"}]}
        ],
        "PostToolUse": [
            {"matcher": "Write", "hooks": [{"type": "command", "command": "prettier -w"}]}
        ],
    },
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project whose .claude/settings.json already holds someone else's hooks."""
    folder = tmp_path / "billing-service"
    (folder / ".claude").mkdir(parents=True)
    (folder / ".claude" / "settings.json").write_text(json.dumps(SOMEONE_ELSES, indent=2))
    return folder


# The chitin the hooks run: the one installing them, by absolute path.
CHITIN = str(chitin_dir() / "chitin")


def settings_of(project: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((project / ".claude" / "settings.json").read_text())
    return loaded


def our_commands(settings: dict[str, Any]) -> dict[str, list[str]]:
    return {
        event: [
            hook["command"]
            for group in groups
            for hook in group["hooks"]
            if " hooks run claude-code " in hook["command"]
        ]
        for event, groups in settings["hooks"].items()
    }


def test_install_keeps_everything_that_was_there(
    run_json: RunJson, project: Path, store: Path
) -> None:
    done = run_json("hooks", "install", "claude-code", "--dir", str(project))
    assert done["action"] == "installed"
    settings = settings_of(project)
    assert settings["model"] == "opus" and settings["permissions"] == SOMEONE_ELSES["permissions"]
    hooks = settings["hooks"]
    for event, groups in SOMEONE_ELSES["hooks"].items():
        assert hooks[event][: len(groups)] == groups  # theirs first, untouched
    program = f"{CHITIN} --store {store}"  # the store named at install (issue 28)
    assert our_commands(settings) == {
        "SessionStart": [f"{program} hooks run claude-code session-start || true"],
        "PreCompact": [f"{program} hooks run claude-code reflect || true"],
        "PostToolUse": [],
        "SessionEnd": [f"{program} hooks run claude-code reflect || true"],
    }
    ours = hooks["SessionStart"][-1]
    assert ours["matcher"] == "startup|resume|clear|compact"
    assert all(isinstance(h["timeout"], int) for g in hooks["SessionEnd"] for h in g["hooks"])
    text = (project / ".claude" / "settings.json").read_text()
    assert text.startswith('{\n  "model": "opus",\n') and text.endswith("}\n")


def test_installing_again_changes_nothing(run: Run, project: Path) -> None:
    run("hooks", "install", "claude-code", "--dir", str(project))
    before = (project / ".claude" / "settings.json").read_bytes()
    again = run("hooks", "install", "claude-code", "--dir", str(project)).stdout
    assert "already installed" in again
    assert (project / ".claude" / "settings.json").read_bytes() == before


def test_install_keeps_the_file_mode_and_writes_through_a_symlink(
    run: Run, project: Path, tmp_path: Path
) -> None:
    dotfiles = tmp_path / "dotfiles" / "claude-settings.json"
    dotfiles.parent.mkdir()
    (project / ".claude" / "settings.json").rename(dotfiles)
    (project / ".claude" / "settings.json").symlink_to(dotfiles)
    dotfiles.chmod(0o640)
    run("hooks", "install", "claude-code", "--dir", str(project))
    assert (project / ".claude" / "settings.json").is_symlink()
    assert "SessionEnd" in json.loads(dotfiles.read_text())["hooks"]
    assert stat.S_IMODE(dotfiles.stat().st_mode) == 0o640


def test_new_files_are_readable_like_any_other(run: Run, tmp_path: Path) -> None:
    for folder in ("p", "hooks"):
        (tmp_path / folder).mkdir()
    run("hooks", "install", "claude-code", "--dir", str(tmp_path / "p"))
    run("hooks", "install", "openclaw", "--dir", str(tmp_path / "hooks"))
    written = [tmp_path / "p" / ".claude" / "settings.json"]
    written += [p for p in (tmp_path / "hooks" / "chitin").rglob("*") if p.is_file()]
    assert {stat.S_IMODE(path.stat().st_mode) for path in written} == {0o644}


def test_an_older_install_is_updated_in_place_without_duplicates(
    run_json: RunJson, project: Path, store: Path
) -> None:
    run_json("hooks", "install", "claude-code", "--dir", str(project))
    settings = settings_of(project)
    settings["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"] = 3  # as an older chitin wrote
    settings["hooks"]["SessionEnd"].append(copy_of(settings["hooks"]["SessionEnd"][0]))
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    assert run_json("hooks", "install", "claude-code", "--dir", str(project))["action"] == "updated"
    assert our_commands(settings_of(project))["SessionEnd"] == [
        f"{CHITIN} --store {store} hooks run claude-code reflect || true"
    ]
    assert settings_of(project)["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"] > 3


def copy_of(value: Any) -> Any:
    return json.loads(json.dumps(value))


def test_uninstall_removes_only_ours(run_json: RunJson, project: Path) -> None:
    run_json("hooks", "install", "claude-code", "--dir", str(project))
    done = run_json("hooks", "uninstall", "claude-code", "--dir", str(project))
    assert done["action"] == "removed"
    assert settings_of(project) == SOMEONE_ELSES
    again = run_json("hooks", "uninstall", "claude-code", "--dir", str(project))
    assert again["action"] == "absent"


def test_install_into_a_fresh_home_and_uninstall(run_json: RunJson, tmp_path: Path) -> None:
    run_json("hooks", "install", "claude-code")
    settings_file = tmp_path / "home" / ".claude" / "settings.json"
    assert set(json.loads(settings_file.read_text())["hooks"]) == {
        "SessionStart",
        "SessionEnd",
        "PreCompact",
    }
    run_json("hooks", "uninstall", "claude-code")
    assert json.loads(settings_file.read_text()) == {}


@pytest.mark.parametrize(
    "text",
    ["{not json", "[]", '{"hooks": []}', '{"hooks": {"SessionStart": {}}}'],
    ids=["bad JSON", "an array", "hooks a list", "an event not a list"],
)
def test_a_malformed_settings_file_is_an_error_and_left_alone(
    run: Run, tmp_path: Path, text: str
) -> None:
    settings_file = tmp_path / "p" / ".claude" / "settings.json"
    settings_file.parent.mkdir(parents=True)
    settings_file.write_text(text)
    for command in ("install", "uninstall"):
        result = run("hooks", command, "claude-code", "--dir", str(tmp_path / "p"), expect=1)
        [line] = result.stderr.splitlines()
        assert line.startswith("Error: ") and str(settings_file) in line
        assert settings_file.read_text() == text


def test_an_unknown_host_is_a_usage_error(run: Run) -> None:
    result = run("hooks", "install", "windsurf", expect=2)
    assert "'openclaw', 'claude-code'" in result.stderr


def run_hook(
    command: str, project: Path, event: dict[str, Any], env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """Run a settings.json command as Claude Code does: a shell, the event on stdin."""
    return subprocess.run(
        [BASH, "-c", command],
        cwd=project,
        input=json.dumps(event),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def claude_event(name: str, project: Path, **extra: str) -> dict[str, Any]:
    return {
        "session_id": "0d5f-session",
        "transcript_path": str(project / "transcript.jsonl"),
        "cwd": str(project),
        "hook_event_name": name,
        **extra,
    }


@pytest.fixture
def commands(run: Run, project: Path) -> dict[str, str]:
    """Our command for each event, as written in settings.json."""
    run("hooks", "install", "claude-code", "--dir", str(project))
    return {event: found[0] for event, found in our_commands(settings_of(project)).items() if found}


def test_session_start_adds_the_insights_as_context(
    commands: dict[str, str], project: Path, host_env: dict[str, str], seeded: list[str]
) -> None:
    event = claude_event("SessionStart", project, source="startup")
    result = run_hook(commands["SessionStart"], project, event, host_env)
    assert result.returncode == 0, result.stderr
    output = json.loads(result.stdout)["hookSpecificOutput"]
    assert output["hookEventName"] == "SessionStart"
    context = output["additionalContext"]
    assert "coding session in the project billing-service" in context
    assert sum(claim in context for claim in seeded) >= 3


def test_session_start_after_compaction_asks_for_resuming_insights(
    commands: dict[str, str], project: Path, host_env: dict[str, str], seeded: list[str]
) -> None:
    event = claude_event("SessionStart", project, source="compact")
    result = run_hook(commands["SessionStart"], project, event, host_env)
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "the context was compacted partway through a task" in context
    assert "Re-read the task notes" in context  # the starter trigger for exactly this


@pytest.mark.parametrize(("event", "reason"), [("SessionEnd", "end"), ("PreCompact", "compact")])
def test_session_end_and_pre_compact_queue_a_reflection(
    commands: dict[str, str],
    project: Path,
    host_env: dict[str, str],
    seeded: list[str],
    run_json: RunJson,
    event: str,
    reason: str,
) -> None:
    extra = {"reason": "logout"} if event == "SessionEnd" else {"trigger": "auto"}
    result = run_hook(commands[event], project, claude_event(event, project, **extra), host_env)
    assert (result.returncode, result.stdout) == (0, "")
    [marker] = run_json("reflect")["pending"]
    assert marker["sessionKey"] == "0d5f-session" and marker["reason"] == reason


@pytest.mark.parametrize("event", ["SessionStart", "SessionEnd", "PreCompact"])
@pytest.mark.parametrize(
    "broken",
    ["echo 'Traceback: boom' >&2\nexit 2", "kill -SEGV $$"],
    ids=["exits 2", "crashes"],
)
def test_a_broken_chitin_never_blocks_claude_code(
    commands: dict[str, str], project: Path, tmp_path: Path, event: str, broken: str
) -> None:
    fake = fake_chitin(tmp_path / "broken", broken) / "chitin"
    command = commands[event].replace(CHITIN, str(fake))  # the installed chitin, broken
    result = run_hook(command, project, claude_event(event, project), dict(os.environ))
    assert (result.returncode, result.stdout) == (0, "")


@pytest.mark.parametrize("event", ["SessionStart", "SessionEnd", "PreCompact"])
def test_a_missing_chitin_never_blocks_claude_code(
    commands: dict[str, str], project: Path, tmp_path: Path, event: str
) -> None:
    """The chitin that installed the hook was removed (its virtual environment deleted)."""
    command = commands[event].replace(CHITIN, str(tmp_path / "gone" / "bin" / "chitin"))
    empty = tmp_path / "empty-path"
    empty.mkdir()
    result = run_hook(command, project, claude_event(event, project), {"PATH": str(empty)})
    assert (result.returncode, result.stdout) == (0, "")


def test_the_hooks_run_the_installing_chitin_without_it_on_path(
    run: Run, project: Path, host_env: dict[str, str], seeded: list[str], tmp_path: Path
) -> None:
    """A chitin in a virtual environment is not on an agent host's PATH."""
    run("hooks", "install", "claude-code", "--dir", str(project))
    command = our_commands(settings_of(project))["SessionStart"][0]
    assert command.startswith(f"{CHITIN} ") and Path(CHITIN).is_absolute()
    bare = {**host_env, "PATH": "/usr/bin:/bin"}
    result = run_hook(command, project, claude_event("SessionStart", project), bare)
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert sum(claim in context for claim in seeded) >= 3


def test_reflect_without_a_store_exits_0_with_one_line(run: Run, store: Path) -> None:
    stdin = json.dumps({"session_id": "s", "transcript_path": "/tmp/s.jsonl"})
    result = run("hooks", "run", "claude-code", "reflect", input=stdin)
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert "run `chitin init`" in line
    assert not store.exists()


def test_a_broken_template_gives_chitins_own_and_one_line(run: Run, store: Path) -> None:
    """The session start goes on: the store's template is set aside, and said."""
    run("init", "--seed")
    fine = json.loads(run("hooks", "run", "claude-code", "session-start", input="{}").stdout)
    (store / "templates").mkdir()
    (store / "templates" / "PERSONALITY.md").write_text("$nonsense\n")
    result = run("hooks", "run", "claude-code", "session-start", input="{}")
    assert json.loads(result.stdout) == fine
    [line] = result.stderr.splitlines()
    assert "unknown placeholder $nonsense" in line and "chitin's own template is used" in line


# json's decoder recurses once per [ or {: this raised RecursionError, an internal error
DEEP_EVENT = '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"


@pytest.mark.parametrize("stdin", ["", "not json", "[1, 2]", DEEP_EVENT], ids=str.__len__)
def test_session_start_tolerates_unreadable_input(run: Run, seeded: list[str], stdin: str) -> None:
    result = run("hooks", "run", "claude-code", "session-start", input=stdin)
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "'coding session'" in context.splitlines()[0]  # the query, in the header
    assert any(claim in context for claim in seeded)


@pytest.mark.parametrize(
    "stdin", ["", "garbage", "{}", '{"session_id": "abc"}', DEEP_EVENT], ids=str.__len__
)
def test_reflect_from_input_naming_no_transcript_queues_nothing(
    run: Run, run_json: RunJson, seeded: list[str], stdin: str
) -> None:
    result = run("hooks", "run", "claude-code", "reflect", input=stdin)
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert "the reflect hook did nothing" in line and "transcript" in line
    assert run_json("reflect")["pending"] == []


def test_session_start_without_a_store_gives_the_template_and_creates_nothing(
    run: Run, store: Path
) -> None:
    result = run("hooks", "run", "claude-code", "session-start", input="{}")
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "from an empty store" in context and "chitin contribute" in context
    assert not store.exists()


def test_check_says_when_the_chitin_a_hook_runs_is_gone(
    run: Run, store: Path, tmp_path: Path
) -> None:
    """The hooks and the merge driver stay quiet when their chitin disappears (a deleted
    virtual environment); `chitin check` tells, with the fix."""
    run("init", "--seed")
    run("hooks", "install", "claude-code")
    run("hooks", "install", "openclaw")
    assert not [line for line in run("check").stdout.splitlines() if "no longer there" in line]
    gone = str(tmp_path / "old-venv" / "bin" / "chitin")
    home = tmp_path / "home"
    settings = home / ".claude" / "settings.json"
    settings.write_text(settings.read_text().replace(CHITIN, gone))
    pack = home / ".openclaw" / "hooks" / "chitin" / "hooks" / "chitin" / "chitin.json"
    pack.write_text(json.dumps({"command": [gone], "store": str(store)}))
    subprocess.run(
        ["git", "-C", str(store), "config", "merge.chitin.driver", f"{gone} merge-driver %O"],
        check=True,
    )
    result = run("check")
    found = [line for line in result.stdout.splitlines() if "no longer there" in line]
    assert len(found) == 3, result.stdout
    assert f"{settings}: warning: chitin: the Claude Code hooks run {gone}" in found[0]
    fix = f"fix: run `chitin --store {store} hooks install claude-code` with the chitin you use"
    assert fix in found[0]
    assert "the OpenClaw hook runs" in found[1] and "git's merge driver runs" in found[2]
    assert result.stdout.splitlines()[-1].startswith("✓ ") and "3 warnings" in result.stdout
    run("hooks", "install", "claude-code")
    run("hooks", "install", "openclaw")
    run("init")
    assert "no longer there" not in run("check").stdout


@needs_node
def test_a_reset_names_the_ended_sessions_file_or_its_agent_database(
    call_handler: Callable[..., dict[str, Any]],
    seeded: list[str],
    run_json: RunJson,
    tmp_path: Path,
) -> None:
    """Issue 26: the session file OpenClaw hands over (previousSessionEntry.sessionFile)
    goes into the marker; without one, the agent's database, where it exists."""
    state = tmp_path / "oc-state"
    env = {"OPENCLAW_STATE_DIR": str(state)}
    ended = {"sessionId": "s-1", "sessionFile": str(tmp_path / "s-1.jsonl")}
    event = {"type": "command", "action": "new", "sessionKey": "agent:ops:telegram:7"}
    call_handler({**event, "context": {"previousSessionEntry": ended}}, env)
    call_handler({**event, "context": {"previousSessionEntry": {"sessionId": "s-2"}}}, env)
    database = state / "agents" / "ops" / "agent" / "openclaw-agent.sqlite"
    database.parent.mkdir(parents=True)
    database.write_bytes(b"")
    call_handler({**event, "context": {"previousSessionEntry": {"sessionId": "s-3"}}}, env)
    first, second, third = run_json("reflect")["pending"]
    assert first["transcript"] == ended["sessionFile"] and "agentDatabase" not in first
    assert "transcript" not in second and "agentDatabase" not in second
    assert third["agentDatabase"] == str(database) and third["sessionId"] == "s-3"


@needs_node
def test_a_reset_without_an_ended_session_id_still_queues_its_marker(
    call_handler: Callable[..., dict[str, Any]],
    seeded: list[str],
    run_json: RunJson,
    tmp_path: Path,
) -> None:
    """The agent's database finds a session's events by its id: where OpenClaw names no
    ended session (a /new that opens the chat, an entry without an id), the marker is
    queued as chitin 1.x queued it, without the database, rather than refused for
    naming the database with no id (`--agent-database needs --session-id`)."""
    state = tmp_path / "oc-state"
    database = state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    database.parent.mkdir(parents=True)
    database.write_bytes(b"")
    env = {"OPENCLAW_STATE_DIR": str(state)}
    event = {"type": "command", "action": "new", "sessionKey": "agent:main:main"}
    call_handler({**event, "context": {}}, env)
    call_handler({**event, "context": {"previousSessionEntry": {"updatedAt": 1}}}, env)
    call_handler({"type": "session", "action": "auto-reset", "sessionKey": "agent:main:main",
                  "context": {"reason": "idle", "sessionEntry": {}}}, env)  # fmt: skip
    pending = run_json("reflect")["pending"]
    assert [m["reason"] for m in pending] == ["new", "new", "idle"]
    assert all("agentDatabase" not in m and "sessionId" not in m for m in pending)


@pytest.mark.parametrize("linked", [False, True], ids=["a FIFO", "a link to a FIFO"])
def test_a_settings_file_that_is_a_fifo_is_refused_not_waited_on(
    tmp_path: Path, linked: bool
) -> None:
    """Reading a FIFO waits for a writer that never comes (the install hung), and the
    atomic write would have replaced what the link pointed to, /dev/null for a settings
    file linked there to keep Claude Code from reading it."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    settings_file = tmp_path / "p" / ".claude" / "settings.json"
    settings_file.parent.mkdir(parents=True)
    if linked:
        settings_file.symlink_to(fifo)
    else:
        os.mkfifo(settings_file)
    for command in ("install", "uninstall"):
        result = subprocess.run(
            [CHITIN, "--store", str(tmp_path / "store"), "hooks", command, "claude-code",
             "--dir", str(tmp_path / "p")],
            capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert result.returncode == 1, result.stderr
        [line] = result.stderr.splitlines()
        assert str(settings_file) in line and "a FIFO" in line and "nothing was written" in line
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert settings_file.is_symlink() if linked else stat.S_ISFIFO(os.lstat(settings_file).st_mode)
