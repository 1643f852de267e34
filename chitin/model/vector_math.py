"""Arithmetic on embedding vectors without numpy: a dot product, and a row as the
sidecar's little-endian float32 bytes.

numpy's import is ~60-90 ms, more than a session start or a contribute spends on
meaning in a store of a few thousand rows; these serve those paths (docs/design.md §9h).
"""

from __future__ import annotations

import math
import operator
import sys
from array import array
from collections.abc import Callable, Sequence
from typing import Any


def _sum_of_products(first: Sequence[float], second: Sequence[float]) -> float:
    return float(sum(map(operator.mul, first, second)))


# math.sumprod (Python 3.12) is ~1.7 times as fast on 384 floats; 3.11 has none.
dot: Callable[[Sequence[float], Sequence[float]], float] = getattr(
    math, "sumprod", _sum_of_products
)


def float32_bytes(vector: Any) -> bytes:
    """A vector (a numpy row, an array, a list of floats) as little-endian float32."""
    if hasattr(vector, "astype"):  # numpy: one conversion of the whole row
        return bytes(vector.astype("<f4").tobytes())
    row = array("f", vector)
    if sys.byteorder == "big":
        row.byteswap()
    return row.tobytes()


def float32_row(data: bytes) -> array[float]:
    """Little-endian float32 bytes as an array of floats."""
    row = array("f")
    row.frombytes(data)
    if sys.byteorder == "big":
        row.byteswap()
    return row
