"""Issue 28, items 2 and 3: the hooks keep the store named at install, for every host,
and say which; `chitin check` warns when it is gone; OpenClaw's hook backs off after a
failure, and its uninstall and next step are right."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from test_hooks import (
    BASH,
    DRIVER,
    NODE,
    bootstrap_event,
    chitin_dir,
    claude_event,
    fake_chitin,
    needs_node,
)

from chitin.cli import cli


def chitin(*args: str) -> Result:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture
def personality(tmp_path: Path) -> Path:
    """A store with one insight of its own, not the default store."""
    store = tmp_path / "personality"
    chitin("--store", str(store), "init")
    claim = "Answer the billing team in their own channel"  # a principle fills any start
    chitin("--store", str(store), "contribute", "--type", "principle", "--claim", claim,
           "--confidence", "0.9")  # fmt: skip
    return store


def session_start(project: Path, env: dict[str, str]) -> str:
    """Run the SessionStart command of project's settings.json as Claude Code does:
    a shell in the project's folder, with the host's environment."""
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    done = subprocess.run(
        [BASH, "-c", command], cwd=project, capture_output=True, text=True, env=env,
        input=json.dumps(claude_event("SessionStart", project, source="startup")), timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    context: str = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    return context


def host_env() -> dict[str, str]:
    """A host's environment: no $CHITIN_STORE of its own."""
    env = {**os.environ, "PATH": f"{chitin_dir()}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("CHITIN_STORE", None)
    return env


def test_claude_code_runs_the_store_named_at_install(personality: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    said = chitin("--store", str(personality), "hooks", "install", "claude-code",
                  "--dir", str(project)).stdout  # fmt: skip
    assert f"It uses the store at {personality}." in said
    assert "billing team" in session_start(project, host_env())
    # installed without a store: the host's chitin finds its own (here, the default)
    said = chitin("hooks", "install", "claude-code", "--dir", str(project)).stdout
    assert (
        "It uses the default store" in said
        and "--store" not in (project / ".claude" / "settings.json").read_text()
    )
    assert "billing team" not in session_start(project, host_env())


def test_the_store_you_stand_in_is_bound_too(
    personality: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(personality / "insights")
    for folder in ("oc", "p"):
        (tmp_path / folder).mkdir()
    done = json.loads(
        chitin(
            "hooks", "install", "openclaw", "--dir", str(tmp_path / "oc"), "--format", "json"
        ).stdout
    )
    assert done["store"] == str(personality)
    recorded = tmp_path / "oc" / "chitin" / "hooks" / "chitin" / "chitin.json"
    assert json.loads(recorded.read_text())["store"] == str(personality)
    monkeypatch.setenv("CHITIN_STORE", str(tmp_path / "env-store"))
    cursor = chitin("hooks", "install", "cursor", "--dir", str(tmp_path / "p"), "--format", "json")
    assert json.loads(cursor.stdout)["store"] == str(tmp_path / "env-store")


def test_check_warns_when_a_hooks_store_is_gone(personality: Path, tmp_path: Path) -> None:
    chitin("--store", str(personality), "hooks", "install", "claude-code", "--dir",
           str(tmp_path / "home"))  # fmt: skip
    chitin("--store", str(personality), "hooks", "install", "openclaw")
    assert "is no longer there" not in chitin("--store", str(personality), "check").stdout
    moved = tmp_path / "moved"
    personality.rename(moved)
    result = CliRunner().invoke(cli, ["--store", str(moved), "check"])
    found = [line for line in result.stdout.splitlines() if "chitin on the store" in line]
    assert len(found) == 2, result.stdout
    assert found[0].startswith(f"{tmp_path / 'home' / '.claude' / 'settings.json'}: warning:")
    assert f"the Claude Code hooks run chitin on the store {personality}, which is" in found[0]
    assert "fix: run `chitin --store <the store> hooks install …` again" in found[0]
    assert "the OpenClaw hook runs chitin on the store" in found[1]


def test_a_store_whose_path_holds_a_quote_is_found_again_in_claude_codes_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """shlex.quote writes a path with an apostrophe as '...'"'"'...': the entries
    chitin wrote are still its own, so a second install finds them, uninstall
    removes them and check sees their store."""
    store = tmp_path / "Mel's personality"
    chitin("--store", str(store), "init")
    project = tmp_path / "project"
    project.mkdir()
    settings = project / ".claude" / "settings.json"
    install = ("--store", str(store), "hooks", "install", "claude-code", "--dir", str(project))
    chitin(*install)
    assert "is already installed" in chitin(*install).stdout
    assert settings.read_text().count("hooks run claude-code") == 3  # one per event, not two
    command = json.loads(settings.read_text())["hooks"]["SessionStart"][0]["hooks"][0]
    assert shlex.split(command["command"])[2] == str(store)
    moved = tmp_path / "moved"
    store.rename(moved)
    monkeypatch.chdir(project)  # check reads the project's files from within it
    checked = CliRunner().invoke(cli, ["--store", str(moved), "check"]).stdout
    assert f"the Claude Code hooks run chitin on the store {store}, which is" in checked
    said = chitin("hooks", "uninstall", "claude-code", "--dir", str(project)).stdout
    assert "not installed" not in said
    assert "hooks run claude-code" not in settings.read_text()


# ================================================================ OpenClaw


def run_handler(handler: Path, tmp_path: Path, env: dict[str, str], times: int) -> str:
    """Bootstrap ``times`` sessions in one node process (one gateway); its stderr."""
    driver = tmp_path / "driver.mjs"
    driver.write_text(DRIVER)
    event = tmp_path / "event.json"
    event.write_text(json.dumps(bootstrap_event(tmp_path / "ws")))
    assert NODE is not None
    done = subprocess.run(
        [NODE, str(driver), str(handler), str(event), str(times), "fresh"],
        capture_output=True, text=True, env={**host_env(), **env}, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stderr


def installed_pack(tmp_path: Path, *options: str) -> Path:
    (tmp_path / "oc").mkdir(exist_ok=True)
    chitin(*options, "hooks", "install", "openclaw", "--dir", str(tmp_path / "oc"))
    return tmp_path / "oc" / "chitin" / "hooks" / "chitin" / "handler.js"


@needs_node
def test_openclaw_passes_the_bound_store(personality: Path, tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    fake = fake_chitin(tmp_path / "fake", f'echo "$*" >> "{log}"\necho "# From the fake"')
    handler = installed_pack(tmp_path, "--store", str(personality))
    run_handler(handler, tmp_path, {"CHITIN_BIN": str(fake / "chitin")}, 1)
    assert log.read_text().startswith(f"--store {personality} render --query ")


@needs_node
def test_a_hanging_chitin_costs_one_timeout_then_the_hook_backs_off(tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    hanging = fake_chitin(tmp_path / "hanging", f'echo "$*" >> "{log}"\nsleep 60')
    handler = installed_pack(tmp_path)
    env = {"CHITIN_BIN": str(hanging / "chitin"), "CHITIN_HOOK_TIMEOUT_MS": "300",
           "CHITIN_DEBUG": "1"}  # fmt: skip
    said = run_handler(handler, tmp_path, env, 3)
    assert len(log.read_text().splitlines()) == 1  # three turns, one run of chitin
    assert said.count("not running chitin for ") == 1
    assert "for the next 300 s" in said
    log.unlink()
    run_handler(handler, tmp_path, {**env, "CHITIN_HOOK_BACKOFF_MS": "0"}, 3)
    assert len(log.read_text().splitlines()) == 3  # no back-off: tried every turn


@needs_node
@pytest.mark.parametrize("value", ["99999999999", "1e9", "15s", "-5", "0x10"])
def test_a_bad_timeout_knob_falls_back_to_the_default(tmp_path: Path, value: str) -> None:
    """Only whole milliseconds up to setTimeout's limit: parseInt read "1e9" as 1 and
    "15s" as 15, and Node fires a longer timeout at once, so chitin was always cut off."""
    slow = fake_chitin(tmp_path / "slow", 'sleep 0.3\necho "# From the fake"')
    handler = installed_pack(tmp_path)
    env = {"CHITIN_BIN": str(slow / "chitin"), "CHITIN_HOOK_TIMEOUT_MS": value,
           "CHITIN_HOOK_BACKOFF_MS": value, "CHITIN_DEBUG": "1"}  # fmt: skip
    said = run_handler(handler, tmp_path, env, 1)
    assert "took longer" not in said and "TimeoutOverflowWarning" not in said, said


def test_the_next_step_fits_the_folder(tmp_path: Path) -> None:
    for folder in ("pack", "my packs"):
        (tmp_path / folder).mkdir()
    elsewhere = chitin("hooks", "install", "openclaw", "--dir", str(tmp_path / "pack")).stdout
    pack = tmp_path / "pack" / "chitin"
    assert f"Next: `openclaw plugins install --force {pack}`" in elsewhere
    assert "hooks enable" not in elsewhere
    # a folder with a space: the command is one to paste into a shell, so it is quoted
    spaced = chitin("hooks", "install", "openclaw", "--dir", str(tmp_path / "my packs")).stdout
    quoted = shlex.quote(str(tmp_path / "my packs" / "chitin"))
    assert f"Next: `openclaw plugins install --force {quoted}`" in spaced
    managed = chitin("hooks", "install", "openclaw").stdout
    assert "Next: `openclaw hooks enable chitin`, then restart the gateway" in managed
    assert "`openclaw agent --local` does not" in managed


def test_uninstall_removes_the_enable_entry_and_nothing_else(tmp_path: Path) -> None:
    chitin("hooks", "install", "openclaw")
    config = tmp_path / "home" / ".openclaw" / "openclaw.json"
    theirs: dict[str, Any] = {
        "agents": {"defaults": {"model": "x"}},
        "hooks": {"internal": {"enabled": True, "entries": {
            "chitin": {"enabled": True}, "session-memory": {"enabled": True}}}},
    }  # fmt: skip
    config.write_text(json.dumps(theirs))
    said = chitin("hooks", "uninstall", "openclaw").stdout
    assert said.startswith("✓ Removed the chitin hook for openclaw")
    del theirs["hooks"]["internal"]["entries"]["chitin"]
    assert json.loads(config.read_text()) == theirs
    assert not (tmp_path / "home" / ".openclaw" / "hooks" / "chitin").exists()
    again = chitin("hooks", "uninstall", "openclaw").stdout
    assert again.startswith("The chitin hook for openclaw is not installed")
    # the entry alone (the files removed by hand) still goes
    theirs["hooks"]["internal"]["entries"]["chitin"] = {"enabled": True}
    config.write_text(json.dumps(theirs))
    assert chitin("hooks", "uninstall", "openclaw").stdout.startswith("✓ Removed")
    assert "chitin" not in json.loads(config.read_text())["hooks"]["internal"]["entries"]


def test_uninstall_with_a_json5_openclaw_json_removes_the_pack_and_says_what_is_left(
    tmp_path: Path,
) -> None:
    """OpenClaw reads openclaw.json as JSON5 (comments, bare keys, trailing commas):
    chitin writes nothing over such a file, but that is no reason to keep its pack
    installed. The pack goes; the enable entry is left, and said."""
    chitin("hooks", "install", "openclaw")
    config = tmp_path / "home" / ".openclaw" / "openclaw.json"
    theirs = "// mine\n{\n  hooks: {internal: {entries: {chitin: {enabled: true}}}},\n}\n"
    config.write_text(theirs)
    said = chitin("hooks", "uninstall", "openclaw")
    assert said.stdout.startswith("✓ Removed the chitin hook for openclaw")
    assert not (tmp_path / "home" / ".openclaw" / "hooks" / "chitin").exists()
    assert config.read_text() == theirs
    assert f"warning: {config} is not plain JSON" in said.stderr
    assert "hooks.internal.entries.chitin" in said.stderr


def test_install_says_when_the_store_it_binds_is_not_a_store(tmp_path: Path) -> None:
    """A mistyped --store (or one not made yet) would give every session an empty store,
    and nothing would say so until `chitin check`: the install says it at once."""
    typo = tmp_path / "personalty"
    (tmp_path / "project").mkdir()
    said = chitin("--store", str(typo), "hooks", "install", "claude-code",
                  "--dir", str(tmp_path / "project")).stdout  # fmt: skip
    assert f"It uses the store at {typo}.\n  But there is no store at {typo} yet" in said
    assert f"run `chitin --store {typo} init`" in said
    chitin("--store", str(typo), "init")
    again = chitin("--store", str(typo), "hooks", "install", "cursor",
                   "--dir", str(tmp_path / "project")).stdout  # fmt: skip
    assert "no store" not in again


@pytest.mark.parametrize("host", ["claude-code", "openclaw", "cursor"])
def test_install_refuses_a_store_that_is_a_file(tmp_path: Path, host: str) -> None:
    """`--store FILE` was bound, with the advice to `chitin --store FILE init`, which
    fails: every other command refuses a file for a store, so the install does too,
    before it writes anything."""
    notes = tmp_path / "notes.md"
    notes.write_text("not a store\n")
    project = tmp_path / "project"
    project.mkdir()
    result = CliRunner().invoke(
        cli, ["--store", str(notes), "hooks", "install", host, "--dir", str(project)]
    )
    assert result.exit_code == 1, result.output
    assert result.stderr.splitlines() == [
        f"Error: the store path {notes} is a file, not a folder (--store and $CHITIN_STORE "
        "name the store's folder)"
    ]
    assert list(project.iterdir()) == []


def test_check_in_a_project_warns_when_its_own_hooks_store_is_gone(
    personality: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`hooks install claude-code --dir PROJECT` writes the project's settings, not the
    user's (as claude-code-mcp and cursor write its .mcp.json and .cursor/mcp.json):
    checking from that project (or a folder in it) looks at them too."""
    project = tmp_path / "billing"
    project.mkdir()
    for host in ("claude-code", "claude-code-mcp", "cursor"):
        chitin("--store", str(personality), "hooks", "install", host, "--dir", str(project))
    (project / "src").mkdir()
    monkeypatch.chdir(project / "src")
    assert "is no longer there" not in chitin("--store", str(personality), "check").stdout
    moved = tmp_path / "moved"
    personality.rename(moved)
    result = CliRunner().invoke(cli, ["--store", str(moved), "check"])
    found = [line for line in result.stdout.splitlines() if "on the store" in line]
    assert len(found) == 3, result.stdout
    files = [project / ".claude" / "settings.json", project / ".mcp.json",
             project / ".cursor" / "mcp.json"]  # fmt: skip
    assert [line.split(": warning:")[0] for line in found] == [str(f) for f in files]
    # from the home folder, its settings are the user's: said once, not twice
    chitin("--store", str(moved), "hooks", "install", "claude-code", "--dir", str(Path.home()))
    moved.rename(tmp_path / "gone")
    monkeypatch.chdir(Path.home())
    result = CliRunner().invoke(cli, ["--store", str(tmp_path / "gone"), "check"])
    assert result.stdout.count("chitin on the store") == 1, result.stdout


def test_check_in_the_folder_given_to_dir_warns_for_openclaw_and_claude_desktop(
    personality: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`hooks install openclaw --dir D` (a hooks folder of one's own) and `claude-desktop
    --dir D` write where check did not look: checking from D, or a folder in it, looks
    there as it looks at a project's files."""
    for host, folder in (("openclaw", "my-hooks"), ("claude-desktop", "desktop")):
        (tmp_path / folder).mkdir()
        chitin("--store", str(personality), "hooks", "install", host, "--dir",
               str(tmp_path / folder))  # fmt: skip
    moved = tmp_path / "moved"
    personality.rename(moved)
    pack = tmp_path / "my-hooks" / "chitin" / "hooks" / "chitin"
    for here, file in (
        (pack, pack / "chitin.json"),
        (tmp_path / "desktop", tmp_path / "desktop" / "claude_desktop_config.json"),
    ):
        monkeypatch.chdir(here)
        result = CliRunner().invoke(cli, ["--store", str(moved), "check"])
        found = [line for line in result.stdout.splitlines() if "on the store" in line]
        assert [line.split(": warning:")[0] for line in found] == [str(file)], result.stdout


def test_install_names_the_default_store_and_says_when_there_is_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Installed with no store named, the host's chitin uses the default store: the line
    names it, and, when no store is there yet, says so as for a --store that names
    none (every session would otherwise see an empty store, unannounced)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    default = tmp_path / "data" / "chitin"
    (tmp_path / "p").mkdir()
    said = chitin("hooks", "install", "claude-code", "--dir", str(tmp_path / "p")).stdout
    assert f"It uses the default store, {default} (or $CHITIN_STORE" in said
    assert f"But there is no store at {default} yet: run `chitin init`" in said
    chitin("init")
    again = chitin("hooks", "install", "cursor", "--dir", str(tmp_path / "p")).stdout
    assert f"It serves the default store, {default} (or" in again and "no store" not in again
