"""Benchmark chitin as an agent uses it: whole ``chitin`` processes on synthetic stores.

    python bench/run.py --sizes 1000,10000 --runs 7

Stores of N insights are built once under ``bench/stores/<N>/`` (git-ignored) by
writing the Markdown files directly, then reused. Each command is timed as a whole
process (start-up, imports, cache checks, git) after one warm-up run; the table
shows the median in milliseconds with min and max. Raw figures go to
``bench/results/<timestamp>.json`` (git-ignored). See bench/README.md.
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from chitin import __version__ as chitin_version
from chitin.format.markdown import serialize
from chitin.model.ids import slugify
from chitin.model.insight import PROVENANCES, TYPES, Insight, format_timestamp
from chitin.store.repository import Store

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent
STORES_DIR = BENCH_DIR / "stores"
RESULTS_DIR = BENCH_DIR / "results"
PYCACHE_DIR = STORES_DIR / "pycache"

DEFAULT_SIZES = (1000, 10000, 100000)
DEFAULT_RUNS = 7
SEED = 20261129
# Bump when the generator changes, so that stores built by an older script are rebuilt.
GENERATOR_VERSION = 2
MARKER = "built.json"
RACY_WAIT_SECONDS = 2.5

# Every timestamp lies in the two years before this fixed moment, so stores are
# byte-for-byte reproducible whatever day they are built.
ANCHOR = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)
SPAN_SECONDS = 2 * 365 * 24 * 3600

VOCABULARY_SIZE = 5000
TAG_COUNT = 200
ZIPF_EXPONENT = 1.0
TENSION_WORDS = (
    "verbose",
    "concise",
    "brief",
    "detailed",
    "careful",
    "fast",
    "formal",
    "casual",
    "ask",
    "act",
)
TENSION_SHARE = 0.05
SUFFIX_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"
# For building stores only; gc.auto=0 stops the big commit from starting a background
# gc (detached, so it would run on into the timings); the build runs gc itself.
GIT_OPTIONS = (
    "-c",
    "user.name=bench",
    "-c",
    "user.email=bench@example.invalid",
    "-c",
    "gc.auto=0",
)

# Syllables are onset + vowel + coda; doubled entries make those sounds commoner.
# fmt: off
_ONSETS = (
    "b", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z",
    "br", "dr", "fl", "gr", "kl", "pr", "st", "tr", "sh", "ch", "th", "sk", "sp",
)
_VOWELS = ("a", "e", "i", "o", "u", "a", "e", "i", "o", "ai", "ea", "ou", "oo")
_CODAS = ("", "", "", "n", "r", "l", "s", "t", "m", "k", "nd", "st")
# fmt: on


# ---------------------------------------------------------------- synthetic data


class Words:
    """A vocabulary of pronounceable words drawn with a Zipf-like distribution."""

    def __init__(self, rng: random.Random, size: int) -> None:
        self.rng = rng
        self.words = _make_vocabulary(rng, size)
        weights = [1.0 / (rank**ZIPF_EXPONENT) for rank in range(1, size + 1)]
        self.cumulative = list(itertools.accumulate(weights))

    def pick(self, count: int) -> list[str]:
        total = self.cumulative[-1]
        return [
            self.words[bisect.bisect(self.cumulative, self.rng.random() * total)]
            for _ in range(count)
        ]

    def sentence(self, low: int, high: int) -> str:
        words = self.pick(self.rng.randint(low, high))
        return _capitalize(" ".join(words)) + "."


def _make_vocabulary(rng: random.Random, size: int) -> list[str]:
    reserved = set(TENSION_WORDS)
    seen: set[str] = set()
    words: list[str] = []
    while len(words) < size:
        syllables = rng.choice((1, 2, 2, 2, 3, 3))
        word = "".join(
            rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(syllables)
        )
        if word not in seen and word not in reserved:
            seen.add(word)
            words.append(word)
    return words


def _capitalize(text: str) -> str:
    return text[:1].upper() + text[1:]


class Generator:
    """Reproducible insights: the same seed gives the same store."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.words = Words(self.rng, VOCABULARY_SIZE)
        self.tags = self._make_tags()
        self.tag_cumulative = list(
            itertools.accumulate(1.0 / rank for rank in range(1, TAG_COUNT + 1))
        )
        self.ids: set[str] = set()

    def _make_tags(self) -> list[str]:
        tags: list[str] = []
        for word in self.words.words[20:]:  # skip the very commonest words
            tag = word if self.rng.random() < 0.6 else f"{word}-{self.words.pick(1)[0]}"
            if tag not in tags:
                tags.append(tag)
            if len(tags) == TAG_COUNT:
                break
        return tags

    def claim(self) -> str:
        words = self.words.pick(self.rng.randint(6, 16))
        if self.rng.random() < TENSION_SHARE:
            for term in self.rng.sample(TENSION_WORDS, self.rng.choice((1, 1, 2))):
                words[self.rng.randrange(len(words))] = term
        return _capitalize(" ".join(words)) + "."

    def new_id(self, claim: str) -> str:
        slug = slugify(claim)
        while True:
            candidate = f"{slug}-{''.join(self.rng.choices(SUFFIX_ALPHABET, k=4))}"
            if candidate not in self.ids:
                self.ids.add(candidate)
                return candidate

    def pick_tags(self) -> tuple[str, ...]:
        total = self.tag_cumulative[-1]
        picked: list[str] = []
        for _ in range(self.rng.randint(1, 4)):
            tag = self.tags[bisect.bisect(self.tag_cumulative, self.rng.random() * total)]
            if tag not in picked:
                picked.append(tag)
        return tuple(picked)

    def moment_between(self, start: datetime, end: datetime) -> datetime:
        seconds = max(0, int((end - start).total_seconds()))
        return start + timedelta(seconds=self.rng.randint(0, seconds))

    def optional_text(self, share: float, low: int, high: int) -> str | None:
        return self.words.sentence(low, high) if self.rng.random() < share else None

    def insight(self) -> Insight:
        rng = self.rng
        kind = rng.choice(TYPES)
        claim = self.claim()
        created = ANCHOR - timedelta(seconds=rng.randint(0, SPAN_SECONDS))
        # 0 to 10, fewer insights at each higher count.
        reinforcements = rng.choices(range(11), weights=range(11, 0, -1))[0]
        last = self.moment_between(created, ANCHOR) if reinforcements else None
        updated = last or (self.moment_between(created, ANCHOR) if rng.random() < 0.3 else created)
        return Insight(
            id=self.new_id(claim),
            type=kind,
            claim=claim,
            confidence=round(rng.uniform(0.5, 0.95), 2),
            created=format_timestamp(created),
            updated=format_timestamp(updated),
            tags=self.pick_tags(),
            provenance=rng.choice(PROVENANCES),
            source=f"session {' '.join(self.words.pick(2))}" if rng.random() < 0.2 else None,
            condition=("when " + " ".join(self.words.pick(rng.randint(3, 8))))
            if kind == "trigger"
            else None,
            avoid=kind == "trigger" and rng.random() < 0.5,
            reinforcements=reinforcements,
            last_reinforced=format_timestamp(last) if last else None,
            reasoning=self.optional_text(0.3, 10, 30),
            context=self.optional_text(0.15, 6, 20),
            limitations=self.optional_text(0.1, 6, 16),
        )


