"""What every command shares: where the store is, the clock, and output helpers.

No click here: the session start's commands (cli/lean.py) open their store through
this module without it. The click options every command shares are in cli/options.py.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from chitin.cli.output import note
from chitin.core import Chitin
from chitin.errors import ValidationError
from chitin.location import Located, home_folder, locate, missing_note
from chitin.lockfile import note_command
from chitin.model import arguments
from chitin.render.text import MAX_PROBLEM_LINES, problem_lines

if TYPE_CHECKING:
    import click


class Settings(NamedTuple):
    store: Path
    agent: str | None
    debug: bool
    located: Located  # the store, and how it was found (chitin/location.py)
    verbose: bool = False  # --verbose: the command first says which store, and why

    @classmethod
    def from_environment(cls, store: str | None, debug: bool, verbose: bool = False) -> Settings:
        located = locate(store, os.environ, current_folder())
        agent = arguments.agent(None, os.environ)
        return cls(located.path, agent, debug, located, verbose)


def current_folder() -> Path | None:
    """The folder chitin runs in; None when it was removed under us (no store there)."""
    try:
        return Path.cwd()
    except OSError:
        return None


def running_chitin() -> tuple[str, ...]:
    """How to run this very chitin again, by absolute path: what the hooks and git's
    merge driver are given, since an agent host or git may not have chitin's folder on
    PATH (a virtual environment). The console script we were started as; else the one
    beside this interpreter; else this interpreter with ``-m chitin``."""
    started = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if started is not None and started.name == "chitin" and started.is_file():
        return (str(started.absolute()),)
    beside = Path(sys.executable).parent / "chitin"
    if beside.is_file():
        return (str(beside),)
    return (sys.executable, "-m", "chitin")


def now() -> datetime:
    """The time of this invocation, read once: every operation of the command uses it."""
    return datetime.now(UTC)


def opened(
    ctx: click.Context, reading: bool = True, every_problem: bool = False
) -> contextlib.AbstractContextManager[Chitin]:
    """The store of this click invocation (``opened_at`` its settings)."""
    settings: Settings = ctx.find_root().obj
    return opened_at(settings, reading, every_problem)


@contextmanager
def opened_at(
    settings: Settings, reading: bool = True, every_problem: bool = False
) -> Iterator[Chitin]:
    """The store of this invocation.

    Readers hear on stderr when there is no store yet; every command names the
    insight files it had to skip because they do not parse (the first few, or
    ``every_problem``: each, as an export that leaves them out does).
    """
    note_command(settings.store, os.environ)  # a background embedding waits meanwhile
    progress = IndexProgress()
    chitin = Chitin(
        settings.store,
        now=now(),
        env=os.environ,
        agent=settings.agent,
        command=running_chitin(),
        progress=progress,
        finishes_commands=True,  # cli/__init__.py releases signals at the command's end
    )
    missing = reading and chitin.missing
    try:
        if reading:
            legacy_hint(chitin)
        try:
            yield chitin
        except ValidationError:
            raise  # a mistyped value: its line alone, the store has nothing to do with it
        except BaseException:
            _say_missing(missing, settings.store)  # why nothing was found, say
            raise
        _say_missing(missing, settings.store)  # before the command prints its result
        progress.finish()
        report_problems(chitin, every_problem)
    finally:
        progress.finish()
        # Closed before the client is answered, served or not: a script that removes or
        # copies .chitin/ right after a command must not race its checkpoint (answering
        # first gained nothing measurable; docs/design.md §9l, stop 50).
        chitin.close()


def _say_missing(missing: bool, store: Path) -> None:
    if missing:
        note(missing_note(store))


# Where chitin 1.x kept its one database (in the home folder, whatever XDG says).
LEGACY_DATABASE = Path(".config") / "chitin" / "insights.db"


def legacy_hint(chitin: Chitin) -> None:
    """On a store that holds nothing, one line if chitin 1.x's database is where 1.x
    kept it: the insights the person expects are there, not lost. (One stat when
    there is no such file, so every read may ask.)"""
    home = home_folder(os.environ)
    if home is None:  # no home: no 1.x database to point at (Path.home() was "/")
        return
    database = home / LEGACY_DATABASE
    try:
        found = database.is_file()
    except OSError:
        return
    if found and chitin.holds_nothing():
        note(
            f"hint: chitin 1.x's database is at {database}; "
            f"`chitin import {database}` brings its insights into this store"
        )


class IndexProgress:
    """A progress bar on a terminal while a large cache is (re)built; silent otherwise."""

    MIN_FILES = 2000

    def __init__(self) -> None:
        self._bar: Any = None

    def __call__(self, done: int, total: int) -> None:
        if self._bar is None:
            if total < self.MIN_FILES or not sys.stderr.isatty():
                return
            import click

            self._bar = click.progressbar(
                length=total, label="Reading insight files", file=sys.stderr
            )
            self._bar.__enter__()
        self._bar.update(done - self._bar.pos)

    def finish(self) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
            self._bar = None


def report_problems(chitin: Chitin, every_problem: bool = False) -> None:
    """Name each file that could not be read; the command still did its work."""

    for line in problem_lines(chitin.problems(), None if every_problem else MAX_PROBLEM_LINES):
        note(line)


def output_target(path: Path) -> Path:
    """The regular file ``--output path`` writes (core/writes.py says which)."""
    from chitin import output_target as target

    return target(path)


def write_output(path: Path, text: str, store: Path) -> None:
    """Write ``--output``: atomically, through core (core/writes.py), never into the
    files ``store`` keeps."""
    from chitin import write_output as write

    write(path, text, store)


class EmbedProgress:
    """A progress bar on a terminal, a plain count otherwise (human output only)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.bar: Any = None
        self.last = 0

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if sys.stderr.isatty():
            if self.bar is None:
                import click

                self.bar = click.progressbar(length=total, label="Embedding", file=sys.stderr)
                self.bar.__enter__()
            self.bar.update(done - self.bar.pos)
        elif done == total or done - self.last >= 1000:
            note(f"embedded {done}/{total}")
            self.last = done

    def finish(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)


def prepare_vectors(chitin: Chitin) -> dict[str, Any]:
    """After a bulk write (import, migration, seeding), the vectors for semantic search:
    made now with a progress bar on a terminal (or when they are few), else by the
    background embedding. What became of them, for the JSON output."""
    progress = EmbedProgress(sys.stderr.isatty())
    try:
        done = chitin.prepare_vectors(sys.stderr.isatty(), progress)
    finally:
        progress.finish()
    return {
        "embedded": done.embedded,
        "background": done.background.state if done.background else None,
        "error": done.error or (done.background.detail if done.background else None),
    }


def vectors_line(vectors: dict[str, Any]) -> str | None:
    """The human line for ``prepare_vectors``'s outcome, if there is anything to say."""
    background, error = vectors["background"], vectors["error"]
    if background == "failed":
        return f"  the background embedding failed ({error}); run `chitin embed`"
    if error:
        return f"  no vectors made ({error}); run `chitin embed`"
    if background == "off":
        return "  background embedding is off: run `chitin embed` for semantic search"
    if background:
        return (
            "  vectors for semantic search are being made in the background "
            "(`chitin embed-status` shows how far)"
        )
    if vectors["embedded"]:
        return f"✓ Embedded {vectors['embedded']} insight(s) for semantic search"
    return None
