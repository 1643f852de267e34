"""Chitin's hook in OpenClaw: a hook pack (package.json naming ``hooks/chitin/``, which
holds HOOK.md and handler.js) copied from ``chitin/assets/openclaw/`` into OpenClaw's
managed hooks folder, found as OpenClaw finds it (``openclaw_hooks_dir``). The same
folder installs with OpenClaw's own ``openclaw plugins install``.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os.path
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path

from chitin.core.host_files import (
    HookSetupError,
    Installed,
    Outcome,
    read_json_object,
    read_text,
    write_text,
)
from chitin.notices import notice
from chitin.resources import asset_path

OPENCLAW_CONFIG = "openclaw.json"  # OpenClaw's settings, beside its hooks folder
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


def openclaw_hooks_dir(home: Path, env: Mapping[str, str]) -> Path:
    """OpenClaw's managed hooks folder, as OpenClaw 2026.9 resolves it (its
    resolveConfigDir): ``$OPENCLAW_STATE_DIR/hooks``, else the folder of
    ``$OPENCLAW_CONFIG_PATH`` + ``/hooks``, else ``<home>/.openclaw/hooks``, where home
    is ``$OPENCLAW_HOME`` if set. A leading ``~`` means that home."""

    base = _openclaw_home(home, env)

    def resolved(value: str) -> Path:
        return Path(os.path.abspath(_expand_home(value, base)))

    state = (env.get("OPENCLAW_STATE_DIR") or "").strip()
    if state:
        return resolved(state) / "hooks"
    config = (env.get("OPENCLAW_CONFIG_PATH") or "").strip()
    if config:
        return resolved(config).parent / "hooks"
    return base / ".openclaw" / "hooks"


def openclaw_config_file(home: Path, env: Mapping[str, str]) -> Path:
    """OpenClaw's openclaw.json, as OpenClaw 2026.9 resolves it (resolveConfigPath):
    ``$OPENCLAW_CONFIG_PATH``, else openclaw.json beside the managed hooks folder."""

    config = (env.get("OPENCLAW_CONFIG_PATH") or "").strip()
    if config:  # a leading ~ is $OPENCLAW_HOME, as for the hooks folder (resolveUserPath)
        return Path(os.path.abspath(_expand_home(config, _openclaw_home(home, env))))
    return openclaw_hooks_dir(home, env).parent / OPENCLAW_CONFIG


def _openclaw_home(home: Path, env: Mapping[str, str]) -> Path:
    """The home OpenClaw expands ``~`` to: ``$OPENCLAW_HOME`` if set, else ``home``."""
    explicit = (env.get("OPENCLAW_HOME") or "").strip()
    if explicit in ("undefined", "null"):
        explicit = ""
    return Path(os.path.abspath(_expand_home(explicit, home))) if explicit else home


def _expand_home(value: str, home: Path) -> str:
    if value == "~" or value.startswith(("~/", "~\\")):
        return str(home) + value[1:]
    return value


def install_openclaw(hooks_dir: Path, command: Sequence[str], store: Path | None = None) -> Outcome:
    """Copy the hook pack to ``<hooks_dir>/chitin/``, with the ``command`` that runs this
    chitin and the ``store`` named at install (the gateway runs in a folder and an
    environment of its own); files already current are left alone, and the files of
    the older layout (HOOK.md and handler.js at the pack's top) are removed."""

    target = _hook_folder(hooks_dir)
    wanted = {
        name: asset_path("openclaw", *name.split("/")).read_text(encoding="utf-8")
        for name in OPENCLAW_FILES
    }
    recorded: dict[str, object] = {"command": list(command)}
    if store is not None:
        recorded["store"] = str(store)
    wanted[OPENCLAW_COMMAND_FILE] = json.dumps(recorded, indent=2) + "\n"
    present = {name: read_text(target / name) for name in wanted}
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


def uninstall_openclaw(hooks_dir: Path, config: Path | None = None) -> Outcome:
    """Remove our files (of either layout), the folders left empty, and the entry that
    `openclaw hooks enable chitin` wrote into ``config`` (openclaw.json), if given."""
    target = _hook_folder(hooks_dir)
    names = (*OPENCLAW_FILES, OPENCLAW_COMMAND_FILE, *OPENCLAW_OLD_FILES)
    ours = [target / name for name in names if (target / name).is_file()]
    disabled = config is not None and _forget_enabled(config)
    if not ours:
        return Outcome("openclaw", "removed" if disabled else "absent", target)
    try:
        for path in ours:
            path.unlink()
        for folder in (target / "hooks" / OPENCLAW_HOOK, target / "hooks", target):
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
    except OSError as error:
        raise HookSetupError(f"cannot remove {target}: {error.strerror or error}") from None
    return Outcome("openclaw", "removed", target)


def _forget_enabled(config: Path) -> bool:
    """Remove ``hooks.internal.entries.chitin`` from openclaw.json, and nothing else;
    whether it was there. A file that is not plain JSON (OpenClaw also reads JSON5) is
    left as it is, as every host file is, and a notice says what to remove by hand:
    the uninstall goes on, since its pack must not stay for a file chitin cannot edit."""
    try:
        data = read_json_object(config)
    except HookSetupError:
        if OPENCLAW_HOOK in (read_text(config) or ""):
            notice(
                f"{config} is not plain JSON (OpenClaw also reads JSON5), so chitin left "
                f"it as it is: remove hooks.internal.entries.{OPENCLAW_HOOK} from it by hand"
            )
        return False
    entries: object = data
    for key in ("hooks", "internal", "entries"):
        entries = entries.get(key) if isinstance(entries, dict) else None
    if not isinstance(entries, dict) or OPENCLAW_HOOK not in entries:
        return False
    kept = copy.deepcopy(data)
    del kept["hooks"]["internal"]["entries"][OPENCLAW_HOOK]
    write_text(config, json.dumps(kept, indent=2, ensure_ascii=False) + "\n")
    return True


def _hook_folder(hooks_dir: Path) -> Path:
    target = hooks_dir / OPENCLAW_HOOK
    if target.exists() and not target.is_dir():
        raise HookSetupError(f"{target} exists and is not a folder; move it away and run again")
    return target


def installed_program(hooks_dir: Path) -> Installed | None:
    """The chitin that the pack in ``hooks_dir`` runs, if one is recorded there."""
    for name in (OPENCLAW_COMMAND_FILE, "chitin.json"):  # this layout's, then the older one's
        where = hooks_dir / OPENCLAW_HOOK / name
        recorded = read_text(where)
        with contextlib.suppress(ValueError, TypeError, KeyError, IndexError):
            data = json.loads(recorded or "")
            program, store = data["command"][0], data.get("store")
            if isinstance(program, str):
                store = store if isinstance(store, str) and store else None
                named = f"--store {shlex.quote(store)} " if store else ""
                fix = f"chitin {named}hooks install openclaw"
                return Installed(where, "the OpenClaw hook runs", program, fix, store)
    return None