# ---------------------------------------------------------------- stores


@dataclass
class BuiltStore:
    """A store on disk and what the benchmark needs to know about it."""

    size: int
    root: Path
    sample_ids: list[str]
    sample_claims: list[str]
    write_seconds: float = 0.0
    git_seconds: float = 0.0
    cold_cache_seconds: float = 0.0
    reused: bool = False


def store_dir(size: int) -> Path:
    return STORES_DIR / str(size)


def load_marker(size: int) -> BuiltStore | None:
    marker = store_dir(size) / MARKER
    if not marker.exists():
        return None
    try:
        data = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if data.get("size") != size or data.get("generator") != GENERATOR_VERSION:
        return None
    if data.get("seed") != SEED or not (store_dir(size) / "store" / ".git").is_dir():
        return None
    return BuiltStore(
        size=size,
        root=store_dir(size) / "store",
        sample_ids=data["sample_ids"],
        sample_claims=data["sample_claims"],
        write_seconds=data["write_seconds"],
        git_seconds=data["git_seconds"],
        cold_cache_seconds=data["cold_cache_seconds"],
        reused=True,
    )


def save_marker(built: BuiltStore) -> None:
    data = {
        "size": built.size,
        "seed": SEED,
        "generator": GENERATOR_VERSION,
        "chitin_version": chitin_version,
        "built_at": format_timestamp(datetime.now(UTC)),
        "sample_ids": built.sample_ids,
        "sample_claims": built.sample_claims,
        "write_seconds": built.write_seconds,
        "git_seconds": built.git_seconds,
        "cold_cache_seconds": built.cold_cache_seconds,
    }
    (store_dir(built.size) / MARKER).write_text(json.dumps(data, indent=2) + "\n", "utf-8")


