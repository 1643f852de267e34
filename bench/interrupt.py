"""Kill chitin's writes at many points and check that nothing is ever half-done.

Each trial copies a prepared store, starts one write (contribute, reinforce, merge,
import or sync) as a fresh process, and after a random delay within that write's measured
length sends it SIGINT, SIGTERM or SIGKILL, or SIGKILL to its whole process group (so
that a git command dies with it and leaves its lock behind); ``--signals`` may add
SIGHUP and the group forms of each, as a terminal's Ctrl-C or hang-up sends them.
Then it runs `chitin list`, which must recover whatever the kill left, and checks:

- the index and the working tree hold exactly HEAD's state (`git status` is empty);
- HEAD is the commit before the write, or one commit after it: the write's own (for
  sync, the merge of the remote's branch, whose first parent is the commit before);
- the insights listed are those of HEAD: before the write, or with all of it;
- a write that exited 0 committed, and one that said it was interrupted did not; one
  that a catchable signal stopped before its commit says so (not exit 1, "failed");
- no journal and no git lock is left, and the next write succeeds.

    python bench/interrupt.py --kills 240 --jobs 2

prints one line per inconsistent trial and a summary; it exits 1 if any was found.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

OPERATIONS = ("contribute", "reinforce", "merge", "import", "sync")
SIGNALS = ("SIGINT", "SIGTERM", "SIGKILL", "SIGKILL-group")
# --signals may also name these: a terminal's Ctrl-C and hang-up reach the whole group
KNOWN_SIGNALS = tuple(
    f"{name}{group}"
    for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGKILL")
    for group in ("", "-group")
)
CATCHABLE = ("SIGINT", "SIGTERM", "SIGHUP")
IMPORTED = 400  # the import writes this many files: long enough to be hit mid-way
INCOMING = 200  # the remote holds this many insights the store has not yet merged


class Trial(NamedTuple):
    number: int
    operation: str
    signal: str
    delay: float


class Outcome(NamedTuple):
    trial: Trial
    committed: bool
    exit_code: int
    problems: list[str]


def chitin(store: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chitin", "--store", str(store), *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def git(store: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(store), *args], capture_output=True, text=True, check=False
    ).stdout


def environment(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        HOME=str(home),
        GIT_CONFIG_GLOBAL=str(home / "gitconfig"),
        GIT_CONFIG_NOSYSTEM="1",
        CHITIN_BACKGROUND_EMBED="off",
    )
    env.pop("CHITIN_STORE", None)
    (home / "gitconfig").write_text("[init]\n\tdefaultBranch = main\n")
    return env


def exported(count: int, prefix: str) -> list[dict[str, object]]:
    return [
        {
            "id": f"{prefix}-{n:05d}",
            "type": "skill",
            "claim": f"Imported insight number {n} about {prefix} and careful work",
            "confidence": 0.6,
            "tags": ["bench"],
        }
        for n in range(count)
    ]


def prepare(work: Path, env: dict[str, str]) -> Path:
    """The store every trial starts from: the starter insights plus 200 more."""
    base = work / "base"
    for args in (("init", "--seed"),):
        result = chitin(base, *args, env=env)
        assert result.returncode == 0, result.stderr
    source = work / "base.json"
    source.write_text(json.dumps(exported(200, "base")))
    result = chitin(base, "import", str(source), env=env)
    assert result.returncode == 0, result.stderr
    (work / "new.json").write_text(json.dumps(exported(IMPORTED, "new")))
    _diverge(work, base, env)
    return base


def _diverge(work: Path, base: Path, env: dict[str, str]) -> None:
    """A remote (remote.git, copied into each trial) that has INCOMING insights the base
    store lacks, while the base has a commit of its own: its sync makes a merge."""
    remote, other = work / "remote.git", work / "other"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True, env=env)
    git(base, "remote", "add", "origin", str(remote))
    assert chitin(base, "sync", env=env).returncode == 0
    subprocess.run(["git", "clone", "-q", str(remote), str(other)], check=True, env=env)
    (work / "incoming.json").write_text(json.dumps(exported(INCOMING, "incoming")))
    for args in (("import", str(work / "incoming.json")), ("sync",)):
        result = chitin(other, *args, env=env)
        assert result.returncode == 0, result.stderr
    claim = ("--claim", "Write the plan down before a long change")
    local = chitin(base, "contribute", "--type", "skill", *claim, "--confidence", "0.6", env=env)
    assert local.returncode == 0, local.stderr


def settled(store: Path, limit: float = 30.0) -> None:
    """Wait until no process holds a file of ``store`` open. A command served by the
    resident front answers before its worker closes the cache (docs/design.md §9l), and
    that close removes SQLite's -wal and -shm files: a copy or removal of the store
    right after the command would find them vanishing under it."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and holding(store):
        time.sleep(0.02)


