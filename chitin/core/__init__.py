"""The use cases, composed into ``Chitin`` (``facade``): the life cycle, reading,
retrieval and rendering, embedding, each in its module over one opened store
(``session``); the modules beside them hold use cases that stand apart from the
insight life cycle (import and export, sync, reflection, quality, hooks)."""

from chitin.core.facade import Change, Chitin, Contribution, Query, Stats

__all__ = ["Change", "Chitin", "Contribution", "Query", "Stats"]
