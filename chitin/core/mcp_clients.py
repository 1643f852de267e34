"""Installing chitin's MCP server (``chitin mcp``) into the configuration files of MCP
clients: Claude Desktop, Cursor and Claude Code.

Each client keeps its servers in a JSON file, under a ``mcpServers`` object whose keys
name the servers. Ours is the one named ``"chitin"``: it runs this chitin, by absolute
path, with ``mcp`` as its last argument, and with ``$CHITIN_STORE`` in its ``env`` when
the store was named at install. Everything else in the file (other servers, every
other key, their order) is left as it is.

- An entry ``"chitin"`` that does not run chitin's ``mcp`` is someone else's: it is
  refused, never written over.
- Uninstalling removes our entry only. The ``mcpServers`` object stays, even when it
  is left empty: nothing tells whether chitin or the client (or another tool) made it,
  and an empty one is what the clients write themselves.
- A file that is not a JSON object, or whose ``mcpServers`` is not an object, is
  refused with one line naming the file and the problem; its bytes stay as they were.

Where the files are (each client's documentation):

- claude-desktop: ``claude_desktop_config.json`` in Claude's application-support
  folder: ``~/Library/Application Support/Claude/`` on macOS; on Linux, where the
  community builds keep it (Electron's user-data folder),
  ``${XDG_CONFIG_HOME:-~/.config}/Claude/``; ``%APPDATA%\\Claude\\`` on Windows.
  ``--dir`` names another folder holding it.
- cursor: ``~/.cursor/mcp.json`` (every project), or ``PROJECT/.cursor/mcp.json``.
- claude-code-mcp: the user scope, the top-level ``mcpServers`` of ``~/.claude.json``
  (a file that holds much else of Claude Code's state), or the project scope,
  ``PROJECT/.mcp.json``. Claude Code's entries say ``"type": "stdio"``; the other two
  clients' documented entries have no ``type``.
"""

from __future__ import annotations

import copy
import json
import os
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from chitin.core.host_files import (
    HookSetupError,
    Installed,
    Outcome,
    read_json_object,
    write_text,
)

SERVER = "chitin"  # our key in mcpServers
SERVERS = "mcpServers"
ACTION = "mcp"  # the chitin command the entry runs


class Client(NamedTuple):
    name: str  # as `chitin hooks install` spells it
    title: str  # as a person calls it
    stdio_type: bool  # whether the entry says "type": "stdio"


CLIENTS: dict[str, Client] = {
    client.name: client
    for client in (
        Client("claude-desktop", "Claude Desktop", stdio_type=False),
        Client("cursor", "Cursor", stdio_type=False),
        Client("claude-code-mcp", "Claude Code", stdio_type=True),
    )
}
DESKTOP_FILE = "claude_desktop_config.json"


def config_path(
    client: str,
    folder: Path | None,
    home: Path,
    platform: str,
    env: Mapping[str, str],
) -> Path:
    """The configuration file of ``client`` (a name in CLIENTS) on ``platform``
    (``sys.platform``'s spelling: darwin, linux, win32, …).

    ``folder`` is what ``--dir`` names: the folder holding Claude Desktop's file, or a
    project whose own file (``.cursor/mcp.json``, ``.mcp.json``) to change. Without
    it, the user's file: the one every project sees."""
    if client == "claude-desktop":
        return (folder or _desktop_folder(home, platform, env)) / DESKTOP_FILE
    if client == "cursor":
        return (folder or home) / ".cursor" / "mcp.json"
    if client == "claude-code-mcp":
        return folder / ".mcp.json" if folder is not None else home / ".claude.json"
    raise ValueError(f"not an MCP client: {client!r}")


def _desktop_folder(home: Path, platform: str, env: Mapping[str, str]) -> Path:
    if platform == "darwin":
        return home / "Library" / "Application Support" / "Claude"
    if platform == "win32":
        appdata = env.get("APPDATA")
        return (Path(appdata) if appdata else home / "AppData" / "Roaming") / "Claude"
    # Linux and the other Unixes: Electron's user data folder, by the XDG rule (a
    # relative $XDG_CONFIG_HOME is to be ignored).
    config = env.get("XDG_CONFIG_HOME", "")
    base = Path(config) if config and os.path.isabs(config) else home / ".config"
    return base / "Claude"


def server_command(command: Sequence[str]) -> list[str]:
    """What the entry runs: ``command`` (this chitin) and ``mcp``."""
    return [*command, ACTION]


def is_ours(entry: Any) -> bool:
    """An entry that runs chitin's ``mcp``: ``<…/chitin> mcp`` or ``<python> -m chitin
    mcp``, whichever chitin it names."""
    argv = _argv(entry)
    if argv is None or len(argv) < 2 or argv[-1] != ACTION:
        return False
    program = argv[:-1]
    if len(program) == 1:
        return _basename(program[0]) == "chitin"
    return len(program) == 3 and program[1:] == ["-m", "chitin"]


def _argv(entry: Any) -> list[str] | None:
    if not isinstance(entry, dict):
        return None
    command, args = entry.get("command"), entry.get("args", [])
    if not isinstance(command, str) or not isinstance(args, list):
        return None
    if not all(isinstance(arg, str) for arg in args):
        return None
    return [command, *args]


