"""A deadline for git's network operations (fetch and push), so that a remote that
accepts and never answers cannot hang ``chitin sync`` until it is killed.

git has none by default: curl gives up only on a transfer slower than
``http.lowSpeedLimit`` for ``http.lowSpeedTime`` (both unset), and ssh waits on the
system's TCP timeout. chitin sets them for its own git runs, on the command line
(``-c``), and only where the user has set nothing: git takes
``GIT_HTTP_LOW_SPEED_LIMIT``/``_TIME`` over any config, so a user's environment still
wins, and a user's config (``http.lowSpeed*``, for any URL) or ssh program
(``GIT_SSH_COMMAND``, ``GIT_SSH``, ``core.sshCommand``) is left as it is.

``CHITIN_GIT_TIMEOUT`` (seconds, default 60) is how long a remote may send nothing.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from chitin.errors import StoreError

if TYPE_CHECKING:
    from chitin.store.git import Git

VARIABLE = "CHITIN_GIT_TIMEOUT"
DEFAULT_SECONDS = 60
_CONFIGURED = r"^(http\..*lowspeed(limit|time)|core\.sshcommand)$"


def options(git: Git) -> list[str]:
    """``-c`` options that give a fetch or push a deadline the user has not set."""
    seconds = _seconds()
    configured = git.run(["config", "--get-regexp", _CONFIGURED], check=False).stdout
    keys = {line.split(" ", 1)[0] for line in configured.splitlines()}
    added: list[str] = []
    if not any("lowspeed" in key for key in keys) and not _http_environment():
        added += ["-c", "http.lowSpeedLimit=1", "-c", f"http.lowSpeedTime={seconds}"]
    if "core.sshcommand" not in keys and not _ssh_environment():
        added += ["-c", f"core.sshCommand=ssh -o ConnectTimeout={seconds}"]
    return added


def _seconds() -> int:
    given = os.environ.get(VARIABLE, "").strip()
    if not given:
        return DEFAULT_SECONDS
    if not given.isdigit() or int(given) < 1:
        raise StoreError(f"{VARIABLE} must be a whole number of seconds, 1 or more: {given!r}")
    return int(given)


def _http_environment() -> bool:
    return any(os.environ.get(f"GIT_HTTP_LOW_SPEED_{part}") for part in ("LIMIT", "TIME"))


def _ssh_environment() -> bool:
    return any(os.environ.get(name) for name in ("GIT_SSH_COMMAND", "GIT_SSH"))
