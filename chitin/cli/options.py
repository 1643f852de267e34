"""The click options several commands share: ``--format`` and ``--output``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from chitin.cli.context import output_target
from chitin.errors import StoreError

F = TypeVar("F", bound=Callable[..., Any])


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
        type=click.Path(),
        callback=_check_output,
        metavar="FILE",
        help=help,
    )


def _check_output(ctx: click.Context, param: click.Parameter, value: str | None) -> Path | None:
    """Refuse at once (before any work) an --output that is not a regular file. ``-``
    is stdout, as for most tools that write a file (``./-`` is a file named "-")."""
    if value is None or value == "-":
        return None
    if not value.strip():  # `--output "$UNSET"`: Path("") would be the current folder
        raise click.BadParameter(
            "it is empty; name the file to write (or - for stdout)", ctx, param
        )
    path = Path(value)
    try:
        output_target(path)
    except StoreError as error:
        raise click.BadParameter(str(error), ctx, param) from None
    return path
