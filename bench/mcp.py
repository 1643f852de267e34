"""Time ``chitin mcp`` as an MCP client meets it: fresh server processes over stdio.

    python bench/mcp.py                                   # the chitin on PATH
    python bench/mcp.py --chitin A/bin/chitin --chitin B/bin/chitin --runs 11

Measured, on the synthetic stores of bench/run.py (``--sizes``, default 1000,10000):

- **start**: spawn ``chitin --store S mcp``, send ``initialize`` at once, and time (from
  the spawn) its response; then the ``initialized`` notification and ``tools/list``,
  until that response; then the first ``tools/call retrieve`` (a new query), until its
  response; then, stdin closed, until the process has exited. ``--runs`` fresh
  processes (default 11) after one untimed warm-up; median, min, max.
- **floor**: the same for a bare SDK server (``MCPServer`` with one trivial tool, run by
  the same Python as the chitin, which needs the ``mcp`` extra), and ``chitin
  --version``: what a start on the SDK would cost at least (chitin's server no longer
  imports it: issue 28), and what is chitin's own.
- **warm**: one real stdio session per store. After its start, one retrieve and a
  pause (``--settle``, 2 s: the warm-up is over, and no file is within chitin's 2 s
  "racily clean" window), then ``--repeats`` round trips of ``tools/call retrieve``
  for each of: the same query again (``repeat``); a new query each call (``new``, in
  the store's made-up words; ``new-english``, an English task description, which
  matches no stored word and is answered by meaning alone);
  the same query after a hand edit of one insight's confidence (``edit-confidence``)
  or of its claim (``edit-claim``, which also re-embeds that insight); a query for
  the claim that ``chitin contribute`` (another process, untimed) has just written
  (``contribute``: the next call must see it). Median, p90, min, max.

A round trip is measured from writing the request to reading its response line, by a
raw JSON-RPC client (bench/jsonrpc.py), never the SDK's. Every stdout line must parse
as JSON-RPC: stray lines are counted, and must be 0. Each chitin gets its own copy of
each store (as bench/compare.py does); with several ``--chitin``, runs alternate
between them so that all medians come from the same stretch of a noisy machine.
Raw figures go to ``bench/results/mcp-<timestamp>.json``; the tables are markdown.

(The file is bench/mcp.py, so within this process ``import mcp`` would find it rather
than the SDK: nothing here imports the SDK, which runs only in the child processes.)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import jsonrpc  # bench/jsonrpc.py: the tiny client
import run as bench  # bench/run.py: the stores and the environment

CONFIGS = {
    "local": "embedding: {provider: local}\n",
    "none": "embedding: {provider: none}\n",
}
WARM_KINDS = ("repeat", "new", "new-english", "edit-confidence", "edit-claim", "contribute")
# An agent's task descriptions, in English: none of their words is in the synthetic
# stores, so they are answered by meaning alone (with an empty text search).
_DOING = ("fix", "review", "refactor", "debug", "document", "test", "plan", "speed up",
          "clean up", "explain", "port", "split")  # fmt: skip
_WHAT = ("the failing release pipeline", "the pull request for the parser",
         "the changelog for the next version", "the database layer", "the slow build on CI",
         "the migration of the config files", "the flaky network test",
         "the command line options", "the error messages of the installer",
         "the caching of search results", "the login flow", "the nightly backup job")  # fmt: skip
START_PHASES = ("initialize", "tools/list", "first call", "exit")
# issue 28: from the spawn to each answer of a client's session start (issue 14 asked
# for 1,000 ms to the first answer).
TARGET_START_MS = {"initialize": 300.0, "tools/list": 400.0, "first call": 900.0}
TARGET_WARM_MS = 20.0  # issue 14: a warm retrieve at 10,000 insights
TARGET_WARM_SIZE = 10000

FLOOR_SERVER = '''\
"""The floor: a bare MCP SDK server with one trivial tool."""
from mcp.server.mcpserver import MCPServer

server = MCPServer("floor", log_level="WARNING")


@server.tool()
def echo(text: str) -> str:
    """Say the text back."""
    return text


server.run("stdio")
'''


@dataclass
class Program:
    """A chitin to time, and what it runs with."""

    label: str
    chitin: str
    python: str


@dataclass
class StartRun:
    program: str
    size: int | None  # None: the floor (no store)
    ms: dict[str, float]  # phase → ms since the spawn (exit: since stdin was closed)
    strays: int
    exit_code: int | None
    failure: str | None = None
    stderr: str = ""


@dataclass
class WarmSession:
    program: str
    size: int
    ms: dict[str, list[float]] = field(default_factory=dict)
    strays: int = 0
    failures: list[str] = field(default_factory=list)
    exit_code: int | None = None
    stderr: str = ""


# ---------------------------------------------------------------- helpers


def summary(values: Sequence[float]) -> dict[str, float | int | None]:
    if not values:
        return {"n": 0, "median": None, "p90": None, "min": None, "max": None}
    ordered = sorted(values)
    p90 = statistics.quantiles(ordered, n=10, method="inclusive")[8] if len(ordered) > 1 else None
    return {
        "n": len(ordered),
        "median": round(statistics.median(ordered), 2),
        "p90": round(p90 if p90 is not None else ordered[0], 2),
        "min": round(ordered[0], 2),
        "max": round(ordered[-1], 2),
    }


def label_of(chitin: str, taken: set[str]) -> str:
    """A short name: the virtual environment's folder (…/<venv>/bin/chitin)."""
    path = Path(chitin).resolve()
    base = path.parent.parent.name if path.parent.name == "bin" else path.name
    label, number = base, 2
    while label in taken:
        label, number = f"{base}-{number}", number + 1
    taken.add(label)
    return label


