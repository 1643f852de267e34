"""`chitin hooks install claude-desktop | cursor | claude-code-mcp`: chitin's MCP server
entry, merged into each client's real configuration file next to what is there, and
refused (the file left byte for byte) when the file cannot be read as it should."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import Run, chitin_program

RunJson = Callable[..., Any]
CLIENTS = ("claude-desktop", "cursor", "claude-code-mcp")
# The chitin the entries run when the CLI runs in-process: the console script beside
# this interpreter, by absolute path (cli/context.py's running_chitin).
CHITIN = str(Path(sys.executable).parent / "chitin")
PROJECT_CLIENTS = ("cursor", "claude-code-mcp")  # --dir names a project

# What the clients' files hold before chitin comes: other people's servers, and keys
# that are not about servers at all.
SOMEONE_ELSES: dict[str, Any] = {
    "globalShortcut": "Ctrl+Space",
    "mcpServers": {
        "filesystem": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"],
        },
        "github": {
            "command": "docker",
            "args": ["run", "-i", "--rm", "ghcr.io/github/github-mcp-server"],
            "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_example"},
        },
    },
    "theme": "dark",
}
# ~/.claude.json holds much of Claude Code's state beside its user-scope servers.
CLAUDE_STATE: dict[str, Any] = {
    "numStartups": 41,
    "installMethod": "native",
    "projects": {
        "/home/me/code/billing": {
            "allowedTools": ["Bash(npm test)"],
            "mcpServers": {"local-db": {"type": "stdio", "command": "pg-mcp", "args": []}},
            "hasTrustDialogAccepted": True,
        }
    },
    "mcpServers": {
        "sentry": {"type": "stdio", "command": "npx", "args": ["@sentry/mcp-server"], "env": {}}
    },
    "oauthAccount": {"emailAddress": "me@example.com"},
    "tipsHistory": {"memory-command": 3},
}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"  # conftest's: $HOME, with $XDG_CONFIG_HOME=home/config


@pytest.fixture
def bare() -> Run:
    """The CLI in-process without --store (conftest's ``run`` names one): the entries
    then carry no env, as for a person who uses the default store."""
    from click.testing import CliRunner, Result

    from chitin.cli import cli

    def invoke(*args: str, expect: int | None = 0) -> Result:
        result = CliRunner().invoke(cli, list(args))
        if expect is not None:
            assert result.exit_code == expect, (result.stdout, result.stderr)
        return result

    return invoke


@pytest.fixture
def bare_json(bare: Run) -> RunJson:
    def invoke(*args: str) -> Any:
        return json.loads(bare(*args, "--format", "json").stdout)

    return invoke


def user_file(home: Path, client: str) -> Path:
    """Where the client's user-wide file is on this (Linux) machine, by hand."""
    return {
        "claude-desktop": home / "config" / "Claude" / "claude_desktop_config.json",
        "cursor": home / ".cursor" / "mcp.json",
        "claude-code-mcp": home / ".claude.json",
    }[client]


def made(folder: Path) -> Path:
    """``folder``, made: --dir names a folder that exists (a mistyped one is refused)."""
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def write_json(path: Path, data: Any, indent: int | None = 2) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=indent) + "\n")
    return path


def read_json(path: Path) -> Any:
    return json.loads(path.read_text())


def ours(client: str, command: str = CHITIN, **extra: Any) -> dict[str, Any]:
    """The entry chitin writes for ``client``: Claude Code's files say "type": "stdio",
    the documented entries of Claude Desktop and Cursor have no type."""
    entry: dict[str, Any] = {"type": "stdio"} if client == "claude-code-mcp" else {}
    return {**entry, "command": command, "args": ["mcp"], **extra}


# ================================================================ where the files are


