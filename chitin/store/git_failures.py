"""What a failed git command is said as: one line naming the cause and, where there is
one, the fix (a repository owned by another user, a lock file left behind)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import subprocess

# git (2.35.2 on) refuses a repository owned by another user, unless safe.directory
# names it: every command fails, which must not read as "no history" or "no repository".
# (`git config --local` says only that it is not inside a repository.)
DUBIOUS = "detected dubious ownership in repository at '"
NOT_INSIDE = "can only be used inside a git repository"


def said(result: subprocess.CompletedProcess[Any]) -> str:
    said = result.stderr or ""
    return said.decode("utf-8", "replace") if isinstance(said, bytes) else str(said)


_LOCKED = re.compile(r"Unable to create '(?P<path>[^']+\.lock)': File exists")


def explain(args: Sequence[str], result: subprocess.CompletedProcess[str]) -> str:
    output = (result.stderr or result.stdout or "").strip()
    if DUBIOUS in said(result):
        where = said(result).split(DUBIOUS, 1)[1].split("'", 1)[0]
        return (
            f"git refuses to work in {where}: the repository is owned by another user "
            f"(git's safe.directory check). If you trust it, run: "
            f"git config --global --add safe.directory {where}"
        )
    locked = _LOCKED.search(str(output))
    if locked:
        path = locked["path"]
        return (
            f"git's lock file {path} exists: another git command is running in this "
            f"repository, or one was killed there. If none is running, remove it "
            f"(rm '{path}') and try again"
        )
    lines = [line for line in str(output).splitlines() if line.strip()]
    reason = "; ".join(lines[-3:]) if lines else f"exit code {result.returncode}"
    return f"git {_command_name(args)} failed: {reason}"


def _command_name(args: Sequence[str]) -> str:
    """The git command in ``args``, past any ``-c key=value`` before it."""
    rest = list(args)
    while rest[:1] == ["-c"]:
        rest = rest[2:]
    return rest[0] if rest else ""
