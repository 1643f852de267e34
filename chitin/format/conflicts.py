"""Git's conflict markers in an insight file: the one place that decides a file holding
them is not an insight.

A merge that stops on a conflict (``chitin sync``, ``git pull``) leaves both sides in
the file between marker lines. Such a file may still parse (the markers can sit in the
claim, a section, or a YAML block that reads them as text), and what it says is
neither side: every reader skips it, ``chitin check`` reports it, and no write
replaces it, until a person chooses.
"""

from __future__ import annotations

import re

from chitin.errors import ValidationError

# git's default marker size; a line that starts with one of these (then a space and a
# label, or nothing) opens, splits (diff3's base) or closes a conflict.
_OPEN, _BASE, _CLOSE, _SPLIT = "<<<<<<<", "|||||||", ">>>>>>>", "======="
_MARKER = re.compile(r"(<{7}|\|{7}|>{7})(?: |$)")

# Worded as `chitin sync` words its stop (core/sync.py), for one file.
FIX = (
    "resolve the conflict: keep one side, remove the marker lines, then `git add` the file "
    "and `git commit` (and run `chitin sync` again if a sync stopped)"
)


class ConflictMarkers(ValidationError):
    """The file holds git's conflict markers, on ``lines`` (1-based)."""

    def __init__(self, lines: list[int]) -> None:
        shown = ", ".join(str(n) for n in lines[:6]) + (", …" if len(lines) > 6 else "")
        super().__init__("file", f"holds git conflict markers (line{_s(lines)} {shown})")
        self.lines = lines
        self.fix = FIX


def _s(lines: list[int]) -> str:
    return "s" if len(lines) > 1 else ""


def marker_lines(text: str) -> list[int]:
    """The 1-based numbers of the lines of ``text`` that are git's conflict markers.

    ``=======`` alone on a line is a Markdown heading's underline too: it counts only
    between an opening ``<<<<<<<`` and its closing ``>>>>>>>``."""
    if _OPEN not in text and _CLOSE not in text and _BASE not in text:
        return []  # the common case: one scan of the text, no split
    found: list[int] = []
    inside = False
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip("\r")
        marker = _MARKER.match(line)
        if marker is not None:
            found.append(number)
            inside = marker.group(1) != _CLOSE
        elif inside and line == _SPLIT:
            found.append(number)
    return found


def refuse_markers(text: str) -> None:
    """Raise ConflictMarkers if ``text`` holds any."""
    lines = marker_lines(text)
    if lines:
        raise ConflictMarkers(lines)


def escape_markers(text: str) -> str:
    """A body text chitin writes never begins a line with a marker: a backslash goes
    before one (``unescape_markers`` takes it away), as before a ``## `` heading."""
    return re.sub(r"(?m)^(\\*)(<{7}|\|{7}|>{7})", r"\\\1\2", text)


def unescape_markers(text: str) -> str:
    return re.sub(r"(?m)^\\(\\*(?:<{7}|\|{7}|>{7}))", r"\1", text)