@pytest.mark.parametrize(
    ("client", "platform", "env", "expected"),
    [
        ("claude-desktop", "darwin", {}, "Library/Application Support/Claude"),
        # macOS ignores the XDG variables: Claude Desktop keeps its Application Support.
        (
            "claude-desktop",
            "darwin",
            {"XDG_CONFIG_HOME": "/x"},
            "Library/Application Support/Claude",
        ),
        ("claude-desktop", "linux", {}, ".config/Claude"),
        ("claude-desktop", "linux", {"XDG_CONFIG_HOME": "/etc/me"}, "/etc/me/Claude"),
        # The XDG rule: a relative $XDG_CONFIG_HOME is ignored.
        ("claude-desktop", "linux", {"XDG_CONFIG_HOME": "rel/cfg"}, ".config/Claude"),
        ("cursor", "darwin", {}, ".cursor"),
        ("cursor", "linux", {"XDG_CONFIG_HOME": "/etc/me"}, ".cursor"),
        ("claude-code-mcp", "darwin", {}, ""),
        ("claude-code-mcp", "linux", {"XDG_CONFIG_HOME": "/etc/me"}, ""),
    ],
)
def test_the_user_files_on_macos_and_linux(
    client: str, platform: str, env: dict[str, str], expected: str
) -> None:
    from chitin.core import mcp_clients

    home = Path("/Users/me")
    name = {"claude-desktop": "claude_desktop_config.json", "cursor": "mcp.json"}
    path = mcp_clients.config_path(client, None, home, platform, env)
    assert path == home / expected / name.get(client, ".claude.json")


@pytest.mark.parametrize("platform", ["darwin", "linux"])
def test_dir_names_a_project_or_claude_desktops_folder(platform: str) -> None:
    from chitin.core import mcp_clients

    home, project = Path("/home/me"), Path("/work/billing")
    where = {
        client: mcp_clients.config_path(client, project, home, platform, {}) for client in CLIENTS
    }
    assert where == {
        "claude-desktop": project / "claude_desktop_config.json",
        "cursor": project / ".cursor" / "mcp.json",
        "claude-code-mcp": project / ".mcp.json",
    }


@pytest.mark.parametrize("client", CLIENTS)
def test_install_writes_the_users_file_and_creates_its_folders(
    bare_json: RunJson, home: Path, client: str
) -> None:
    path = user_file(home, client)
    assert not path.parent.exists() or client == "claude-code-mcp"
    done = bare_json("hooks", "install", client)
    assert done == {"host": client, "action": "installed", "path": str(path), "store": None}
    assert read_json(path) == {"mcpServers": {"chitin": ours(client)}}


# ================================================================ merging


Existing = tuple[str, Path, list[str]]


@pytest.fixture(params=[("claude-desktop", False), *((c, True) for c in PROJECT_CLIENTS)],
                ids=["claude-desktop", "cursor-project", "claude-code-project"])  # fmt: skip
def existing(request: pytest.FixtureRequest, tmp_path: Path, home: Path) -> Existing:
    """A client's file holding someone else's servers: (client, file, --dir option)."""
    client, in_project = request.param
    if in_project:
        project = tmp_path / "billing"
        path = project / (".cursor/mcp.json" if client == "cursor" else ".mcp.json")
        option = ["--dir", str(project)]
    else:
        path, option = user_file(home, client), []
    write_json(path, SOMEONE_ELSES)
    return client, path, option


def test_install_keeps_every_other_server_and_key_in_order(
    bare_json: RunJson, existing: tuple[str, Path, list[str]]
) -> None:
    client, path, option = existing
    done = bare_json("hooks", "install", client, *option)
    assert done == {"host": client, "action": "installed", "path": str(path), "store": None}
    data = read_json(path)
    assert list(data) == ["globalShortcut", "mcpServers", "theme"]
    assert data["globalShortcut"] == "Ctrl+Space" and data["theme"] == "dark"
    assert list(data["mcpServers"]) == ["filesystem", "github", "chitin"]
    for name, entry in SOMEONE_ELSES["mcpServers"].items():
        assert data["mcpServers"][name] == entry
    assert data["mcpServers"]["chitin"] == ours(client)


