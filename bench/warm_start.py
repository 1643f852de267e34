"""A measured lead for issue 28 item 7: how much of each command is the start of a
fresh Python process, and what a warm start (a fork server) would leave.

    python bench/warm_start.py --chitin <venv>/bin/chitin --store <store> --runs 15

Not a feature: a minimal fork server, here only to measure. It imports chitin's CLI,
click, PyYAML, numpy and the write path once, then forks a child per request; the child
takes the client's stdin/stdout/stderr (passed over a Unix socket), working folder,
environment and arguments, runs ``chitin.console.main`` and its exit code goes back.
The client is a bare interpreter (``python -I -S``: no site, no chitin). Each command is
timed as a whole process both ways, interleaved (direct, warm, direct, warm, ...), on
the same store; contribute writes to a copy of it, with a fresh claim each run.

What a product would need beyond this (docs/design.md §9f, "a warm start"): a private
socket per user and per installation, code changes seen (an upgrade, an editable
install), signals passed on (Ctrl-C), the client's death ending the child, idle exit,
and the time zone, locale and umask of the client.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

Argv = list[str] | Callable[[int], list[str]]  # a run's arguments, or made per run

SERVER = r"""
import json, os, signal, socket, sys, threading, warnings
warnings.simplefilter("ignore", DeprecationWarning)  # fork beside the accept threads
import numpy, click, yaml, sqlite3
import chitin.console, chitin.cli, chitin.cli.write, chitin.cli.read, chitin.cli.retrieve
import chitin.core.facade, chitin.core.lifecycle, chitin.core.retrieving
import chitin.search.door, chitin.search.semantic, chitin.providers.local
import chitin.providers.resident, chitin.store.git_commit

listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(sys.argv[1])
listener.listen(16)
print("ready", flush=True)

def serve(conn):
    message, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
    request = json.loads(message)
    pid = os.fork()
    if pid == 0:
        listener.close()
        for number, fd in enumerate(fds):
            os.dup2(fd, number)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = ["chitin", *request["argv"]]
        try:
            chitin.console.main()
            code = 0
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else int(done.code is not None)
        os._exit(code)
    for fd in fds:
        os.close(fd)
    _, status = os.waitpid(pid, 0)
    conn.sendall(str(os.waitstatus_to_exitcode(status)).encode())
    conn.close()

while True:
    conn, _ = listener.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
"""

CLIENT = r"""
import json, os, socket, sys
conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
conn.connect(sys.argv[1])
request = {"argv": sys.argv[2:], "env": dict(os.environ), "cwd": os.getcwd()}
socket.send_fds(conn, [json.dumps(request).encode()], [0, 1, 2])
os._exit(int(conn.recv(16) or b"1"))
"""

QUERY = "fix the failing typescript build before the deploy and reply to the boss"
CLAIMS = (
    "Keep release notes concise and list the breaking changes first",
    "Ask the designer for the original mockup before changing spacing in the UI",
    "Run the slow integration suite locally before tagging a release candidate",
    "Write the migration so it can be rolled back without losing rows",
)


def timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{argv[-6:]} failed: {done.stderr.decode()[-300:]}")
    return took


def commands(store: Path, copy: Path, some_id: str) -> dict[str, Argv]:
    def contribute(run: int) -> list[str]:
        claim = f"{CLAIMS[run % len(CLAIMS)]} (run {run})"
        return [
            "--store",
            str(copy),
            "contribute",
            "--type",
            "behavioral",
            "--claim",
            claim,
            "--confidence",
            "0.7",
        ]

    reads = {
        "stats": ["stats"],
        "list": ["list"],
        "get": ["get", some_id],
        "retrieve": ["retrieve", "--query", QUERY, "--budget", "5000", "--format", "json"],
    }
    table: dict[str, Argv] = {name: ["--store", str(store), *argv] for name, argv in reads.items()}
    table["contribute"] = contribute
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chitin", required=True, help="the chitin program of a venv")
    parser.add_argument("--store", required=True, type=Path, help="a store with vectors")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    python = str(Path(args.chitin).parent / "python")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHONDONTWRITE")}
    with tempfile.TemporaryDirectory() as work:
        copy = Path(work) / "copy"
        shutil.copytree(args.store, copy, symlinks=True)
        sock = str(Path(work) / "warm.sock")
        server = subprocess.Popen([python, "-c", SERVER, sock], stdout=subprocess.PIPE, env=env)
        try:
            assert server.stdout is not None and server.stdout.readline().strip() == b"ready"
            some_id = next((args.store / "insights" / "skill").glob("*.md")).stem
            measure(
                commands(args.store, copy, some_id),
                [args.chitin],
                [python, "-I", "-S", "-c", CLIENT, sock],
                env,
                args.runs,
            )
        finally:
            server.kill()


def measure(
    table: dict[str, Argv], direct: list[str], warm: list[str], env: dict[str, str], runs: int
) -> None:
    print(f"{'command':12} {'direct':>9} {'warm':>9} {'warm/direct':>12}")
    for name, argv in table.items():
        times: dict[str, list[float]] = {"direct": [], "warm": []}
        for run in range(runs + 1):  # run 0: a warm-up, not counted
            for way, prefix in (("direct", direct), ("warm", warm)):
                rest = argv(2 * run + (way == "warm")) if callable(argv) else argv
                took = timed([*prefix, *rest], env)
                if run:
                    times[way].append(took)
        a, b = statistics.median(times["direct"]), statistics.median(times["warm"])
        print(f"{name:12} {a * 1000:7.0f}ms {b * 1000:7.0f}ms {b / a:12.2f}")


if __name__ == "__main__":
    main()
