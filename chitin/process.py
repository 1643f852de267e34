"""The process around one command: git's answers started ahead of it, and its end.

Three speed measures live here, and nowhere else (docs/design.md §7, §9f):

- **A status started ahead** (``PREFETCHED``). For a reading command in a store whose
  cache syncs by git, the console script starts ``git status`` before the CLI loads
  (chitin/console/ahead.py, store/git.py's ``prefetch_status``), so that git works on the
  other core meanwhile. The cache's sync takes the answer (``take``); the command's end
  drops any nobody took (``drop``), so that no later command of the same process reads
  a stale one.
- **The end of the process** (``leave``). The console script flushes its output and
  ends with ``os._exit`` once the command has closed everything, skipping the
  interpreter's teardown (~15 ms of a session start). In-process callers (tests,
  other programs) never call ``leave``.
- **No cyclic garbage collection while a command starts** (``hold_collector``).
  Loading click and chitin's modules makes ~25,000 objects the collector tracks and
  frees almost none, and it ran ~40 times over them for nothing (a retrieve at 1,000):
  3-5 ms of every command's CPU (§9f, round 3). The console script holds it from its
  first line; a reading command, short and bounded, runs without it to its end; any
  other command (a writer, the MCP server, the background embedding, which may run for
  hours) gets it back before the CLI runs.

And the line a command stopped by Ctrl-C or SIGTERM ends with (``interrupted_line``),
said alike by the CLI (cli/outcome.py), the console script before the command began
(chitin/console/, from its first lines) and a worker of the front (front/worker.py).

Imported by the CLI's first module and by store/git.py, so it imports nothing of
chitin and nothing beyond ``os``, ``sys`` and ``gc``.
"""

from __future__ import annotations

import gc
import os
import sys

TYPE_CHECKING = False  # not typing's: the console script's start imports no typing (~3 ms)
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Callable, Sequence

StatusKey = tuple[str, tuple[str, ...]]  # (store root, paths asked about)


class Prefetched:
    """The ``git status`` processes started ahead of their command, by question."""

    def __init__(self) -> None:
        self._running: dict[StatusKey, subprocess.Popen[bytes]] = {}

    def __contains__(self, key: StatusKey) -> bool:
        return key in self._running

    def __len__(self) -> int:
        return len(self._running)

    def started(self, key: StatusKey, process: subprocess.Popen[bytes]) -> None:
        self._running[key] = process

    def take(self, key: StatusKey) -> subprocess.Popen[bytes] | None:
        """The process that answers ``key``, once: the caller waits for it."""
        return self._running.pop(key, None)

    def drop(self) -> None:
        """End the statuses nobody asked for (the command stopped early)."""
        for process in self._running.values():
            process.kill()
            process.communicate()
        self._running.clear()


PREFETCHED = Prefetched()


def status_key(root: object, paths: Sequence[str]) -> StatusKey:
    return str(root), tuple(paths)


def hold_collector() -> None:
    """No cyclic garbage collection until ``release_collector`` (or the process ends)."""
    gc.disable()


def release_collector() -> None:
    gc.enable()


# A worker of the resident front answers its client before its own end
# (``answer_early``): how it tells the outcome.
_ANSWER: list[Callable[[int], None]] = []


def answer_early(tell: Callable[[int], None]) -> None:
    """Make ``leave`` call ``tell(code)`` once the output is flushed: the front's worker,
    whose client waits for the outcome only, not for the worker's exit."""
    _ANSWER[:] = [tell]


def leave(code: int) -> None:
    """Flush what the command wrote and end the process now, without the teardown."""
    for stream in (sys.stdout, sys.stderr):
        if stream is None:  # started with that fd closed (a daemon's): nothing to flush
            continue
        try:  # noqa: SIM105 - no contextlib in the console script's start
            stream.flush()
        except (OSError, ValueError):  # closed by a reader that left early
            pass
    if _ANSWER:
        _finish_answered(code)
    os._exit(code)


def _finish_answered(code: int) -> None:
    try:  # noqa: SIM105 - as above
        _ANSWER[0](code)
    except Exception:  # the client is gone: the outcome goes with the worker's end
        pass


def interrupted_line(kept: str, signum: int, stderr: object, closed: bool = False) -> str:
    """The line "Interrupted: <kept>." for the stream it goes to. A terminal echoes
    Ctrl-C as "^C" with no newline: there, for SIGINT, the line starts below it.
    Anywhere else (a pipe, a log), or where click already ended the echo's line
    (``closed``), that newline would be a blank line above the one line."""
    below = signum == 2 and not closed and _terminal(stderr)
    return ("\n" if below else "") + f"Interrupted: {kept}."


def _terminal(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):  # no stream, or a closed one
        return False
