"""Files that ship with chitin: the starter insights and the PERSONALITY.md templates."""

from __future__ import annotations

from pathlib import Path


def data_path(name: str) -> Path:
    """``insights`` or ``templates``: inside the installed wheel, or in a source checkout."""
    here = Path(__file__).resolve().parent
    packaged = here / "_data" / name
    if packaged.is_dir():
        return packaged
    return here.parent / name