def test_installing_twice_changes_nothing(
    bare: Run, bare_json: RunJson, existing: tuple[str, Path, list[str]]
) -> None:
    client, path, option = existing
    bare_json("hooks", "install", client, *option)
    # Written compactly by hand: a rewrite, even of the same content, would show.
    write_json(path, read_json(path), indent=None)
    before, inode = path.read_bytes(), path.stat().st_ino
    again = bare("hooks", "install", client, *option).stdout
    assert "already installed" in again and "nothing changed" in again
    assert bare_json("hooks", "install", client, *option)["action"] == "unchanged"
    assert path.read_bytes() == before and path.stat().st_ino == inode


def test_an_entry_from_an_older_chitin_is_updated_where_it_stands(
    bare_json: RunJson, existing: tuple[str, Path, list[str]]
) -> None:
    client, path, option = existing
    data = read_json(path)
    older = {"command": "/old/venv/bin/chitin", "args": ["mcp"], "disabled": False,
             "env": {"CHITIN_AGENT": "desk"}}  # fmt: skip
    servers = data["mcpServers"]
    data["mcpServers"] = {"filesystem": servers["filesystem"], "chitin": older,
                          "github": servers["github"]}  # fmt: skip
    write_json(path, data)
    assert bare_json("hooks", "install", client, *option)["action"] == "updated"
    after = read_json(path)["mcpServers"]
    assert list(after) == ["filesystem", "chitin", "github"]  # in its place, no copy
    entry = after["chitin"]
    assert entry["command"] == CHITIN and entry["args"] == ["mcp"]
    # What the person added to the entry stays.
    assert entry["disabled"] is False and entry["env"] == {"CHITIN_AGENT": "desk"}
    assert entry.get("type") == ("stdio" if client == "claude-code-mcp" else None)
    assert after["github"] == SOMEONE_ELSES["mcpServers"]["github"]


def test_uninstall_removes_only_ours(
    bare_json: RunJson, existing: tuple[str, Path, list[str]]
) -> None:
    client, path, option = existing
    original = path.read_text()
    bare_json("hooks", "install", client, *option)
    done = bare_json("hooks", "uninstall", client, *option)
    assert done == {"host": client, "action": "removed", "path": str(path)}
    assert read_json(path) == SOMEONE_ELSES
    assert list(read_json(path)["mcpServers"]) == ["filesystem", "github"]
    before = path.read_bytes()
    assert bare_json("hooks", "uninstall", client, *option)["action"] == "absent"
    assert path.read_bytes() == before
    assert json.loads(original) == read_json(path)


def test_uninstall_without_a_file_creates_nothing(
    bare: Run, bare_json: RunJson, home: Path, tmp_path: Path
) -> None:
    for client in CLIENTS:
        assert bare_json("hooks", "uninstall", client)["action"] == "absent"
        assert not user_file(home, client).exists()
    said = bare("hooks", "uninstall", "cursor", "--dir", str(tmp_path / "p")).stdout
    assert "not installed" in said and "nothing changed" in said
    assert not (tmp_path / "p").exists()


def test_an_emptied_mcp_servers_object_stays(bare_json: RunJson, home: Path) -> None:
    """chitin cannot tell who made mcpServers, and an empty one is what the clients
    write themselves: uninstall leaves it, empty."""
    path = write_json(user_file(home, "cursor"), {"editor": {"fontSize": 13}})
    bare_json("hooks", "install", "cursor")
    assert read_json(path) == {"editor": {"fontSize": 13}, "mcpServers": {"chitin": ours("cursor")}}
    bare_json("hooks", "uninstall", "cursor")
    assert read_json(path) == {"editor": {"fontSize": 13}, "mcpServers": {}}


