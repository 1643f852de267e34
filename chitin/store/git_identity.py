"""Which of ``user.name`` and ``user.email`` git has configured for a store, asked once
and remembered while git's configuration files stay as they were.

A commit needs to know whether to fall back to chitin's identity (git.py,
``ensure_identity``); asking git is one process per commit (~4 ms, a tenth of a
``contribute``'s git work). The answer is kept in ``.chitin/git-identity.json`` with
the signature of every file and variable git reads its configuration from: the
repository's config (and config.worktree), the global and XDG files, the system file,
and the variables that name or add to them. Any change to one of them, an
``include`` in any (which may name a file outside the signature), a linked worktree
or a configuration given on the command line, and git is asked again. Only which
keys are set is kept, never their values.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path

from chitin.errors import StoreError
from chitin.lockfile import derived_folder
from chitin.store.files import read_text

CACHE = "git-identity.json"
KEYS = ("user.name", "user.email")
# Variables that change which configuration git reads.
VARIABLES = (
    "HOME",
    "XDG_CONFIG_HOME",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_NOSYSTEM",
    "GIT_CONFIG",
)


# What git strips from the ends of an author's name (``crud`` in git's ident.c): a name
# of nothing else ($CHITIN_AGENT="." or " ") is refused by every commit ("name consists
# only of disallowed characters").
_CRUD = frozenset(".,:;<>\"\\'")


def author_name(agent: str | None, fallback: str) -> str:
    """The author's name for an identity-less machine: the agent's, where git can use
    it; else ``fallback``."""
    if agent and any(ch > " " and ch not in _CRUD for ch in agent):
        return agent
    return fallback


def configured(
    root: Path, git_dir: Path, env: Mapping[str, str], ask: Callable[[], set[str]]
) -> set[str]:
    """Those of KEYS that git has configured for the store at ``root``: remembered, or
    ``ask``ed (and remembered where the signature is sure)."""
    signature = _signature(git_dir, env)
    cache = derived_folder(root) / CACHE
    if signature is not None:
        with contextlib.suppress(OSError, StoreError, ValueError, TypeError, KeyError):
            kept = json.loads(read_text(cache))  # never waits on a FIFO put there
            if kept["signature"] == signature:
                return {key for key in kept["keys"] if key in KEYS}
    keys = ask()
    if signature is not None:
        _remember(cache, {"signature": signature, "keys": sorted(keys)})
    return keys


def _signature(git_dir: Path, env: Mapping[str, str]) -> list[object] | None:
    """What git's configuration is read from, as it is now; None where that cannot be
    told from files alone."""
    if any(name.startswith("GIT_CONFIG_") and name[11:] in ("COUNT", "PARAMETERS") for name in env):
        return None  # configuration on the command line or in variables
    if (git_dir / "commondir").exists():
        return None  # a linked worktree: its configuration lives elsewhere too
    files = [git_dir / "config", git_dir / "config.worktree", *_user_files(env)]
    if env.get("GIT_CONFIG_NOSYSTEM", "").lower() not in ("1", "true", "yes"):
        files.append(Path(env.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig"))
    marks: list[object] = [[name, env.get(name)] for name in VARIABLES]
    for path in files:
        mark = _mark(path)
        if mark is False:
            return None
        marks.append([str(path), mark])
    return marks


def _user_files(env: Mapping[str, str]) -> list[Path]:
    if env.get("GIT_CONFIG_GLOBAL"):
        return [Path(env["GIT_CONFIG_GLOBAL"])]
    found = []
    home = env.get("HOME")
    xdg = env.get("XDG_CONFIG_HOME") or (f"{home}/.config" if home else None)
    if xdg:
        found.append(Path(xdg) / "git" / "config")
    if home:
        found.append(Path(home) / ".gitconfig")
    return found


def _mark(path: Path) -> list[int] | bool | None:
    """The file's identity and version; None if it is missing; False if it includes
    others (or cannot be read), which the signature cannot follow."""
    try:
        seen = path.stat()
    except FileNotFoundError:
        return None
    except OSError:
        return False
    if not path.is_file():
        return [seen.st_ino, 0, 0]  # /dev/null, as tests and benchmarks name it
    try:
        if b"include" in path.read_bytes().lower():
            return False
    except OSError:
        return False
    return [seen.st_ino, seen.st_size, seen.st_mtime_ns]


def _remember(cache: Path, record: Mapping[str, object]) -> None:
    """Write atomically; a store whose .chitin/ cannot be written asks each time."""
    with contextlib.suppress(OSError):
        scratch = cache.with_name(f".{cache.name}.{os.getpid()}.tmp")
        scratch.write_text(json.dumps(record), encoding="utf-8")
        scratch.replace(cache)


def email_local(name: str) -> str:
    """An e-mail address's local part made of an author's name."""
    local = "".join(ch if ch.isalnum() or ch in "._-" else "-" for ch in name.lower())
    return local.strip("-.") or "chitin"
