"""A remote that accepts and never answers: git has no deadline of its own, so
``chitin sync`` waited until it was killed. chitin gives git's fetch and push one
(``CHITIN_GIT_TIMEOUT``), unless the user set git's own."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import git
from tests.test_sync import chitin


@pytest.fixture
def silent_remote() -> Iterator[str]:
    """An HTTP remote on loopback that takes each connection and says nothing."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    taken: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                taken.append(server.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/store.git"
    server.close()
    for connection in taken:
        connection.close()


def test_a_remote_that_never_answers_ends_the_sync_with_an_error(
    tmp_path: Path, silent_remote: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHITIN_GIT_TIMEOUT", "2")
    for name in ("GIT_HTTP_LOW_SPEED_LIMIT", "GIT_HTTP_LOW_SPEED_TIME"):
        monkeypatch.delenv(name, raising=False)
    store = tmp_path / "store"
    chitin(store, "init", "--seed")
    git(store, "remote", "add", "origin", silent_remote)
    head = git(store, "rev-parse", "HEAD")
    started = time.monotonic()
    refused = chitin(store, "sync", expect=1).stderr.strip()
    assert time.monotonic() - started < 30
    assert refused.count("\n") == 0 and "cannot fetch from origin" in refused, refused
    assert git(store, "rev-parse", "HEAD") == head and git(store, "status", "--porcelain") == ""


def test_the_users_own_git_deadline_is_left_as_it_is(
    tmp_path: Path, silent_remote: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """http.lowSpeedTime in the store's config is the user's: chitin's (here 600 s,
    which would outlast the test) does not replace it."""
    monkeypatch.setenv("CHITIN_GIT_TIMEOUT", "600")
    store = tmp_path / "store"
    chitin(store, "init")
    git(store, "remote", "add", "origin", silent_remote)
    git(store, "config", "http.lowSpeedLimit", "1")
    git(store, "config", "http.lowSpeedTime", "2")
    started = time.monotonic()
    chitin(store, "sync", expect=1)
    assert time.monotonic() - started < 30


def test_a_deadline_that_is_no_number_is_refused(tmp_path: Path, silent_remote: str) -> None:
    store = tmp_path / "store"
    chitin(store, "init")
    git(store, "remote", "add", "origin", silent_remote)
    monkey = pytest.MonkeyPatch()
    monkey.setenv("CHITIN_GIT_TIMEOUT", "soon")
    try:
        refused = chitin(store, "sync", expect=1).stderr.strip()
    finally:
        monkey.undo()
    assert refused.count("\n") == 0 and "CHITIN_GIT_TIMEOUT must be a whole number" in refused
