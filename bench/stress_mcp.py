"""Start ``chitin mcp`` hundreds of times, as MCP clients do at every session start, and
count the failures by kind; or kill it during writes, and check the store.

    python bench/stress_mcp.py --runs 300 --jobs 2
    python bench/stress_mcp.py --signals --runs 100 --jobs 2

**Sessions** (the default). Each run is a fresh ``chitin --store S mcp`` on its own copy
of a small store (the starter store of ``init --seed``, embedded), or, every
``--missing-every`` runs, on a store path that does not exist: ``initialize``, the
``initialized`` notification, ``tools/call retrieve`` with a query never asked before,
``resources/read personality://current``, then stdin is closed. A run fails, by kind:

- ``no answer``: a request unanswered within ``--timeout`` (or stdout closed first);
- ``error result``: a JSON-RPC error, or a tool result with ``isError``;
- ``empty context``: on the non-empty store, a retrieve without context or insights,
  or a PERSONALITY.md without one insight;
- ``stray stdout line``: a line on stdout that is not a JSON-RPC message;
- ``no exit``: still running ``--exit-timeout`` seconds after stdin closed;
- ``non-zero exit``;
- ``leftover process``: a process of the server's group, or naming its store, still
  alive 3 s after it exited;
- ``traceback``: anything on stderr that looks like one;
- ``missing store created``: the run on a missing store path made something there.

**Signals** (``--signals``). Each run starts a server on a copy of the store and sends it
a stream of ``contribute`` calls, one after another as an agent would; at a random moment
within the stream (drawn from a measured uninterrupted stream) it gets SIGTERM, or, in
every other run, SIGKILL. SIGTERM must end it cleanly: the write in progress finished,
the store clean at once (no uncommitted file, no ``.git/index.lock``, no write journal).
After SIGKILL the next chitin command (``chitin list``) must recover whatever the kill
left. Then, for both: ``git status --porcelain`` is empty, no ``.git/index.lock``,
``chitin check`` passes, every contribute that was answered is in HEAD, and the commits
made equal the insights written (one commit per write).

It prints the counts per kind, and exits 1 if any run failed. Raw outcomes go to
``bench/results/stress-mcp-<timestamp>.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import jsonrpc  # bench/jsonrpc.py: the tiny client
import run as bench  # bench/run.py: the environment

SESSION_KINDS = (
    "no answer",
    "error result",
    "empty context",
    "stray stdout line",
    "no exit",
    "non-zero exit",
    "leftover process",
    "traceback",
    "missing store created",
)
SIGNAL_KINDS = (
    "no answer",
    "error result",
    "stray stdout line",
    "no exit",
    "leftover process",
    "traceback",
    "not clean after SIGTERM",
    "next command failed",
    "dirty tree",
    "index.lock left",
    "check failed",
    "answered write missing",
    "commits != insights written",
)
TRACEBACK = re.compile(
    r"Traceback \(most recent call last\)|^\s+File \".+\", line \d+|^Exception ignored|"
    r"^[A-Za-z_.]+(Error|Exception|Interrupt): ",
    re.MULTILINE,
)
STREAM = 8  # contributes in a measured, uninterrupted stream
MOST = 16  # contributes a killed run may send before giving up on its signal


@dataclass
class Outcome:
    number: int
    mode: str  # "store", "missing", "SIGTERM", "SIGKILL"
    failures: dict[str, str] = field(default_factory=dict)  # kind → first detail
    ms: dict[str, float] = field(default_factory=dict)
    exit_code: int | None = None
    notes: dict[str, Any] = field(default_factory=dict)

    def fail(self, kind: str, detail: str) -> None:
        self.failures.setdefault(kind, detail[:400])


# ---------------------------------------------------------------- stores


def chitin_run(
    program: str, store: Path, *args: str, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [program, "--store", str(store), *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=300,
    )


def git(store: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(store), *args], capture_output=True, text=True)
    return done.stdout


def prepare(program: str, base: Path, env: dict[str, str]) -> None:
    """The starter store, embedded (so a retrieve is hybrid, as at a real session start),
    its cache built."""
    for step in (["init", "--seed"], ["embed"], ["list"]):
        done = chitin_run(program, base, *step, env=env)
        if done.returncode:
            raise SystemExit(f"chitin {' '.join(step)} failed: {done.stderr.strip()}")


def copy_store(base: Path, target: Path) -> Path:
    shutil.copytree(base, target, symlinks=True)
    subprocess.run(["git", "-C", str(target), "update-index", "-q", "--refresh"], check=False)
    return target


def fresh_query(number: int) -> str:
    return f"plan step {number} of {time.time_ns()} for the release with the team"


def check_stderr(outcome: Outcome, session: jsonrpc.Session) -> None:
    text = b"".join(session.stderr).decode(errors="replace")
    match = TRACEBACK.search(text)
    if match:
        start = max(0, match.start() - 200)
        outcome.fail("traceback", text[start : match.end() + 300])
        outcome.notes["stderr"] = text[-6000:]
    elif text.strip():
        outcome.notes["stderr"] = text.strip()[-300:]


def check_leftovers(outcome: Outcome, session: jsonrpc.Session, store: Path, grace: float) -> None:
    alive = jsonrpc.leftovers(session.pid, str(store), grace)
    if not alive:
        return
    described = []
    for pid in alive:
        try:
            described.append(f"{pid}: {Path(f'/proc/{pid}/cmdline').read_bytes()[:200]!r}")
        except OSError:
            described.append(str(pid))
        # Descendants of the server this run started, found by their own ids.
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    outcome.fail("leftover process", "; ".join(described))


def check_strays(outcome: Outcome, session: jsonrpc.Session) -> None:
    if session.strays:
        outcome.notes["strays"] = len(session.strays)
        outcome.fail("stray stdout line", repr(session.strays[0][:300]))


# ---------------------------------------------------------------- sessions


def session_run(
    program: str,
    base: Path,
    work: Path,
    number: int,
    missing: bool,
    env: dict[str, str],
    timeout: float,
    exit_timeout: float,
) -> Outcome:
    outcome = Outcome(number, "missing" if missing else "store")
    store = work / f"r{number:04d}.{'missing' if missing else 'store'}"
    if not missing:
        copy_store(base, store)
    session = jsonrpc.Session([program, "--store", str(store), "mcp"], env).start()
    try:
        _session_calls(outcome, session, number, missing, timeout)
    except jsonrpc.NoAnswer as error:
        outcome.fail("no answer", str(error))
    except OSError as error:  # the pipe broke: the server is gone
        outcome.fail("no answer", f"{type(error).__name__}: {error}")
    closed = time.perf_counter()
    outcome.exit_code = session.close(exit_timeout)
    if outcome.exit_code is None:
        outcome.fail("no exit", f"still running {exit_timeout:.0f} s after stdin closed")
        session.kill()
    else:
        outcome.ms["exit"] = (time.perf_counter() - closed) * 1000
        if outcome.exit_code:
            outcome.fail("non-zero exit", f"exit {outcome.exit_code}")
    check_leftovers(outcome, session, store, grace=3)
    check_strays(outcome, session)
    check_stderr(outcome, session)
    if missing and store.exists():
        made = sorted(str(p.relative_to(store)) for p in store.rglob("*"))[:10]
        outcome.fail("missing store created", f"{store} now holds {made}")
    shutil.rmtree(store, ignore_errors=True)
    return outcome


def _session_calls(
    outcome: Outcome, session: jsonrpc.Session, number: int, missing: bool, timeout: float
) -> None:

    def judged(name: str, answer: jsonrpc.Answer) -> jsonrpc.Answer:
        outcome.ms[name] = (answer.arrived - session.started) * 1000
        if answer.error:
            outcome.fail("error result", f"{name}: {answer.error}")
        return answer

    judged("initialize", session.initialize(timeout))
    session.notify("notifications/initialized")
    found = judged("retrieve", session.call("retrieve", {"query": fresh_query(number)}, timeout))
    uri = {"uri": "personality://current"}
    page = judged("personality", session.request("resources/read", uri, timeout))
    if missing:
        return
    data = found.structured
    if not found.error and (not data.get("context") or not data.get("insights")):
        outcome.fail("empty context", f"retrieve: {json.dumps(data)[:300]}")
    contents = page.result.get("contents") or [{}]
    text = contents[0].get("text", "") if isinstance(contents[0], dict) else ""
    if not page.error and "### " not in text:
        outcome.fail("empty context", f"personality://current: {text[:300]!r}")


# ---------------------------------------------------------------- signals


def head_state(store: Path) -> tuple[int, set[str]]:
    """Commits in HEAD's history, and the insight ids HEAD holds."""
    count = int(git(store, "rev-list", "--count", "HEAD").strip() or 0)
    names = git(store, "ls-tree", "-r", "--name-only", "HEAD", "--", "insights").split()
    return count, {Path(name).stem for name in names if name.endswith(".md")}


