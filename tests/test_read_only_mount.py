"""A store on a read-only file system (a read-only mount): the vector sidecar is in
WAL mode, whose readers must make its ``-shm`` file, which the mount refuses, so
semantic search was lost ("unable to open database file") though the vectors read
fine. Root only: a read-only bind mount is the way to make one here (chmod does not
stop root, and the non-root case is test_repair_and_guidance's chmod test)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import Run

from tests.test_sync import chitin

QUERY = "a test fails"


@pytest.fixture
def mounted(run: Run, store: Path, tmp_path: Path) -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.skip("a read-only bind mount needs root")
    run("init", "--seed")
    run("embed")
    run("retrieve", "--query", QUERY)  # the cache and the sidecar settled, as in use
    view = tmp_path / "read-only"
    view.mkdir()
    made = subprocess.run(["mount", "--bind", str(store), str(view)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"cannot bind-mount here: {made.stderr.decode().strip()}")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(view)], check=True)
        yield view
    finally:
        subprocess.run(["umount", str(view)], check=True)


def test_a_read_only_mount_keeps_semantic_search(run: Run, store: Path, mounted: Path) -> None:
    writable = json.loads(run("retrieve", "--query", QUERY, "--format", "json").stdout)
    found = chitin(mounted, "retrieve", "--query", QUERY, "--format", "json")
    answer = json.loads(found.stdout)
    assert "semantic search unavailable" not in found.stderr, found.stderr
    assert answer["degraded"] is None
    assert [i["id"] for i in answer["insights"]] == [i["id"] for i in writable["insights"]]
