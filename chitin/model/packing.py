"""What of a ranking fits a token budget, as a value: the insights chosen, how many were
left out, and each line's label. ``render/budget.py`` decides it (a line's cost is its
text); ``Chitin.retrieve`` returns it with the ranking, for every front end to print."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

from chitin.model.insight import Insight

Labels = Mapping[str, str]  # id → what the line shows of it (its short id)
NO_LABELS: Labels = MappingProxyType({})


class Packed(NamedTuple):
    """The insights that fit, in rank order, how many were left out, whether the line
    saying so fits too (in a budget too small even for that, it is dropped), and the
    label each line starts with."""

    chosen: list[Insight]
    omitted: int
    note: bool = False
    labels: Labels = NO_LABELS
