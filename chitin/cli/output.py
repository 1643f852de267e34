"""Text to the person, as click.echo writes it, without loading click (the session
start's commands print through this; cli/lean.py says why)."""

from __future__ import annotations

import io
import sys
from typing import Any, TextIO

from chitin.model.numbers import js_json


def say(text: str = "", err: bool = False, nl: bool = True) -> None:
    """One message and its newline, flushed: what ``click.echo`` does with text."""
    stream = sys.stderr if err else sys.stdout
    if stream is None:  # no console at all (pythonw): nowhere to say it
        return
    line = text + "\n" if nl else text
    try:
        stream.write(line)
    except UnicodeEncodeError:
        # A stream set to ASCII (PYTHONIOENCODING, an old locale): click rewraps it as
        # UTF-8 with replacement, so the bytes are the same whoever prints.
        stream.flush()
        stream.buffer.write(line.encode("utf-8", "replace"))
    stream.flush()


def note(message: str) -> None:
    """A line for the person on stderr (the data goes to stdout)."""
    say(message, err=True)


def emit_json(data: Any) -> None:
    say(json_text(data))


def json_text(data: Any) -> str:
    """``data`` as the JSON chitin prints: numbers as JavaScript (and chitin 1.4.5)
    print them, a whole one without ``.0`` (``"confidence": 1``, not ``1.0``)."""
    return js_json(data)


def standard_input() -> TextIO:
    """stdin, or an empty one where the process was started with fd 0 closed (``<&-``,
    a daemon's): Python then has no ``sys.stdin``, and a closed input reads as an empty
    one, as /dev/null does, so that each command says what it lacks in its own words."""
    if sys.stdin is None:
        return io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    return sys.stdin
