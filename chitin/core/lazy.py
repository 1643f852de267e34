"""The one lazy-load mechanism of ``chitin.core``: ``Chitin`` (facade.py) names its
parts and use-case modules at the top, and each is imported when a name of it is
first asked for. ``chitin get`` then loads neither the writers, nor retrieval, nor
a use case it does not run (issue 28 item 7); type checkers see the real modules."""

from __future__ import annotations

import importlib
from typing import Any


class Lazy:
    """A module of ``chitin.core`` (or of ``package``), imported on the first attribute
    asked of it: also by ``typing.get_type_hints``, for the annotations that name it."""

    def __init__(self, name: str, package: str = "chitin.core") -> None:
        self._name = f"{package}.{name}"

    def __getattr__(self, name: str) -> Any:
        return getattr(importlib.import_module(self._name), name)


def modules(names: str, package: str = "chitin.core") -> list[Lazy]:
    """One ``Lazy`` for each of the space-separated module names (of ``package``)."""
    return [Lazy(name, package) for name in names.split()]


# The modules facade.py names, by the names it gives them (its TYPE_CHECKING branch
# gives type checkers the real modules): a Lazy each, so that ``chitin get`` loads
# neither the writers nor retrieval, and typing.get_type_hints resolves every method.
agents, background, carapace, check, dedupe = modules("agent background carapace check dedupe")
diff, embedding, interop, lifecycle, likeness, personality, quality, retrieving, sync = modules(
    "diff embedding interop lifecycle likeness personality quality retrieving sync"
)
histories, interchange, reflection, results = modules(
    "history interchange reflection results", "chitin.model"
)
conflicts, scores = modules("conflicts quality", "chitin.retrieval")
(semantic,) = modules("semantic", "chitin.search")
__all__ = [
    *("agents", "background", "carapace", "check", "dedupe", "diff", "embedding", "interop"),
    *("lifecycle", "likeness", "personality", "quality", "retrieving", "sync", "histories"),
    *("interchange", "reflection", "results", "conflicts", "scores", "semantic"),
]
