"""Where every write of the store begins (``Session.writing``), loaded by writers
only: the store's chitin.yaml refused as ``chitin check`` refuses it, before anything
is written, and the signal guard (store/interrupts.py) the write holds."""

from __future__ import annotations

import os
import stat

from chitin.core import settings
from chitin.errors import StoreError
from chitin.format import lint
from chitin.store.config import CONFIG_FILE
from chitin.store.files import kind_of
from chitin.store.interrupts import finish_commands, holding
from chitin.store.repository import Store

__all__ = ["finish_commands", "holding", "refuse_broken_settings"]

# Files git (or chitin) opens at every write: a FIFO there hangs git's open for ever.
READ_AT_EVERY_WRITE = (".gitattributes", ".gitignore", CONFIG_FILE)


def refuse_broken_settings(store: Store) -> None:
    """A chitin.yaml that ``chitin check`` refuses stops the write, with check's own
    line (reads go on with a warning: docs/compatibility.md). Read through the parse
    the store keeps under the file's stat, so that a write parses no YAML twice."""
    for name in READ_AT_EVERY_WRITE:
        _refuse_irregular(store, name)
    found = settings.findings(store.root, lambda _: store.config())
    errors = [finding for finding in found if finding.severity == lint.ERROR]
    if errors:
        raise StoreError(errors[0].line())


def _refuse_irregular(store: Store, name: str) -> None:
    """``name`` in the store, if it is there, is a regular file (or a link to one)."""
    try:
        mode = os.stat(store.root / name).st_mode  # git ignores a link; chitin.yaml may be one
    except OSError:
        return  # none there (or a dangling link, which git and chitin pass over)
    if not stat.S_ISREG(mode):
        raise StoreError(
            f"{name} in the store {store.root} is {kind_of(mode, 'not a regular file')}, "
            "which git would wait on for ever; replace it with a regular file, or remove it"
        )
