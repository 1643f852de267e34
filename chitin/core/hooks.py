"""Installing chitin's hooks into agent hosts, and finding the chitins they run.

- OpenClaw: a hook pack, in ``chitin.core.openclaw``.
- Claude Code: three entries in a settings.json, in ``chitin.core.claude_code``, which
  also holds what those hooks read at run time.
- The MCP clients (Claude Desktop, Cursor, Claude Code's MCP servers): an entry for
  ``chitin mcp`` in their JSON files, in ``chitin.core.mcp_clients``.

They share the reading and writing of hosts' files (``chitin.core.host_files``). Every
host command ends in ``|| true`` or swallows its errors: a missing or broken chitin
must never block an agent.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from chitin.core import claude_code, mcp_clients, openclaw
from chitin.core.host_files import Installed, Outcome
from chitin.errors import StoreError, ValidationError
from chitin.location import NO_HOME_FOLDER, home_folder, needed_home
from chitin.model import arguments
from chitin.store.files import not_a_store_folder

HOSTS: tuple[str, ...] = ("openclaw", "claude-code", "claude-desktop", "cursor", "claude-code-mcp")
MCP_CLIENTS: tuple[str, ...] = ("claude-desktop", "cursor", "claude-code-mcp")


def install_hook(
    host: str,
    folder: Path | None,
    command: Sequence[str],
    *,
    store: Path | None = None,
    home: Path | None = None,
    platform: str | None = None,
    env: Mapping[str, str] | None = None,
) -> Outcome:
    """Install chitin's hook for ``host``, running ``command`` (this chitin).

    ``folder``: for openclaw its hooks folder (default: OpenClaw's, found from ``home``
    and ``env`` as OpenClaw finds it, see openclaw_hooks_dir); for claude-code the folder whose
    .claude/settings.json to change. For the MCP clients (claude-desktop, cursor,
    claude-code-mcp; see chitin.core.mcp_clients) the server entry goes into the
    client's user-wide file, found from ``home``, ``platform`` (``sys.platform``) and
    ``env`` ($XDG_CONFIG_HOME), or with ``folder`` into that folder's file. ``store``
    given, what the host runs is told that store, for every host (a host runs chitin
    in a folder and an environment of its own, where chitin would find another one).
    ``folder`` must exist: only the host's own folder inside it (``.claude/``, …) is
    made, so that a mistyped path is refused rather than created."""
    folder, home, platform, env = _given(folder, home, platform, env)
    store, command = arguments.path("store", store), arguments.texts("command", command)
    if not command:
        raise ValidationError("command", "command must name the chitin to run, got []")
    if store is not None and not store.is_dir() and (store.exists() or store.is_symlink()):
        # A file can never become the store: no hook that could only fail is written.
        raise StoreError(not_a_store_folder(store))
    if folder is not None:
        _existing(folder)
    if host in MCP_CLIENTS:
        path = _client_file(host, folder, home, platform, env)
        return mcp_clients.install(host, path, command, store)
    if host == "openclaw":
        return openclaw.install_openclaw(_openclaw_folder(folder, home, env), command, store)
    return claude_code.install_claude_code(_folder(host, folder), command, store)


def uninstall_hook(
    host: str,
    folder: Path | None,
    *,
    home: Path | None = None,
    platform: str | None = None,
    env: Mapping[str, str] | None = None,
) -> Outcome:
    """Remove chitin's hook for ``host`` (found as install_hook finds it), and nothing else.
    From OpenClaw's own hooks folder, the entry `openclaw hooks enable chitin` wrote into
    its openclaw.json goes too."""
    folder, home, platform, env = _given(folder, home, platform, env)
    if host in MCP_CLIENTS:
        return mcp_clients.uninstall(host, _client_file(host, folder, home, platform, env))
    if host == "openclaw":
        hooks_dir = _openclaw_folder(folder, home, env)
        return openclaw.uninstall_openclaw(hooks_dir, _openclaw_config(hooks_dir, home, env))
    return claude_code.uninstall_claude_code(_folder(host, folder))


def _given(
    folder: Path | None, home: Path | None, platform: str | None, env: Mapping[str, str] | None
) -> tuple[Path | None, Path | None, str | None, Mapping[str, str] | None]:
    """What a library caller gave, checked: a folder and a home each a Path or its text,
    the platform a text, env names to texts (a wrong kind raised AttributeError)."""
    if platform is not None and not isinstance(platform, str):
        shown = repr(platform)[:60]
        raise ValidationError("platform", f"platform must be a text such as linux, got {shown}")
    checked = None if env is None else arguments.environment(env)
    return arguments.path("folder", folder), arguments.path("home", home), platform, checked


def _openclaw_folder(folder: Path | None, home: Path | None, env: Mapping[str, str] | None) -> Path:
    """``folder``, else OpenClaw's managed hooks folder for ``env`` (openclaw_hooks_dir)."""
    if folder is not None:
        return folder
    return openclaw.openclaw_hooks_dir(_home(home), {} if env is None else env)


