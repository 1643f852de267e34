"""Installing chitin's hooks into agent hosts, and what the Claude Code hooks read.

- OpenClaw: a hook pack (package.json naming ``hooks/chitin/``, which holds HOOK.md
  and handler.js) copied from ``chitin/assets/openclaw/`` into OpenClaw's managed
  hooks folder, found as OpenClaw finds it (``openclaw_hooks_dir``). The same folder
  installs with OpenClaw's own ``openclaw plugins install``.
- Claude Code: three entries merged into a settings.json, next to whatever else is
  there. Our entries are recognised by their command, so installing again changes
  nothing and uninstalling removes only them.
- The MCP clients (Claude Desktop, Cursor, Claude Code's MCP servers): an entry for
  ``chitin mcp`` in their JSON files, in ``chitin.core.mcp_clients``, which shares this
  module's reading and writing of JSON files.

Every host command ends in ``|| true`` or swallows its errors: a missing or broken
chitin must never block an agent.
"""

from __future__ import annotations

import contextlib
import copy
import json
import re
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePath
from typing import Any, NamedTuple

from chitin.errors import ChitinError, ValidationError
from chitin.store.files import atomic_write

OPENCLAW_HOOK = "chitin"  # the pack's folder (its package name), and the hook's name
# The pack, as OpenClaw's `plugins install` wants it: package.json's "openclaw.hooks"
# names the folder that holds HOOK.md and handler.js.
OPENCLAW_FILES: tuple[str, ...] = (
    "package.json",
    "hooks/chitin/HOOK.md",
    "hooks/chitin/handler.js",
)
# Written at install, beside handler.js: the chitin that installed it, by absolute path,
# for handler.js to run (a gateway's PATH may not hold a virtual environment's chitin).
OPENCLAW_COMMAND_FILE = "hooks/chitin/chitin.json"
# What chitin before issue 15 installed at the pack's top: removed by an install.
OPENCLAW_OLD_FILES: tuple[str, ...] = ("HOOK.md", "handler.js", "chitin.json")

CLAUDE_SETTINGS = Path(".claude") / "settings.json"
# Claude Code caps the strings a hook's output puts into the context (additionalContext,
# systemMessage, plain stdout) at 10,000 characters; a longer one is saved to a file
# and the session sees a 2,000-character preview and the file's path
# (code.claude.com/docs/en/hooks, "JSON output"). The SessionStart context is kept
# within CLAUDE_CONTEXT_LIMIT, well under that cap: the token budget is lowered to fit.
CLAUDE_CONTEXT_CAP = 10_000
CLAUDE_CONTEXT_LIMIT = 8_000
CLAUDE_ACTION = "hooks run claude-code"
# Our entries, whatever chitin they run: ".../chitin hooks run claude-code ...", quoted
# or not, or "python -m chitin hooks run claude-code ...".
_OURS = re.compile(r"""chitin['"]?\s+hooks\s+run\s+claude-code\s""")


class ClaudeHook(NamedTuple):
    event: str
    matcher: str | None  # None: the event takes no matcher (or all of them)
    action: str  # what `chitin hooks run claude-code` does
    timeout: int  # seconds; Claude Code cancels the command after this


CLAUDE_HOOKS: tuple[ClaudeHook, ...] = (
    ClaudeHook("SessionStart", "startup|resume|clear|compact", "session-start", 30),
    ClaudeHook("SessionEnd", None, "reflect", 15),
    ClaudeHook("PreCompact", None, "reflect", 15),
)


class Outcome(NamedTuple):
    """What an install or uninstall did: installed, updated, unchanged, removed or absent."""

    host: str
    action: str
    path: Path


class HookSetupError(ChitinError):
    """A host's hook folder or settings file cannot be used as it is."""


# ------------------------------------------------------------------ OpenClaw


def openclaw_hooks_dir(home: Path, env: Mapping[str, str]) -> Path:
    """OpenClaw's managed hooks folder, as OpenClaw 2026.9 resolves it (its
    resolveConfigDir): ``$OPENCLAW_STATE_DIR/hooks``, else the folder of
    ``$OPENCLAW_CONFIG_PATH`` + ``/hooks``, else ``<home>/.openclaw/hooks``, where home
    is ``$OPENCLAW_HOME`` if set. A leading ``~`` means that home."""
    import os.path

    explicit = (env.get("OPENCLAW_HOME") or "").strip()
    if explicit in ("undefined", "null"):
        explicit = ""
    base = Path(os.path.abspath(_expand_home(explicit, home))) if explicit else home

    def resolved(value: str) -> Path:
        return Path(os.path.abspath(_expand_home(value, base)))

    state = (env.get("OPENCLAW_STATE_DIR") or "").strip()
    if state:
        return resolved(state) / "hooks"
    config = (env.get("OPENCLAW_CONFIG_PATH") or "").strip()
    if config:
        return resolved(config).parent / "hooks"
    return base / ".openclaw" / "hooks"


