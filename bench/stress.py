"""Run the session start hundreds of times as fresh processes, and count the failures.

    python bench/stress.py                 # 300 runs of each scenario, two at a time
    python bench/stress.py --runs 50 --jobs 1

Each run is a whole ``chitin retrieve`` or ``chitin render`` process with a query never
asked before, as an agent's session start is. Hosts throw away the output of a failing
run, so a run fails when it exits non-zero, prints a traceback or an error, says what
the scenario does not expect on stderr, or prints no insights.

Scenarios:

- ``seeded``: the starter store of ``init --seed``; every query is embedded by the
  local model, so every run loads it.
- ``unembedded``: 1,000 imported insights with no vectors and the background embedding
  off, so the store stays without vectors: every run is answered by text and says so.
- ``embedding``: the same 1,000 insights with the background embedding on: the first
  runs start it and are answered by text while it works; later runs are hybrid.

Figures are medians of whole processes, as in bench/run.py.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as bench  # bench/run.py: the environment and the default chitin

BAD_WORDS = ("Traceback", "Error", "error:", "terminate called", "unexpected", "Aborted")
TEXT_ANSWER = "ranked by text alone"


@dataclass
class Scenario:
    name: str
    store: Path
    env: dict[str, str]
    allowed_stderr: Callable[[str], bool]  # may this line be on stderr?


@dataclass
class Tally:
    runs: int = 0
    times_ms: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def query(number: int) -> str:
    return f"plan step {number} of {time.time_ns()} for the release with the team"


def one_run(chitin: str, scenario: Scenario, command: str, number: int) -> tuple[float, str | None]:
    argv = [chitin, "--store", str(scenario.store), command, "--query", query(number)]
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=scenario.env, timeout=120)
    elapsed = (time.perf_counter() - started) * 1000
    return elapsed, judge(done, scenario)


def judge(done: subprocess.CompletedProcess[str], scenario: Scenario) -> str | None:
    """Why the run failed as a session start, or None if it did not."""
    if done.returncode != 0:
        return f"exit {done.returncode}: {done.stderr.strip()[-300:]}"
    for line in done.stderr.splitlines():
        if any(word in line for word in BAD_WORDS) or not scenario.allowed_stderr(line):
            return f"stderr: {line[:300]}"
    if "### " not in done.stdout:
        return f"no insights in the output: {done.stdout[:200]!r}"
    return None


def stress(chitin: str, scenario: Scenario, command: str, runs: int, jobs: int) -> Tally:
    tally = Tally()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for elapsed, failure in pool.map(
            lambda n: one_run(chitin, scenario, command, n), range(runs)
        ):
            tally.runs += 1
            tally.times_ms.append(elapsed)
            if failure:
                tally.failures.append(failure)
    return tally


def export_of(count: int) -> list[dict[str, object]]:
    topics = ["deploys", "reviews", "tests", "migrations", "incidents", "pairing", "docs"]
    verbs = ["check", "announce", "split", "measure", "document", "rehearse", "automate"]
    return [
        {
            "type": ("skill", "behavioral", "principle", "trigger")[n % 4],
            "claim": f"{verbs[n % 7].capitalize()} the {topics[(n // 7) % 7]} step {n} first",
            "condition": f"the {topics[n % 7]} work starts" if n % 4 == 3 else None,
            "confidence": 0.5 + (n % 5) / 10,
        }
        for n in range(count)
    ]


def make_store(chitin: str, root: Path, env: dict[str, str], imported: int) -> None:
    if not imported:
        subprocess.run([chitin, "--store", str(root), "init", "--seed"], check=True,
                       capture_output=True, env=env)  # fmt: skip
        return
    source = root.parent / f"{root.name}.json"
    items = [{k: v for k, v in item.items() if v is not None} for item in export_of(imported)]
    source.write_text(json.dumps(items))
    subprocess.run([chitin, "--store", str(root), "import", str(source)], check=True,
                   capture_output=True, env=env)  # fmt: skip


def scenarios(chitin: str, folder: Path, base_env: dict[str, str]) -> list[Scenario]:
    quiet = {**base_env, "CHITIN_BACKGROUND_EMBED": "off"}
    live = {**base_env, "CHITIN_BACKGROUND_EMBED": "on"}
    made = [
        Scenario("seeded", folder / "seeded", quiet, lambda line: False),
        Scenario(
            "unembedded",
            folder / "unembedded",
            quiet,
            lambda line: "background embedding is off" in line and TEXT_ANSWER in line,
        ),
        Scenario(
            "embedding",
            folder / "embedding",
            live,
            lambda line: "being embedded in the background" in line and TEXT_ANSWER in line,
        ),
    ]
    for scenario, imported in zip(made, (0, 1000, 1000), strict=True):
        make_store(chitin, scenario.store, quiet, imported)
    return made


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=300, help="runs of each (default 300)")
    parser.add_argument("--jobs", type=int, default=2, help="runs at a time (default 2)")
    parser.add_argument("--chitin", default=bench.default_chitin(), help="default: the venv's")
    args = parser.parse_args(argv)
    env = bench.child_env(bytecode_cache=True)
    results: list[tuple[str, str, Tally]] = []
    # A store the bench could not remove (something still writing there) is left behind
    # rather than losing the counts to a traceback.
    with tempfile.TemporaryDirectory(prefix="chitin-stress-", ignore_cleanup_errors=True) as folder:
        for scenario in scenarios(args.chitin, Path(folder), env):
            for command in ("retrieve", "render"):
                bench.log(f"  {scenario.name:11} {command} ×{args.runs}")
                tally = stress(args.chitin, scenario, command, args.runs, args.jobs)
                results.append((scenario.name, command, tally))
        _wait_for_background(Path(folder) / "embedding")
    return report(results)


def report(results: list[tuple[str, str, Tally]]) -> int:
    print(f"\n{'scenario':12} {'command':9} {'runs':>5} {'failures':>9} {'median ms':>10}")
    for name, command, tally in results:
        median = statistics.median(tally.times_ms) if tally.times_ms else float("nan")
        print(f"{name:12} {command:9} {tally.runs:5} {len(tally.failures):9} {median:10.0f}")
    failures = [(name, command, f) for name, command, t in results for f in t.failures]
    for name, command, failure in failures[:20]:
        print(f"  {name} {command}: {failure}")
    return 1 if failures else 0


def _wait_for_background(store: Path, seconds: float = 300) -> None:
    """Let the background embedding the last scenario started finish before its store
    is removed (it would fail, and its log say so, for no fault of its own): while its
    waiter waits for the commands to pause (the status says "starting", chitin/
    quiet_start.py) and while the worker holds the lock. One still at work after
    ``seconds`` (idle priority on a busy machine: 1,000 insights can take longer) is
    ended, since its store is about to go; the bench's counts do not depend on it."""
    if _let_go(store, seconds):
        return
    pid = _worker(store / ".chitin" / "vectors" / "background.json")
    if pid is not None:
        bench.log(f"  the background embedding (pid {pid}) still runs after {seconds:g} s: ended")
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
    _let_go(store, 30)


def _let_go(store: Path, seconds: float) -> bool:
    """Whether no background embedding holds ``store`` any more, within ``seconds``."""
    import fcntl

    folder = store / ".chitin" / "vectors"
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if _starting(folder / "background.json"):
            time.sleep(0.5)
            continue
        try:
            with open(folder / "background.lock", "rb") as handle:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
        except BlockingIOError:
            time.sleep(0.5)
        except OSError:
            return True  # no lock: none ever ran
    return False


def _worker(status: Path) -> int | None:
    """The pid the status names (the waiter becomes the worker: the same process)."""
    try:
        return int(json.loads(status.read_text(encoding="utf-8"))["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _starting(status: Path) -> bool:
    """Whether the status names a spawned worker, still alive, yet to take the lock."""
    try:
        record = json.loads(status.read_text(encoding="utf-8"))
        if record.get("state") != "starting":
            return False
        os.kill(int(record["pid"]), 0)
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return True


if __name__ == "__main__":
    sys.exit(main())
