"""The one lazy-load mechanism of ``chitin.core``: ``Chitin`` (facade.py) names its
parts and use-case modules at the top, and each is imported when a name of it is
first asked for. ``chitin get`` then loads neither the writers, nor retrieval, nor
a use case it does not run (issue 28 item 7); type checkers see the real modules."""

from __future__ import annotations

import importlib
from typing import Any


class Lazy:
    """A module of ``chitin.core``, imported on the first attribute asked of it."""

    def __init__(self, name: str) -> None:
        self._name = f"chitin.core.{name}"

    def __getattr__(self, name: str) -> Any:
        return getattr(importlib.import_module(self._name), name)


def modules(names: str) -> list[Lazy]:
    """One ``Lazy`` for each of the space-separated module names."""
    return [Lazy(name) for name in names.split()]