def _expand_home(value: str, home: Path) -> str:
    if value == "~" or value.startswith(("~/", "~\\")):
        return str(home) + value[1:]
    return value


def install_openclaw(hooks_dir: Path, command: Sequence[str]) -> Outcome:
    """Copy the hook pack to ``<hooks_dir>/chitin/``, with the ``command`` that runs this
    chitin; files already current are left alone, and the files of the older layout
    (HOOK.md and handler.js at the pack's top) are removed."""
    from chitin.resources import asset_path

    target = _hook_folder(hooks_dir)
    wanted = {
        name: asset_path("openclaw", *name.split("/")).read_text(encoding="utf-8")
        for name in OPENCLAW_FILES
    }
    wanted[OPENCLAW_COMMAND_FILE] = json.dumps({"command": list(command)}, indent=2) + "\n"
    present = {name: _read_text(target / name) for name in wanted}
    old = [target / name for name in OPENCLAW_OLD_FILES if (target / name).is_file()]
    if present == wanted and not old:
        return Outcome("openclaw", "unchanged", target)
    for name, text in wanted.items():
        if present[name] != text:
            write_text(target / name, text)
    try:
        for path in old:
            path.unlink()
    except OSError as error:
        raise HookSetupError(f"cannot remove {path}: {error.strerror or error}") from None
    fresh = all(present[name] is None for name in OPENCLAW_FILES) and not old
    return Outcome("openclaw", "installed" if fresh else "updated", target)


def uninstall_openclaw(hooks_dir: Path) -> Outcome:
    """Remove our files (of either layout), and the folders left empty."""
    target = _hook_folder(hooks_dir)
    names = (*OPENCLAW_FILES, OPENCLAW_COMMAND_FILE, *OPENCLAW_OLD_FILES)
    ours = [target / name for name in names if (target / name).is_file()]
    if not ours:
        return Outcome("openclaw", "absent", target)
    try:
        for path in ours:
            path.unlink()
        for folder in (target / "hooks" / OPENCLAW_HOOK, target / "hooks", target):
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
    except OSError as error:
        raise HookSetupError(f"cannot remove {target}: {error.strerror or error}") from None
    return Outcome("openclaw", "removed", target)


def _hook_folder(hooks_dir: Path) -> Path:
    target = hooks_dir / OPENCLAW_HOOK
    if target.exists() and not target.is_dir():
        raise HookSetupError(f"{target} exists and is not a folder; move it away and run again")
    return target


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, UnicodeDecodeError):
        return ""  # unreadable: differs from what we ship, so it is written over


def write_text(path: Path, text: str) -> None:
    """Replace ``path`` atomically, keeping its permissions; through a symlink (a
    settings file kept with the user's dotfiles), the file it points to is replaced."""
    target = path.resolve() if path.is_symlink() else path
    try:
        atomic_write(target, text)
    except OSError as error:
        raise HookSetupError(f"cannot write {path}: {error.strerror or error}") from None


# ------------------------------------------------------------------ Claude Code


def claude_settings_path(project_dir: Path) -> Path:
    return project_dir / CLAUDE_SETTINGS


def install_claude_code(project_dir: Path, command: Sequence[str]) -> Outcome:
    path = claude_settings_path(project_dir)
    settings = load_settings(path)
    merged = with_our_hooks(settings, command)
    if merged == settings and path.exists():
        return Outcome("claude-code", "unchanged", path)
    fresh = not any(_is_ours(h) for _, _, h in _all_hooks(settings))
    write_text(path, dump_settings(merged))
    return Outcome("claude-code", "installed" if fresh else "updated", path)


def uninstall_claude_code(project_dir: Path) -> Outcome:
    path = claude_settings_path(project_dir)
    if not path.exists():
        return Outcome("claude-code", "absent", path)
    settings = load_settings(path)
    kept = without_our_hooks(settings)
    if kept == settings:
        return Outcome("claude-code", "absent", path)
    write_text(path, dump_settings(kept))
    return Outcome("claude-code", "removed", path)


def load_settings(path: Path) -> dict[str, Any]:
    """The settings as they are, or an error naming what is wrong (nothing is written)."""
    data = read_json_object(path)
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise HookSetupError(f'"hooks" in {path} must be an object; nothing was written')
    for hook in CLAUDE_HOOKS:
        if not isinstance(hooks.get(hook.event, []), list):
            raise HookSetupError(
                f'"hooks.{hook.event}" in {path} must be a list; nothing was written'
            )
    return data


