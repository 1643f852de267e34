"""The use cases, composed into ``Chitin`` (``facade``): the life cycle, reading,
retrieval and rendering, embedding, each a part over one opened store (``session``);
the modules beside them hold use cases that stand apart from the insight life cycle
(import and export, sync, reflection, quality, hooks). The names below load on first
use, so that importing one module of ``chitin.core`` loads only what it needs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chitin.core.facade import Chitin
    from chitin.core.lifecycle import Change, Contribution
    from chitin.core.reading import Stats
    from chitin.core.retrieving import Query

_HOMES = {
    "Change": "lifecycle",
    "Chitin": "facade",
    "Contribution": "lifecycle",
    "Query": "retrieving",
    "Stats": "reading",
}

__all__ = ["Change", "Chitin", "Contribution", "Query", "Stats"]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'chitin.core' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"chitin.core.{home}"), name)