def own_copy(root: Path, target: Path, config: str) -> Path:
    """A copy of a built store for one chitin, with the embedding configured. Copied
    files have new inodes and ctimes: git's index is refreshed once, or every ``git
    status`` in the copy would hash each file again."""
    if not target.exists():
        shutil.copytree(root, target, symlinks=True)
        subprocess.run(["git", "-C", str(target), "update-index", "-q", "--refresh"], check=False)
    settings = target / "chitin.yaml"
    settings.write_text(config, encoding="utf-8")
    stamp = time.time_ns() - 10**10  # older than chitin's racy window
    os.utime(settings, ns=(stamp, stamp))
    return target


def query_for(built: bench.BuiltStore) -> str:
    return bench._query(built)


def new_query(built: bench.BuiltStore, generator: bench.Generator) -> str:
    """A task description never asked before: the usual words and a fresh claim."""
    return f"{query_for(built)} {generator.claim()}"


def english_query(number: int) -> str:
    """The ``number``-th English task description (all differ)."""
    doing, what = _DOING[number % len(_DOING)], _WHAT[(number // len(_DOING)) % len(_WHAT)]
    again = number // (len(_DOING) * len(_WHAT))
    return f"{doing} {what}" + (f" once more ({again})" if again else "")


# ---------------------------------------------------------------- the start


def start_run(
    program: Program,
    argv: list[str],
    size: int | None,
    first_call: tuple[str, dict[str, Any]],
    env: dict[str, str],
    timeout: float,
) -> StartRun:
    """One fresh server: time each phase from the spawn; then close stdin."""
    session = jsonrpc.Session(argv, env).start()
    ms: dict[str, float] = {}
    failure = None
    try:
        answer = session.initialize(timeout)
        ms["initialize"] = (answer.arrived - session.started) * 1000
        session.notify("notifications/initialized")
        answer = session.request("tools/list", None, timeout)
        ms["tools/list"] = (answer.arrived - session.started) * 1000
        answer = session.call(*first_call, timeout=timeout)
        ms["first call"] = (answer.arrived - session.started) * 1000
        failure = answer.error
    except (jsonrpc.NoAnswer, OSError) as error:
        failure = str(error)
    closed = time.perf_counter()
    code = session.close(timeout)
    if code is None:
        failure = failure or "still running after stdin closed"
        session.kill()
    else:
        ms["exit"] = (time.perf_counter() - closed) * 1000
    if code not in (0, None):
        failure = failure or f"exit {code}"
    stderr = b"".join(session.stderr).decode(errors="replace")
    return StartRun(
        program.label, size, ms, len(session.strays), code, failure, stderr.strip()[-500:]
    )


def bench_start(
    programs: list[Program],
    roots: dict[str, Path],
    built: bench.BuiltStore,
    runs: int,
    env: dict[str, str],
    timeout: float,
    floor: Path | None,
) -> list[StartRun]:
    """``runs`` rounds after one warm-up; in each round every program once (and the floor
    for each distinct Python), the order turning round by round."""
    generator = bench.claim_generator(built.size)
    results: list[StartRun] = []
    pythons = sorted({p.python for p in programs})
    for number in range(runs + 1):
        jobs: list[Callable[[], StartRun]] = []
        for program in programs:
            root = roots[program.label]
            argv = [program.chitin, "--store", str(root), "mcp"]
            call = ("retrieve", {"query": new_query(built, generator)})
            jobs.append(
                lambda p=program, a=argv, c=call: start_run(p, a, built.size, c, env, timeout)
            )
        if floor is not None:
            for python in pythons:
                floor_program = Program(f"SDK floor ({python})", "", python)
                jobs.append(
                    lambda fp=floor_program: start_run(
                        fp,
                        [fp.python, str(floor)],
                        None,
                        ("echo", {"text": "hello"}),
                        env,
                        timeout,
                    )
                )
        shift = number % len(jobs)
        for job in jobs[shift:] + jobs[:shift]:
            outcome = job()
            if number:  # run 0 warms the bytecode cache and the page cache
                results.append(outcome)
            if outcome.failure:
                bench.log(f"    FAILED {outcome.program} @{outcome.size}: {outcome.failure}")
    return results


def bench_version(
    programs: list[Program], runs: int, env: dict[str, str]
) -> dict[str, list[float]]:
    """``chitin --version``: a whole CLI process, without the SDK."""
    times: dict[str, list[float]] = {p.label: [] for p in programs}
    for number in range(runs + 1):
        for program in programs if number % 2 else programs[::-1]:
            outcome = bench.run_once([program.chitin, "--version"], env)
            if number and outcome.ok:
                times[program.label].append(outcome.seconds * 1000)
    return times


# ---------------------------------------------------------------- warm calls


def edit_confidence(path: Path, number: int) -> None:
    """A hand edit: the confidence line gets another value."""
    text = path.read_text(encoding="utf-8")
    value = f"{0.55 + (number % 8) * 0.05:.2f}"
    edited, count = re.subn(r"(?m)^confidence: .*$", f"confidence: {value}", text, count=1)
    assert count == 1, f"no confidence line in {path}"
    path.write_text(edited, encoding="utf-8")


def edit_claim(path: Path, number: int) -> None:
    """A hand edit: the claim (the first line after the frontmatter) gets a new end."""
    text = path.read_text(encoding="utf-8")
    head, _, body = text.partition("\n---\n")
    lines = body.split("\n")
    at = next(i for i, line in enumerate(lines) if line.strip())
    claim = re.sub(r" \(edit \d+\)\.$", ".", lines[at])
    lines[at] = claim.removesuffix(".") + f" (edit {number})."
    path.write_text(head + "\n---\n" + "\n".join(lines), encoding="utf-8")


def insight_path(root: Path, ident: str) -> Path:
    found = list((root / "insights").glob(f"*/{ident}.md"))
    assert len(found) == 1, f"{ident}: {found}"
    return found[0]


def bench_warm(
    program: Program,
    root: Path,
    built: bench.BuiltStore,
    repeats: int,
    settle: float,
    env: dict[str, str],
    timeout: float,
    local: InProcess | None = None,
) -> WarmSession:
    """One session: the start, a retrieve, a pause, then ``repeats`` calls of each kind.
    With ``local``, each ``repeat`` and ``new…`` call is followed (or, every other call,
    preceded) by the same retrieve in this process, on a copy of its own."""
    result = WarmSession(program.label, built.size, {kind: [] for kind in WARM_KINDS})
    if local is not None:
        result.ms.update({f"{kind} {IN_PROCESS}": [] for kind in ("repeat", "new", "new-english")})
    generator = bench.claim_generator(built.size)
    session = jsonrpc.Session([program.chitin, "--store", str(root), "mcp"], env).start()
    same = query_for(built)
    targets = [insight_path(root, ident) for ident in built.sample_ids[5:]]

    def retrieve(query: str) -> jsonrpc.Answer:
        answer = session.call("retrieve", {"query": query}, timeout)
        if answer.error:
            result.failures.append(answer.error)
        return answer

    def time_it(kind: str, query: str, before: Callable[[int], None] | None = None) -> None:
        for number in range(repeats):
            if before is not None:
                before(number)
            asked = {"new": new_query(built, generator), "new-english": english_query(number)}.get(
                kind, query
            )
            beside = local is not None and f"{kind} {IN_PROCESS}" in result.ms
            if beside and number % 2 and local is not None:
                result.ms[f"{kind} {IN_PROCESS}"].append(local.retrieve(asked))
            answer = retrieve(asked)
            result.ms[kind].append(answer.ms)
            if beside and not number % 2 and local is not None:
                result.ms[f"{kind} {IN_PROCESS}"].append(local.retrieve(asked))

    def written(number: int) -> None:
        claim = f"Bench session claim {number}: {generator.claim()}"
        done = subprocess.run(
            [program.chitin, "--store", str(root), "contribute", "--type", "skill",
             "--claim", claim, "--confidence", "0.8", "--format", "json"],
            capture_output=True, text=True, env=env, check=False,
        )  # fmt: skip
        if done.returncode:
            result.failures.append(f"contribute: {done.stderr.strip()[-300:]}")
            return
        ident = json.loads(done.stdout)["insight"]["id"]
        answer = retrieve(claim)
        result.ms["contribute"].append(answer.ms)
        seen = [item.get("id") for item in answer.structured.get("insights", [])]
        if ident not in seen:
            result.failures.append(f"contribute: {ident} not in the next retrieve's insights")

    try:
        session.initialize(timeout)
        session.notify("notifications/initialized")
        session.request("tools/list", None, timeout)
        retrieve(same)  # the first call waits for the warm-up; then the query is known
        if local is not None:
            local.retrieve(same)
        time.sleep(settle)
        time_it("repeat", same)
        time_it("new", same)
        time_it("new-english", same)
        time_it("edit-confidence", same, lambda n: edit_confidence(targets[n % len(targets)], n))
        time_it("edit-claim", same, lambda n: edit_claim(targets[n % len(targets)], n))
        for number in range(repeats):
            written(number)
    except (jsonrpc.NoAnswer, OSError) as error:
        result.failures.append(str(error))
    result.exit_code = session.close(timeout)
    if result.exit_code is None:
        result.failures.append("still running after stdin closed")
        session.kill()
    elif result.exit_code:
        result.failures.append(f"exit {result.exit_code}")
    result.strays = len(session.strays)
    result.stderr = b"".join(session.stderr).decode(errors="replace").strip()[-500:]
    return result


IN_PROCESS = "(in-process)"


class InProcess:
    """What the server's retrieve tool does, called here, without the SDK or the pipes:
    ``Chitin.refresh``, ``Chitin.retrieve`` (which packs the budget) and the JSON (as in
    chitin/server/tool_calls.py). It runs this checkout's chitin (the one bench/ imports),
    which must be the build under test for the comparison to mean anything."""

    def __init__(self, root: Path, env: dict[str, str]) -> None:
        from chitin import Chitin

        self.chitin = Chitin(root, env=env)
        self.chitin.refresh()
        self.chitin.warm()

    def retrieve(self, text: str) -> float:
        from chitin import Query
        from chitin.render import shapes

        started = time.perf_counter()
        self.chitin.refresh()
        found = self.chitin.retrieve(Query(text, 15, (), (), None, 2000))
        json.dumps(shapes.retrieval(found, False), indent=2, ensure_ascii=False)
        return (time.perf_counter() - started) * 1000

    def close(self) -> None:
        self.chitin.close()


# ---------------------------------------------------------------- report


def cell(values: Sequence[float]) -> str:
    s = summary(values)
    if not s["n"]:
        return "—"
    return f"{s['median']:.0f} ({s['min']:.0f}–{s['max']:.0f})"


def print_start(starts: list[StartRun], versions: dict[str, list[float]]) -> None:
    print("\n### Start to first answer (ms since the spawn; median (min–max))\n")
    print("| server | store | initialize | + tools/list | first call | exit after stdin closes |")
    print("|---|---:|---:|---:|---:|---:|")
    keys = sorted({(s.program, s.size) for s in starts}, key=lambda k: (k[1] is None, k))
    for program, size in keys:
        runs = [s for s in starts if s.program == program and s.size == size]
        cells = [cell([r.ms[p] for r in runs if p in r.ms]) for p in START_PHASES]
        where = f"{size:,}" if size else "—"
        name = f"`{program}` mcp" if size else program
        print(f"| {name} | {where} | " + " | ".join(cells) + " |")
    print("\nfirst call: `retrieve` with a new query (the floor: its `echo` tool)")
    for label, times in versions.items():
        print(f"`{label}` `chitin --version`: {cell(times)} ms")


def print_warm(sessions: list[WarmSession]) -> None:
    print("\n### Warm `tools/call retrieve` round trips over one stdio session (ms)\n")
    print("| server | store | kind | n | median | p90 | min | max |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for session in sessions:
        for kind in sorted(session.ms, key=_kind_order):
            s = summary(session.ms[kind])
            if not s["n"]:
                continue
            print(
                f"| `{session.program}` | {session.size:,} | {kind} | {s['n']} | "
                f"{s['median']:.1f} | {s['p90']:.1f} | {s['min']:.1f} | {s['max']:.1f} |"
            )


def _kind_order(kind: str) -> tuple[int, str]:
    base = kind.removesuffix(f" {IN_PROCESS}")
    return (WARM_KINDS.index(base) if base in WARM_KINDS else len(WARM_KINDS), kind)


def _verdict(what: str, limit_ms: float, values: Sequence[float]) -> dict[str, Any]:
    """One target's row: the median of ``values`` against ``limit_ms`` (no runs: fails)."""
    median = statistics.median(values) if values else None
    return {
        "what": what,
        "limit_ms": limit_ms,
        "median_ms": median,
        "pass": median is not None and median <= limit_ms,
    }


def verdicts(starts: list[StartRun], sessions: list[WarmSession]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for program, size in sorted({(s.program, s.size) for s in starts if s.size}):
        for phase, limit in TARGET_START_MS.items():
            times = [s.ms[phase] for s in starts if (s.program, s.size) == (program, size)
                     if phase in s.ms]  # fmt: skip
            what = f"{program}: start to the {phase} answer @{size:,}"
            found.append(_verdict(what, limit, times))
    for session in sessions:
        if session.size != TARGET_WARM_SIZE:
            continue
        for kind in ("repeat", "new", "new-english"):
            what = f"{session.program}: warm retrieve ({kind}) @{session.size:,}"
            found.append(_verdict(what, TARGET_WARM_MS, session.ms[kind]))
    return found


def print_verdicts(found: list[dict[str, Any]]) -> None:
    print("\n### Targets (issues 14 and 28)\n")
    print("| what | target | median | |")
    print("|---|---:|---:|---|")
    for v in found:
        got = "—" if v["median_ms"] is None else f"{v['median_ms']:.0f} ms"
        mark = "PASS" if v["pass"] else "FAIL"
        print(f"| {v['what']} | ≤ {v['limit_ms']:.0f} ms | {got} | {mark} |")


def print_problems(starts: list[StartRun], sessions: list[WarmSession]) -> int:
    strays = sum(s.strays for s in starts) + sum(s.strays for s in sessions)
    failures = [f"start {s.program} @{s.size}: {s.failure}" for s in starts if s.failure]
    failures += [f"warm {s.program} @{s.size}: {f}" for s in sessions for f in s.failures]
    noisy = [s for s in [*starts, *sessions] if s.stderr]
    print(f"\nstray stdout lines: {strays}; failed calls or runs: {len(failures)}; ", end="")
    print(f"processes that wrote to stderr: {len(noisy)}")
    for failure in failures[:10]:
        print(f"  {failure}")
    for item in noisy[:3]:
        print(f"  stderr of {item.program}: {item.stderr[-200:]!r}")
    return strays + len(failures)


def save(data: dict[str, Any], output: Path | None) -> Path:
    """Into ``output``: a file, or a folder (the default: bench/results/) that gets
    ``mcp-<timestamp>.json``, as the flag's help says."""
    if output is None or output.is_dir():
        folder = bench.RESULTS_DIR if output is None else output
        folder.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        output = folder / f"mcp-{stamp}.json"
    output.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return output


# ---------------------------------------------------------------- main


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--chitin",
        action="append",
        help="a chitin executable (repeat to compare builds; default: the one on PATH)",
    )
    parser.add_argument("--sizes", type=bench.parse_sizes, default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=11, help="fresh starts of each (default 11)")
    parser.add_argument(
        "--repeats", type=int, default=30, help="warm calls of each kind (default 30)"
    )
    parser.add_argument(
        "--embedding",
        choices=sorted(CONFIGS),
        default="local",
        help="the stores' embedding provider (default: local, the model; none: by text)",
    )
    parser.add_argument("--settle", type=float, default=2.0, help="pause after warm-up (s)")
    parser.add_argument("--timeout", type=float, default=60.0, help="per answer (s)")
    parser.add_argument("--no-floor", action="store_true", help="skip the bare SDK server")
    parser.add_argument("--no-warm", action="store_true", help="time the start only")
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="also time the retrieve tool's work in this process (this checkout's chitin), "
        "call by call beside the session's: what the SDK and the pipes add",
    )
    parser.add_argument("--output", type=Path, help="raw figures here (default bench/results/)")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.repeats < 1:
        parser.error("--runs and --repeats must be at least 1")
    return args


def programs_of(paths: Sequence[str] | None) -> list[Program]:
    if not paths:
        found = shutil.which("chitin")
        if found is None:
            raise SystemExit("no chitin on PATH: install chitin or pass --chitin PATH")
        paths = [found]
    taken: set[str] = set()
    return [Program(label_of(p, taken), p, jsonrpc.python_of(p)) for p in paths]


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    programs = programs_of(args.chitin)
    env = bench.child_env(bytecode_cache=True)
    env["CHITIN_BACKGROUND_EMBED"] = "off"  # nothing may run on behind the timings
    config = CONFIGS[args.embedding]
    starts: list[StartRun] = []
    sessions: list[WarmSession] = []
    for program in programs:
        bench.log(f"{program.label}: {program.chitin} (python {program.python})")
    bench.STORES_DIR.mkdir(parents=True, exist_ok=True)  # a fresh clone has none yet
    work = Path(tempfile.mkdtemp(prefix="mcp-", dir=bench.STORES_DIR))
    try:
        floor: Path | None = None
        if not args.no_floor:
            floor = work / "floor_server.py"
            floor.write_text(FLOOR_SERVER, encoding="utf-8")
        bench.log("chitin --version")
        versions = bench_version(programs, args.runs, env)
        for size in args.sizes:
            built = bench.ensure_store(size, programs[0].chitin, False, env)
            if args.embedding == "local":
                bench.ensure_vectors(built.root)
            roots = {
                p.label: own_copy(built.root, work / f"{p.label}-{size}", config) for p in programs
            }
            bench.log(f"  {size:>7,}  start ×{args.runs}")
            first = size == args.sizes[0]  # the floor needs no store: timed once
            starts += bench_start(
                programs, roots, built, args.runs, env, args.timeout, floor if first else None
            )
            if args.no_warm:
                continue
            order = programs if len(sessions) % 2 == 0 else programs[::-1]
            for program in order:
                bench.log(f"  {size:>7,}  warm session of {program.label}")
                local = None
                if args.in_process:
                    local = InProcess(
                        own_copy(built.root, work / f"in-process-{program.label}-{size}", config),
                        env,
                    )
                try:
                    sessions.append(
                        bench_warm(
                            program, roots[program.label], built, args.repeats, args.settle,
                            env, args.timeout, local,
                        )
                    )  # fmt: skip
                finally:
                    if local is not None:
                        local.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\n{len(programs)} chitin(s), embedding {args.embedding}, on {platform.node()}")
    print_start(starts, versions)
    if sessions:
        print_warm(sessions)
    found = verdicts(starts, sessions)
    print_verdicts(found)
    problems = print_problems(starts, sessions)
    data = {
        "timestamp": datetime.now(UTC).isoformat(timespec="seconds"),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg(),
        "arguments": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "programs": [asdict(p) for p in programs],
        "version_ms": versions,
        "start": [asdict(s) for s in starts],
        "warm": [
            {**asdict(s), "summary": {k: summary(v) for k, v in s.ms.items()}} for s in sessions
        ],
        "targets": found,
    }
    path = save(data, args.output)
    print(f"\nraw figures: {path}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
