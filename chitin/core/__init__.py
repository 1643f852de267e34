"""The library facade: one method per use case, composing store, index and rules.

``Chitin`` (in ``facade``) is the entry point; the modules beside it hold use cases
that stand apart from the insight life cycle (import and export, reflection, quality,
hooks) and work through a ``Chitin``.
"""

from chitin.core.facade import Change, Chitin, Contribution, Stats

__all__ = ["Change", "Chitin", "Contribution", "Stats"]