def _openclaw_config(
    hooks_dir: Path, home: Path | None, env: Mapping[str, str] | None
) -> Path | None:
    """OpenClaw's openclaw.json when ``hooks_dir`` is OpenClaw's own hooks folder (the
    one it enables hooks from); None for another folder (a pack to install elsewhere)."""
    if home is None and home_folder(os.environ) is None:
        return None  # no home: no OpenClaw folder of the user's to enable the pack in
    managed = _openclaw_folder(None, home, env)
    if hooks_dir.absolute() != managed.absolute():
        return None
    return openclaw.openclaw_config_file(_home(home), {} if env is None else env)


def _home(home: Path | None) -> Path:
    """``home``, else $HOME: refused without one (Path.home() made it /)."""
    return home if home is not None else needed_home(os.environ, NO_HOME_FOLDER)


def _existing(folder: Path) -> None:
    """Refuse a folder that does not exist (a mistyped --dir made its whole chain)."""
    if not folder.is_dir():
        raise ValidationError(
            "folder",
            f"the folder {folder} does not exist: check the path, or create the folder "
            "first (mkdir -p) if it is the one you mean",
        )


def _folder(host: str, folder: Path | None) -> Path:
    if host not in HOSTS:
        raise ValidationError("host", f"unknown host {host!r} (allowed: {', '.join(HOSTS)})")
    if folder is None:
        raise ValidationError("folder", f"{host} needs the folder to install into")
    return folder


def _client_file(
    host: str,
    folder: Path | None,
    home: Path | None,
    platform: str | None,
    env: Mapping[str, str] | None,
) -> Path:

    return mcp_clients.config_path(
        host, folder, _home(home), platform or sys.platform, {} if env is None else env
    )


def installed_programs(
    home: Path, openclaw_dir: Path, env: Mapping[str, str] | None = None, here: Path | None = None
) -> list[Installed]:
    """The chitins our hooks run, as the host files name them: Claude Code's user-wide
    settings, OpenClaw's hook pack, the MCP clients' user-wide files (found with
    ``env``'s $XDG_CONFIG_HOME), and the project files of the project ``here`` is in
    (``project_of``). A file that cannot be read names none."""

    project = project_of(here, home) if here is not None else None
    found = [
        program
        for program in (
            claude_code.installed_program(home),
            claude_code.installed_program(project) if project is not None else None,
            openclaw.installed_program(openclaw_dir),
            # a hooks folder of one's own (`hooks install openclaw --dir D`)
            openclaw.installed_program(project) if project is not None else None,
        )
        if program is not None
    ]
    clients = mcp_clients.installed_programs(home, sys.platform, {} if env is None else env)
    if project is not None:
        clients += mcp_clients.project_programs(project)
    unique = {item.where.absolute(): item for item in found + clients}  # D may be OpenClaw's
    return list(unique.values())


# What `hooks install … --dir PROJECT` writes in a project, for Claude Code, its MCP
# servers and Cursor; and in the folder `--dir` names for OpenClaw (its pack) and
# Claude Desktop (its file).
PROJECT_FILES = (
    Path(".claude") / "settings.json",
    Path(".mcp.json"),
    Path(".cursor") / "mcp.json",
    Path(openclaw.OPENCLAW_HOOK) / openclaw.OPENCLAW_COMMAND_FILE,
    Path(mcp_clients.DESKTOP_FILE),
)


def project_of(here: Path, home: Path) -> Path | None:
    """The nearest folder from ``here`` upwards (below ``home``, whose files are the
    user's) holding a file that ``hooks install … --dir`` writes: the project a person
    checks from. None when there is none."""
    for folder in (here, *here.parents):
        if folder in (home, home.parent):
            return None
        if any((folder / name).is_file() for name in PROJECT_FILES):
            return folder
    return None
