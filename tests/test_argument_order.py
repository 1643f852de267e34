"""One rule for every front end and the library: a call's arguments are checked before
the store is read, so a wrong argument is named as such whether or not the insight it
names exists (fix113)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_mcp import Called, call, serve

from chitin import Chitin, ValidationError

MISSING = "no-such-insight"


@pytest.mark.parametrize(
    ("method", "field"),
    [
        (lambda c: c.update(MISSING, {"confidence": -1}), "confidence"),
        (lambda c: c.update(MISSING, {"type": "bogus"}), "type"),
        (lambda c: c.update(MISSING, {"bogus": 1}), "bogus"),
        (lambda c: c.update(MISSING, {"tags": [None]}), "tag"),
        (lambda c: c.merge(MISSING, "another-missing", claim=5), "claim"),
    ],
)
def test_a_wrong_argument_is_named_before_a_missing_insight(
    store: Path, method: Any, field: str
) -> None:
    with Chitin(store=store) as chitin:
        chitin.init()
        with pytest.raises(ValidationError) as refused:
            method(chitin)
    assert field in str(refused.value) and "not found" not in str(refused.value)


def test_the_update_tool_checks_its_range_before_it_looks_for_the_insight(store: Path) -> None:
    """The MCP update answered "Insight not found" for a missing id with confidence -1,
    where the CLI (click) refuses the range first."""

    async def session(client: Any) -> list[Called]:
        return [
            await call(client, "update", id=MISSING, confidence=-1),
            await call(client, "merge", source=MISSING, target="another", claim=" "),
        ]

    Chitin(store=store).init()
    ranged, blank = serve(store, session)
    assert ranged.failed and ranged.text == "Error: confidence must be between 0 and 1, got -1"
    assert blank.failed and "not found" not in blank.text and "claim" in blank.text
