"""The ranges of the numeric flags, shared so that every command bounds them alike.

A number past these is a typo or an attack, never a need: click refuses it as a usage
error (exit 2) naming the range, before the store is opened.
"""

from __future__ import annotations

from typing import Any

import click

from chitin.model.bounds import MAX_BUDGET, MAX_COUNT, MAX_DAYS


class WholeRange(click.IntRange):
    """click's IntRange, whose refusal of a value that is no whole number names the
    range, as its refusal of one out of range does (click said "'x' is not a valid
    integer range.", naming none)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            try:
                int(value)
            except ValueError:
                self.fail(
                    f"{value!r} is not a whole number in the range {self._describe_range()}.",
                    param,
                    ctx,
                )
        return super().convert(value, param, ctx)


COUNT = WholeRange(1, MAX_COUNT)
BUDGET = WholeRange(1, MAX_BUDGET)
DAYS = WholeRange(1, MAX_DAYS)
