"""The session start under real conditions: no threads, any query, damaged derived files.

`retrieve` and `render` run before every agent session, inside hosts that throw away
a failing command's output. These tests hold the properties that keep it alive.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest
from conftest import Run

from chitin.cli.recall import NOTHING_MATCHES
from chitin.providers.local import LocalProvider

SEEDED = 14  # the starter insights of `init --seed`


def retrieve_json(run: Run, query: str, *args: str) -> dict[str, Any]:
    return json.loads(run("retrieve", "--query", query, "--format", "json", *args).stdout)


@pytest.fixture
def model_loads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every load of the local model, as (the thread it ran on, threads alive then)."""
    seen: list[tuple[str, int]] = []
    original = LocalProvider._open

    def recording(self: LocalProvider, optimised: bool) -> None:
        seen.append((threading.current_thread().name, threading.active_count()))
        original(self, optimised)

    monkeypatch.setattr(LocalProvider, "_open", recording)
    return seen


def test_the_model_loads_on_the_calling_thread_and_no_thread_is_left(
    run: Run, model_loads: list[tuple[str, int]]
) -> None:
    """A thread that imports onnxruntime (and so numpy) while the main thread imports
    numpy broke 1 session start in 5-8; one still loading at exit aborted the process."""
    run("init", "--seed")
    alive = threading.active_count()
    for command in ("retrieve", "render"):
        run(command, "--query", f"a query never asked before, for {command}")
    assert model_loads and {name for name, _ in model_loads} == {"MainThread"}
    assert all(count == alive for _, count in model_loads)
    assert threading.active_count() == alive


ODD_QUERIES = [
    pytest.param("", id="empty"),
    pytest.param("   \t ", id="blank"),
    pytest.param("the of and to is it", id="all stopwords"),
    pytest.param("list the files in this directory", id="reported"),
    pytest.param("?!.,;:-- … ¿¡", id="punctuation"),
    pytest.param("x" * 10_000, id="10000 characters"),
    pytest.param("deploy " * 1_500, id="1500 words"),
    pytest.param("日本語でテストを書いてから直す", id="japanese"),
    pytest.param("Напиши тест, прежде чем исправлять", id="cyrillic"),
    pytest.param("🦞🦞 🚀", id="emoji"),
    pytest.param("caf\udcff \udc80build", id="bytes that were not UTF-8"),
    pytest.param('"quoted" AND OR NOT * ^ col:umn (', id="FTS5 syntax"),
]


@pytest.mark.parametrize("query", ODD_QUERIES)
def test_any_query_is_answered_with_the_strongest_insights(run: Run, query: str) -> None:
    """Whatever the query, the session start gets a personality: what it matches, and
    the strongest insights of the types that hold whatever the task (issue 24); with
    no query at all, nothing is unrelated: the other types fill after those (fix136)."""
    run("init", "--seed")
    found = retrieve_json(run, query, "--explain")
    assert found["context"].startswith("### ")
    fillers = {item["type"] for item in found["insights"] if not item["matched"]}
    filling = {"principle", "personality", "behavioral"}
    if query.strip():
        assert fillers == filling
    else:
        assert fillers == filling | {"relational", "skill", "trigger"}
    assert all(item["score"] > 0 for item in found["insights"] if item["matched"])
    rendered = run("render", "--query", query).stdout
    assert "### " in rendered


@pytest.mark.parametrize("query", ["asdf qwer zxcv", "the of and to is it", "?!.,;:", "x" * 10_000])
def test_a_query_that_means_nothing_matches_nothing(run: Run, query: str) -> None:
    run("init", "--seed")
    found = retrieve_json(run, query, "--explain")
    assert not any(item["matched"] for item in found["insights"])
    assert all(item["score"] == 0 for item in found["insights"])
    human = run("retrieve", "--query", query).stdout
    assert human.splitlines()[0] == NOTHING_MATCHES


def test_a_query_that_matches_says_nothing_about_the_fill(run: Run) -> None:
    run("init", "--seed")
    found = retrieve_json(run, "reproduce the bug before fixing it", "--explain")
    assert found["insights"][0]["matched"] and not found["insights"][-1]["matched"]
    human = run("retrieve", "--query", "reproduce the bug before fixing it").stdout
    assert NOTHING_MATCHES not in human and human.startswith("### ")


