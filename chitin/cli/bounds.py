"""The ranges of the numeric flags, shared so that every command bounds them alike.

A number past these is a typo or an attack, never a need: click refuses it as a usage
error (exit 2) naming the range, before the store is opened.
"""

from __future__ import annotations

import click

from chitin.model.bounds import MAX_BUDGET, MAX_COUNT, MAX_DAYS

COUNT = click.IntRange(1, MAX_COUNT)
BUDGET = click.IntRange(1, MAX_BUDGET)
DAYS = click.IntRange(1, MAX_DAYS)
