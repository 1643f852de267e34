"""The library as a program uses it (qa125): the defaults its command and its MCP tool
have, and an instance handed from one thread to another."""

from __future__ import annotations

from pathlib import Path

from chitin import Chitin


def test_similar_takes_the_commands_default_threshold(store: Path) -> None:
    """``chitin similar CLAIM`` and the MCP tool default the threshold (0.2 of words,
    0.5 of meaning); ``Chitin.similar(claim)`` raised TypeError (a missing argument)."""
    with Chitin(store=store) as chitin:
        chitin.init()
        kept = chitin.contribute(
            {"type": "skill", "confidence": 0.7, "claim": "Run the linter before pushing."}
        ).insight.id
        found = chitin.similar("run the linter before a push")
        assert [candidate.id for candidate, _ in found] == [kept]
        assert chitin.similar("bake bread at home") == []
