"""Where the store is: a leaf, so that the CLI can know it before loading a command."""

from __future__ import annotations

import os
from pathlib import Path


def store_path(option: str | None) -> Path:
    """--store, else $CHITIN_STORE, else ${XDG_DATA_HOME:-~/.local/share}/chitin."""
    chosen = option or os.environ.get("CHITIN_STORE")
    if chosen:
        return Path(chosen).expanduser().absolute()
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home).expanduser().absolute() / "chitin"
