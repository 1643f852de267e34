"""The Carapace commands' human output, line for line as chitin 1.4.5 printed it
(reference §8), where compatibility.md lists no difference."""

from __future__ import annotations

import json
from pathlib import Path

from carapace_server import CarapaceServer
from conftest import Run
from test_carapace import credentials_file
from test_carapace import home as home  # the fixture: the home the credentials go to


def test_register_prints_1_4_5s_layout(carapace: CarapaceServer, run: Run, home: Path) -> None:
    run("init")
    registered = run("carapace-register", "--name", "Bot")
    path = credentials_file(home)
    agent_id = json.loads(path.read_text())["agent_id"]
    assert registered.stdout.splitlines() == [
        "✓ Registered agent: Bot",
        f"  Agent ID: {agent_id}",
        f"  Credentials saved to: {path}",
        "",
        "  ⚠ Your API key is stored in the credentials file.",
        "  It is shown only once by the server — keep the file safe.",
        "",
        "  Next steps:",
        '    chitin carapace-query "your question"',
        "    chitin promote <insight-id>",
    ]