def contribute_arguments(number: int, step: int) -> dict[str, Any]:
    return {
        "type": "skill",
        "claim": f"Stress write {step} of run {number}: {fresh_query(number)}",
        "confidence": 0.7,
        "tags": ["stress"],
    }


def stream(
    session: jsonrpc.Session, number: int, most: int, timeout: float, outcome: Outcome
) -> tuple[list[str], int, list[tuple[float, float]]]:
    """Contributes one after another until the server stops answering, or ``most`` were
    sent: the ids answered, how many were sent, and each answered one's span (seconds
    from the first send to its own send and to its answer)."""
    answered: list[str] = []
    spans: list[tuple[float, float]] = []
    sent = 0
    origin = time.perf_counter()
    for step in range(most):
        try:
            ident, moment = session.send(
                "tools/call",
                {"name": "contribute", "arguments": contribute_arguments(number, step)},
            )
            sent += 1
            answer = session.wait_for(ident, moment, timeout)
        except (jsonrpc.NoAnswer, OSError):
            break
        spans.append((answer.sent - origin, answer.arrived - origin))
        if answer.error:
            outcome.fail("error result", f"contribute {step}: {answer.error}")
            continue
        insight = answer.structured.get("insight") or {}
        answered.append(str(insight.get("id")))
        outcome.ms.setdefault("first contribute", answer.ms)
    return answered, sent, spans


