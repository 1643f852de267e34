"""Two chitin installs served by their fronts, before and after in one run: whole
processes, interleaved, medians.

    python bench/served_ab.py BEFORE_BIN AFTER_BIN [--runs 21] [--embedded]

``--version``, ``get <id>`` and ``contribute`` at bench/run.py's 1,000-insight store
(built there once; each install writes to a copy of its own); with ``--embedded``, the
store with a (synthetic, unit) vector for every insight and the local model, as after
its background embedding, and a ``retrieve --query`` never asked before each run (run
this with a Python that imports chitin: bench/run.py's ``ensure_vectors`` writes the
vectors). The front's RSS is printed at the end. The front on in a private
folder of this run, the background embedding off, three warm-up rounds (the fronts,
the embedders and the page cache), then ``--runs`` rounds, the order of the two
alternating each round. The load is printed before and after: on a shared machine,
repeat when it moved.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as bench  # bench/run.py: its store, its claims, its environment

COMMANDS = ("version", "get", "contribute")
EMBEDDED = (*COMMANDS, "retrieve-new")


def timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    spent = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{argv}: exit {done.returncode}: {done.stderr[-400:]!r}")
    return spent


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--embedded", action="store_true")
    args = parser.parse_args()
    commands = EMBEDDED if args.embedded else COMMANDS
    work = Path(tempfile.mkdtemp(prefix="served-ab-"))
    fronts = work / "fronts"
    fronts.mkdir(mode=0o700)
    # No background embedding: started by the first contributes, it embeds the whole
    # store for minutes, beside the counts of both installs.
    env = dict(bench.child_env(bytecode_cache=True), CHITIN_FRONT="1")
    env["CHITIN_BACKGROUND_EMBED"] = "off"
    env["CHITIN_RESIDENT_DIR"] = str(fronts)
    built = bench.ensure_store(1000, args.after, False, env)
    claims = bench.claim_generator(1000)
    bins = {"before": args.before, "after": args.after}
    stores = {name: work / name for name in bins}
    source = built.root
    if args.embedded:
        source = work / "embedded"
        shutil.copytree(built.root, source, symlinks=True)
        (source / "chitin.yaml").write_text("embedding: {provider: local}\n")
        bench.ensure_vectors(source)
    for store in stores.values():
        shutil.copytree(source, store, symlinks=True)

    def argv(name: str, command: str) -> list[str]:
        at = [bins[name], "--store", str(stores[name])]
        if command == "version":
            return [bins[name], "--version"]
        if command == "get":
            return [*at, "get", built.sample_ids[0]]
        if command == "retrieve-new":
            words = " ".join(claims.claim().split()[:5])
            return [*at, "retrieve", "--query", f"working on {words}", "--budget", "5000"]
        claim = claims.claim()
        return [*at, "contribute", "--type", "skill", "--claim", claim, "--confidence", "0.8"]

    print(f"load before: {load()}", flush=True)
    for _ in range(3):
        for name in bins:
            for command in commands:
                timed(argv(name, command), env)
    times: dict[tuple[str, str], list[float]] = {}
    for round_ in range(args.runs):
        order = ("before", "after") if round_ % 2 == 0 else ("after", "before")
        for command in commands:
            for name in order:
                times.setdefault((name, command), []).append(timed(argv(name, command), env))
    print(f"load after: {load()}")
    print(f"medians of {args.runs} whole processes, ms")
    for command in commands:
        a, b = (statistics.median(times[name, command]) * 1000 for name in bins)
        paired = zip(times["before", command], times["after", command], strict=True)
        pairs = [after - before for before, after in paired]
        faster = sum(d < 0 for d in pairs)
        print(
            f"{command:<12} before {a:7.1f}  after {b:7.1f}  after/before {b / a:.3f}"
            f"  paired: median {statistics.median(pairs) * 1000:+.1f} ms,"
            f" after faster in {faster}/{len(pairs)} rounds"
        )
    for sock in sorted(fronts.glob("*.sock")):  # this run's fronts and embedders
        pid = _listener(sock)
        status = Path(f"/proc/{pid}/status").read_text()
        rss = next(line.split()[1] for line in status.splitlines() if line[:6] == "VmRSS:")
        threads = len(os.listdir(f"/proc/{pid}/task"))
        program = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode()
        print(f"{sock.name[:5]} {program}: RSS {int(rss) / 1024:.1f} MB, {threads} threads")
    for sock in fronts.glob("*.sock"):  # this run's fronts and embedders, not another's
        with contextlib.suppress(OSError):
            os.kill(_listener(sock), signal.SIGTERM)
    shutil.rmtree(work, ignore_errors=True)


def _listener(sock: Path) -> int:
    """The pid of the process listening at ``sock``."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.connect(str(sock))
        raw = probe.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
    return int.from_bytes(raw[:4], "little")


if __name__ == "__main__":
    main()
