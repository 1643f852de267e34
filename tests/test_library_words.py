"""The library speaks of its own parameters, never of the CLI's flags (fix113): a
library caller has no --max and no --store to give."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from chitin import CarapaceQuestion, Chitin, StoreError, ValidationError


@pytest.mark.parametrize("count", [0, 21])
def test_ask_carapace_names_max_results_not_the_max_flag(
    store: Path, tmp_path: Path, count: int
) -> None:
    key = tmp_path / "credentials.json"
    key.write_text('{"api_key": "sk-test-123456"}')
    key.chmod(0o600)
    with Chitin(store=store) as chitin:
        chitin.init()
        with pytest.raises(ValidationError) as refused:
            chitin.ask_carapace(key, CarapaceQuestion("how to test", max_results=count))
    assert refused.value.field == "max_results"
    assert str(refused.value) == f"max_results must be a whole number from 1 to 20, got {count}"


def test_an_env_without_home_names_store_not_the_flags(tmp_path: Path) -> None:
    """``env`` is the whole environment chitin reads (HOME included), so one holding
    keys only names no default store: the refusal says to give ``store=`` (or the
    process's environment with the key added), not --store."""
    with pytest.raises(StoreError) as refused:
        Chitin(env={"VOYAGE_API_KEY": "pa-test"})
    said = str(refused.value)
    assert "store=" in said and "{**os.environ" in said and "--store" not in said


def test_an_env_with_the_processs_home_finds_the_default_store(tmp_path: Path) -> None:
    """The documented way to add a key: the process's environment with it added. In a
    child process whose HOME is a folder of the test's, so no real store is touched."""
    home = tmp_path / "child-home"
    home.mkdir()
    program = (
        "import os; from chitin import Chitin\n"
        "c = Chitin(env={**os.environ, 'VOYAGE_API_KEY': 'pa-test'}); print(c.root)"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("CHITIN_STORE", "XDG_DATA_HOME")}
    done = subprocess.run(
        [sys.executable, "-c", program],
        env={**env, "HOME": str(home)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == str(home / ".local" / "share" / "chitin")
    assert not (home / ".local").exists()  # found, not made
