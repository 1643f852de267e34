"""bench/stress.py ends its last scenario with a background embedding of 1,000 insights,
at idle priority. On a busy machine it outlived the bench's wait (300 s), and removing
its store then failed with "Directory not empty" while the worker wrote into it: the
bench died with a traceback before printing its counts (qa130, `--runs 100 --jobs 2`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bench_modules import bench_module

stress = bench_module(".", "stress")

# A stand-in for the worker: it holds the lock, as `chitin embed --background-worker`
# does for its whole life, until it is ended.
HOLDER = """
import fcntl, sys, time
handle = open(sys.argv[1], "wb")
fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
print("holding", flush=True)
time.sleep(600)
"""


def test_a_background_run_that_outlives_the_wait_is_ended_before_its_store_goes(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "embedding" / ".chitin" / "vectors"
    folder.mkdir(parents=True)
    worker = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(folder / "background.lock")],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert worker.stdout is not None and worker.stdout.readline() == "holding\n"
        status = {"state": "running", "pid": worker.pid, "started": 0}
        (folder / "background.json").write_text(json.dumps(status))
        stress._wait_for_background(tmp_path / "embedding", seconds=0.5)
        assert worker.wait(timeout=10) is not None  # ended, not left writing
    finally:
        if worker.poll() is None:
            worker.kill()
        worker.communicate()