def write_insights(root: Path, size: int) -> tuple[list[str], list[str]]:
    """Write ``size`` insight files; return a sample of ids and their claims."""
    generator = Generator(SEED)
    store = Store(root)
    for kind in TYPES:
        (root / "insights" / kind).mkdir(parents=True, exist_ok=True)
    sample_ids: list[str] = []
    sample_claims: list[str] = []
    sample_every = max(1, size // 20)
    for number in range(size):
        insight = generator.insight()
        (root / store.path_for(insight)).write_text(serialize(insight), encoding="utf-8")
        if number % sample_every == sample_every // 2:
            sample_ids.append(insight.id)
            sample_claims.append(insight.claim)
    (root / ".gitignore").write_text(".chitin/\n", encoding="utf-8")
    return sample_ids, sample_claims


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(root), *GIT_OPTIONS, *args],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def commit_store(root: Path, size: int) -> None:
    git(root, "-c", "init.defaultBranch=main", "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", f"Benchmark store of {size} insights")
    # Pack the objects, as a store grown over months would be, so that the first timed
    # commit does not set off git's automatic gc of 100,000 loose objects.
    git(root, "gc", "-q")


def build_store(size: int, chitin: str, env: dict[str, str]) -> BuiltStore:
    folder = store_dir(size)
    if folder.exists():
        shutil.rmtree(folder)
    root = folder / "store"
    root.mkdir(parents=True)
    log(f"building store of {size:,} insights in {root.relative_to(REPO_DIR)} …")
    started = time.perf_counter()
    sample_ids, sample_claims = write_insights(root, size)
    written = time.perf_counter()
    commit_store(root, size)
    committed = time.perf_counter()
    log(f"  files {written - started:.1f} s, git init/add/commit/gc {committed - written:.1f} s")
    # chitin re-reads files changed in the last 2 s ("racily clean"); let them age first
    # so that the cold build, and every timing after it, sees a settled store.
    time.sleep(RACY_WAIT_SECONDS)
    log("  cold cache build (chitin stats) …")
    cold = run_once([chitin, "--store", str(root), "stats"], env)
    if not cold.ok:
        raise SystemExit(f"cold cache build failed at {size}: {cold.error}")
    log(f"  cold cache build {cold.seconds:.1f} s")
    built = BuiltStore(
        size=size,
        root=root,
        sample_ids=sample_ids,
        sample_claims=sample_claims,
        write_seconds=written - started,
        git_seconds=committed - written,
        cold_cache_seconds=cold.seconds,
    )
    save_marker(built)
    return built


def ensure_store(size: int, chitin: str, rebuild: bool, env: dict[str, str]) -> BuiltStore:
    built = None if rebuild else load_marker(size)
    if built is not None:
        log(f"reusing store of {size:,} insights (built earlier; --rebuild to redo)")
        return built
    return build_store(size, chitin, env)


def live_ids(root: Path) -> list[str]:
    ids: list[str] = []
    for _folder, _dirs, names in os.walk(root / "insights"):
        ids.extend(name[:-3] for name in names if name.endswith(".md"))
    return ids


