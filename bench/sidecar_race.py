"""Parallel session starts on a damaged vector sidecar (issue 10: "the session start
never fails").

    python bench/sidecar_race.py --rounds 20 --processes 6

Builds a seeded store with its vectors, then, per round and per damaged file
(``matrix.f32``, ``index.sqlite3``, or none), copies it, overwrites that file with
random bytes and starts ``--processes`` ``chitin retrieve --format json`` at once.
Every one must exit 0 with a JSON answer ("failed" counts those that did not), and
say at most one line on stderr ("said more" counts those that said more): the counts
are printed per damaged file, with the first lines they said.
The store, the user's folders and the model's cache live in a temporary folder of
their own (under $TMPDIR), removed at the end.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

DAMAGED = ("vectors/matrix.f32", "vectors/index.sqlite3", "none")


def chitin() -> str:
    beside = Path(sys.executable).parent / "chitin"
    return str(beside) if beside.exists() else "chitin"


def environment(home: Path, in_process: bool) -> dict[str, str]:
    """An isolated user (home, git configuration, cache, sockets), as the tests have."""
    env = {k: v for k, v in os.environ.items() if k != "CHITIN_STORE"}
    (home / "gitconfig").write_text("[user]\n\tname = bench\n\temail = bench@example.com\n")
    env.update(
        HOME=str(home),
        XDG_DATA_HOME=str(home / "data"),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_CACHE_HOME=str(home / "cache"),
        GIT_CONFIG_GLOBAL=str(home / "gitconfig"),
        GIT_CONFIG_NOSYSTEM="1",
        CHITIN_RESIDENT_DIR=str(home / "run"),
    )
    if in_process:
        env["CHITIN_FRONT"] = "0"
    return env


def end_servers(root: Path) -> None:
    """End the servers this run started (the front, the resident embedder): their
    sockets lie under ``root``."""
    for entry in Path("/proc").iterdir():
        try:
            words = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        if entry.name.isdigit() and "--socket" in words:
            at = words.index("--socket") + 1
            if at < len(words) and words[at].startswith(str(root)):
                with contextlib.suppress(OSError):
                    os.kill(int(entry.name), signal.SIGTERM)


def build(store: Path, env: dict[str, str]) -> None:
    """A seeded store whose every insight has its vectors."""
    for args in (["init", "--seed"], ["embed"], ["retrieve", "--query", "warm up"]):
        subprocess.run([chitin(), "--store", str(store), *args], env=env, check=True,
                       capture_output=True)  # fmt: skip


def failures(
    store: Path, env: dict[str, str], processes: int, tag: str
) -> tuple[list[str], list[str]]:
    """Start ``processes`` retrieves at once; what each that failed said, and what each
    that answered but said more than one line said."""
    command = [chitin(), "--store", str(store), "retrieve", "--format", "json", "--query"]
    started = [
        subprocess.Popen(
            [*command, f"parallel session start {tag} {i}"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(processes)
    ]
    failed, more = [], []
    for process in started:
        out, err = process.communicate()
        lines = [line for line in err.splitlines() if line]
        try:
            json.loads(out)
            answered = True
        except ValueError:
            answered = False
        line = f"exit {process.returncode}: " + " | ".join(lines)[:300]
        if process.returncode != 0 or not answered:
            failed.append(line)
        elif len(lines) > 1:
            more.append(line)
    return failed, more


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " "),
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--rounds", type=int, default=20, help="rounds per damaged file")
    parser.add_argument(
        "--processes", type=int, default=6, help="retrieves started at once in a round"
    )
    parser.add_argument(
        "--in-process", action="store_true", help="run without the resident front (CHITIN_FRONT=0)"
    )
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="race") as folder:
        root = Path(folder)
        (root / "home").mkdir()
        env = environment(root / "home", options.in_process)
        try:
            failed, more = run_rounds(root, env, options.rounds, options.processes)
        finally:
            end_servers(root)
        runs = options.rounds * options.processes
        for name in DAMAGED:
            print(
                f"{name:24} {len(failed[name]):4} of {runs} failed, "
                f"{len(more[name]):4} said more than one line"
            )
            for line in sorted(set(failed[name] + more[name]))[:6]:
                print(f"    {line}")


Said = dict[str, list[str]]


def run_rounds(root: Path, env: dict[str, str], rounds: int, processes: int) -> tuple[Said, Said]:
    """What the failed, and the answers that said more than one line, said, by damage."""
    build(root / "built", env)
    failed: Said = collections.defaultdict(list)
    more: Said = collections.defaultdict(list)
    for round_ in range(rounds):
        for name in DAMAGED:
            store = root / "s"
            shutil.rmtree(store, ignore_errors=True)
            shutil.copytree(root / "built", store, symlinks=True)
            if name != "none":
                (store / ".chitin" / name).write_bytes(os.urandom(70_000))
            bad, noisy = failures(store, env, processes, f"{round_} {name}")
            failed[name] += bad
            more[name] += noisy
    return failed, more


if __name__ == "__main__":
    main()
