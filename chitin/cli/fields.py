"""contribute's and update's flags, one per field they may set: derived from
model/fields.py's table (its ``edit_at`` order, its words for --help), so that a new
field of the table is a new flag of both commands."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from chitin.cli import bounds
from chitin.model import fields
from chitin.model.fields import FLAG, Field

F = TypeVar("F", bound=Callable[..., Any])


def field_options(updating: bool) -> Callable[[F], F]:
    """A decorator giving a command a flag for each editable field, in the table's
    order; each passes its value (None when not given) under the field's name."""

    def decorate(function: F) -> F:
        for field in reversed(fields.EDITABLE_FIELDS):
            function = _option(field, updating)(function)
        return function

    return decorate


def _option(field: Field, updating: bool) -> Callable[[F], F]:
    flag = "--" + field.name.replace("_", "-")
    help_text = fields.flag_help(field, updating)
    if field.form == FLAG:
        # contribute's is one switch; update's may also turn the field off.
        names = f"{flag}/--no-{flag[2:]}" if updating else flag
        return click.option(names, field.name, is_flag=True, default=None, help=help_text)
    kind = bounds.FRACTION if field.name == "confidence" else None  # its flag named
    return click.option(flag, field.name, type=kind, metavar=fields.metavar(field), help=help_text)


def missing(given: dict[str, Any]) -> str | None:
    """The first field contribute needs that ``given`` lacks, as its flag."""
    for name in fields.REQUIRED:
        if given.get(name) is None:
            return "--" + name.replace("_", "-")
    return None
