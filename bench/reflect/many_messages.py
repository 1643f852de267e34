"""How long `chitin reflect` takes on a message-heavy transcript: one Claude Code
session of --messages user messages (each answered by the agent), as a long chat
writes it. The per-message cost of reading the user's words (the pattern rules of
model/moments.py and model/teaching.py) dominates such a transcript.

    python bench/reflect/many_messages.py [--messages 76000] [--runs 5] [--profile]
        [--before OLD/bin/chitin]

Medians of --runs runs, each a fresh `chitin reflect --format json` on a store with
one marker naming the transcript; with --before, that chitin's runs are interleaved
with this one's (the machine's load falls on both alike). --profile runs the digest
once in this process under cProfile instead and prints the 25 costliest functions.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# What a user says in a long chat: plain requests, thanks, corrections, preferences,
# some of them long; varied so that no cache of a repeated text flatters the reader.
SAID = (
    "Run the test suite for the billing module, please.",
    "No, I meant the tests folder, not src.",
    "Thanks, that looks right.",
    "I prefer small commits with a clear message, so split that one.",
    "Can you check why the login page renders twice on a slow network?",
    "Don't use print for debugging here; we have a logger for that.",
    "Always run the linter before you push a branch.",
    "ok",
    "That failed again: the fixture still points at the old database.",
    "Let's rename the helper to parse_invoice and update every caller in the package.",
)


def user_line(number: int) -> str:
    text = f"{SAID[number % len(SAID)]} (step {number})"
    if number % 7 == 0:  # a long message now and then
        text += " " + "The report lists each invoice with its customer and total. " * 12
    return json.dumps({
        "type": "user", "message": {"role": "user", "content": text},
        "uuid": f"u-{number}", "timestamp": "2026-12-03T12:02:10.033Z",
        "sessionId": "many-messages", "cwd": "/tmp/work",
    })  # fmt: skip


def agent_line(number: int) -> str:
    return json.dumps({
        "type": "assistant",
        "message": {"role": "assistant",
                    "content": [{"type": "text", "text": f"Done ({number})."}]},
        "uuid": f"a-{number}", "timestamp": "2026-12-03T12:02:10.533Z",
        "sessionId": "many-messages",
    })  # fmt: skip


def write_transcript(path: Path, messages: int) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for number in range(messages):
            handle.write(user_line(number) + "\n" + agent_line(number) + "\n")


def queue(store: Path, transcript: Path) -> None:
    marker = {"sessionKey": "s", "timestamp": "2026-12-03T12:00:00.000Z", "reason": "end",
              "transcript": str(transcript)}  # fmt: skip
    (store / ".chitin" / "reflections.json").write_text(json.dumps([marker]))


def timed(chitin: str, store: Path, runs: int) -> list[float]:
    seconds = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([chitin, "--store", str(store), "reflect", "--format", "json"],
                       capture_output=True, check=True)  # fmt: skip
        seconds.append(time.perf_counter() - started)
    return seconds


def profile(transcript: Path) -> None:
    from chitin.model.digest import make_digest
    from chitin.store.transcripts import read_transcript

    turns = read_transcript(transcript).turns
    profiler = cProfile.Profile()
    profiler.enable()
    make_digest(turns, {}, "s")
    profiler.disable()
    pstats.Stats(profiler, stream=sys.stdout).sort_stats("cumulative").print_stats(25)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=76_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--before", help="another chitin to time, interleaved")
    options = parser.parse_args()
    chitin = shutil.which("chitin")
    assert chitin is not None, "chitin is not installed"
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        transcript = folder / "many.jsonl"
        write_transcript(transcript, options.messages)
        size = transcript.stat().st_size / 1e6
        if options.profile:
            profile(transcript)
            return
        store = folder / "store"
        subprocess.run([chitin, "--store", str(store), "init", "--seed"], check=True,
                       capture_output=True)  # fmt: skip
        queue(store, transcript)
        programs = {"before": options.before, "after": chitin} if options.before else {"": chitin}
        seconds: dict[str, list[float]] = {name: [] for name in programs}
        for _ in range(options.runs):
            for name, program in programs.items():
                seconds[name] += timed(program, store, 1)
        for name, runs in seconds.items():
            print(f"{name + ': ' if name else ''}{options.messages} user messages, "
                  f"{size:.0f} MB: median {statistics.median(runs):.2f} s "
                  f"(runs: {', '.join(f'{s:.2f}' for s in runs)})")  # fmt: skip


if __name__ == "__main__":
    main()