def test_explain_shows_decay_as_the_half_life_says(run: Run, tmp_path: Path) -> None:
    """Two insights alike but for provenance and age: the 60-day-old social one (half-life
    30 days) scores a quarter of the fresh directive."""
    from datetime import UTC, datetime, timedelta

    def stamp(days: int) -> str:
        return (datetime.now(UTC) - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")

    # Alike, but not the same lesson: one line each (the same claim twice is one line).
    items = [
        {"id": f"profile-{name}", "type": "skill", "confidence": 0.8, "provenance": name,
         "claim": f"Profile the slow endpoint {how}", "createdAt": stamp(days),
         "updatedAt": stamp(days)}
        for name, days, how in (
            ("directive", 0, "before optimizing it"),
            ("social", 60, "in a staging copy, never against the live database"),
        )
    ]  # fmt: skip
    source = tmp_path / "two.json"
    source.write_text(json.dumps(items))
    run("import", str(source))
    found = {i["id"]: i for i in retrieve_json(run, "profile the slow endpoint", "--explain")[
        "insights"]}  # fmt: skip
    social, directive = found["profile-social"], found["profile-directive"]
    assert social["basis"]["halfLifeDays"] == 30 and directive["basis"]["halfLifeDays"] is None
    assert social["factors"]["decay"] == pytest.approx(0.25, abs=1e-3)

    def strength(item: dict[str, Any]) -> float:  # the score apart from relevance
        return float(item["score"] / item["factors"]["relevance"])

    assert strength(social) == pytest.approx(strength(directive) / 4, rel=1e-3)
    human = run("retrieve", "--query", "profile the slow endpoint", "--explain").stdout
    assert "decay 0.250 = 0.5^(60.0 d / 30 d)" in human
    assert "decay 1 (directive: never decays)" in human


# ------------------------------------------------------------------ damaged derived files

# Every file chitin keeps under .chitin/, and the rebuildable state it holds. "-wal"
# and "-shm" exist while SQLite has a database open; a crash can leave them behind.
DERIVED_FILES = [
    "cache.sqlite3",
    "cache.sqlite3-wal",
    "cache.sqlite3-shm",
    "usage.sqlite3",
    "usage.sqlite3-wal",
    "vectors/index.sqlite3",
    "vectors/index.sqlite3-wal",
    "vectors/matrix.f32",
    "vectors/model.verified",
    "reflections.json",
    "config.json",
    "head-time",
    "sync-by-git",
    "lock",
    ".gitignore",
]
DAMAGE = ("truncated", "random bytes", "a folder")


@pytest.fixture(scope="module")
def populated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A seeded store whose .chitin/ holds every kind of derived file."""

    import os

    from click.testing import CliRunner

    from chitin.cli import cli

    root = tmp_path_factory.mktemp("populated") / "store"
    steps = [
        ["init", "--seed"],
        ["retrieve", "--query", "fix the failing test before the release"],
        ["render", "--query", "fix the failing test before the release"],
        ["reflect", "--queue", "--session-key", "agent:main:main", "--reason", "new"],
    ]
    for step in steps:
        result = CliRunner().invoke(cli, ["--store", str(root), *step])
        assert result.exit_code == 0, result.output
        if step[0] == "init":  # settings older than the racy window, so they are kept
            (root / "chitin.yaml").write_text("half_lives: {social: 45}\n")
            os.utime(root / "chitin.yaml", ns=(1_700_000_000_000_000_000,) * 2)
    assert (root / ".chitin" / "config.json").is_file()
    return root


def damage(path: Path, how: str) -> None:
    import os
    import shutil

    if path.is_dir():
        shutil.rmtree(path)
    content = path.read_bytes() if path.exists() else b"SQLite format 3\x00" + b"\x01" * 200
    path.unlink(missing_ok=True)
    if how == "truncated":
        path.write_bytes(content[: len(content) // 3])
    elif how == "random bytes":
        path.write_bytes(os.urandom(max(len(content), 64)))
    else:
        path.mkdir()
        (path / "inside").write_text("not chitin's")


@pytest.mark.parametrize("how", DAMAGE)
@pytest.mark.parametrize("name", DERIVED_FILES)
def test_a_damaged_derived_file_is_never_fatal(
    run: Run, store: Path, populated: Path, name: str, how: str
) -> None:
    import shutil

    shutil.copytree(populated, store)
    expected = retrieve_json(run, "fix the failing test before the release")["insights"]
    damage(store / ".chitin" / name, how)
    for command in (["retrieve", "--format", "json"], ["render"]):
        result = run(command[0], "--query", "fix the failing test before the release", *command[1:])
        warnings = [line for line in result.stderr.splitlines() if line]
        assert len(warnings) <= 1, result.stderr
        assert all(name.split("/")[-1].split("-")[0] in line for line in warnings), warnings
    after = retrieve_json(run, "fix the failing test before the release")["insights"]
    assert [i["id"] for i in after] == [i["id"] for i in expected]
    assert [i["score"] for i in after] == pytest.approx([i["score"] for i in expected], abs=1e-4)
    again = run("retrieve", "--query", "fix the failing test before the release")
    assert again.stderr == ""  # rebuilt, or set aside: the warning is said once
    run(
        "contribute", "--type", "skill", "--claim", "Check the derived files", "--confidence", "0.6"
    )
    run("reflect")


@pytest.mark.parametrize("command", ["retrieve", "render"])
def test_damaged_vectors_met_by_a_new_query_are_said_in_one_line(
    run: Run, store: Path, populated: Path, command: str
) -> None:
    """A repeated query is answered without reading the matrix (the test above); a new
    one reads it, finds the damage and throws the vectors away: that is one line, not
    the sidecar's notice and the degraded answer's line both."""
    shutil.copytree(populated, store)
    damage(store / ".chitin" / "vectors" / "matrix.f32", "random bytes")
    result = run(command, "--query", f"a query this store never saw, for {command}")
    warnings = [line for line in result.stderr.splitlines() if line]
    assert len(warnings) == 1, result.stderr
    assert "matrix.f32" in warnings[0] and "text" in warnings[0], warnings
    again = run(command, "--query", f"another query never seen, for {command}")
    assert again.stderr == ""


def test_a_matrix_zeroed_in_place_is_damage_said_in_one_line(
    run: Run, store: Path, populated: Path
) -> None:
    """A crash on some filesystems keeps a file's size and zeroes its bytes: every row
    then scored 0 by meaning, silently. Its rows are no unit vectors: damage, as the
    random bytes of the test above, rebuilt and said once."""
    shutil.copytree(populated, store)
    matrix = store / ".chitin" / "vectors" / "matrix.f32"
    size = matrix.stat().st_size
    matrix.write_bytes(bytes(size))
    result = run("retrieve", "--format", "json", "--query", "a query this store never saw, zeroed")
    warnings = [line for line in result.stderr.splitlines() if line]
    assert len(warnings) == 1, result.stderr
    assert "matrix.f32" in warnings[0] and "not unit vectors" in warnings[0], warnings
    assert "matrix.f32" in json.loads(result.stdout)["degraded"]
    again = run("retrieve", "--query", "another query never seen, zeroed")
    assert again.stderr == ""


def test_a_cut_short_matrix_is_said_in_one_line(run: Run, store: Path, populated: Path) -> None:
    """A truncated matrix.f32 was made again without a word: the check for the notice
    asked whether the matrix existed after it had been removed (qa53)."""
    shutil.copytree(populated, store)
    damage(store / ".chitin" / "vectors" / "matrix.f32", "truncated")
    result = run("retrieve", "--query", "a query this store never saw, cut short")
    warnings = [line for line in result.stderr.splitlines() if line]
    assert warnings == [
        "warning: .chitin/vectors/matrix.f32 was cut short; its vectors are made again"
    ], result.stderr
    again = run("retrieve", "--query", "another query never seen, cut short")
    assert again.stderr == ""


@pytest.mark.parametrize("name", [".chitin/head-time", "chitin.yaml", ".chitin/config.json"])
def test_a_fifo_where_the_session_start_reads_never_hangs_it(
    store: Path, populated: Path, name: str
) -> None:
    """Opening a FIFO waits for a writer: render read .chitin/head-time, and retrieve
    and render read chitin.yaml, that way, and a session start hung for good."""
    import os
    import subprocess

    from conftest import chitin_program

    shutil.copytree(populated, store)
    (store / name).unlink()
    os.mkfifo(store / name)
    for command in ("retrieve", "render"):
        result = subprocess.run(
            [chitin_program(), "--store", str(store), command, "--query", f"fifo {command}"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() and len(result.stderr.splitlines()) <= 1, result.stderr


@pytest.mark.parametrize(
    ("name", "command", "code"),
    [
        (".chitin/git-identity.json", ["contribute", "--type", "skill", "--claim",
                                       "Check the derived files", "--confidence", "0.6"], 0),
        (".chitin/reflections.json", ["reflect", "--queue", "--session-key", "agent:main:main",
                                      "--reason", "new"], 1),
        (".chitin/lock", ["contribute", "--type", "skill", "--claim", "Lock the derived files",
                          "--confidence", "0.6"], 0),
    ],
)  # fmt: skip
def test_a_fifo_in_derived_files_never_hangs_a_write_or_the_queue(
    store: Path, populated: Path, name: str, command: list[str], code: int
) -> None:
    """A contribute waited on a FIFO .chitin/git-identity.json (and, holding SIGTERM off
    while it writes, for good); the session-end hook's reflect --queue waited on a FIFO
    queue. The write goes on; the queue is refused as any unreadable queue is."""
    import os
    import subprocess

    from conftest import chitin_program

    shutil.copytree(populated, store)
    (store / name).unlink(missing_ok=True)
    os.mkfifo(store / name)
    result = subprocess.run(
        [chitin_program(), "--store", str(store), *command],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == code, result.stderr
    assert len(result.stderr.splitlines()) <= 1, result.stderr


# ------------------------------------------------------------------ vectors without a command


def test_the_packaged_seed_vectors_are_the_models_own(run: Run, store: Path) -> None:
    """init --seed leaves the starter insights' vectors behind without loading the model;
    they must be what the model makes of today's starter texts (scripts/seed_vectors.py)."""
    import numpy as np

    from chitin.core.background import packaged_vectors
    from chitin.search.semantic import NO_PROVIDER

    assert NO_PROVIDER != "local"
    run("init", "--seed")
    status = json.loads(run("embed-status", "--format", "json").stdout)
    assert status["embedded"] == status["total"] == SEEDED, "run scripts/seed_vectors.py"
    from chitin.core import Chitin

    chitin = Chitin(store)
    try:
        meaning = chitin._session.semantic(chitin_choice())
        fresh = meaning.vectors.fresh()
        insights = chitin._session.cache.by_ids(fresh)
        from chitin.model.search_text import embedding_texts

        parts = [
            (i, fresh[i], n, text)
            for i in sorted(fresh)
            for n, text in enumerate(embedding_texts(insights[i]))
        ]
        assert {p[:3] for p in parts} == set(packaged_vectors()), "run scripts/seed_vectors.py"
        assert any(n == 1 for _, _, n, _ in parts), "a starter trigger's condition has a vector"
        made = meaning.provider.embed([text for *_, text in parts])
        shipped = np.vstack([np.frombuffer(packaged_vectors()[p[:3]], "<f4") for p in parts])
        assert np.all(np.sum(made * shipped, axis=1) > 0.9999)
    finally:
        chitin.close()


def chitin_choice() -> Any:
    from chitin.search.semantic import Choice

    return Choice("local", None)


def export_of(count: int) -> list[dict[str, Any]]:
    """``count`` distinct insights in the interchange shape, as an import would bring."""
    topics = ["deploys", "reviews", "tests", "migrations", "incidents", "pairing", "docs"]
    verbs = ["check", "announce", "split", "measure", "document", "rehearse", "automate"]
    return [
        {
            "type": ("skill", "behavioral", "principle")[n % 3],
            "claim": f"{verbs[n % 7].capitalize()} the {topics[(n // 7) % 7]} step {n} "
            f"before the team relies on it",
            "confidence": 0.5 + (n % 5) / 10,
            "tags": [topics[n % 7]],
        }
        for n in range(count)
    ]


def wait_for_background() -> None:
    """Until every background embedding this process started has ended."""
    import os

    from chitin.core import background

    for pid in list(background._spawned):
        os.waitpid(pid, 0)
        background._spawned.discard(pid)


def test_an_imported_store_is_searched_by_meaning_after_one_session(
    run: Run, store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """1,000 imported insights: the first session is answered by text at once and starts
    the background embedding; once it is done, the next session is hybrid."""
    monkeypatch.setenv("CHITIN_BACKGROUND_EMBED", "on")
    source = tmp_path / "export.json"
    source.write_text(json.dumps(export_of(1000)))
    imported = json.loads(run("import", str(source), "--format", "json").stdout)
    assert imported["imported"] == 1000 and imported["vectors"]["background"] == "started"
    first = retrieve_json(run, "rehearse the incidents step before relying on it")
    assert first["degraded"].startswith("semantic search is being prepared: ")
    assert "in the background" in first["degraded"] and first["insights"]
    wait_for_background()
    assert json.loads(run("embed-status", "--format", "json").stdout)["embedded"] == 1000
    later = retrieve_json(run, "practise the outage drill first", "--explain")
    assert later["degraded"] is None
    assert any(item["matched"] and item["basis"]["match"] > 0 for item in later["insights"])
    from chitin.core.background import read_status

    assert read_status(store)["state"] == "done" and read_status(store)["embedded"] == 1000


@pytest.fixture
def forty_waiting(run: Run, store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """40 imported insights without vectors (more than a session start embeds), with
    background embedding on in the environment and off in chitin.yaml; the import's
    human output."""
    monkeypatch.setenv("CHITIN_BACKGROUND_EMBED", "on")
    source = tmp_path / "export.json"
    source.write_text(json.dumps(export_of(40)))
    run("init")
    (store / "chitin.yaml").write_text("embedding: {provider: local, background: false}\n")
    return str(run("import", str(source)).stdout)


def test_background_embedding_can_be_turned_off(forty_waiting: str, run: Run, store: Path) -> None:
    assert "background embedding is off: run `chitin embed`" in forty_waiting
    found = retrieve_json(run, "announce the deploys step")
    assert found["degraded"] == (
        "40 insight(s) have no vector yet and background embedding is off; "
        "ranked by text alone (run `chitin embed`)"
    )
    assert not (store / ".chitin" / "vectors" / "background.json").exists()
    assert found["insights"][0]["claim"].startswith("Announce the deploys step")


@pytest.mark.parametrize("written", ['"false"', '"off"', '"no"', "0", "null"])
def test_a_background_setting_of_the_wrong_kind_is_said_and_read_as_off(
    forty_waiting: str, run: Run, store: Path, written: str
) -> None:
    (store / "chitin.yaml").write_text(f"embedding: {{provider: local, background: {written}}}\n")
    result = run("retrieve", "--query", "announce the deploys step", "--format", "json")
    (warning,) = [line for line in result.stderr.splitlines() if "embedding.background" in line]
    assert warning.startswith("warning: chitin.yaml: embedding.background must be true or false")
    assert json.loads(result.stdout)["degraded"].startswith(
        "40 insight(s) have no vector yet and background embedding is off"
    )
    assert not (store / ".chitin" / "vectors" / "background.json").exists()


def test_a_failed_background_embedding_is_said_and_not_retried_at_once(
    forty_waiting: str, run: Run, store: Path
) -> None:
    import time

    from chitin.core import background
    from chitin.core.background import write_status

    (store / "chitin.yaml").unlink()  # background embedding on
    write_status(store, "failed", finished=time.time(), error="the model file is missing")
    started = set(background._spawned)
    found = retrieve_json(run, "announce the deploys step")
    assert found["degraded"].startswith(
        "the background embedding failed (the model file is missing); ranked by text alone"
    )
    assert background._spawned == started  # an hour passes before the next attempt


def test_one_background_embedding_at_a_time(run: Run, store: Path, tmp_path: Path) -> None:
    import os

    from chitin.core import background

    source = tmp_path / "export.json"
    source.write_text(json.dumps(export_of(300)))
    run("import", str(source))  # background off (conftest): nothing embeds yet
    for _ in range(3):
        background.spawn(store, os.environ)
    wait_for_background()
    assert json.loads(run("embed-status", "--format", "json").stdout)["embedded"] == 300
    log = (background.folder(store) / background.LOG_FILE).read_text()
    assert log.count("embedded 300") == 1, log
    assert log.count("another background embedding is running") + log.count("embedded 0") == 2


def test_a_worker_still_starting_is_not_started_again(run: Run, store: Path) -> None:
    """Writes that come while the worker they started is still loading (it takes its
    lock only after the interpreter, the CLI and the store's sync) find it starting,
    and start no second one."""
    import os
    import time

    from chitin.core import background

    run("init")
    before = set(background._spawned)
    first = background.ensure_running(store, os.environ, time.time())
    again = [background.ensure_running(store, os.environ, time.time()) for _ in range(3)]
    assert first.state == "started" and {s.state for s in again} == {"running"}
    assert len(background._spawned - before) == 1
    wait_for_background()


def test_a_starting_status_counts_while_its_worker_lives_and_is_young() -> None:
    import os
    import subprocess
    import sys
    import time

    from chitin.core.background_status import STARTING, STARTING_SECONDS, starting

    now = time.time()
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    gone = int(ended.stdout)
    alive = {"state": STARTING, "pid": os.getpid(), "started": now}
    assert starting(alive, now + 1)
    assert not starting(alive | {"pid": gone}, now + 1)  # it died before its lock
    assert not starting(alive, now + STARTING_SECONDS + 1)  # never took it: let be
    assert not starting(alive | {"state": "done"}, now)
    assert not starting(alive | {"pid": "12"}, now) and not starting({}, now)


def test_the_background_embedding_leaves_the_cpu_to_the_foreground(
    run: Run, store: Path, tmp_path: Path
) -> None:
    """The worker runs as idle work, and, being a session of its own, lowers its
    session's scheduling group too: a nice value alone still took a core of two from
    the commands the agent ran meanwhile (Linux autogroups, docs/design.md §9f)."""
    import os
    import sys

    from chitin.core import background

    source = tmp_path / "export.json"
    source.write_text(json.dumps(export_of(40)))
    run("import", str(source))  # background off (conftest): nothing embeds yet
    before = set(background._spawned)
    background.spawn(store, os.environ)
    (pid,) = background._spawned - before
    group = Path(f"/proc/{pid}/autogroup")
    if group.is_file():  # lowered at once, before the worker has even loaded
        assert group.read_text().endswith(f" nice {background.AUTOGROUP_NICE}\n")
    wait_for_background()
    status = background.read_status(store)
    assert status["state"] == "done" and status["embedded"] == 40
    assert status["priority"]["nice"] >= background.NICENESS
    if sys.platform.startswith("linux"):
        assert status["priority"]["policy"] == "idle"
    if Path(background.AUTOGROUP).is_file():
        assert status["priority"]["autogroup_nice"] == background.AUTOGROUP_NICE


def test_the_background_embedding_waits_while_commands_run(
    run: Run, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every command touches the worker's lock file (lockfile.note_command); the worker
    embeds its next chunk once none has for QUIET_SECONDS, or after MAX_WAIT."""
    import os
    import time

    from chitin.core import background

    run("init")
    mark = background.folder(store) / background.LOCK_FILE
    mark.parent.mkdir(parents=True, exist_ok=True)
    mark.touch()
    os.utime(mark, (1000.0, 1000.0))
    run("stats")
    assert mark.stat().st_mtime > time.time() - 60  # the command said it ran
    now = [mark.stat().st_mtime + 0.25]  # a quarter second after that command
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    monkeypatch.setattr(time, "sleep", sleep)
    waited = background.wait_for_quiet(store, clock=lambda: now[0])
    assert slept and background.QUIET_SECONDS - 0.25 <= waited < background.QUIET_SECONDS
    slept.clear()
    assert background.wait_for_quiet(store, clock=lambda: now[0]) == 0 and not slept
    ticking = [0.0]

    def busy() -> float:  # a command every moment: the wait ends at MAX_WAIT
        ticking[0] += 0.5
        os.utime(mark, (ticking[0], ticking[0]))
        return ticking[0]

    assert background.wait_for_quiet(store, clock=busy) >= background.MAX_WAIT


def named_vectors_are_their_insights_own(store: Path) -> int:
    """Every vector the sidecar's index names for an insight's current text is the
    model's embedding of that text, part by part: a kill never leaves a row named but
    unwritten, or written for another insight. Returns how many insights were checked."""
    import numpy as np

    from chitin.core import Chitin
    from chitin.index.vector_files import mapped_matrix
    from chitin.model.search_text import embedding_texts

    chitin = Chitin(store)
    try:
        meaning = chitin._session.semantic(chitin_choice())
        current = chitin._session.cache.text_hashes()
        named = sorted(i for i, h in meaning.vectors.fresh().items() if current.get(i) == h)
        if not named:
            return 0
        insights = chitin._session.cache.by_ids(named)
        parts = [(i, n, t) for i in named for n, t in enumerate(embedding_texts(insights[i]))]
        made = meaning.provider.embed([text for *_, text in parts])
        rows = meaning.vectors.db.execute("SELECT id, part, row FROM rows WHERE id IS NOT NULL")
        row_of = {(i, n): row for i, n, row in rows}
        matrix = mapped_matrix(meaning.vectors.folder, meaning.vectors.dimensions)
        assert matrix is not None
        stored = np.vstack([matrix[row_of[i, n]] for i, n, _ in parts])
        assert np.all(np.sum(made * stored, axis=1) > 0.999)
        return len(named)
    finally:
        chitin.close()


def _saved_vectors(store: Path) -> int:
    """How many vectors the sidecar names, read as another process would."""
    import sqlite3

    index = store / ".chitin" / "vectors" / "index.sqlite3"
    if not index.exists():
        return 0
    try:
        with contextlib.closing(sqlite3.connect(f"file:{index}?mode=ro", uri=True)) as db:
            named = db.execute("SELECT count(*) FROM rows WHERE id IS NOT NULL AND part = 0")
            return int(named.fetchone()[0])
    except sqlite3.Error:  # being made: not yet
        return 0


@pytest.mark.parametrize("signal_name", ["SIGKILL", "SIGINT"])
def test_an_embedding_killed_at_any_point_leaves_the_sidecar_sound(
    run: Run, store: Path, tmp_path: Path, signal_name: str
) -> None:
    import signal
    import subprocess
    import sys
    import time

    source = tmp_path / "export.json"
    source.write_text(json.dumps(export_of(1000)))
    run("import", str(source))

    # Loading, embedding, saving: anywhere. A busy machine loads the model slowly, so
    # the later kills wait longer, until one has landed after some vectors were saved.
    def embedding() -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [sys.executable, "-m", "chitin", "--store", str(store), "embed"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    checked = 0
    for number, delay in enumerate((0.2, 0.5, 0.8, 1.1, 1.4, 2.0, 2.6, 3.2, 4.0, 5.0)):
        worker = embedding()
        time.sleep(delay)
        worker.send_signal(getattr(signal, signal_name))
        worker.wait(timeout=60)
        checked = named_vectors_are_their_insights_own(store)  # sound after every kill
        if number >= 4 and checked:
            break
    for _ in range(3):
        if 0 < checked < 1000:
            break
        # A machine so busy that no timed kill landed after a save: more, each sent as
        # soon as the sidecar holds vectors. The test process itself may be descheduled
        # until the worker has finished (seen once on a loaded machine), so try again.
        shutil.rmtree(store / ".chitin" / "vectors")
        worker = embedding()
        while worker.poll() is None and not _saved_vectors(store):
            time.sleep(0.02)
        worker.send_signal(getattr(signal, signal_name))
        worker.wait(timeout=60)
        checked = named_vectors_are_their_insights_own(store)
    assert 0 < checked < 1000, "the kills should land partway"
    run("embed")
    assert named_vectors_are_their_insights_own(store) == 1000


# ------------------------------------------------------------------ the prepared model


@pytest.fixture
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A machine cache of this test's own, with no prepared model in it yet."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    return cache / "chitin" / "models"


@pytest.fixture
def graphs_loaded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The file each onnxruntime session is made from, in order."""
    import onnxruntime

    loaded: list[str] = []
    original = onnxruntime.InferenceSession

    def recording(path: str, *args: Any, **kwargs: Any) -> Any:
        loaded.append(path)
        return original(path, *args, **kwargs)

    monkeypatch.setattr(onnxruntime, "InferenceSession", recording)
    return loaded


def test_the_model_is_prepared_once_and_then_loaded_prepared(
    run: Run, own_cache: Path, graphs_loaded: list[str]
) -> None:
    import numpy as np

    from chitin.providers.local import LocalProvider

    run("init", "--seed")
    shipped = LocalProvider().embed(["reproduce the bug first"], "query")
    run("retrieve", "--query", "a query never asked before, one")
    assert not graphs_loaded[-1].startswith(str(own_cache))  # nothing prepared yet
    run("embed")  # prepares the model even when every vector is current
    [prepared] = [p for p in own_cache.iterdir() if not p.name.startswith(".")]
    assert sorted(f.name for f in prepared.iterdir()) == [
        "model.onnx", "model.weights", "prepared.json"
    ]  # fmt: skip
    run("retrieve", "--query", "a query never asked before, two")
    assert graphs_loaded[-1] == str(prepared / "model.onnx")
    provider = LocalProvider(prepared_root=own_cache)
    assert float(np.dot(provider.embed(["reproduce the bug first"], "query")[0], shipped[0])) > (
        0.9999
    )


@pytest.mark.parametrize("damage_to", ["model.weights", "model.onnx", "prepared.json"])
def test_a_damaged_prepared_model_is_set_aside_and_the_shipped_one_used(
    run: Run, own_cache: Path, graphs_loaded: list[str], damage_to: str
) -> None:
    run("init", "--seed")
    run("embed")
    [prepared] = list(own_cache.iterdir())
    broken = prepared / damage_to
    broken.write_bytes(broken.read_bytes()[: broken.stat().st_size // 2] + b"\x00garbage")
    found = retrieve_json(run, "a query never asked before, three")
    assert found["degraded"] is None and found["insights"]
    assert not graphs_loaded[-1].startswith(str(prepared))  # the shipped model answered
    run("embed")  # and it is prepared again
    assert (prepared / "prepared.json").is_file()
    run("retrieve", "--query", "a query never asked before, four")
    assert graphs_loaded[-1] == str(prepared / "model.onnx")


def test_a_session_start_without_a_prepared_model_has_it_prepared_in_the_background(
    run: Run, own_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHITIN_BACKGROUND_EMBED", "on")
    run("init", "--seed")
    assert retrieve_json(run, "a query never asked before, five")["degraded"] is None
    wait_for_background()
    [prepared] = list(own_cache.iterdir())
    assert (prepared / "prepared.json").is_file()


def test_a_sidecar_removed_while_open_is_never_written_through(tmp_path: Path) -> None:
    """.chitin/ is safe to delete, even while a background embedding has the sidecar
    open: it must not pick rows by its old index and write them into the new matrix."""
    import shutil

    import numpy as np

    from chitin.index.vectors import SidecarReplaced, VectorStore

    old = VectorStore(tmp_path, "test:m:3", 3)
    old.put([("a", "h1", 0)], np.array([[1, 0, 0]], dtype=np.float32))
    shutil.rmtree(tmp_path / "vectors")
    new = VectorStore(tmp_path, "test:m:3", 3)
    new.put([("b", "h2", 0)], np.array([[0, 1, 0]], dtype=np.float32))
    with pytest.raises(SidecarReplaced):
        old.put([("c", "h3", 0)], np.array([[0, 0, 1]], dtype=np.float32))
    assert new.fresh() == {"b": "h2"}
    assert new.nearest(np.array([0, 1, 0], dtype=np.float32), [0], 5) == [("b", pytest.approx(1.0))]
    old.close()
    new.close()


def test_similar_by_meaning_says_when_the_vectors_are_not_there_yet(
    forty_waiting: str, run: Run
) -> None:
    """It compares meaning alone, so an unembedded store must not answer "nothing
    similar"; it says what to run instead."""
    result = run("similar", "announce the deploys step", "--semantic", expect=1)
    assert result.stderr == "Error: 40 insight(s) have no vector yet; run `chitin embed` first\n"
    run("embed")
    found = json.loads(run("similar", "announce the deploys step", "--semantic",
                           "--format", "json").stdout)  # fmt: skip
    assert found and found[0]["claim"].startswith("Announce the deploys step")