def unique_prefix(built: BuiltStore, length: int = 8) -> str:
    """An 8-character prefix that names exactly one insight (checked against today's files)."""
    ids = live_ids(built.root)
    counts = Counter(identifier[:length] for identifier in ids)
    candidates = [*built.sample_ids, *sorted(ids)]
    for identifier in candidates:
        if len(identifier) > length and counts[identifier[:length]] == 1:
            return identifier[:length]
    raise SystemExit(f"no id with a unique {length}-character prefix in {built.root}")


# ---------------------------------------------------------------- timing


@dataclass
class Outcome:
    seconds: float
    ok: bool
    error: str = ""


def child_env(bytecode_cache: bool) -> dict[str, str]:
    """The caller's environment; chitin uses its git identity, or falls back by itself.

    An installed chitin runs from cached bytecode. With ``bytecode_cache`` the children
    may write and read .pyc files (in a git-ignored folder, never in the source tree)
    even when the caller sets PYTHONDONTWRITEBYTECODE, so start-up is not charged for
    compiling chitin's modules on every run.
    """
    env = dict(os.environ)
    env.pop("CHITIN_STORE", None)
    if bytecode_cache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(PYCACHE_DIR)
    return env


def run_once(argv: Sequence[str], env: dict[str, str]) -> Outcome:
    started = time.perf_counter()
    result = subprocess.run(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, check=False
    )
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        message = result.stderr.decode(errors="replace").strip().splitlines()
        return Outcome(seconds, False, f"exit {result.returncode}: {' | '.join(message[-3:])}")
    return Outcome(seconds, True)


@dataclass
class Measurement:
    command: str
    label: str
    size: int | None
    argv: list[str]
    times_ms: list[float]
    median_ms: float | None
    min_ms: float | None
    max_ms: float | None
    errors: list[str]


ArgvFactory = Callable[[int], list[str]]


def measure(
    command: str,
    label: str,
    size: int | None,
    make_argv: ArgvFactory,
    runs: int,
    env: dict[str, str],
) -> Measurement:
    """One warm-up run, then ``runs`` timed runs; ``make_argv(i)`` gives run i's arguments."""
    errors: list[str] = []
    warm = run_once(make_argv(0), env)
    if not warm.ok:
        errors.append(f"warm-up: {warm.error}")
    times: list[float] = []
    for run in range(1, runs + 1):
        outcome = run_once(make_argv(run), env)
        if outcome.ok:
            times.append(outcome.seconds * 1000)
        else:
            errors.append(outcome.error)
    return Measurement(
        command=command,
        label=label,
        size=size,
        argv=make_argv(1),
        times_ms=[round(t, 2) for t in times],
        median_ms=round(statistics.median(times), 2) if times else None,
        min_ms=round(min(times), 2) if times else None,
        max_ms=round(max(times), 2) if times else None,
        errors=errors,
    )


# ---------------------------------------------------------------- commands


Arguments = Callable[[BuiltStore, Generator], list[str]]


@dataclass(frozen=True)
class Command:
    """A store command; ``fresh`` ones get new arguments for every run (each one writes)."""

    name: str
    label: str
    arguments: Arguments
    fresh: bool = False
    config: str | None = None  # chitin.yaml while it runs (retrieval: text or semantic)


def _fixed(*args: str) -> Arguments:
    return lambda _built, _generator: list(args)


def _contribute(_built: BuiltStore, generator: Generator) -> list[str]:
    return ["contribute", "--type", "skill", "--claim", generator.claim(), "--confidence", "0.8"]