def measure_stream(
    program: str, base: Path, work: Path, env: dict[str, str]
) -> list[tuple[float, float]]:
    """The spans of an uninterrupted stream of STREAM contributes here (the first one is
    longer: it opens the store's write machinery)."""
    store = copy_store(base, work / "measure.store")
    session = jsonrpc.Session([program, "--store", str(store), "mcp"], env).start()
    session.initialize(120)
    session.notify("notifications/initialized")
    answered, _, spans = stream(session, -1, STREAM, 120, Outcome(-1, "measure"))
    session.close(60)
    shutil.rmtree(store, ignore_errors=True)
    if len(answered) != STREAM:
        raise SystemExit("the uninterrupted stream of contributes failed; see `chitin mcp`")
    return spans


def kill_moment(chosen: random.Random, spans: list[tuple[float, float]]) -> float:
    """A moment within one of the contributes, each as likely as the others (a moment
    uniform over the stream's time would mostly hit its long first call)."""
    start, end = spans[chosen.randrange(len(spans))]
    return chosen.uniform(start, end)


def signal_run(
    program: str,
    base: Path,
    work: Path,
    number: int,
    kind: str,
    delay: float,
    env: dict[str, str],
    timeout: float,
    exit_timeout: float,
) -> Outcome:
    outcome = Outcome(number, kind)
    outcome.notes["delay_s"] = round(delay, 3)
    store = copy_store(base, work / f"r{number:04d}.store")
    commits_before, ids_before = head_state(store)
    session = jsonrpc.Session([program, "--store", str(store), "mcp"], env).start()
    try:
        session.initialize(timeout)
        session.notify("notifications/initialized")
    except (jsonrpc.NoAnswer, OSError) as error:
        outcome.fail("no answer", f"initialize: {error}")
        session.kill()
        shutil.rmtree(store, ignore_errors=True)
        return outcome
    fired = threading.Event()

    def fire() -> None:
        fired.set()
        with contextlib.suppress(ProcessLookupError):
            os.kill(session.pid, getattr(signal, kind))

    timer = threading.Timer(delay, fire)
    timer.start()
    answered, sent, _ = stream(session, number, MOST, timeout, outcome)
    if not fired.is_set():  # the stream outran the delay: the signal meets an idle server
        outcome.notes["idle when signalled"] = True
    timer.join()
    outcome.exit_code = session.wait(exit_timeout)
    if outcome.exit_code is None:
        # Does it end once its stdin is closed (it waits for the client), or not at all?
        ends = session.close(5) is not None
        how = "it ended once stdin was closed" if ends else "nor once stdin was closed"
        outcome.fail("no exit", f"still running {exit_timeout:.0f} s after {kind}; {how}")
        outcome.notes["ends when stdin closes"] = ends
        session.kill()
    outcome.notes.update(sent=sent, answered=len(answered))
    check_leftovers(outcome, session, store, grace=3 if kind == "SIGTERM" else 10)
    check_strays(outcome, session)
    if kind == "SIGTERM":
        check_stderr(outcome, session)
        left = _unclean(store)
        if left:
            outcome.fail("not clean after SIGTERM", left)
    else:
        outcome.notes["left for the next command"] = _unclean(store) or None
    _check_store(outcome, program, store, env, commits_before, ids_before, answered)
    shutil.rmtree(store, ignore_errors=True)
    return outcome


