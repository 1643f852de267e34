"""CPU time of whole `chitin contribute` processes, and of the resident embedder that
answers them: a figure that a shared, loaded machine moves less than wall time.

    python bench/contribute_cpu.py --chitin VENV/bin/chitin --store STORE [--home HOME]
        [--runs 15] [--resident on|off] [--each]

STORE is copied (perf-vs-orig's contribute store with KEEP=1: ``N1000/ours/store-contrib``,
and its ``ours-home`` as HOME, where the prepared model is). Each run contributes a
fresh claim (perf-vs-orig's, with a counter) as a fresh process, in perf-vs-orig's
environment; the resident gets a folder of its own, is started by the first run, and
the first 3 runs are not counted (the start, and a resident still loading). Printed:
medians of the process tree's CPU (user + system, git's children included), of the
resident's CPU per call, and of the wall time; with ``--each``, every run's too (the
uncounted ones marked), to see what the first runs after a resident's start cost.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CLAIMS = (
    "Be verbose and detailed when explaining a rollback plan to the on-call engineer",
    "Keep release notes concise and list the breaking changes first",
    "Ask the designer for the original mockup before changing spacing in the UI",
    "Run the slow integration suite locally before tagging a release candidate",
    "Prefer a formal tone in incident reports that customers will read",
    "Write the migration so it can be rolled back without losing rows",
    "Check the feature flag defaults when a deploy behaves differently in staging",
    "Summarize long review threads in one comment before asking for approval",
)
WARM_UP = 3
TICKS = os.sysconf("SC_CLK_TCK")


def environment(home: Path, resident: str, folder: Path) -> dict[str, str]:
    keep = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("CHITIN_", "GIT_", "PYTHON", "XDG_"))
    }
    return {
        **keep,
        "HOME": str(home),
        "TZ": "UTC",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local/state"),
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "CHITIN_RESIDENT": resident,
        "CHITIN_RESIDENT_DIR": str(folder),
    }


def resident_cpu(folder: Path) -> tuple[int | None, float]:
    """(pid, CPU seconds so far) of the resident with a socket in ``folder``."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            if b"chitin.providers.resident_server" in command and str(folder).encode() in b" ".join(
                command
            ):
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                return int(pid), (int(fields[11]) + int(fields[12])) / TICKS
        except OSError:
            continue
    return None, 0.0


def one(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(CPU of the process and its waited children, wall) of one whole process."""
    start = time.perf_counter()
    process = subprocess.Popen(
        argv,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"contribute failed ({process.returncode}): {argv}")
    return usage.ru_utime + usage.ru_stime, wall


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chitin", required=True)
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--home", type=Path)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--resident", default="on")
    parser.add_argument("--each", action="store_true", help="print every run's figures")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="chitin-cpu-"))
    folder = Path(tempfile.mkdtemp(prefix="cc", dir="/tmp"))
    os.chmod(folder, 0o700)
    store, home = work / "store", work / "home"
    shutil.copytree(args.store, store, symlinks=True)
    shutil.copytree(args.home, home, symlinks=True) if args.home else home.mkdir()
    env = environment(home, args.resident, folder)
    cpu, served, walls = [], [], []
    try:
        for k in range(args.runs + WARM_UP):
            claim = f"{CLAIMS[k % len(CLAIMS)]} ({k})"
            argv = [
                args.chitin,
                "--store",
                str(store),
                "contribute",
                "--type",
                "behavioral",
                "--claim",
                claim,
                "--confidence",
                "0.7",
                "--tags",
                "bench,review",
                "--provenance",
                "observation",
            ]
            pid, before = resident_cpu(folder)
            used, wall = one(argv, env)
            after_pid, after = resident_cpu(folder)
            if args.each:
                own = after - before if pid is not None and pid == after_pid else after
                mark = " (not counted)" if k < WARM_UP else ""
                print(
                    f"  run {k}: tree {used * 1000:.0f} ms, resident {own * 1000:.0f} ms, "
                    f"wall {wall * 1000:.0f} ms{mark}"
                )
            if k < WARM_UP:
                time.sleep(2)  # the resident the first run started loads its model
                continue
            cpu.append(used)
            walls.append(wall)
            served.append(after - before if pid is not None and pid == after_pid else 0.0)
    finally:
        pid, _ = resident_cpu(folder)
        if pid is not None:
            os.kill(pid, signal.SIGTERM)
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(folder, ignore_errors=True)
    print(f"{args.chitin} resident={args.resident} runs={args.runs} load={os.getloadavg()[0]:.1f}")
    print(
        f"  process tree CPU median {statistics.median(cpu) * 1000:.0f} ms, "
        f"resident CPU per call median {statistics.median(served) * 1000:.0f} ms, "
        f"wall median {statistics.median(walls) * 1000:.0f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
