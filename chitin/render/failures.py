"""How an error reads for the person: one line, and the exit code a command gives.

- chitin's own errors (``chitin.errors``) say what went wrong and what to do: exit 1.
- An operating-system error whose cause is plain (no permission, a full disk, a
  read-only file system) names the file: exit 1; so does a current folder removed
  under the command, which no relative path can be resolved against.
- Anything else is chitin's fault: ``internal error: <Type>: <message>``, exit 3.

Paths of chitin's own temporary files are never shown: they are gone by the time the
message is read, and they say nothing the folder holding them does not.
"""

from __future__ import annotations

import os
import re

from chitin.errors import ChitinError

INTERNAL = 3

# errno → what it is called here (EACCES, EPERM, ENOSPC, EDQUOT, EROFS).
_PLAIN_CAUSES = {
    13: "permission denied",
    1: "operation not permitted",
    28: "no space left on device",
    122: "disk quota exceeded",
    30: "read-only file system",
}
_ADVICE = {
    13: "check its owner and permissions",
    1: "check its owner and permissions",
    28: "free some space and run the command again",
    122: "free some space and run the command again",
    30: "it is mounted read-only: use a folder on a writable file system",
}
# chitin's temporary files and folders: atomic writes' ".chitin-XXXX.tmp", the
# ".<name>.<pid>.tmp" files of state written aside, and the scratch folders of merges
# and diffs.
_TEMPORARY_FILE = re.compile(r"(?P<folder>[^\s'\"]*/)?\.[^/\s'\"]+\.tmp\b")
_TEMPORARY_FOLDER = re.compile(r"[^\s'\"]*/chitin-(?:merge|diff)-[^\s'\":,;]*")


# What the library's errors name (its arguments, the fields of the mapping it takes) →
# the command line's flags, which the MCP tools say as their parameters in turn.
_AS_FLAGS = {
    "(use allow_secret=True if": "(use --allow-secret if",
    "(store= and $CHITIN_STORE name": "(--store and $CHITIN_STORE name",
    "with skip_unreadable=True)": "with --skip-unreadable)",
}


def describe(error: BaseException) -> tuple[str, int]:
    """(the line to print after ``Error: ``, the exit code) for ``error``."""
    if isinstance(error, ChitinError):
        return as_flags(str(error)), error.exit_code
    if isinstance(error, OSError) and error.errno in _PLAIN_CAUSES:
        return _plain(error), 1
    if isinstance(error, FileNotFoundError) and error.filename is None and _folder_gone():
        return GONE_FOLDER, 1
    said = scrubbed(str(error))
    name = type(error).__name__
    return (f"internal error: {name}: {said}" if said else f"internal error: {name}"), INTERNAL


# os.getcwd()'s error (no file named), met by whatever makes a relative path absolute.
GONE_FOLDER = (
    "the current folder no longer exists (it was removed after the shell entered it), so "
    "a relative path names nothing: cd to a folder that exists, or give absolute paths"
)


def _folder_gone() -> bool:
    try:
        os.getcwd()
    except FileNotFoundError:
        return True
    return False


def _plain(error: OSError) -> str:
    number = error.errno or 0
    cause = _PLAIN_CAUSES[number]
    where = scrubbed(str(error.filename)) if error.filename is not None else ""
    if error.filename2 is not None:
        where += f" → {scrubbed(str(error.filename2))}"
    return f"{cause}: {where} ({_ADVICE[number]})" if where else cause


def scrubbed(text: str) -> str:
    """``text`` with each path of a chitin temporary file replaced by its folder."""
    text = _TEMPORARY_FOLDER.sub("a temporary folder", text)
    text = _TEMPORARY_FILE.sub(lambda found: found["folder"] or ".", text)
    return " ".join(text.split())


def as_flags(message: str) -> str:
    """A library error's ``message`` in a front end's words: the flags for its arguments."""
    for library, flags in _AS_FLAGS.items():
        message = message.replace(library, flags)
    return message