@pytest.mark.parametrize("mode", [0o600, 0o640], ids=oct)
def test_claude_json_keeps_claude_codes_state_and_its_mode(
    bare_json: RunJson, home: Path, mode: int
) -> None:
    """~/.claude.json is 0600 (it holds the account); a rewrite keeps whatever it has."""
    path = write_json(home / ".claude.json", CLAUDE_STATE)
    path.chmod(mode)
    bare_json("hooks", "install", "claude-code-mcp")
    data = read_json(path)
    assert list(data) == list(CLAUDE_STATE)
    assert {k: v for k, v in data.items() if k != "mcpServers"} == {
        k: v for k, v in CLAUDE_STATE.items() if k != "mcpServers"
    }
    # The user scope is the top-level mcpServers; a project's (local scope) is untouched.
    assert data["mcpServers"] == {**CLAUDE_STATE["mcpServers"], "chitin": ours("claude-code-mcp")}
    assert stat.S_IMODE(path.stat().st_mode) == mode
    bare_json("hooks", "uninstall", "claude-code-mcp")
    assert read_json(path) == CLAUDE_STATE
    assert stat.S_IMODE(path.stat().st_mode) == mode


def test_a_symlinked_file_is_written_through(
    bare_json: RunJson, home: Path, tmp_path: Path
) -> None:
    """A config kept with the dotfiles: the file it points to is changed, the link stays."""
    real = write_json(tmp_path / "dotfiles" / "mcp.json", SOMEONE_ELSES)
    link = user_file(home, "cursor")
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    bare_json("hooks", "install", "cursor")
    assert link.is_symlink() and read_json(real)["mcpServers"]["chitin"] == ours("cursor")


# ================================================================ the store it serves


def test_a_store_named_at_install_goes_into_the_entry(
    run_json: RunJson, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = user_file(home, "claude-desktop")
    run_json("hooks", "install", "claude-desktop")  # the conftest's --store names it
    store = str(tmp_path / "store")
    assert read_json(path)["mcpServers"]["chitin"]["env"] == {"CHITIN_STORE": store}


def test_the_store_is_named_by_option_or_environment_else_not_at_all(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from chitin.cli import cli

    said: list[str] = []

    def install(*args: str) -> dict[str, Any]:
        result = CliRunner().invoke(cli, [*args, "hooks", "install", "cursor"])
        assert result.exit_code == 0, result.output
        said.append(result.stdout)
        entry: dict[str, Any] = read_json(user_file(home, "cursor"))["mcpServers"]["chitin"]
        return entry

    monkeypatch.chdir(tmp_path)
    relative = tmp_path / "relative" / "store"  # made absolute, for the client
    assert install("--store", "relative/store")["env"] == {"CHITIN_STORE": str(relative)}
    assert f"It serves the store at {relative}." in said[-1]
    monkeypatch.setenv("CHITIN_STORE", str(tmp_path / "env-store"))
    assert install()["env"] == {"CHITIN_STORE": str(tmp_path / "env-store")}
    assert said[-1].startswith("✓ Updated chitin's MCP server for cursor")
    monkeypatch.delenv("CHITIN_STORE")
    assert install() == ours("cursor")  # the default store: no env at all
    assert "It serves the default store" in said[-1]


def test_installing_without_a_store_keeps_the_persons_other_variables(
    bare_json: RunJson, home: Path, tmp_path: Path
) -> None:
    path = write_json(
        user_file(home, "cursor"),
        {"mcpServers": {"chitin": ours("cursor", env={"CHITIN_STORE": "/old", "HF_HOME": "/m"})}},
    )
    from click.testing import CliRunner

    from chitin.cli import cli

    assert CliRunner().invoke(cli, ["hooks", "install", "cursor"]).exit_code == 0
    assert read_json(path)["mcpServers"]["chitin"] == ours("cursor", env={"HF_HOME": "/m"})


# ================================================================ refused


BROKEN = {
    "bad JSON": (b'{"mcpServers": {', "line 1 column 17"),
    "a trailing comma": (b'{\n  "mcpServers": {\n    "a": {"command": "x"},\n  }\n}\n', "line 4"),
    "a comment": (b'// my servers\n{"mcpServers": {}}\n', "line 1 column 1"),
    "a key twice": (b'{"mcpServers": {"a": {"command": "x"}}, "mcpServers": {}}', '"mcpServers" twice'),  # noqa: E501
    "not UTF-8": (b'{"theme": "\xff"}', "is not UTF-8 text (at byte 11)"),
    "an array": (b"[1, 2]", "must hold a JSON object"),
    "a string": (b'"servers"', "must hold a JSON object"),
    "mcpServers a list": (b'{"mcpServers": [{"command": "x"}]}', "it is a list"),
    "mcpServers null": (b'{"mcpServers": null}', "it is null"),
    "mcpServers a string": (b'{"mcpServers": "none"}', "it is a string"),
    # JSON has no NaN or Infinity: Python's json read them, and wrote them back.
    "NaN": (b'{"theme": NaN}', "is not valid JSON (NaN is not JSON)"),
    "Infinity": (b'{\n  "zoom": -Infinity\n}', "(-Infinity is not JSON)"),
    "a number too large": (b'{"zoom": 1e999}', "(1e999 is too large a number)"),
    "an integer too long": (b"[" + b"9" * 5000 + b"]", "(a number of 5000 digits is too large)"),
    "nested too deeply": (b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "(nested too deeply"),
}  # fmt: skip


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("broken", list(BROKEN), ids=list(BROKEN))
def test_a_broken_file_is_refused_and_left_byte_for_byte(
    bare: Run, home: Path, client: str, broken: str
) -> None:
    text, problem = BROKEN[broken]
    path = user_file(home, client)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text)
    path.chmod(0o600)
    inode = path.stat().st_ino
    for command in ("install", "uninstall"):
        result = bare("hooks", command, client, expect=1)
        assert result.stdout == ""
        [line] = result.stderr.splitlines()
        assert line.startswith("Error: ") and str(path) in line
        assert problem in line and "nothing was written" in line
        assert path.read_bytes() == text and path.stat().st_ino == inode
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in path.parent.iterdir() if p.name.startswith(".chitin-")) == []


