"""bench/interrupt.py copies and removes stores right after chitin commands. Served by
the resident front, a command answers before its worker closes the cache, and that close
removes SQLite's -wal and -shm files: the bench waits for the store to be let go first,
or its copy crashed on a vanished file (stress48: the front on, an editable install)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bench_modules import bench_module

interrupt = bench_module(".", "interrupt")


def test_a_store_held_open_by_another_process_is_waited_for(tmp_path: Path) -> None:
    store = tmp_path / "store"
    (store / ".chitin").mkdir(parents=True)
    held = store / ".chitin" / "cache.sqlite3-shm"
    held.write_text("")
    code = "import sys; f = open(sys.argv[1]); print('open', flush=True); sys.stdin.read()"
    holder = subprocess.Popen(
        [sys.executable, "-c", code, str(held)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "open\n"
        assert interrupt.holding(store)
        assert not interrupt.holding(tmp_path / "elsewhere")
    finally:
        holder.communicate("")
    interrupt.settled(store)
    assert not interrupt.holding(store)
