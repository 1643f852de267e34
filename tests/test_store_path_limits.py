"""A store path that the system cannot name: a name longer than a file name may be,
or a path longer than a path may be. Every command says so in one line; none prints a
traceback or an internal error (exit 3)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import chitin_program

from chitin import Chitin, ChitinError


def chitin(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [chitin_program(), *args], capture_output=True, text=True, stdin=subprocess.DEVNULL
    )


@pytest.mark.parametrize("command", ["list", "where", "check", "init"])
def test_a_store_name_too_long_for_the_system_is_one_line(tmp_path: Path, command: str) -> None:
    store = tmp_path / ("x" * 300)  # a file name holds at most 255 bytes on Linux
    result = chitin("--store", str(store), command)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    assert result.stderr.count("\n") == 1 and "too long" in result.stderr, result.stderr
    assert not store.parent.joinpath("x" * 255).exists()


@pytest.mark.parametrize("command", ["list", "init"])
def test_a_store_path_with_no_room_for_its_files_is_one_line(tmp_path: Path, command: str) -> None:
    """Each name fits, and the store's own path fits too, but the files chitin keeps
    in it (.chitin/sync-by-git, insights/<type>/<id>.md) would pass the system's limit
    on a whole path (4,096 bytes on Linux)."""
    left = 4096 - 20 - len(str(tmp_path))  # the store's path: 20 bytes short of 4,096
    store = tmp_path.joinpath(*["y" * 200] * (left // 201), "z" * (left % 201 - 1))
    assert len(str(store)) == 4096 - 20
    result = chitin("--store", str(store), command)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    assert result.stderr.count("\n") == 1 and "too long" in result.stderr, result.stderr
    assert not (tmp_path / ("y" * 200)).exists()


def test_importing_a_file_name_too_long_for_the_system_is_one_line(tmp_path: Path) -> None:
    store = tmp_path / "store"
    assert chitin("--store", str(store), "init").returncode == 0
    result = chitin("--store", str(store), "import", str(tmp_path / ("x" * 300)))
    assert result.returncode == 2, result.stderr  # the command line's path: a usage error
    assert "internal error" not in result.stderr and "too long" in result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    with Chitin(store=store, env=os.environ) as opened, pytest.raises(ChitinError) as raised:
        opened.import_insights(tmp_path / ("x" * 300))  # the library's: a read error
    assert str(raised.value).startswith("cannot read ") and "too long" in str(raised.value)


@pytest.mark.parametrize("host", ["claude-code", "openclaw", "cursor"])
def test_a_hooks_folder_name_too_long_for_the_system_is_a_usage_error(
    tmp_path: Path, host: str
) -> None:
    result = chitin("hooks", "install", host, "--dir", str(tmp_path / ("x" * 300)))
    assert result.returncode == 2, result.stderr
    assert "internal error" not in result.stderr and "too long" in result.stderr
    assert result.stderr.count("\n") == 1, result.stderr


@pytest.mark.parametrize("command", ["init", "contribute"])
def test_a_store_path_through_a_loop_of_links_is_one_line(tmp_path: Path, command: str) -> None:
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    args = ["--type", "skill", "--claim", "Loops are refused", "--confidence", "0.5"]
    result = chitin("--store", str(loop / "store"), command, *args[: 6 * (command != "init")])
    assert result.returncode == 1, result.stderr
    assert "internal error" not in result.stderr and "loop" in result.stderr
    assert result.stderr.count("\n") == 1, result.stderr


def _denied_store(tmp_path: Path) -> Path | None:
    """A store path whose folder cannot be looked into: a folder of mode 000 (for a
    user), or /proc/1/root (for root in a container); None where neither denies."""
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0)
    for store in (locked / "store", Path("/proc/1/root/chitin-store")):
        try:
            os.stat(store / ".chitin")
        except PermissionError:
            return store
        except OSError:
            continue
    return None


@pytest.mark.parametrize("command", ["list", "stats", "retrieve"])
def test_a_store_folder_that_cannot_be_read_is_one_line(tmp_path: Path, command: str) -> None:
    """The console's look ahead (chitin/console/ahead.py) asked whether the store syncs
    by git and let the PermissionError out as a traceback, before the command could say
    what was wrong."""
    store = _denied_store(tmp_path)
    if store is None:
        pytest.skip("no folder here denies a look inside it")
    try:
        args = ["--query", "tests"] if command == "retrieve" else []
        result = chitin("--store", str(store), command, *args)
    finally:
        (tmp_path / "locked").chmod(0o700)
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    assert result.returncode == 1 and result.stderr.count("\n") == 1, result.stderr