@pytest.mark.parametrize(
    "theirs",
    [
        {"command": "uvx", "args": ["chitin-memory-server", "--token=tok_secret"]},
        {"command": "/usr/local/bin/chitin", "args": ["mcp", "--verbose"]},
        {"command": "/usr/local/bin/other", "args": ["mcp"]},
        {"type": "http", "url": "https://chitin.example.com/mcp"},
        "chitin",
    ],
    ids=["another program", "other arguments", "another mcp", "a remote server", "not an object"],
)
@pytest.mark.parametrize("client", CLIENTS)
def test_a_chitin_server_that_is_not_chitins_is_never_written_over(
    bare: Run, bare_json: RunJson, home: Path, client: str, theirs: Any
) -> None:
    path = write_json(user_file(home, client), {"mcpServers": {"chitin": theirs, "x": {}}})
    before = path.read_bytes()
    result = bare("hooks", "install", client, expect=1)
    [line] = result.stderr.splitlines()
    assert line.startswith(f'Error: {path} already has an MCP server named "chitin"')
    assert "does not run `chitin mcp`" in line and "nothing was written" in line
    assert "tok_secret" not in line and "https://" not in line  # never its arguments or URL
    assert path.read_bytes() == before
    assert bare_json("hooks", "uninstall", client)["action"] == "absent"
    assert path.read_bytes() == before


# ================================================================ how it runs chitin


def test_a_python_dash_m_chitin_runs_as_python(tmp_path: Path) -> None:
    """A chitin without its console script is run as ``python -m chitin``: the command
    is the interpreter, and the arguments start with ``-m chitin``."""
    from chitin.core import mcp_clients

    path = tmp_path / "mcp.json"
    python = (sys.executable, "-m", "chitin")
    outcome = mcp_clients.install("cursor", path, python)
    assert outcome.action == "installed"
    entry = read_json(path)["mcpServers"]["chitin"]
    assert entry == {"command": sys.executable, "args": ["-m", "chitin", "mcp"]}
    assert mcp_clients.install("cursor", path, python).action == "unchanged"
    # The console script, installed later, takes the entry over.
    assert mcp_clients.install("cursor", path, (CHITIN,)).action == "updated"
    assert read_json(path)["mcpServers"]["chitin"] == ours("cursor")
    assert mcp_clients.uninstall("cursor", path).action == "removed"