def holding(store: Path) -> bool:
    """Whether any process (of those whose fds we may read) has a file of ``store`` open."""
    inside = str(store.resolve()) + os.sep
    for fds in Path("/proc").glob("[0-9]*/fd"):
        try:
            for fd in fds.iterdir():
                if os.readlink(fd).startswith(inside):
                    return True
        except OSError:  # the process ended, or is not ours to read
            continue
    return False


def copy_store(base: Path, store: Path) -> None:
    """The base store, with a remote of its own (a sync pushes to it)."""
    settled(base)
    shutil.copytree(base, store, symlinks=True)
    shutil.copytree(base.parent / "remote.git", store.parent / f"{store.name}.git")
    git(store, "remote", "set-url", "origin", str(store.parent / f"{store.name}.git"))


def command_of(operation: str, work: Path) -> list[str]:
    if operation == "contribute":
        return [
            "contribute",
            "--type",
            "skill",
            "--claim",
            "Check the exit code of each step",
            "--confidence",
            "0.7",
            "--tags",
            "bench",
        ]
    if operation == "reinforce":
        return ["reinforce", "base-00007", "--source", "a bench run"]
    if operation == "merge":
        return ["merge", "base-00011", "base-00012"]
    if operation == "sync":
        return ["sync"]
    return ["import", str(work / "new.json")]


def expected_change(operation: str) -> int:
    """How the number of live insights changes when the write completes."""
    changes = {"contribute": 1, "reinforce": 0, "merge": -1, "import": IMPORTED}
    return changes.get(operation, INCOMING)


def listed(store: Path, env: dict[str, str]) -> tuple[int, list[str]]:
    result = chitin(store, "list", "--format", "json", env=env)
    if result.returncode != 0:
        return -1, [f"list failed after the kill: {result.stderr.strip()[:300]}"]
    return len(json.loads(result.stdout)), []


def run_trial(trial: Trial, base: Path, work: Path, env: dict[str, str]) -> Outcome:
    store = work / f"trial-{trial.number}"
    copy_store(base, store)
    try:
        return _attack(trial, store, work, env)
    finally:
        shutil.rmtree(store, ignore_errors=True)
        shutil.rmtree(work / f"trial-{trial.number}.git", ignore_errors=True)