def _unclean(store: Path) -> str:
    """What a write cut short left in the store, if anything."""
    found = []
    status = git(store, "status", "--porcelain", "--untracked-files=all").strip()
    if status:
        found.append(f"git status: {status[:200]!r}")
    for name in (".git/index.lock", ".git/chitin-write.json"):
        if (store / name).exists():
            found.append(f"{name} exists")
    return "; ".join(found)


def _check_store(
    outcome: Outcome,
    program: str,
    store: Path,
    env: dict[str, str],
    commits_before: int,
    ids_before: set[str],
    answered: list[str],
) -> None:
    listed = chitin_run(program, store, "list", "--format", "json", env=env)
    if listed.returncode:
        outcome.fail("next command failed", listed.stderr.strip()[-300:])
    status = git(store, "status", "--porcelain", "--untracked-files=all").strip()
    if status:
        outcome.fail("dirty tree", status[:300])
    if (store / ".git" / "index.lock").exists():
        outcome.fail("index.lock left", str(store / ".git" / "index.lock"))
    checked = chitin_run(program, store, "check", env=env)
    if checked.returncode:
        outcome.fail("check failed", (checked.stdout + checked.stderr).strip()[-300:])
    commits_after, ids_after = head_state(store)
    missing = [ident for ident in answered if ident not in ids_after]
    if missing:
        outcome.fail("answered write missing", ", ".join(missing))
    written = len(ids_after - ids_before)
    made = commits_after - commits_before
    outcome.notes.update(written=written, commits=made)
    if made != written or ids_before - ids_after:
        outcome.fail(
            "commits != insights written",
            f"{made} commit(s), {written} insight(s) written, {len(ids_before - ids_after)} gone",
        )


# ---------------------------------------------------------------- report


def report(outcomes: list[Outcome], kinds: Sequence[str], title: str) -> int:
    modes = sorted({o.mode for o in outcomes})
    print(f"\n### {title}\n")
    print("| failure kind | " + " | ".join(modes) + " | all |")
    print("|---|" + "---:|" * (len(modes) + 1))
    runs = Counter(o.mode for o in outcomes)
    print("| runs | " + " | ".join(str(runs[m]) for m in modes) + f" | {len(outcomes)} |")
    for kind in kinds:
        counts = [sum(1 for o in outcomes if o.mode == m and kind in o.failures) for m in modes]
        print(f"| {kind} | " + " | ".join(map(str, counts)) + f" | {sum(counts)} |")
    failed = [o for o in outcomes if o.failures]
    print(
        "| **runs failed** | "
        + " | ".join(str(sum(1 for o in failed if o.mode == m)) for m in modes)
        + f" | **{len(failed)}** |"
    )
    order = ("initialize", "retrieve", "personality", "first contribute", "exit")
    phases = [name for name in order if any(name in o.ms for o in outcomes)]
    if phases:
        print("\nmedian ms (since the spawn; exit: since stdin closed)")
        for mode in modes:
            parts = []
            for name in phases:
                values = [o.ms[name] for o in outcomes if o.mode == mode and name in o.ms]
                if values:
                    parts.append(f"{name} {statistics.median(values):.0f}")
            print(f"  {mode}: " + ", ".join(parts))
    noisy = [o for o in outcomes if "stderr" in o.notes and "traceback" not in o.failures]
    if noisy:
        print(f"\nruns with other stderr output (not failures): {len(noisy)}, e.g.")
        print(f"  {noisy[0].notes['stderr'][-200:]!r}")
    shown: set[str] = set()
    for outcome in failed:
        for kind, detail in outcome.failures.items():
            if kind not in shown:
                shown.add(kind)
                print(f"  first {kind}: run {outcome.number} ({outcome.mode}): {detail}")
    return len(failed)


