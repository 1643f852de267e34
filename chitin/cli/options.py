"""The click options several commands share: ``--format`` and ``--output``, the path
type that refuses an empty path, and the text type that refuses an empty name."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from chitin.cli.context import output_target
from chitin.errors import StoreError, ValidationError
from chitin.location import expanded

F = TypeVar("F", bound=Callable[..., Any])


class GivenPath(click.Path):
    """click's Path, refusing an empty value: pathlib reads "" as ".", so ``--dir
    "$UNSET"`` named whatever folder the command ran in (as ``--store`` and
    ``--output`` refuse it, global_options.named_store and _check_output). A leading
    ``~`` is expanded here, once for every path option: a config tool or a script
    passes ``--dir '~/x'`` quoted, and the shell's expansion never happened (a folder
    named ``~`` was made); with no home it is refused, as ``--store`` refuses it.
    ``dash`` (what the path names) refuses "-", for a file read later, where stdin
    cannot be: otherwise it became a file named "-" in the current folder."""

    def __init__(self, *args: Any, empty: str = "", dash: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.empty = empty or "it is empty; name a path (is the variable it came from unset?)"
        self.dash = dash

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip():
            self.fail(self.empty, param, ctx)
        if self.dash and value == "-":
            said = f"stdin is not read here; name {self.dash}'s path (./- for a file named -)"
            self.fail(said, param, ctx)
        if isinstance(value, str) and value.startswith("~"):
            what = param.get_error_hint(ctx) if param is not None and ctx is not None else "a path"
            try:
                value = str(expanded(Path(value), os.environ, what.replace("'", "")))
            except ValidationError as error:
                self.fail(str(error), param, ctx)
        if isinstance(value, str) and _too_long(value):  # every later look would raise
            self.fail("it is too long for this system (File name too long)", param, ctx)
        return super().convert(value, param, ctx)


def _too_long(path: str) -> bool:
    try:
        os.lstat(path)
    except OSError as error:
        return error.errno == errno.ENAMETOOLONG
    return False


class Named(click.ParamType):  # type: ignore[type-arg]  # click < 8.2 is not generic
    """A text that names something, of ``allowed`` when given (a provider, types, a
    provenance): explicitly empty (``--provider ""``, ``--type "$UNSET"``, a comma list
    of only commas) it is a usage error naming what is allowed, not the option left
    out. Only the text's emptiness is checked here; the library checks the names of a
    list (types); a single name (``only``: a provider) is checked here too."""

    name = "text"

    def __init__(self, what: str, allowed: Sequence[str] = (), only: bool = False) -> None:
        self.what, self.allowed, self.only = what, tuple(allowed), only

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        named = f"one of {', '.join(self.allowed)}" if self.allowed else self.what
        if isinstance(value, str) and not value.replace(",", " ").strip():
            self.fail(f"it is empty; name {named}, or leave the option out", param, ctx)
        if self.only and value not in self.allowed:
            self.fail(
                f"{value!r} is not {self.what}; name {named}, or leave the option out", param, ctx
            )
        return value


def format_option(function: F) -> F:
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(["human", "json"]),
        default="human",
        show_default=True,
        help="Output for people, or JSON for programs.",
    )(function)


def output_option(help: str) -> Callable[[F], F]:
    """``--output PATH``: a regular file, written atomically (see ``write_output``)."""
    return click.option(
        "--output",
        # The text as given, made a Path in the callback: pathlib reads "./-" as "-",
        # and "./-" is how a file named "-" is written.
        type=GivenPath(empty="it is empty; name the file to write (or - for stdout)"),
        callback=_check_output,
        metavar="FILE",
        help=help,
    )


def _check_output(ctx: click.Context, param: click.Parameter, value: str | None) -> Path | None:
    """Refuse at once (before any work) an --output that is not a regular file. ``-``
    is stdout, as for most tools that write a file (``./-`` is a file named "-"); an
    empty one is refused, and ``~`` expanded, by GivenPath."""
    if value is None or value == "-":
        return None
    path = Path(value)
    try:
        output_target(path)
    except StoreError as error:
        raise click.BadParameter(str(error), ctx, param) from None
    return path
