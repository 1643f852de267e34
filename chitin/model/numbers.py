"""Numbers printed as chitin 1.4.5 (JavaScript) prints them."""

from __future__ import annotations

import json
import math
import os
from typing import Any

# JavaScript writes a whole number below this in plain digits, as an int prints; from it
# on with an exponent (1e+21), as a float's repr does.
_PLAIN_BELOW = 1e21
# Python writes a float below this with an exponent (``5e-05``); JavaScript from 1e-6 on
# in plain digits, and below it with an exponent of its own (``1e-7``, not ``1e-07``).
_PYTHON_PLAIN_FROM = 1e-4


def js_number(value: float | int) -> str:
    """How JavaScript prints a number (Number.prototype.toString): 1 not 1.0, the
    shortest round-trip digits, in decimals from 1e-6 up to 1e21 and with an exponent
    beyond (``1e+308``, ``1e-7``), where Python writes 309 digits or ``1e-05``."""
    if isinstance(value, int) and abs(value) < 10**21:
        return str(value)
    try:
        number = float(value)
    except OverflowError:  # an int past any double: JavaScript reads it as Infinity
        number = math.inf if value > 0 else -math.inf
    if not math.isfinite(number):
        return "NaN" if math.isnan(number) else ("Infinity" if number > 0 else "-Infinity")
    if number == 0:
        return "0"
    digits, point = _shortest_digits(abs(number))
    return ("-" if number < 0 else "") + _js_layout(digits, point)


def _shortest_digits(number: float) -> tuple[str, int]:
    """The shortest round-trip digits of a positive finite ``number`` (repr's), without
    leading or trailing zeros, and where the point goes: number = 0.DIGITS × 10**point."""
    significand, _, exponent = repr(number).partition("e")
    whole, _, fraction = significand.partition(".")
    digits = whole + fraction
    significant = digits.lstrip("0")
    point = len(whole) + int(exponent or 0) - (len(digits) - len(significant))
    return significant.rstrip("0"), point


def _js_layout(digits: str, point: int) -> str:
    """ECMAScript's Number::toString steps for the digits and the point's place."""
    if len(digits) <= point <= 21:
        return digits + "0" * (point - len(digits))
    if 0 < point <= 21:
        return f"{digits[:point]}.{digits[point:]}"
    if -6 < point <= 0:
        return f"0.{'0' * -point}{digits}"
    power = point - 1
    mantissa = f"{digits[0]}.{digits[1:]}" if len(digits) > 1 else digits
    return f"{mantissa}e{'+' if power >= 0 else '-'}{abs(power)}"


def js_numbers(value: Any, spelt: list[str] | None = None) -> Any:
    """``value`` (JSON data) with each whole float an int, so that ``json.dumps`` writes
    it as JavaScript's JSON.stringify does (and chitin 1.4.5): ``1``, not ``1.0``.
    With ``spelt``, a float that Python writes with an exponent and JavaScript would
    not, or with another one (``5e-05``: ``0.00005``; ``1e-07``: ``1e-7``), becomes a
    placeholder for its text, appended to ``spelt`` (what ``js_json`` puts back)."""
    if isinstance(value, float):
        if value.is_integer() and abs(value) < _PLAIN_BELOW:
            return int(value)
        if spelt is not None and 0 < abs(value) < _PYTHON_PLAIN_FROM:
            spelt.append(js_number(value))
            return _placeholder(len(spelt) - 1)
        return value
    if isinstance(value, dict):
        return {key: js_numbers(item, spelt) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [js_numbers(item, spelt) for item in value]
    return value


def js_json(value: Any) -> str:
    """``value`` as the JSON chitin prints (indented, UTF-8 kept), each number written
    as JSON.stringify writes it (``1``, ``0.00005``, ``1e-7``), as 1.4.5 printed them."""
    spelt: list[str] = []
    text = json.dumps(js_numbers(value, spelt), indent=2, ensure_ascii=False)
    for index, number in enumerate(spelt):
        text = text.replace(f'"{_placeholder(index)}"', number, 1)
    return text


# A string no data holds (random per process), where a number's own text goes.
_SPELT = f"\ue000chitin-number-{os.urandom(8).hex()}-"


def _placeholder(index: int) -> str:
    return f"{_SPELT}{index}"