def _basename(program: str) -> str:
    name = program.replace("\\", "/").rsplit("/", 1)[-1]
    return name.removesuffix(".exe")


def our_entry(
    client: Client, command: Sequence[str], store: Path | None, present: Any = None
) -> dict[str, Any]:
    """Our entry, running ``command``; with $CHITIN_STORE when ``store`` is given.

    ``present``, an entry of ours already there, keeps what the person or the client
    added to it (other keys, other environment variables) and its keys' order."""
    program, *args = server_command(command)
    entry: dict[str, Any] = copy.deepcopy(present) if isinstance(present, dict) else {}
    if client.stdio_type:
        entry["type"] = "stdio"
    entry["command"] = program
    entry["args"] = args
    old_env = entry.get("env")
    env = dict(old_env) if isinstance(old_env, dict) else {}
    if store is not None:
        env["CHITIN_STORE"] = str(store)
    else:
        env.pop("CHITIN_STORE", None)
    if env or old_env == {}:
        entry["env"] = env
    else:
        entry.pop("env", None)
    return entry


def load_config(path: Path) -> dict[str, Any]:
    """The client's configuration as it is, or an error of one line naming the file and
    what is wrong (nothing is written)."""
    data = read_json_object(path)
    if SERVERS in data and not isinstance(data[SERVERS], dict):
        raise HookSetupError(
            f'"{SERVERS}" in {path} must be an object (it is {_kind(data[SERVERS])}); '
            "fix it and run again (nothing was written)"
        )
    return data


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list"


def dump_config(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def install(
    client_name: str, path: Path, command: Sequence[str], store: Path | None = None
) -> Outcome:
    """Put our entry into the file at ``path``, next to what is there."""
    client = CLIENTS[client_name]
    data = load_config(path)
    servers: dict[str, Any] = data.get(SERVERS, {})
    present = servers.get(SERVER)
    if SERVER in servers and not is_ours(present):
        raise HookSetupError(
            f'{path} already has an MCP server named "{SERVER}" that does not run '
            f"`chitin {ACTION}` ({_described(present)}); rename or remove it and run again "
            "(nothing was written)"
        )
    wanted = our_entry(client, command, store, present)
    if present == wanted:
        return Outcome(client.name, "unchanged", path)
    merged = copy.deepcopy(data)
    merged.setdefault(SERVERS, {})[SERVER] = wanted  # an entry there keeps its place
    write_text(path, dump_config(merged))
    return Outcome(client.name, "installed" if present is None else "updated", path)


def uninstall(client_name: str, path: Path) -> Outcome:
    """Remove our entry from the file at ``path``, and nothing else."""
    client = CLIENTS[client_name]
    if not path.exists():
        return Outcome(client.name, "absent", path)
    data = load_config(path)
    servers = data.get(SERVERS, {})
    if not is_ours(servers.get(SERVER)):
        return Outcome(client.name, "absent", path)
    kept = copy.deepcopy(data)
    del kept[SERVERS][SERVER]
    write_text(path, dump_config(kept))
    return Outcome(client.name, "removed", path)


def _described(entry: Any) -> str:
    """What the entry is, in a few words; never its arguments, environment or URL,
    which may hold credentials."""
    if not isinstance(entry, dict):
        return "it is not an object"
    command = entry.get("command")
    if isinstance(command, str):
        return f"it runs {command}" + (" …" if entry.get("args") else "")
    if "url" in entry:
        return "it is a remote server"
    return "it names no command"


def installed_programs(home: Path, platform: str, env: Mapping[str, str]) -> list[Installed]:
    """The chitins that the clients' user-wide files run as chitin's MCP server. A
    file that cannot be read names none."""
    found = (
        _installed(client, config_path(client.name, None, home, platform, env))
        for client in CLIENTS.values()
    )
    return [program for program in found if program is not None]


def project_programs(project: Path) -> list[Installed]:
    """The same, in a project's own files (``.mcp.json``, ``.cursor/mcp.json``), which
    ``hooks install claude-code-mcp|cursor --dir PROJECT`` writes, and the
    ``claude_desktop_config.json`` that ``claude-desktop --dir FOLDER`` writes."""
    found = (
        _installed(CLIENTS[name], config_path(name, project, project, "", {}))
        for name in ("claude-code-mcp", "cursor", "claude-desktop")
    )
    return [program for program in found if program is not None]


def _installed(client: Client, path: Path) -> Installed | None:
    try:
        entry = load_config(path).get(SERVERS, {}).get(SERVER)
    except HookSetupError:
        return None
    if not is_ours(entry):
        return None
    env_of = entry.get("env")
    store = env_of.get("CHITIN_STORE") if isinstance(env_of, dict) else None
    named = f"--store {shlex.quote(store)} " if isinstance(store, str) and store else ""
    return Installed(
        path,
        f"the {client.title} MCP server entry runs",
        entry["command"],
        f"chitin {named}hooks install {client.name}",
        store if isinstance(store, str) and store else None,
    )