@pytest.mark.parametrize(
    ("entry", "mine"),
    [
        ({"command": "/v/bin/chitin", "args": ["mcp"]}, True),
        ({"command": "chitin", "args": ["mcp"]}, True),  # by PATH, written by hand
        ({"type": "stdio", "command": "/usr/bin/python3", "args": ["-m", "chitin", "mcp"]}, True),
        ({"command": "/v/bin/chitin", "args": ["retrieve"]}, False),
        ({"command": "/v/bin/chitin"}, False),
        ({"command": "/usr/bin/python3", "args": ["-m", "other", "mcp"]}, False),
        ({"command": "/v/bin/chitin", "args": ["mcp", 3]}, False),
        ({"command": "/v/bin/not-chitin", "args": ["mcp"]}, False),
        (["/v/bin/chitin", "mcp"], False),
    ],
)
def test_which_entries_are_chitins(entry: Any, mine: bool) -> None:
    from chitin.core import mcp_clients

    assert mcp_clients.is_ours(entry) is mine


def test_the_human_output_says_what_to_do_next(run: Run, tmp_path: Path) -> None:
    said = {
        client: run("hooks", "install", client, "--dir", str(made(tmp_path / client))).stdout
        for client in CLIENTS
    }
    assert said["claude-desktop"].startswith("✓ Installed chitin's MCP server for claude-desktop")
    assert "quit Claude Desktop and start it again" in said["claude-desktop"]
    assert "Settings → MCP" in said["cursor"]
    assert "/mcp" in said["claude-code-mcp"]
    assert all(f"It serves the store at {tmp_path / 'store'}." in text for text in said.values())
    removed = run("hooks", "uninstall", "cursor", "--dir", str(tmp_path / "cursor")).stdout
    assert removed.startswith("✓ Removed chitin's MCP server for cursor from ")


def test_the_json_output_has_the_shape_of_every_host(bare_json: RunJson, tmp_path: Path) -> None:
    project = made(tmp_path / "p")
    path = str(project / ".mcp.json")
    actions = [
        bare_json("hooks", command, "claude-code-mcp", "--dir", str(project))
        for command in ("install", "install", "uninstall", "uninstall")
    ]
    installed = {"store": None}  # hooks install says which store it bound (issue 28)
    assert actions == [
        {"host": "claude-code-mcp", "action": action, "path": path, **extra}
        for action, extra in (
            ("installed", installed),
            ("unchanged", installed),
            ("removed", {}),
            ("absent", {}),
        )
    ]


def test_help_names_the_clients_and_their_files(run: Run) -> None:
    from chitin.cli import agent
    from chitin.core import hooks

    assert agent.HOSTS == hooks.HOSTS and agent.MCP_CLIENTS == hooks.MCP_CLIENTS == CLIENTS
    group = run("hooks", "--help").stdout
    for client in CLIENTS:
        assert client in group
    install = run("hooks", "install", "--help").stdout
    assert "claude-desktop" in install and "cursor" in install and "claude-code-mcp" in install
    for place in ("claude_desktop_config.json", ".cursor/mcp.json", "~/.claude.json", ".mcp.json"):
        assert place in install


# ================================================================ chitin check


def test_check_says_when_the_chitin_an_mcp_entry_runs_is_gone(
    run: Run, store: Path, home: Path, tmp_path: Path
) -> None:
    run("init", "--seed")
    for client in CLIENTS:
        run("hooks", "install", client)
    assert "no longer there" not in run("check").stdout
    gone = str(tmp_path / "old-venv" / "bin" / "chitin")
    for client in CLIENTS:
        path = user_file(home, client)
        data = read_json(path)
        data["mcpServers"]["chitin"]["command"] = gone
        write_json(path, data)
    result = run("check")
    found = [line for line in result.stdout.splitlines() if "no longer there" in line]
    assert len(found) == 3, result.stdout
    titles = {
        "claude-desktop": "Claude Desktop",
        "cursor": "Cursor",
        "claude-code-mcp": "Claude Code",
    }
    for line, client in zip(found, CLIENTS, strict=True):
        assert line.startswith(f"{user_file(home, client)}: warning: chitin: ")
        assert f"the {titles[client]} MCP server entry runs {gone}, which is no longer" in line
        # The entry serves the store named at install: the fix names it again.
        assert f"fix: run `chitin --store {store} hooks install {client}`" in line
    for client in CLIENTS:
        run("hooks", "install", client)
    assert "no longer there" not in run("check").stdout