COMMANDS: tuple[Command, ...] = (
    Command("get", "get <id>", lambda b, _g: ["get", b.sample_ids[0]]),
    Command("get-prefix", "get <8-char prefix>", lambda b, _g: ["get", unique_prefix(b)]),
    Command("stats", "stats", _fixed("stats")),
    Command("list-skill", "list --type skill", _fixed("list", "--type", "skill")),
    Command("list", "list", _fixed("list")),
    Command("similar", 'similar "<claim>"', lambda b, _g: ["similar", b.sample_claims[1]]),
    Command("export", "export (every insight, to stdout)", _fixed("export")),
    Command("check", "check (every file, from disk)", _fixed("check")),
    Command("diff", "diff (working tree against HEAD)", _fixed("diff")),
    Command("contribute", "contribute --type skill", _contribute, fresh=True),
    Command("reinforce", "reinforce <id>", lambda b, _g: ["reinforce", b.sample_ids[2]]),
    Command(
        "retrieve",
        'retrieve --query "<words of a claim>" --budget 5000',
        lambda b, _g: ["retrieve", "--query", _query(b), "--budget", "5000"],
        config="embedding: {provider: none}\n",
    ),
    Command(
        "retrieve-nomatch",
        'retrieve --query "<no stored word>" --budget 5000',
        _fixed("retrieve", "--query", "zzqx unmatched words", "--budget", "5000"),
        config="embedding: {provider: none}\n",
    ),
    Command(
        "render",
        'render --query "<words of a claim>" --budget 5000',
        lambda b, _g: ["render", "--query", _query(b), "--budget", "5000"],
        config="embedding: {provider: none}\n",
    ),
    # Hybrid retrieval with the local model, over synthetic unit vectors for every
    # insight: timing does not depend on their values (see ensure_vectors).
    Command(
        "semantic-new",
        "retrieve, local model, a new query each run",
        lambda b, g: ["retrieve", "--query", f"{_query(b)} {g.claim()}", "--budget", "5000"],
        fresh=True,
        config="embedding: {provider: local}\n",
    ),
    Command(
        "semantic-repeat",
        "retrieve, local model, the same query again",
        lambda b, _g: ["retrieve", "--query", _query(b), "--budget", "5000"],
        config="embedding: {provider: local}\n",
    ),
)


