"""Stress the resident embedder: hundreds of fresh `chitin contribute` processes while
the resident is killed (SIGKILL) at random moments. Every contribute must succeed and
every insight land, nothing left uncommitted; the resident is never needed.

    python bench/resident_stress.py [--runs 300] [--seed 7] [--kill-every 1.5]

The store is seeded with claims near the ones contributed, so each contribute judges
candidates by meaning (embedding them: through the resident when it answers, in-process
when it does not). A killer thread kills whatever resident answers at the socket at
random intervals (mean ``--kill-every`` s); the next contribute finds none (or a stale
socket), embeds in-process and starts another. Printed: processes run, failures,
kills, residents seen (distinct pids), insights in the store at the end, `chitin
check`'s exit code.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

SEEDS = (
    "Reproduce a bug before fixing it",
    "Keep release notes concise and list breaking changes first",
    "Run the integration suite before tagging a release",
    "Ask for the original mockup before changing spacing",
    "Write migrations that can be rolled back",
)
CHANGES = ("always", "first", "carefully", "again", "on every project", "when in doubt")


def chitin() -> list[str]:
    return [sys.executable, "-m", "chitin"]


def resident_pid(folder: Path) -> int | None:
    for sock in folder.glob("embed-*.sock"):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            try:
                probe.settimeout(1)
                probe.connect(str(sock))
                pid, _, _ = struct.unpack(
                    "3i", probe.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
                )
                return int(pid)
            except OSError:
                continue
    return None


def killer(
    folder: Path, mean: float, stop: threading.Event, rng: random.Random, seen: dict[str, set[int]]
) -> None:
    while not stop.wait(rng.expovariate(1 / mean)):
        pid = resident_pid(folder)
        if pid is None:
            continue
        seen["pids"].add(pid)
        try:
            os.kill(pid, signal.SIGKILL)
            seen["killed"].add(pid)
        except ProcessLookupError:
            pass


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--kill-every", type=float, default=1.5)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="chitin-stress-"))
    folder = Path(tempfile.mkdtemp(prefix="crs", dir="/tmp"))
    os.chmod(folder, 0o700)
    env = {
        **os.environ,
        "CHITIN_RESIDENT": "on",
        "CHITIN_RESIDENT_DIR": str(folder),
        "CHITIN_RESIDENT_IDLE": "30",
        "CHITIN_BACKGROUND_EMBED": "off",
        "HOME": str(work / "home"),
        "GIT_CONFIG_GLOBAL": "/dev/null",
    }
    store = work / "store"
    base = [*chitin(), "--store", str(store)]
    for claim in SEEDS:
        subprocess.run(
            [*base, "contribute", "--type", "skill", "--claim", claim, "--confidence", "0.7"],
            env=env,
            check=True,
            capture_output=True,
        )
    seen: dict[str, set[int]] = {"pids": set(), "killed": set()}
    stop = threading.Event()
    thread = threading.Thread(target=killer, args=(folder, args.kill_every, stop, rng, seen))
    thread.start()
    failures: list[str] = []
    started = time.monotonic()
    try:
        for n in range(args.runs):
            claim = f"{rng.choice(SEEDS)} {rng.choice(CHANGES)} ({n})"
            done = subprocess.run(
                [*base, "contribute", "--type", "skill", "--claim", claim, "--confidence", "0.7"],
                env=env,
                capture_output=True,
                text=True,
            )
            if done.returncode != 0:
                failures.append(f"run {n}: rc={done.returncode} {done.stderr.strip()[-300:]}")
            pid = resident_pid(folder)
            if pid is not None:
                seen["pids"].add(pid)
    finally:
        stop.set()
        thread.join()
    stats = subprocess.run(
        [*base, "stats", "--format", "json"], env=env, capture_output=True, text=True
    )
    total = json.loads(stats.stdout)["total"] if stats.returncode == 0 else None
    check = subprocess.run([*base, "check"], env=env, capture_output=True, text=True)
    dirty = subprocess.run(
        ["git", "-C", str(store), "status", "--porcelain"], capture_output=True, text=True
    ).stdout.strip()
    journal = (store / ".git" / "chitin-write.json").exists()
    pid = resident_pid(folder)
    if pid is not None:
        os.kill(pid, signal.SIGKILL)
    print(
        f"contribute processes: {args.runs}, failures: {len(failures)}, "
        f"{time.monotonic() - started:.0f} s"
    )
    print(f"residents seen: {len(seen['pids'])}, killed: {len(seen['killed'])}")
    print(
        f"insights at the end: {total} (expected {len(SEEDS) + args.runs}); "
        f"chitin check exit {check.returncode}; uncommitted: {dirty or 'none'}; "
        f"journal left: {journal}"
    )
    for failure in failures[:10]:
        print("  " + failure)
    shutil.rmtree(work, ignore_errors=True)
    shutil.rmtree(folder, ignore_errors=True)
    ok = not failures and total == len(SEEDS) + args.runs and not dirty and not journal
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
