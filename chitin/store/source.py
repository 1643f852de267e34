"""The store's insight files as the index reads them (``index.sources.InsightFiles``):
the walk and the safe reader of ``store/files.py``, and the file format's parser.
``store.git.Git`` is the index's change source as it is."""

from __future__ import annotations

import os
from pathlib import Path

from chitin.format.layout import FileStat, Folder, is_insight_name
from chitin.model.insight import Insight
from chitin.store import files
from chitin.store.loading import load_insight


class StoreFiles:
    """The insight files below ``root``, for the cache."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def walk(self) -> dict[str, Folder]:
        return files.walk(self.root)

    def lstat(self, path: str) -> tuple[FileStat, int]:
        return files.lstat_of(self.root / path)

    def entries(self, folder: str) -> tuple[list[str], list[str]]:
        """The names the walk lists in ``folder`` (files.walk), and its real sub-folders."""
        names, subfolders = [], []
        with os.scandir(self.root / folder) as scan:
            for entry in scan:
                if entry.name.startswith("."):
                    continue
                if entry.is_dir(follow_symlinks=False):
                    if entry.name.endswith(".md") or files.nested_repository(entry.path):
                        continue  # the walk neither lists nor enters these (files.walk)
                    subfolders.append(entry.name)
                elif is_insight_name(entry.name) or entry.is_symlink():
                    names.append(entry.name)
        return names, subfolders

    def is_listed(self, path: str) -> bool:
        return files.is_listed(self.root, path)

    def through_link(self, path: str, seen: dict[str, bool]) -> bool:
        return files.through_link(self.root, path, seen)

    def linked_top(self, top: str) -> None:
        files.linked_top(top)

    def load(self, path: str, stat: FileStat) -> Insight:
        return load_insight(self.root, path, stat)
