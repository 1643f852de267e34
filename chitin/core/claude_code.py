"""Chitin's hooks in Claude Code: three entries merged into a settings.json, next to
whatever else is there, and what those hooks read when Claude Code runs them.

Our entries are recognised by their command, so installing again changes nothing and
uninstalling removes only them.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import re
import shlex
from collections.abc import Sequence
from pathlib import Path, PurePath
from typing import Any, NamedTuple

from chitin.core.host_files import (
    HookSetupError,
    Installed,
    Outcome,
    read_json_object,
    write_text,
)
from chitin.model.reflection import Where

CLAUDE_SETTINGS = Path(".claude") / "settings.json"
# Claude Code caps the strings a hook's output puts into the context (additionalContext,
# systemMessage, plain stdout) at 10,000 characters; a longer one is saved to a file
# and the session sees a 2,000-character preview and the file's path
# (code.claude.com/docs/en/hooks, "JSON output"). The SessionStart context is kept
# within CLAUDE_CONTEXT_LIMIT, well under that cap: the token budget is lowered to fit.
CLAUDE_CONTEXT_CAP = 10_000
CLAUDE_CONTEXT_LIMIT = 8_000
CLAUDE_ACTION = "hooks run claude-code"
# Our entries, whatever chitin and store they run: ".../chitin hooks run claude-code
# ...", quoted or not, or "python -m chitin hooks run claude-code ...", with a
# "--store <folder>" before "hooks" when a store was named at install, as shlex.quote
# wrote it: quoted runs and bare characters side by side ('Mel'"'"'s store').
_STORE = r"""--store\s+(?:'[^']*'|"[^"]*"|[^\s'"])+\s+"""
_OURS = re.compile(rf"""chitin['"]?\s+(?:{_STORE})?hooks\s+run\s+claude-code\s""")


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


def claude_settings_path(project_dir: Path) -> Path:
    return project_dir / CLAUDE_SETTINGS


def install_claude_code(
    project_dir: Path, command: Sequence[str], store: Path | None = None
) -> Outcome:
    """Our entries in the project's settings.json, running ``command``; with ``store``,
    they run ``command --store <store>``: Claude Code runs hooks in the session's
    folder and environment, where chitin would find another store, or the default."""
    path = claude_settings_path(project_dir)
    settings = load_settings(path)
    merged = with_our_hooks(settings, with_store(command, store))
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


def with_store(command: Sequence[str], store: Path | None) -> tuple[str, ...]:
    """``command``, told the store when one was named at install."""
    return (*command, "--store", str(store)) if store is not None else tuple(command)


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


def installed_program(home: Path) -> Installed | None:
    """The chitin that the hooks of ``home``'s settings (the user's, or a project's) run,
    if any of ours is there (a file that cannot be read names none)."""
    path = claude_settings_path(home)
    try:
        settings = load_settings(path)
    except HookSetupError:
        return None
    for _, _, entry in _all_hooks(settings):
        if _is_ours(entry):
            with contextlib.suppress(ValueError, IndexError):
                argv = shlex.split(entry["command"])
                store = _store_of(argv)
                named = f"--store {shlex.quote(store)} " if store else ""
                fix = f"chitin {named}hooks install claude-code"
                return Installed(path, "the Claude Code hooks run", argv[0], fix, store)
    return None


def _store_of(argv: list[str]) -> str | None:
    """The store an entry's command names (``--store X`` before ``hooks``), if any."""
    before = argv[: argv.index("hooks")] if "hooks" in argv else argv
    if "--store" in before[:-1]:
        return before[before.index("--store") + 1]
    return None


# ------------------------------------------------------------------ at run time


def parse_hook_input(text: str) -> dict[str, Any]:
    """The event Claude Code sends on stdin; anything unreadable reads as no details
    (the session still starts), an event nested too deeply to read among it: json's
    decoder recurses once per [ or {, and raises RecursionError there."""
    try:
        data = json.loads(text) if text.strip() else {}
    except (json.JSONDecodeError, RecursionError):
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


def session_place(event: dict[str, Any]) -> Where:
    """Where the session's transcript is: Claude Code hands SessionEnd, PreCompact and
    Stop hooks its ``transcript_path`` (a JSONL file), which stays where it is. None
    where it names none, or a relative one with no absolute ``cwd`` to take it from."""
    path = event.get("transcript_path")
    if not isinstance(path, str) or not path.strip() or "\0" in path:
        return Where()
    given = path.strip().encode("utf-8", "replace").decode("utf-8")
    return Where(transcript=_absolute(given, event.get("cwd")))


def unplaced(event: dict[str, Any]) -> str:
    """Why ``session_place`` found no transcript in ``event``."""
    path = event.get("transcript_path")
    if isinstance(path, str) and path.strip() and "\0" not in path:
        return (
            "the event's transcript_path is relative and its cwd is missing or not an "
            "absolute path, so where the transcript is cannot be known; nothing was queued"
        )
    return (
        "the event names no session transcript (transcript_path), so there is "
        "nothing to reflect on; nothing was queued"
    )


def _absolute(path: str, cwd: object) -> str | None:
    """``path`` as the reader will find it later, from another folder: a leading `~`
    is the home folder (Claude Code's hooks reference writes ``~/.claude/projects/…``),
    and a relative path is taken from the event's ``cwd``, where Claude Code ran.
    Without an absolute ``cwd``, None: the folder the hook process runs in is nothing
    the event vouches for, and a path taken from it could name another file."""
    expanded = Path(os.path.expanduser(path))  # unchanged where there is no such home
    if expanded.is_absolute():
        return str(expanded)
    if isinstance(cwd, str) and Path(cwd).is_absolute():
        return str(Path(cwd) / expanded)
    return None
