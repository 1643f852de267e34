#!/usr/bin/env python3
"""Download the wheels that installing chitin needs, for pip to use offline in the tests.

tests/test_pre_commit_host.py runs the real pre-commit, which installs chitin's hook
into an environment of its own with pip. Tests reach no network, so that pip is given
``--no-index --find-links <this folder>``: the wheels of chitin's dependencies and of
its build backend, for this Python, from pyproject.toml's lists, downloaded here:

    ${XDG_CACHE_HOME:-~/.cache}/chitin-ci/wheels-<digest of the lists and the Python>/
        *.whl
        fetched.json       written last: what was asked for

The download goes into a fresh sibling folder that is renamed into place once pip
succeeded, so an interrupted run leaves nothing half-fetched behind. Running it again
with the folder present does nothing. It prints the folder on stdout.

    python3 scripts/fetch_wheels.py            # download (or reuse)
    python3 scripts/fetch_wheels.py --where    # print the folder, download nothing
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import staging
from staging import staged

ROOT = Path(__file__).resolve().parent.parent
STAMP = "fetched.json"


def requirements() -> list[str]:
    """What installing chitin from its source asks pip for: the build backend, then
    the dependencies."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return [*project["build-system"]["requires"], *project["project"]["dependencies"]]


def folder(python: str = sys.executable) -> Path:
    """Named by the requirements and the Python they are for, so that a change to
    either fetches afresh beside the old folder."""
    tag = subprocess.run(
        [python, "-c", "import sys; print(sys.implementation.cache_tag)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    digest = hashlib.sha256(json.dumps([tag, requirements()]).encode()).hexdigest()[:12]
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "chitin-ci" / f"wheels-{digest}"


def is_fetched(target: Path) -> bool:
    try:
        recorded = json.loads((target / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(recorded, dict) and recorded.get("requirements") == requirements()


def fetch(target: Path, python: str = sys.executable) -> float:
    """Download into ``target``; the seconds it took."""
    started = time.monotonic()
    with staged(target, STAMP) as stamp:
        command = [python, "-m", "pip", "download", "--quiet", "--only-binary", ":all:"]
        command += ["--dest", str(stamp["folder"]), *requirements()]
        result = subprocess.run(command, stdout=sys.stderr, check=False)
        if result.returncode != 0:
            raise SystemExit(f"fetch_wheels: pip download failed (exit {result.returncode})")
        seconds = time.monotonic() - started
        stamp.update(requirements=requirements(), seconds=round(seconds, 1))
    return seconds


def main(argv: list[str]) -> int:
    done = f"fetch_wheels: fetched the wheels of {len(requirements())} requirements"
    return staging.main(argv, folder(), is_fetched, fetch, done)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