def test_check_passes_over_a_broken_client_file(run: Run, home: Path, tmp_path: Path) -> None:
    """A file that does not parse names no chitin, and stops neither `chitin check`
    nor its reading of the other clients' files; it is not written either."""
    run("init")
    broken = user_file(home, "cursor")
    broken.parent.mkdir(parents=True)
    broken.write_text("{broken")
    gone = str(tmp_path / "gone" / "chitin")
    desktop = write_json(
        user_file(home, "claude-desktop"), {"mcpServers": {"chitin": ours("claude-desktop", gone)}}
    )
    result = run("check")
    found = [line for line in result.stdout.splitlines() if "no longer there" in line]
    assert len(found) == 1 and found[0].startswith(f"{desktop}: warning: chitin: "), found
    assert "fix: run `chitin hooks install claude-desktop`" in found[0]
    assert broken.read_text() == "{broken"


# ================================================================ the installed program


def test_the_installed_chitin_writes_itself_into_the_entry(tmp_path: Path, home: Path) -> None:
    """As a person runs it: the console script names itself, by absolute path, and the
    entry's command runs that very chitin."""
    program = chitin_program()
    project = made(tmp_path / "billing")
    env = {**os.environ, "HOME": str(home)}
    env.pop("CHITIN_STORE", None)
    done = subprocess.run(
        [program, "hooks", "install", "cursor", "--dir", str(project), "--format", "json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    path = project / ".cursor" / "mcp.json"
    assert json.loads(done.stdout) == {
        "host": "cursor",
        "action": "installed",
        "path": str(path),
        "store": None,
    }
    entry = read_json(path)["mcpServers"]["chitin"]
    assert entry == {"command": str(Path(program).absolute()), "args": ["mcp"]}
    version = subprocess.run(
        [entry["command"], "--version"], capture_output=True, text=True, timeout=60
    )
    assert version.returncode == 0 and version.stdout.strip()


def test_the_entry_starts_chitins_server_on_the_named_store(tmp_path: Path, home: Path) -> None:
    """The entry as a client uses it: its command, arguments and env start `chitin mcp`
    (through the SDK's own stdio client), which serves the store named at install, not
    the default one. Needs the server (chitin/server, the `mcp` extra)."""
    pytest.importorskip("mcp")
    from chitin.cli import COMMANDS

    if "mcp" not in COMMANDS:
        pytest.skip("`chitin mcp` is not in this tree")
    import anyio
    from mcp import Client, StdioServerParameters

    program = chitin_program()
    env = {**os.environ, "HOME": str(home)}
    env.pop("CHITIN_STORE", None)
    store, project = tmp_path / "served", made(tmp_path / "billing")

    def chitin(*args: str) -> str:
        done = subprocess.run(
            [program, *args], capture_output=True, text=True, env=env, timeout=120
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    chitin("--store", str(store), "init")
    chitin("--store", str(store), "contribute", "--type", "skill", "--confidence", "0.8",
           "--claim", "Run the billing tests before pushing.")  # fmt: skip
    chitin("--store", str(store), "hooks", "install", "claude-code-mcp", "--dir", str(project))
    entry = read_json(project / ".mcp.json")["mcpServers"]["chitin"]
    assert entry["env"] == {"CHITIN_STORE": str(store)} and entry["type"] == "stdio"
    params = StdioServerParameters(
        command=entry["command"], args=entry["args"], env={**env, **entry["env"]}
    )

    async def ask() -> Any:
        async with Client(params) as client:
            return await client.call_tool("stats", {})

    result = anyio.run(ask)
    assert not result.is_error, result.content
    assert json.loads(result.content[0].text)["total"] == 1  # the named store's insight
