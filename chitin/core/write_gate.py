"""Where every write of the store begins (``Session.writing``), loaded by writers
only: the store's chitin.yaml refused as ``chitin check`` refuses it, before anything
is written, and the signal guard (store/interrupts.py) the write holds."""

from __future__ import annotations

from chitin.core import settings
from chitin.errors import StoreError
from chitin.format import lint
from chitin.store.interrupts import finish_commands, holding
from chitin.store.repository import Store

__all__ = ["finish_commands", "holding", "refuse_broken_settings"]


def refuse_broken_settings(store: Store) -> None:
    """A chitin.yaml that ``chitin check`` refuses stops the write, with check's own
    line (reads go on with a warning: docs/compatibility.md). Read through the parse
    the store keeps under the file's stat, so that a write parses no YAML twice."""
    found = settings.findings(store.root, lambda _: store.config())
    errors = [finding for finding in found if finding.severity == lint.ERROR]
    if errors:
        raise StoreError(errors[0].line())
