"""Served contributes of perf-vs-orig's eight claims, two installs interleaved.

    python bench/claims_ab.py BEFORE_BIN AFTER_BIN --store STORE --home HOME
        [--rounds 8] [--background] [--cold]

STORE is copied afresh for each install every round (perf-vs-orig's contribute store
with KEEP=1, ``N1000/ours/store``; or a copy without ``.chitin/vectors`` for a store
that waits for its background embedding), and the eight claims are contributed to it
in order, as perf-vs-orig does, each install after the other (the order alternating
each round). HOME holds the prepared model (perf-vs-orig's ``ours-home``). Both run
in perf-vs-orig's environment, served by their fronts; the background embedding is
off unless ``--background``. Round 0 is a warm-up. Printed: each install's median
over every counted claim, and its median per claim (the first claim of a round pays
the cache's first sync of the copy, as perf-vs-orig's warm-up does).

A resident embedder keeps the vectors it made: from the second round on, it answers
every text of the eight claims from memory, and its model's work is no longer in the
timings. ``--cold`` gives each install a resident folder of its own, stops its
resident and starts a fresh one (ready before the round's first claim) every round,
and adds the round to each claim: every text is embedded again, as in perf-vs-orig,
whose runs start with no resident and whose claims and candidates are all new.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from contribute_cpu import CLAIMS  # perf-vs-orig's, in its order (bench/ is on sys.path)

SCRUBBED = ("CHITIN_", "GIT_", "PYTHON", "XDG_")


def environment(home: Path, background: bool) -> dict[str, str]:
    kept = {k: v for k, v in os.environ.items() if not k.startswith(SCRUBBED)}
    switch = "on" if background else "off"
    return {**kept, "HOME": str(home), "TZ": "UTC", "CHITIN_BACKGROUND_EMBED": switch}


def fresh_resident(chitin: str, env: dict[str, str]) -> None:
    """Stop the resident of ``env``'s folder, then start one and wait until it answers
    (the install's own interpreter asks it, as its chitin would)."""
    folder = env["CHITIN_RESIDENT_DIR"]
    subprocess.run(["pkill", "-f", "--", f"resident_server --socket {folder}/"], check=False)
    ask = (
        "import os, sys; from chitin.providers import resident as r; "
        "s = r.settings(os.environ, None); "
        "sys.exit(0 if r.ask(s, ['ready?']) or (r.start(s) and False) else 3)"
    )
    python = str(Path(chitin).with_name("python"))
    deadline = time.monotonic() + 120
    while subprocess.run([python, "-c", ask], env=env, check=False).returncode != 0:
        if time.monotonic() > deadline:
            raise SystemExit(f"{chitin}: the resident never answered")
        time.sleep(0.3)


def contribute(chitin: str, store: Path, claim: str, env: dict[str, str]) -> float:
    argv = [chitin, "--store", str(store), "contribute", "--type", "behavioral"]
    argv += ["--claim", claim, "--confidence", "0.7", "--tags", "bench,review"]
    argv += ["--provenance", "observation"]
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{chitin} contribute failed: {done.stderr.strip()}")
    return took


def fresh_copy(source: Path, target: Path) -> None:
    # a background embedding of the last round's copy is stopped first: it writes there
    subprocess.run(["pkill", "-f", "--", f"--store {target} embed"], check=False)
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target, symlinks=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--background", action="store_true")
    parser.add_argument("--cold", action="store_true", help="a fresh resident every round")
    options = parser.parse_args()
    sides = (options.before, options.after)
    times: dict[str, dict[int, list[float]]] = {side: {} for side in sides}
    with tempfile.TemporaryDirectory(prefix="claims-ab-", dir="/tmp") as work:
        copies = {side: Path(work) / name for side, name in zip(sides, "ab", strict=True)}
        envs = {side: environment(options.home, options.background) for side in sides}
        if options.cold:  # short paths: a socket's has 108 bytes
            for side, name in zip(sides, "ab", strict=True):
                (folder := Path(work) / f"r{name}").mkdir(mode=0o700)
                envs[side]["CHITIN_RESIDENT_DIR"] = str(folder)
        for round_ in range(options.rounds + 1):
            for side in sides:
                fresh_copy(options.store, copies[side])
                if options.cold:
                    fresh_resident(side, envs[side])
            order = sides if round_ % 2 == 0 else sides[::-1]
            for number, claim in enumerate(CLAIMS):
                said = f"{claim} (round {round_})" if options.cold else claim
                for side in order:
                    took = contribute(side, copies[side], said, envs[side])
                    if round_:
                        times[side].setdefault(number, []).append(took)
        for side in sides:
            subprocess.run(["pkill", "-f", "--", f"--store {copies[side]} embed"], check=False)
            if options.cold:
                folder = envs[side]["CHITIN_RESIDENT_DIR"]
                subprocess.run(["pkill", "-f", "--", f"resident_server --socket {folder}/"])
    print(f"load {os.getloadavg()[0]:.2f}; medians in ms of {options.rounds} rounds")
    for side in sides:
        every = [t for runs in times[side].values() for t in runs]
        each = " ".join(f"{statistics.median(times[side][n]) * 1000:.0f}" for n in range(8))
        print(f"{side}: {statistics.median(every) * 1000:.1f}  per claim: {each}")
    print(paired(times[sides[0]], times[sides[1]]))


def paired(before: dict[int, list[float]], after: dict[int, list[float]]) -> str:
    """The mean of after − before over each round's claims but the first (the copy's
    first sync), with a 95 % bootstrap interval (2,000 resamples of the pairs)."""
    differences = [
        (b - a) * 1000
        for number in sorted(before)
        if number
        for a, b in zip(before[number], after[number], strict=True)
    ]
    draw = random.Random(0)
    means = sorted(
        statistics.fmean(draw.choices(differences, k=len(differences))) for _ in range(2000)
    )
    return (
        f"after - before, claims 2-8: mean {statistics.fmean(differences):+.1f} ms, "
        f"95 % interval [{means[50]:+.1f}, {means[1949]:+.1f}], "
        f"after faster in {sum(d < 0 for d in differences)} of {len(differences)}"
    )


if __name__ == "__main__":
    main()