def read_json_object(path: Path) -> dict[str, Any]:
    """The JSON object a host's configuration file holds (``{}`` when the file is
    missing or blank), or a HookSetupError of one line naming the file and exactly what
    is wrong with it, so that nothing is written over it. A key given twice in one
    object is refused too: writing the file back would silently drop one of them."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError as error:
        raise HookSetupError(
            f"{path} is not UTF-8 text (at byte {error.start}); fix it and run again "
            "(nothing was written)"
        ) from None
    except OSError as error:
        raise HookSetupError(
            f"cannot read {path}: {error.strerror or error} (nothing was written)"
        ) from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as error:
        raise HookSetupError(
            f"{path} is not valid JSON ({error.msg} at line {error.lineno} column "
            f"{error.colno}); fix it and run again (nothing was written)"
        ) from None
    except _RepeatedKey as repeated:
        raise HookSetupError(
            f'{path} gives the key "{repeated.key}" twice in one object; remove one and '
            "run again (nothing was written)"
        ) from None
    if not isinstance(data, dict):
        raise HookSetupError(f"{path} must hold a JSON object; nothing was written")
    return data


class _RepeatedKey(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise _RepeatedKey(key)
        found[key] = value
    return found


def dump_settings(settings: dict[str, Any]) -> str:
    return json.dumps(settings, indent=2, ensure_ascii=False) + "\n"


def our_entry(hook: ClaudeHook, command: Sequence[str]) -> dict[str, Any]:
    program = " ".join(shlex.quote(part) for part in command)
    return {
        "type": "command",
        "command": f"{program} {CLAUDE_ACTION} {hook.action} || true",
        "timeout": hook.timeout,
    }


def our_group(hook: ClaudeHook, command: Sequence[str]) -> dict[str, Any]:
    group: dict[str, Any] = {} if hook.matcher is None else {"matcher": hook.matcher}
    group["hooks"] = [our_entry(hook, command)]
    return group


def with_our_hooks(settings: dict[str, Any], command: Sequence[str]) -> dict[str, Any]:
    """A copy of ``settings`` holding our three entries exactly once each, running
    ``command`` (this chitin, by absolute path).

    An entry of ours already there is brought up to date where it stands; everything
    else keeps its place and content.
    """
    merged = copy.deepcopy(settings)
    hooks = merged.setdefault("hooks", {})
    for hook in CLAUDE_HOOKS:
        groups = hooks.setdefault(hook.event, [])
        found = [(g, h) for g, h, entry in _event_hooks(groups) if _is_ours(entry)]
        if not found:
            groups.append(our_group(hook, command))
            continue
        first_group, first_hook = found[0]
        if len(groups[first_group]["hooks"]) == 1:  # a group of its own: ours entirely
            groups[first_group] = our_group(hook, command)
        else:
            groups[first_group]["hooks"][first_hook] = our_entry(hook, command)
        for group, index in reversed(found[1:]):  # copies of ours, from older installs
            del groups[group]["hooks"][index]
        hooks[hook.event] = [g for g in groups if not _emptied(g)]
    return merged


def without_our_hooks(settings: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``settings`` without our entries; a group or event list left empty by
    the removal goes too (one that was empty before stays)."""
    kept = copy.deepcopy(settings)
    hooks = kept.get("hooks")
    if not isinstance(hooks, dict):
        return kept
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        ours = [(g, h) for g, h, entry in _event_hooks(groups) if _is_ours(entry)]
        if not ours:
            continue
        for group, index in reversed(ours):
            del groups[group]["hooks"][index]
        emptied = {group for group, _ in ours if not groups[group]["hooks"]}
        hooks[event] = [g for n, g in enumerate(groups) if n not in emptied]
        if not hooks[event]:
            del hooks[event]
    if not hooks and hooks != settings.get("hooks"):
        del kept["hooks"]
    return kept


def _event_hooks(groups: list[Any]) -> list[tuple[int, int, Any]]:
    """(group index, hook index, hook) for every hook in one event's groups."""
    found: list[tuple[int, int, Any]] = []
    for g, group in enumerate(groups):
        entries = group.get("hooks") if isinstance(group, dict) else None
        if isinstance(entries, list):
            found.extend((g, h, entry) for h, entry in enumerate(entries))
    return found


def _all_hooks(settings: dict[str, Any]) -> list[tuple[int, int, Any]]:
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return []
    return [
        found
        for groups in hooks.values()
        if isinstance(groups, list)
        for found in _event_hooks(groups)
    ]


def _is_ours(entry: Any) -> bool:
    if not isinstance(entry, dict):
        return False
    command = entry.get("command")
    return isinstance(command, str) and _OURS.search(command) is not None


def _emptied(group: Any) -> bool:
    return isinstance(group, dict) and group.get("hooks") == []


# ------------------------------------------------------------------ what is installed


