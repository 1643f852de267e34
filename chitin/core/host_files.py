"""The files of agent hosts that chitin writes its entries into: read strictly, so that
a broken file is refused rather than written over, and replaced atomically.

Shared by the installers of every host (``chitin.core.openclaw``,
``chitin.core.claude_code``, ``chitin.core.mcp_clients``).
"""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path
from typing import Any, NamedTuple

from chitin.errors import ChitinError
from chitin.model import strict_json
from chitin.store.files import atomic_write, kind_of


class Outcome(NamedTuple):
    """What an install or uninstall did: installed, updated, unchanged, removed or absent."""

    host: str
    action: str
    path: Path


class HookSetupError(ChitinError):
    """A host's hook folder or settings file cannot be used as it is."""


class Installed(NamedTuple):
    """A chitin that a host or git was told to run, and where that is written."""

    where: Path  # the file that names it
    what: str  # what runs it, for a person: "the OpenClaw hook runs"
    program: str  # the program run
    fix: str  # the command that installs it afresh
    store: str | None = None  # the store it is told to use, if one was named at install


def is_gone(program: str) -> bool:
    """A program named by absolute path that is no longer there (one named by PATH is
    the host's PATH's business)."""
    path = Path(program)
    return path.is_absolute() and not path.is_file()


def regular_or_missing(path: Path) -> None:
    """Refuse a host file that is, or links to, a FIFO, a device or a socket: reading a
    FIFO waits for a writer that never comes, and a write would replace the device (a
    settings file linked to /dev/null to keep a host from reading it)."""
    try:
        mode = path.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        return
    except OSError as error:
        raise HookSetupError(f"cannot read {path}: {error.strerror or error}") from None
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise HookSetupError(
            f"{path} is {kind_of(mode, 'not a file')}{_via(path)}, not a file: chitin "
            "reads and writes only regular files there (nothing was written)"
        )


def _via(path: Path) -> str:
    return f" (through a link to {os.path.realpath(path)})" if path.is_symlink() else ""


class _Unwritable(ValueError):
    """A number Python's json reads but JSON cannot hold: written back, the file would
    say NaN or Infinity, which no host can read (or, past 4,300 digits, be no number)."""


def _no_constant(name: str) -> Any:
    raise _Unwritable(f"{name} is not JSON")


def _finite(text: str) -> float:
    number = float(text)
    if math.isinf(number):
        raise _Unwritable(f"{text} is too large a number")
    return number


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:  # more digits than Python reads (sys.get_int_max_str_digits)
        raise _Unwritable(f"a number of {len(text)} digits is too large") from None


def read_json_object(path: Path) -> dict[str, Any]:
    """The JSON object a host's configuration file holds (``{}`` when the file is
    missing or blank), or a HookSetupError of one line naming the file and exactly what
    is wrong with it, so that nothing is written over it. A key given twice in one
    object is refused too: writing the file back would silently drop one of them."""
    try:
        regular_or_missing(path)
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
        data = strict_json.loads(
            text, parse_constant=_no_constant, parse_float=_finite, parse_int=_integer
        )
    except json.JSONDecodeError as error:
        raise HookSetupError(
            f"{path} is not valid JSON ({error.msg} at line {error.lineno} column "
            f"{error.colno}); fix it and run again (nothing was written)"
        ) from None
    except strict_json.RepeatedKey as repeated:
        raise HookSetupError(
            f'{path} gives the key "{repeated.key}" twice in one object; remove one and '
            "run again (nothing was written)"
        ) from None
    except _Unwritable as number:
        raise HookSetupError(
            f"{path} is not valid JSON ({number}); fix it and run again (nothing was written)"
        ) from None
    except RecursionError:  # json's decoder recurses once per [ or {
        raise HookSetupError(
            f"{path} is not valid JSON (nested too deeply to read); fix it and run again "
            "(nothing was written)"
        ) from None
    if not isinstance(data, dict):
        raise HookSetupError(f"{path} must hold a JSON object; nothing was written")
    return data


def read_text(path: Path) -> str | None:
    """``path``'s text; None when it is missing, "" when it cannot be read (so that it
    differs from any text we would write, and is written over)."""
    try:
        regular_or_missing(path)
        return path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, UnicodeDecodeError):
        return ""


def write_text(path: Path, text: str) -> None:
    """Replace ``path`` atomically, keeping its permissions; through a symlink (a
    settings file kept with the user's dotfiles), the file it points to is replaced."""
    target = path.resolve() if path.is_symlink() else path
    try:
        regular_or_missing(path)
        atomic_write(target, text)
    except OSError as error:
        raise HookSetupError(f"cannot write {path}: {error.strerror or error}") from None
