"""The source distribution carries what its tests read (issue 30): it ships tests/, so
a packager who builds and tests from it (as distributions do) needs the files those
tests open too: the CI scripts, the workflows and the pre-commit hook's definition."""

from __future__ import annotations

import subprocess
import tarfile
from pathlib import Path

import pytest
from conftest import build_distribution

ROOT = Path(__file__).resolve().parent.parent


def test_the_sdist_holds_every_file_of_the_checkout(tmp_path: Path) -> None:
    pytest.importorskip("hatchling")
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout (an unpacked sdist): nothing to compare with")
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, text=True, check=True
    ).stdout
    tracked = {name for name in listed.split("\0") if name and (ROOT / name).is_file()}
    built = build_distribution("sdist", tmp_path)
    with tarfile.open(built) as archive:
        shipped = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    missing = sorted(tracked - shipped)
    assert not missing, missing
