"""chitin/residency.py's lock: one resident per key, and no lock file left behind by
one that left, even when a starter opened the file just before it was removed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from chitin import residency
from chitin.residency import held, release_lock, take_lock


def test_a_probe_makes_no_file_and_finds_none_running(tmp_path: Path) -> None:
    lock = tmp_path / "front-k.lock"
    assert not held(lock)
    assert not lock.exists()


def test_the_holder_is_seen_and_its_file_goes_with_it(tmp_path: Path) -> None:
    lock = tmp_path / "front-k.lock"
    descriptor = take_lock(lock)
    assert descriptor is not None
    assert held(lock) and take_lock(lock) is None
    release_lock(lock, descriptor)
    assert not lock.exists() and not held(lock)


def test_a_file_removed_under_a_starter_is_not_the_lock_it_takes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A starter that opened the file just as its holder left and removed it would lock
    a file no longer at the path, while another starter locks the new one there: two
    residents of one key. take_lock drops such a file and locks the one at the path."""
    lock = tmp_path / "embed-k.lock"
    opened = []

    def open_as_the_holder_leaves(path: str, flags: int, mode: int = 0o777) -> int:
        descriptor = real_open(path, flags, mode)
        if not opened:  # the holder removes it, another starter makes a new one
            os.unlink(path)
            Path(path).write_text("")
        opened.append(descriptor)
        return descriptor

    real_open = os.open
    monkeypatch.setattr(residency.os, "open", open_as_the_holder_leaves)
    taken = take_lock(lock)
    monkeypatch.undo()
    assert taken is not None and len(opened) == 2
    assert os.fstat(taken).st_ino == lock.stat().st_ino
    release_lock(lock, taken)


def test_a_file_another_process_replaced_is_left_alone(tmp_path: Path) -> None:
    lock = tmp_path / "embed-k.lock"
    mine = take_lock(lock)
    assert mine is not None
    lock.unlink()
    lock.write_text("")  # not ours any more: a successor's
    release_lock(lock, mine)
    assert lock.exists()