def ensure_vectors(root: Path) -> None:
    """Give every insight a current (synthetic, unit-length) vector, so that semantic
    retrieval can be timed without embedding 100,000 texts first."""
    import numpy as np

    from chitin.core import Chitin
    from chitin.index.cache import Filters
    from chitin.model.search_text import embedding_texts
    from chitin.search import semantic

    chitin = Chitin(root)
    try:
        meaning = chitin._session.semantic(semantic.choice({}))
        held = meaning.vectors.fresh()
        current = chitin._session.cache.text_hashes(Filters(archived=None))
        stale = [i for i, h in current.items() if held.get(i) != h]
        insights = chitin._session.cache.by_ids(stale, Filters(archived=None))
        todo = [  # every part of an insight (a trigger's condition has a row of its own)
            (i, current[i], part)
            for i in stale
            for part, _ in enumerate(embedding_texts(insights[i]))
        ]
        rng = np.random.default_rng(SEED)
        for start in range(0, len(todo), 20000):
            chunk = todo[start : start + 20000]
            vectors = rng.standard_normal((len(chunk), 384)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            meaning.vectors.put(chunk, vectors)
    finally:
        chitin.close()


def _query(built: BuiltStore) -> str:
    """A task description sharing some words with stored claims, as an agent's would."""
    words = built.sample_claims[3].split()
    return " ".join(["working", "on", *words[:4], "and", *built.sample_claims[4].split()[:3]])


VERSION = "version"
COMMAND_NAMES = (VERSION, *(command.name for command in COMMANDS))


def claim_generator(size: int) -> Generator:
    """The store's vocabulary, reseeded so that new claims differ from stored ones and per run."""
    generator = Generator(SEED)
    generator.rng.seed(SEED + size + time.time_ns())
    return generator


def bench_store(
    built: BuiltStore, chitin: str, runs: int, only: set[str], env: dict[str, str]
) -> list[Measurement]:
    generator = claim_generator(built.size)
    results: list[Measurement] = []
    if any(c.name.startswith("semantic") for c in COMMANDS if c.name in only):
        ensure_vectors(built.root)
    for command in COMMANDS:
        if command.name not in only:
            continue
        config = built.root / "chitin.yaml"
        if command.config:
            config.write_text(command.config)
        # Arguments are made before timing starts: once, or once per run when fresh.
        base = [chitin, "--store", str(built.root)]
        fixed = None if command.fresh else [*base, *command.arguments(built, generator)]
        argv_by_run = {
            run: fixed or [*base, *command.arguments(built, generator)] for run in range(runs + 1)
        }
        log(f"  {built.size:>7,}  {command.label}")
        result = measure(
            command.name, command.label, built.size, argv_by_run.__getitem__, runs, env
        )
        results.append(result)
        config.unlink(missing_ok=True)
        for error in result.errors:
            log(f"    ERROR {error}")
    return results


def bench_version(chitin: str, runs: int, env: dict[str, str]) -> Measurement:
    log("  chitin --version")
    return measure(VERSION, "--version", None, lambda _run: [chitin, "--version"], runs, env)


# ---------------------------------------------------------------- targets


@dataclass(frozen=True)
class Target:
    command: str
    size: int | None  # None: any size (store-independent)
    limit_ms: float


TARGETS: tuple[Target, ...] = (
    Target(VERSION, None, 80),
    Target("get", 10000, 150),
    Target("get-prefix", 10000, 150),
    Target("stats", 10000, 150),
    Target("list-skill", 10000, 150),
    Target("contribute", 10000, 300),
    Target("contribute", 100000, 1000),
    Target("list", 100000, 1300),
    Target("retrieve", 1000, 100),
    Target("retrieve", 10000, 150),
    Target("retrieve", 100000, 300),
    Target("semantic-new", 1000, 400),
    Target("semantic-new", 100000, 500),
)


def target_for(command: str, size: int | None) -> Target | None:
    for target in TARGETS:
        if target.command == command and target.size == size:
            return target
    return None


def verdict(measurement: Measurement) -> str | None:
    target = target_for(measurement.command, measurement.size)
    if target is None:
        return None
    if measurement.median_ms is None or measurement.errors:
        return "FAIL"
    return "PASS" if measurement.median_ms <= target.limit_ms else "FAIL"


# ---------------------------------------------------------------- report


def cell(measurement: Measurement | None) -> str:
    if measurement is None:
        return "—"
    if measurement.median_ms is None:
        return "ERROR"
    text = f"{measurement.median_ms:.0f} ({measurement.min_ms:.0f}–{measurement.max_ms:.0f})"
    mark = verdict(measurement)
    if measurement.errors:
        text += " !"
    return f"{text} {mark}" if mark else text


def targets_text(command: str) -> str:
    parts = [
        f"≤{t.limit_ms:.0f} ms" + (f" @{t.size:,}" if t.size else "")
        for t in TARGETS
        if t.command == command
    ]
    return ", ".join(parts)


def print_table(measurements: list[Measurement], sizes: Sequence[int]) -> None:
    by_key = {(m.command, m.size): m for m in measurements}
    header = ["command", *(f"{size:,}" for size in sizes), "target"]
    rows: list[list[str]] = []
    if (VERSION, None) in by_key:
        version = by_key[(VERSION, None)]
        rows.append(
            ["chitin --version", cell(version), *[""] * (len(sizes) - 1), targets_text(VERSION)]
        )
    for command in COMMANDS:
        if not any((command.name, size) in by_key for size in sizes):
            continue
        cells = [cell(by_key.get((command.name, size))) for size in sizes]
        rows.append([command.label, *cells, targets_text(command.name)])
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    print()
    print("median ms (min–max) of whole processes; PASS/FAIL against the target at that size")
    for row in [header, ["-" * w for w in widths], *rows]:
        print("  ".join(text.ljust(width) for text, width in zip(row, widths, strict=True)))


def print_verdicts(measurements: list[Measurement]) -> None:
    print()
    print("targets")
    for target in TARGETS:
        match = next(
            (m for m in measurements if m.command == target.command and m.size == target.size),
            None,
        )
        where = f"at {target.size:,}" if target.size else "(no store)"
        name = f"{target.command} {where}"
        if match is None:
            print(f"  {name:<26} ≤{target.limit_ms:>5.0f} ms   not measured")
            continue
        got = "error" if match.median_ms is None else f"{match.median_ms:.0f} ms"
        print(f"  {name:<26} ≤{target.limit_ms:>5.0f} ms   {got:>9}   {verdict(match)}")


def print_builds(stores: list[BuiltStore]) -> None:
    print()
    print("stores (build figures from when each store was built)")
    for built in stores:
        note = "reused" if built.reused else "built now"
        print(
            f"  {built.size:>7,}: files {built.write_seconds:6.1f} s, "
            f"git {built.git_seconds:6.1f} s, cold cache (first `stats`) "
            f"{built.cold_cache_seconds:6.1f} s  [{note}]"
        )


def tool_version(*argv: str) -> str:
    try:
        result = subprocess.run(argv, capture_output=True, text=True, check=False)
    except OSError:
        return "unknown"
    return result.stdout.strip()


def save_results(
    measurements: list[Measurement], stores: list[BuiltStore], args: argparse.Namespace
) -> Path:
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    data = {
        "timestamp": format_timestamp(datetime.now(UTC)),
        "chitin_version": chitin_version,
        "python": sys.version.split()[0],
        "git": tool_version("git", "--version"),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "runs": args.runs,
        "bytecode_cache": not args.no_bytecode_cache,
        "sizes": args.sizes,
        "stores": [
            {
                "size": b.size,
                "insights_now": len(live_ids(b.root)),
                "reused": b.reused,
                "write_seconds": round(b.write_seconds, 3),
                "git_seconds": round(b.git_seconds, 3),
                "cold_cache_seconds": round(b.cold_cache_seconds, 3),
            }
            for b in stores
        ],
        "targets": [asdict(t) for t in TARGETS],
        "results": [{**asdict(m), "verdict": verdict(m)} for m in measurements],
    }
    path = RESULTS_DIR / f"{stamp}.json"
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


# ---------------------------------------------------------------- main


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def parse_sizes(text: str) -> list[int]:
    try:
        sizes = [int(piece.replace("_", "")) for piece in text.split(",") if piece.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"sizes must be whole numbers, got {text!r}") from None
    if not sizes or any(size < 10 for size in sizes):
        raise argparse.ArgumentTypeError("each size must be at least 10")
    return sizes


def parse_only(text: str) -> set[str]:
    names = {piece.strip() for piece in text.split(",") if piece.strip()}
    unknown = names - set(COMMAND_NAMES)
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown command(s) {', '.join(sorted(unknown))}; "
            f"choose from {', '.join(COMMAND_NAMES)}"
        )
    return names


