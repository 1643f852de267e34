"""The ``chitin`` command line: the only layer that prints, reads the environment and exits.

The click group and its commands are in cli/group.py; ``chitin.cli.cli``, ``main`` and
``COMMANDS`` name them here, loaded at first use, so that the session start's commands
(cli/lean.py) can run their modules without loading click.
"""

from __future__ import annotations

from typing import Any

_GROUP_NAMES = frozenset({"cli", "main", "COMMANDS", "ChitinGroup"})


def __getattr__(name: str) -> Any:
    if name in _GROUP_NAMES:
        from chitin.cli import group

        return getattr(group, name)
    raise AttributeError(f"module 'chitin.cli' has no attribute {name!r}")
