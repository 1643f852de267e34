"""The ranges of the numeric flags, shared so that every command bounds them alike.

A number past these is a typo or an attack, never a need: click refuses it as a usage
error (exit 2) naming the range, before the store is opened.
"""

from __future__ import annotations

from typing import Any

import click

from chitin.errors import ValidationError
from chitin.model.bounds import MAX_BUDGET, MAX_COUNT, MAX_DAYS
from chitin.model.insight import check_confidence


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


class Fraction(click.ParamType):  # type: ignore[type-arg]  # click < 8.2 is not generic
    """A number from 0 to 1 (a confidence, a lowest confidence, a similarity), as a
    plain decimal text: refused as a usage error naming its flag and the range, in
    click's words (the library's refusal named "confidence", not --min-confidence or
    --threshold, with exit 1). The text goes on as given; the library reads it."""

    name = "0..1"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            check_confidence(value)
        except ValidationError:
            plain = isinstance(value, str) and value.isascii() and " " not in value.strip()
            number = plain and value.strip().lstrip("+-").replace(".", "", 1).isdigit()
            said = value.strip() if number else repr(value)
            what = "" if number else " a number"
            self.fail(f"{said} is not{what} in the range 0<=x<=1.", param, ctx)
        return value


FRACTION = Fraction()