def signal_summary(outcomes: list[Outcome]) -> None:
    for mode in sorted({o.mode for o in outcomes}):
        mine = [o for o in outcomes if o.mode == mode]
        idle = sum(1 for o in mine if o.notes.get("idle when signalled"))
        sent = sum(int(o.notes.get("sent", 0)) for o in mine)
        answered = sum(int(o.notes.get("answered", 0)) for o in mine)
        written = sum(int(o.notes.get("written", 0)) for o in mine)
        cut = sum(1 for o in mine if int(o.notes.get("written", 0)) > o.notes.get("answered", 0))
        codes = Counter(o.exit_code for o in mine)
        recovered = sum(1 for o in mine if o.notes.get("left for the next command"))
        print(
            f"  {mode}: {len(mine)} runs; contributes sent {sent}, answered {answered}, "
            f"written {written} (written but unanswered in {cut} runs); signal to an idle "
            f"server in {idle}; exit codes {dict(codes)}"
            + (f"; left something for the next command in {recovered}" if mode != "SIGTERM" else "")
        )


def save(outcomes: list[Outcome], args: argparse.Namespace, extra: dict[str, Any]) -> Path:
    bench.RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    path = bench.RESULTS_DIR / f"stress-mcp-{'signals-' if args.signals else ''}{stamp}.json"
    data = {
        "timestamp": datetime.now(UTC).isoformat(timespec="seconds"),
        "arguments": vars(args),
        "load_average": os.getloadavg(),
        **extra,
        "outcomes": [asdict(o) for o in outcomes],
    }
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


# ---------------------------------------------------------------- self-check

# What bench/fake_chitin.py does wrong in each run, and so what must be caught there.
SESSION_FAULTS: dict[tuple[int, bool], set[str]] = {
    (0, False): {"stray stdout line", "traceback", "leftover process", "empty context",
                 "non-zero exit"},
    (1, True): {"missing store created"},
    (2, False): {"error result", "no answer", "no exit"},
    (3, True): set(),  # no fault: nothing may be reported
}  # fmt: skip
SIGNAL_FAULTS: dict[tuple[int, str], set[str]] = {
    (100, "SIGTERM"): {"no exit", "not clean after SIGTERM", "dirty tree", "stray stdout line",
                       "traceback", "leftover process"},
    (101, "SIGKILL"): {"answered write missing", "index.lock left", "next command failed",
                       "check failed"},
    (102, "SIGTERM"): {"error result", "commits != insights written", "stray stdout line",
                       "traceback", "leftover process"},
    (103, "SIGKILL"): {"no answer"},
}  # fmt: skip


def self_check(env: dict[str, str]) -> int:
    """Run both modes against bench/fake_chitin.py: every kind of failure must be caught
    where it was planted, and the run without a fault must pass."""
    rows: list[tuple[str, set[str], set[str], bool]] = []
    with tempfile.TemporaryDirectory(prefix="chitin-stress-mcp-check-") as folder:
        work = Path(folder)
        program = work / "chitin"
        fake = Path(__file__).resolve().parent / "fake_chitin.py"
        program.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{fake}" "$@"\n')
        program.chmod(0o755)
        base = work / "base"
        prepare(str(program), base, env)
        caught: set[str] = set()
        for (number, missing), wanted in SESSION_FAULTS.items():
            got = set(session_run(str(program), base, work, number, missing, env, 3, 3).failures)
            caught |= got
            clean = bool(wanted) or not got  # the run without a fault reports nothing
            rows.append((f"session run {number}", wanted, got, wanted <= got and clean))
        spans = measure_stream(str(program), base, work, env)
        for (number, kind), wanted in SIGNAL_FAULTS.items():
            delay = spans[-1][1]  # after the faults are planted
            got = set(signal_run(str(program), base, work, number, kind, delay, env, 3, 3).failures)
            caught |= got
            rows.append((f"signal run {number} ({kind})", wanted, got, wanted <= got))
    print("\n| fake run | must be caught | caught | |\n|---|---|---|---|")
    for name, wanted, got, ok in rows:
        listed = ", ".join(sorted(wanted)) or "(nothing)"
        print(f"| {name} | {listed} | {', '.join(sorted(got)) or '(nothing)'} | "
              f"{'ok' if ok else 'MISSED'} |")  # fmt: skip
    unplanted = (set(SESSION_KINDS) | set(SIGNAL_KINDS)) - caught
    if unplanted:
        print(f"never caught: {', '.join(sorted(unplanted))}")
    return 0 if all(row[3] for row in rows) and not unplanted else 1


