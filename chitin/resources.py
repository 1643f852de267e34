"""Files that ship with chitin: starter insights, templates, and the assets for agents."""

from __future__ import annotations

from pathlib import Path

# Where each lives in a source checkout. The starter insights sit in starter/, not at
# the top: a checkout whose top held insights/ would read as a store to every command
# run in it (the store is found as git finds a repository), and take its commits.
_IN_CHECKOUT = {"insights": ("starter", "insights"), "templates": ("templates",)}


def data_path(name: str) -> Path:
    """``insights`` or ``templates``: inside the installed wheel, or in a source checkout."""
    here = Path(__file__).resolve().parent
    packaged = here / "_data" / name
    if packaged.is_dir():
        return packaged
    return here.parent.joinpath(*_IN_CHECKOUT[name])


def asset_path(*parts: str) -> Path:
    """A file shipped inside the package under ``chitin/assets/`` (SKILL.md, hook packs)."""
    return Path(__file__).resolve().parent.joinpath("assets", *parts)
