"""chitin: personality persistence for AI agents, kept as Markdown files in git.

Use it from Python::

    from chitin import Chitin

    with Chitin(store="path/to/store") as chitin:
        chitin.contribute({"type": "skill", "claim": "Run the tests before pushing."})
        found = chitin.retrieve("push a branch")

The names below load on first use, so ``import chitin`` (and ``chitin --version``)
stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from chitin.core.facade import Chitin
    from chitin.core.lifecycle import Change, Contribution
    from chitin.core.personality import Personality
    from chitin.core.reading import Stats
    from chitin.core.retrieving import Query
    from chitin.errors import (
        AmbiguousIdError,
        ChitinError,
        GitError,
        NotFoundError,
        StateError,
        StoreError,
        ValidationError,
    )
    from chitin.model.insight import Insight
    from chitin.retrieval.engine import Retrieval
    from chitin.retrieval.retrieve import Ranked

# Each public name, and the module that defines it.
_EXPORTS = {
    "Chitin": "chitin.core.facade",
    "Change": "chitin.core.lifecycle",
    "Contribution": "chitin.core.lifecycle",
    "Personality": "chitin.core.personality",
    "Query": "chitin.core.retrieving",
    "Stats": "chitin.core.reading",
    "Insight": "chitin.model.insight",
    "Retrieval": "chitin.retrieval.engine",
    "Ranked": "chitin.retrieval.retrieve",
    "ChitinError": "chitin.errors",
    "ValidationError": "chitin.errors",
    "NotFoundError": "chitin.errors",
    "AmbiguousIdError": "chitin.errors",
    "StateError": "chitin.errors",
    "StoreError": "chitin.errors",
    "GitError": "chitin.errors",
}

__all__ = [
    "AmbiguousIdError",
    "Change",
    "Chitin",
    "ChitinError",
    "Contribution",
    "GitError",
    "Insight",
    "NotFoundError",
    "Personality",
    "Query",
    "Ranked",
    "Retrieval",
    "StateError",
    "Stats",
    "StoreError",
    "ValidationError",
    "__version__",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'chitin' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
