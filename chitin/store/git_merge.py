"""git's line-based three-way merge of three texts, outside any repository (the merge
driver and sync's merge of an insight use it)."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from chitin.errors import GitError
from chitin.store.git import SCRUBBED


def merge_file(
    ours: str, base: str, theirs: str, labels: tuple[str, str, str], favor: str | None = None
) -> tuple[str, int]:
    """git's line-based three-way merge of three texts: (result, number of conflicts).

    Conflicts are marked in the result as git marks them, or, with ``favor`` ("ours"
    or "theirs"), settled by that side's lines. No repository is needed.
    """
    with tempfile.TemporaryDirectory(prefix="chitin-merge-") as folder:
        paths = []
        for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = Path(folder) / name
            path.write_text(text, encoding="utf-8")
            paths.append(str(path))
        label_args = [arg for label in labels for arg in ("-L", label)]
        label_args += [f"--{favor}"] if favor else []
        try:
            result = subprocess.run(
                ["git", "merge-file", "-p", *label_args, *paths],
                capture_output=True,
                env={k: v for k, v in os.environ.items() if k not in SCRUBBED},
                check=False,
            )
        except FileNotFoundError:
            raise GitError("git is not installed or not on PATH") from None
    if result.returncode < 0 or result.returncode > 127:
        raise GitError(f"git merge-file failed: {result.stderr.decode(errors='replace').strip()}")
    return result.stdout.decode("utf-8"), result.returncode