# ---------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=300, help="runs (default 300)")
    parser.add_argument("--jobs", type=int, default=2, help="runs at a time (default 2)")
    parser.add_argument("--chitin", help="the chitin to run (default: the one on PATH)")
    parser.add_argument("--signals", action="store_true", help="kill during contributes")
    parser.add_argument(
        "--missing-every", type=int, default=10, help="every Nth session on a missing store"
    )
    parser.add_argument("--timeout", type=float, default=60.0, help="per answer (s)")
    parser.add_argument(
        "--exit-timeout",
        type=float,
        default=20.0,
        help="for the exit after stdin closed or a signal (s; default 20)",
    )
    parser.add_argument("--seed", type=int, default=14, help="random seed of the kill moments")
    parser.add_argument(
        "--kill",
        choices=("both", "SIGTERM", "SIGKILL"),
        default="both",
        help="the signal of --signals runs (default: both, in turn)",
    )
    parser.add_argument(
        "--self-check",
        action="store_true",
        help="run against bench/fake_chitin.py, which plants every fault: each must be caught",
    )
    args = parser.parse_args(argv)
    if args.self_check:
        return self_check(bench.child_env(bytecode_cache=True))
    program = args.chitin or shutil.which("chitin")
    if program is None:
        raise SystemExit("no chitin on PATH: install chitin or pass --chitin PATH")
    env = bench.child_env(bytecode_cache=True)
    env["CHITIN_BACKGROUND_EMBED"] = "off"
    extra: dict[str, Any] = {"chitin": program, "python": jsonrpc.python_of(program)}
    with tempfile.TemporaryDirectory(prefix="chitin-stress-mcp-") as folder:
        work = Path(folder)
        base = work / "base"
        prepare(program, base, env)
        if args.signals:
            spans = measure_stream(program, base, work, env)
            extra["stream_spans_s"] = spans
            each = ", ".join(f"{(end - start) * 1000:.0f}" for start, end in spans)
            bench.log(f"an uninterrupted stream of {STREAM} contributes, ms each: {each}")
            chosen = random.Random(args.seed)
            kills = ("SIGTERM", "SIGKILL") if args.kill == "both" else (args.kill,)
            plan = [
                (n, kills[n % len(kills)], kill_moment(chosen, spans)) for n in range(args.runs)
            ]

            def one(item: tuple[int, str, float]) -> Outcome:
                return signal_run(program, base, work, *item, env, args.timeout, args.exit_timeout)

            items: list[Any] = plan
            kinds, title = SIGNAL_KINDS, f"Signals during contributes: {program}"
        else:
            every = max(1, args.missing_every)
            items = [(n, n % every == every - 1) for n in range(args.runs)]

            def one(item: tuple[int, bool]) -> Outcome:  # type: ignore[misc]
                return session_run(program, base, work, *item, env, args.timeout, args.exit_timeout)

            kinds, title = SESSION_KINDS, f"Session starts: {program}"
        outcomes: list[Outcome] = []
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for outcome in pool.map(one, items):
                outcomes.append(outcome)
                if outcome.failures:
                    bench.log(f"  run {outcome.number} ({outcome.mode}): {outcome.failures}")
                if len(outcomes) % 25 == 0:
                    bench.log(f"  {len(outcomes)}/{len(items)} runs")
    failed = report(outcomes, kinds, title)
    if args.signals:
        signal_summary(outcomes)
    path = save(outcomes, args, extra)
    print(f"\nraw outcomes: {path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