def default_chitin() -> str:
    venv = REPO_DIR / ".venv" / "bin" / "chitin"
    if venv.exists():
        return str(venv)
    found = shutil.which("chitin")
    if found is None:
        raise SystemExit("no chitin executable: install chitin or pass --chitin PATH")
    return found


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Time whole chitin processes on synthetic stores of N insights.",
    )
    parser.add_argument(
        "--sizes",
        type=parse_sizes,
        default=list(DEFAULT_SIZES),
        help="comma list of store sizes (default: 1000,10000,100000)",
    )
    parser.add_argument(
        "--runs", type=int, default=DEFAULT_RUNS, help="timed runs per command (default: 7)"
    )
    parser.add_argument(
        "--rebuild", action="store_true", help="rebuild the stores even if they exist"
    )
    parser.add_argument(
        "--only",
        type=parse_only,
        default=set(COMMAND_NAMES),
        help=f"comma list of commands to time: {', '.join(COMMAND_NAMES)}",
    )
    parser.add_argument("--chitin", default=None, help="chitin executable (default: the venv's)")
    parser.add_argument(
        "--no-bytecode-cache",
        action="store_true",
        help="run chitin with the environment as it is, even if it forbids .pyc files",
    )
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    chitin = args.chitin or default_chitin()
    env = child_env(bytecode_cache=not args.no_bytecode_cache)
    measurements: list[Measurement] = []
    if VERSION in args.only:
        measurements.append(bench_version(chitin, args.runs, env))
    stores: list[BuiltStore] = []
    store_commands = args.only - {VERSION}
    for size in args.sizes if store_commands else []:
        built = ensure_store(size, chitin, args.rebuild, env)
        stores.append(built)
        if store_commands:
            measurements.extend(bench_store(built, chitin, args.runs, store_commands, env))
    print_table(measurements, args.sizes)
    print_verdicts(measurements)
    print_builds(stores)
    path = save_results(measurements, stores, args)
    print(f"\nraw results: {path.relative_to(REPO_DIR)}")
    failed = any(m.errors for m in measurements)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
