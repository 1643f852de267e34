"""The resident CLI front under stress: hundreds of fresh ``chitin`` processes at once,
the front SIGKILLed at random moments, clients SIGKILLed at random moments.

    python bench/front_stress.py [--chitin BIN] [--clients 300] [--parallel 12] [--seed 1]
        [--writers 0.2] [--embedded]

Readers (get, list, stats, a usage error) run against a store that does not change, and
must print what they print in-process, byte for byte; writers contribute to another
store. At the end it counts: wrong outputs (0 wanted), hung clients (none past the
timeout), processes of the front's folder left besides the fronts themselves (orphan
workers or supervisors: 0 wanted), and the written store's consistency (``chitin
check``; as many insights as contributes that said so, plus at most those killed).
``--writers`` is the share of contributes; with ``--embedded`` the stores are embedded
at their ``init`` (the local model from the caller's cache folder), so that every
served contribute's door searches by meaning in a worker (numpy, forked from the
front: docs/design.md §9o), and the readers include ``similar --semantic``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

HUNG_SECONDS = 120.0


class Stress:
    def __init__(self, chitin: str, folder: Path, home: Path, cache: str | None) -> None:
        self.chitin = chitin
        self.folder = folder
        self.env = dict(
            {k: v for k, v in os.environ.items() if not k.startswith(("CHITIN_", "PYTHON"))},
            HOME=str(home),
            CHITIN_FRONT="1",
            CHITIN_RESIDENT_DIR=str(folder),
            CHITIN_FRONT_IDLE="30",
            CHITIN_BACKGROUND_EMBED="off",
        )
        if cache is not None:  # the model's folder (providers: models_dir)
            self.env["XDG_CACHE_HOME"] = cache
        self.counts = {"runs": 0, "wrong": 0, "hung": 0, "killed": 0, "written": 0, "fronts": 0}
        self.lock = threading.Lock()
        self.wrong: list[str] = []

    def run(self, argv: list[str], front: str = "1") -> subprocess.CompletedProcess[str]:
        env = dict(self.env, CHITIN_FRONT=front)
        return subprocess.run([self.chitin, *argv], env=env, capture_output=True, text=True)

    def client(self, argv: list[str], expected: tuple[int, str, str] | None, rng: random.Random):
        process = subprocess.Popen(
            [self.chitin, *argv], env=self.env, text=True,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        killed = rng.random() < 0.1
        if killed:
            threading.Timer(rng.uniform(0.0, 0.3), process.kill).start()
        try:
            out, err = process.communicate(timeout=HUNG_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            self.count("hung")
            return
        self.count("runs")
        if process.returncode == -signal.SIGKILL and killed:
            self.count("killed")
            return
        got = (process.returncode, out, err)
        if expected is None:  # a writer
            if got[0] == 0 and "Contributed" in out:
                self.count("written")
            else:
                self.fail(argv, got)
        elif got != expected:
            self.fail(argv, got)

    def count(self, name: str) -> None:
        with self.lock:
            self.counts[name] += 1

    def fail(self, argv: list[str], got: object) -> None:
        with self.lock:
            self.counts["wrong"] += 1
            self.wrong.append(f"{argv}: {got!r}"[:400])

    def front_pids(self) -> set[int]:
        found = set()
        for sock in self.folder.glob("front-*.sock"):
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            with probe, contextlib.suppress(OSError):
                probe.connect(str(sock))
                raw = probe.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
                found.add(int.from_bytes(raw[:4], "little"))
        return found

    def killer(self, stop: threading.Event, rng: random.Random) -> None:
        while not stop.wait(rng.uniform(0.2, 1.5)):
            for pid in self.front_pids():
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
                    self.count("fronts")

    def leftovers(self) -> list[int]:
        """Processes of our folder (fronts, supervisors, workers: the front's argv) that
        are not a front answering at a socket, nor its spare (one supervisor and its
        worker forked ahead of need, both still in the front's cwd, /)."""
        mine: dict[int, int] = {}  # pid: parent
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                with contextlib.suppress(OSError, ValueError, IndexError):
                    line = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
                    if b"chitin.front.server" in line and os.fsencode(self.folder) in line:
                        stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                        mine[int(entry.name)] = int(stat[1])
        fronts = self.front_pids()
        spares = set()
        for front in fronts:
            kids = [pid for pid, parent in mine.items() if parent == front]
            for kid in kids:
                grandchildren = [pid for pid, parent in mine.items() if parent == kid]
                pair = {kid, *grandchildren}
                if len(kids) == 1 and len(grandchildren) == 1 and _in_root(pair):
                    spares |= pair
        return sorted(set(mine) - fronts - spares)


def _described(pid: int) -> str:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return f"state {stat[0]}, parent {stat[1]}, cwd {os.readlink(f'/proc/{pid}/cwd')}"
    except OSError as error:
        return str(error)


def _in_root(pids: set[int]) -> bool:
    try:
        return {os.readlink(f"/proc/{pid}/cwd") for pid in pids} == {"/"}
    except OSError:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chitin", default=shutil.which("chitin") or "chitin")
    parser.add_argument("--clients", type=int, default=300)
    parser.add_argument("--parallel", type=int, default=12)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--writers", type=float, default=0.2, help="share of contributes")
    parser.add_argument("--embedded", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    folder = Path(tempfile.mkdtemp(prefix="fs", dir="/tmp"))
    work = Path(tempfile.mkdtemp(prefix="front-stress-"))
    (work / "home").mkdir()
    cache = None
    if args.embedded:
        cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    stress = Stress(args.chitin, folder, work / "home", cache)
    read, written = str(work / "read"), str(work / "written")
    for store in (read, written):
        stress.run(["--store", store, "init", "--seed"], front="0")
    listed = stress.run(["--store", read, "list", "--format", "json"], front="0").stdout
    first = listed.split('"id": "', 1)[1].split('"', 1)[0]
    readers = [
        ["--store", read, "get", first],
        ["--store", read, "list"],
        ["--store", read, "stats"],
        ["--store", read, "list", "--min-confidence", "nine"],
        ["--store", read, "retrieve", "--query", "review a change"],
    ]
    if args.embedded:
        readers.append(["--store", read, "similar", "--semantic", "look over a patch"])
    expected = {}
    for argv in readers:
        done = stress.run(argv, front="0")
        expected[tuple(argv)] = (done.returncode, done.stdout, done.stderr)
    jobs: list[tuple[list[str], tuple[int, str, str] | None]] = []
    for k in range(args.clients):
        if rng.random() < args.writers:
            claim = f"Stress claim number {k} keeps its own words {rng.random():.6f}"
            argv = ["--store", written, "contribute", "--type", "skill", "--claim", claim,
                    "--confidence", "0.6"]  # fmt: skip
            jobs.append((argv, None))
        else:
            argv = rng.choice(readers)
            jobs.append((argv, expected[tuple(argv)]))
    stop = threading.Event()
    threading.Thread(target=stress.killer, args=(stop, random.Random(args.seed + 1))).start()
    began = time.monotonic()
    pending = list(jobs)
    lock = threading.Lock()

    def drain(seed: int) -> None:
        mine = random.Random(seed)
        while True:
            with lock:
                if not pending:
                    return
                argv, wanted = pending.pop()
            stress.client(argv, wanted, mine)

    threads = [
        threading.Thread(target=drain, args=(args.seed * 100 + i,)) for i in range(args.parallel)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stop.set()
    spent = time.monotonic() - began
    time.sleep(3.0)  # a killed client's worker: the supervisor kills it at once
    left = stress.leftovers()
    check = stress.run(["--store", written, "check"], front="0")
    counted = stress.run(["--store", written, "stats", "--format", "json"], front="0").stdout
    total = int(counted.split('"total": ', 1)[1].split(",", 1)[0].split("}", 1)[0])
    seeded = int(
        stress.run(["--store", read, "stats", "--format", "json"], front="0")
        .stdout.split('"total": ', 1)[1].split(",", 1)[0].split("}", 1)[0]
    )  # fmt: skip
    print(f"clients {len(jobs)} in {spent:.1f} s, {args.parallel} at once; counts {stress.counts}")
    print(f"left behind (not a front): {left}")
    if left:  # what they are, and whether they are still there a while later
        for pid in left:
            print(f"  {pid}: {_described(pid)}")
        time.sleep(10.0)
        print(f"still there 10 s later: {sorted(set(left) & set(stress.leftovers()))}")
    said, killed = stress.counts["written"], stress.counts["killed"]
    print(f"written store: check exit {check.returncode}; {total - seeded} new insights")
    print(f"for {said} contributes that said so (+ up to {killed} killed clients)")
    for line in stress.wrong[:10]:
        print("WRONG", line)
    for pid in stress.front_pids() | set(left):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    shutil.rmtree(folder, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
