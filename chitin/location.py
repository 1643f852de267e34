"""Where the store is, by the rules every front end shares (a leaf: the console asks it
before anything else loads)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def store_path(option: str | None, env: Mapping[str, str]) -> Path:
    """--store, else $CHITIN_STORE, else ${XDG_DATA_HOME:-~/.local/share}/chitin."""
    chosen = option or env.get("CHITIN_STORE")
    if chosen:
        return Path(chosen).expanduser().absolute()
    data_home = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home).expanduser().absolute() / "chitin"