class Installed(NamedTuple):
    """A chitin that a host or git was told to run, and where that is written."""

    where: Path  # the file that names it
    what: str  # what runs it, for a person: "the OpenClaw hook runs"
    program: str  # the program run
    fix: str  # the command that installs it afresh


def installed_programs(
    home: Path, openclaw_dir: Path, env: Mapping[str, str] | None = None
) -> list[Installed]:
    """The chitins our hooks run, as the host files name them: Claude Code's user-wide
    settings, OpenClaw's hook pack, and the MCP clients' user-wide files (found with
    ``env``'s $XDG_CONFIG_HOME). A file that cannot be read names none."""
    import sys

    from chitin.core import mcp_clients

    found: list[Installed] = []
    settings_path = claude_settings_path(home)
    try:
        settings = load_settings(settings_path)
    except HookSetupError:
        settings = {}
    for _, _, entry in _all_hooks(settings):
        if _is_ours(entry):
            with contextlib.suppress(ValueError, IndexError):
                program = shlex.split(entry["command"])[0]
                found.append(
                    Installed(
                        settings_path,
                        "the Claude Code hooks run",
                        program,
                        "chitin hooks install claude-code",
                    )
                )
                break
    for name in (OPENCLAW_COMMAND_FILE, "chitin.json"):  # this layout's, then the older one's
        where = openclaw_dir / OPENCLAW_HOOK / name
        recorded = _read_text(where)
        with contextlib.suppress(ValueError, TypeError, KeyError, IndexError):
            program = json.loads(recorded or "")["command"][0]
            if isinstance(program, str):
                found.append(
                    Installed(
                        where, "the OpenClaw hook runs", program, "chitin hooks install openclaw"
                    )
                )
                break
    found += mcp_clients.installed_programs(home, sys.platform, {} if env is None else env)
    return found


def is_gone(program: str) -> bool:
    """A program named by absolute path that is no longer there (one named by PATH is
    the host's PATH's business)."""
    path = Path(program)
    return path.is_absolute() and not path.is_file()


# ------------------------------------------------------------------ Claude Code at run time


def parse_hook_input(text: str) -> dict[str, Any]:
    """The event Claude Code sends on stdin; anything unreadable reads as no details."""
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


def coding_session_query(event: dict[str, Any]) -> str:
    """What a Claude Code session is about, as far as its start tells: a coding session
    in the project folder, and whether it picks up a task partway through."""
    cwd = event.get("cwd")
    name = PurePath(cwd).name if isinstance(cwd, str) else ""
    query = f"coding session in the project {name}" if name else "coding session"
    source = event.get("source")
    if source == "compact":
        query += ", the context was compacted partway through a task"
    elif source == "resume":
        query += ", the session resumed partway through a task"
    return query


def reflection_reason(event: dict[str, Any]) -> str:
    """PreCompact queues a reflection as ``compact``; SessionEnd (or anything else) as ``end``."""
    return "compact" if event.get("hook_event_name") == "PreCompact" else "end"


def session_key(event: dict[str, Any]) -> str:
    key = event.get("session_id")
    if not isinstance(key, str) or not key.strip():
        return "unknown"
    # JSON may carry a lone surrogate ("\ud800"), which no file can hold: replaced.
    return key.strip().encode("utf-8", "replace").decode("utf-8")


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
    ``env`` ($XDG_CONFIG_HOME), or with ``folder`` into that folder's file; ``store``
    given, the server serves that store."""
    if host in MCP_CLIENTS:
        from chitin.core import mcp_clients

        path = _client_file(host, folder, home, platform, env)
        return mcp_clients.install(host, path, command, store)
    if host == "openclaw":
        return install_openclaw(_openclaw_folder(folder, home, env), command)
    return install_claude_code(_folder(host, folder), command)


def uninstall_hook(
    host: str,
    folder: Path | None,
    *,
    home: Path | None = None,
    platform: str | None = None,
    env: Mapping[str, str] | None = None,
) -> Outcome:
    """Remove chitin's hook for ``host`` (found as install_hook finds it), and nothing else."""
    if host in MCP_CLIENTS:
        from chitin.core import mcp_clients

        return mcp_clients.uninstall(host, _client_file(host, folder, home, platform, env))
    if host == "openclaw":
        return uninstall_openclaw(_openclaw_folder(folder, home, env))
    return uninstall_claude_code(_folder(host, folder))


def _openclaw_folder(folder: Path | None, home: Path | None, env: Mapping[str, str] | None) -> Path:
    """``folder``, else OpenClaw's managed hooks folder for ``env`` (openclaw_hooks_dir)."""
    if folder is not None:
        return folder
    return openclaw_hooks_dir(home or Path.home(), {} if env is None else env)


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
    import sys

    from chitin.core import mcp_clients

    return mcp_clients.config_path(
        host, folder, home or Path.home(), platform or sys.platform, {} if env is None else env
    )
