"""How long `chitin reflect` takes to digest a transcript, and the memory it holds
(issue 26: bounded time and memory, whatever the size). Medians of --runs runs, each
in a fresh process (`chitin reflect --format json` on a store with one marker).

    python bench/reflect/speed.py [--runs 5]

Transcripts: one session of bench/reflect/sessions/claude-code as Claude Code wrote
it; 200 MB of real lines (that session's, repeated); 1 GB sparse (one endless line,
no disk used) with that session at its start.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SESSION = HERE / "sessions" / "claude-code" / "list-then-correct.jsonl"


def transcripts(folder: Path) -> dict[str, Path]:
    text = SESSION.read_bytes()
    small = folder / "session.jsonl"
    small.write_bytes(text)
    repeated = folder / "repeated.jsonl"
    with repeated.open("wb") as handle:
        for _ in range((200 << 20) // len(text) + 1):
            handle.write(text)
    sparse = folder / "sparse.jsonl"
    with sparse.open("wb") as handle:
        handle.write(text)
        handle.truncate(1 << 30)
    return {"one session": small, "200 MB of sessions": repeated, "1 GB, one endless line": sparse}


def measure(chitin: str, store: Path, transcript: Path, runs: int) -> tuple[float, float]:
    """Median seconds and median peak memory (MB) of `chitin reflect` on it."""
    queue = store / ".chitin" / "reflections.json"
    marker = {"sessionKey": "s", "timestamp": "2026-12-03T12:00:00.000Z", "reason": "end",
              "transcript": str(transcript)}  # fmt: skip
    queue.write_text(json.dumps([marker]))
    seconds, peaks = [], []
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(
            ["/usr/bin/time", "-f", "%M", chitin, "--store", str(store), "reflect",
             "--format", "json"], capture_output=True, text=True, check=True,
        )  # fmt: skip
        seconds.append(time.perf_counter() - started)
        peaks.append(int(done.stderr.strip().splitlines()[-1]) / 1024)
    return statistics.median(seconds), statistics.median(peaks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    chitin = shutil.which("chitin")
    assert chitin is not None, "chitin is not installed"
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        store = folder / "store"
        subprocess.run([chitin, "--store", str(store), "init", "--seed"], check=True,
                       capture_output=True)  # fmt: skip
        for name, path in transcripts(folder).items():
            seconds, peak = measure(chitin, store, path, runs)
            print(f"{name:<24} median {seconds:6.2f} s   peak memory {peak:6.0f} MB")


if __name__ == "__main__":
    main()