def _attack(trial: Trial, store: Path, work: Path, env: dict[str, str]) -> Outcome:
    head_before = git(store, "rev-parse", "HEAD").strip()
    count_before, _ = listed(store, env)
    reinforced_before = _reinforcements(store, "base-00007", env)
    process = subprocess.Popen(
        [sys.executable, "-m", "chitin", "--store", str(store), *command_of(trial.operation, work)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,  # its own process group, as a terminal would give it
    )
    time.sleep(trial.delay)
    name = trial.signal.removesuffix("-group")
    try:
        if trial.signal.endswith("-group"):
            os.killpg(process.pid, getattr(signal, name))
        else:
            process.send_signal(getattr(signal, name))
    except ProcessLookupError:
        pass
    _, stderr = process.communicate(timeout=120)
    code = process.returncode
    problems: list[str] = []
    count_after, failed = listed(store, env)  # the next command: it recovers
    problems += failed
    head_after = git(store, "rev-parse", "HEAD").strip()
    committed = head_after != head_before
    if committed:
        parent = git(store, "rev-parse", "HEAD~1").strip()
        if parent != head_before:
            problems.append("HEAD moved by more than one commit")
        subject = git(store, "log", "-1", "--format=%s").lower()
        if not subject.startswith(trial.operation):
            problems.append(f"HEAD is not the write's commit: {subject.strip()!r}")
    status = git(store, "status", "--porcelain", "--untracked-files=all")
    if status.strip():
        problems.append(f"index or working tree differ from HEAD: {status.strip()[:300]!r}")
    if count_after >= 0:
        wanted = count_before + (expected_change(trial.operation) if committed else 0)
        if count_after != wanted:
            problems.append(f"{count_after} insights listed, HEAD holds {wanted}")
    reinforced = _reinforcements(store, "base-00007", env) if committed else 0
    if trial.operation == "reinforce" and committed and reinforced != reinforced_before + 1:
        problems.append("the reinforce commit does not hold one more reinforcement")
    if code == 0 and not committed:
        problems.append("exited 0 but nothing was committed")
    if code in (128 + 1, 128 + 2, 128 + 15) and committed:
        problems.append(f"said it was interrupted (exit {code}) but the write was committed")
    if code == 1 and not committed and trial.signal.removesuffix("-group") in CATCHABLE:
        last = stderr.strip().splitlines()[-1:] or [""]
        problems.append(f"said it failed, not that it was interrupted: {last[0][:200]!r}")
    if "Traceback" in stderr:
        problems.append("printed a traceback")
    for leftover in (".git/chitin-write.json", ".git/index.lock", ".git/MERGE_HEAD"):
        if (store / leftover).exists():
            problems.append(f"{leftover} left behind")
    if list(store.glob(".merge_file_*")):
        problems.append("git's .merge_file_* left behind")
    follow = chitin(
        store,
        "contribute",
        "--type",
        "skill",
        "--claim",
        "Afterwards, a write still works",
        "--confidence",
        "0.5",
        "--force",
        env=env,
    )
    if follow.returncode != 0:
        problems.append(f"the next write failed: {follow.stderr.strip()[:300]}")
    return Outcome(trial, committed, code, problems)


def _reinforcements(store: Path, insight: str, env: dict[str, str]) -> int:
    result = chitin(store, "get", insight, "--format", "json", env=env)
    if result.returncode != 0:
        return -1
    return int(json.loads(result.stdout).get("reinforcementCount", -1))


def measure(base: Path, work: Path, env: dict[str, str]) -> dict[str, float]:
    """How long each write takes here, uninterrupted: the delays are drawn within it."""
    lengths: dict[str, float] = {}
    for operation in OPERATIONS:
        store = work / f"measure-{operation}"
        copy_store(base, store)
        started = time.perf_counter()
        result = chitin(store, *command_of(operation, work), env=env)
        lengths[operation] = time.perf_counter() - started
        assert result.returncode == 0, f"{operation}: {result.stderr}"
        settled(store)
        shutil.rmtree(store)
    return lengths


def trials(
    kills: int,
    lengths: dict[str, float],
    seed: int,
    operations: Sequence[str] = OPERATIONS,
    window: tuple[float, float] = (0.4, 1.1),
    signals: Sequence[str] = SIGNALS,
) -> list[Trial]:
    chosen = random.Random(seed)
    planned = []
    for number in range(kills):
        operation = operations[number % len(operations)]
        signal_name = signals[(number // len(operations)) % len(signals)]
        # The start-up is most of a write's length; its files and commit come last.
        delay = chosen.uniform(lengths[operation] * window[0], lengths[operation] * window[1])
        planned.append(Trial(number, operation, signal_name, round(delay, 3)))
    return planned


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=240, help="trials to run (default 240)")
    parser.add_argument("--jobs", type=int, default=2, help="trials at once (default 2)")
    parser.add_argument("--seed", type=int, default=11, help="random seed of the delays")
    parser.add_argument(
        "--operations",
        default=",".join(OPERATIONS),
        help="the writes to kill, comma-separated (default: all)",
    )
    parser.add_argument(
        "--window",
        nargs=2,
        type=float,
        default=(0.4, 1.1),
        metavar=("FROM", "TO"),
        help="the delays' range, as fractions of the write's measured length (0.4 1.1)",
    )
    parser.add_argument(
        "--signals",
        default=",".join(SIGNALS),
        help=f"the signals, comma-separated, each with -group for its process group "
        f"(default: {','.join(SIGNALS)}; also SIGHUP, SIGINT-group, …)",
    )
    args = parser.parse_args(argv)
    signals = [name for name in args.signals.split(",") if name]
    if not signals or any(name not in KNOWN_SIGNALS for name in signals):
        parser.error(f"--signals: some of {', '.join(KNOWN_SIGNALS)}")
    operations = [name for name in args.operations.split(",") if name]
    if not operations or any(name not in OPERATIONS for name in operations):
        parser.error(f"--operations: some of {', '.join(OPERATIONS)}")
    with tempfile.TemporaryDirectory(prefix="chitin-interrupt-") as folder:
        work = Path(folder)
        home = work / "home"
        home.mkdir()
        env = environment(home)
        base = prepare(work, env)
        lengths = measure(base, work, env)
        print("uninterrupted:", ", ".join(f"{k} {v:.2f} s" for k, v in lengths.items()))
        window = tuple(args.window)
        planned = trials(args.kills, lengths, args.seed, operations, window, signals)
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            outcomes = list(pool.map(lambda t: run_trial(t, base, work, env), planned))
    bad = [o for o in outcomes if o.problems]
    for outcome in bad:
        print(
            f"INCONSISTENT {outcome.trial}: exit {outcome.exit_code}; "
            + "; ".join(outcome.problems)
        )
    tally = Counter((o.trial.operation, o.trial.signal, o.committed) for o in outcomes)
    for operation in operations:
        for signal_name in signals:
            done = tally[(operation, signal_name, True)]
            undone = tally[(operation, signal_name, False)]
            print(f"{operation:>10} {signal_name:<13} committed {done:3}  undone {undone:3}")
    print(f"{len(outcomes)} kills, {len(bad)} inconsistent outcomes")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
