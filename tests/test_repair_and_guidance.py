"""Issue 11, items 7, 13, 14 and 16: every damage of .chitin/ is repaired, a read-only
store is read, --output writes only regular files, and what goes wrong is said plainly
(a chitin 1.x database nearby, git's safe.directory refusal, a store path that is a file,
an internal error)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chitin.index import db as cache_db
from tests.conftest import Run, chitin_program, commit_count

QUERY = "fix the failing test before the release"
AS_ROOT = os.geteuid() == 0


@pytest.fixture(scope="module")
def populated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A seeded store whose .chitin/ holds the cache, the usage file and the vectors."""
    from click.testing import CliRunner

    from chitin.cli import cli

    root = tmp_path_factory.mktemp("populated") / "store"
    for step in (["init", "--seed"], ["retrieve", "--query", QUERY], ["list"]):
        result = CliRunner().invoke(cli, ["--store", str(root), *step])
        assert result.exit_code == 0, result.output
    for name in ("cache.sqlite3", "usage.sqlite3", "vectors/index.sqlite3"):
        assert (root / ".chitin" / name).is_file(), name
    return root


@pytest.fixture
def seeded(populated: Path, store: Path) -> Path:
    shutil.copytree(populated, store, symlinks=True)
    return store


def live_ids(run: Run) -> list[str]:
    return sorted(i["id"] for i in json.loads(run("list", "--format", "json").stdout))


def warnings_of(*results: Any) -> list[str]:
    return [line for result in results for line in result.stderr.splitlines() if line]


def sql(path: Path, *statements: str) -> None:
    connection = sqlite3.connect(path)
    try:
        for statement in statements:
            connection.execute(statement)
        connection.commit()
    finally:
        connection.close()


def schema_objects(path: Path) -> list[tuple[str, str, int]]:
    """(type, name, root page) of every table and index chitin made in ``path``."""
    connection = sqlite3.connect(path)
    try:
        rows = connection.execute(
            "SELECT type, name, rootpage FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
        ).fetchall()
    finally:
        connection.close()
    return [(kind, name, int(page or 0)) for kind, name, page in rows]


# The commands a damaged cache must not stop: reads of every kind, and writes.
def use_every_way(run: Run) -> list[Any]:
    return [
        run("list", "--format", "json"),
        run("stats"),
        run("get", "ask-one"),
        run("retrieve", "--query", QUERY, "--format", "json"),
        run("similar", "Ask one focused question when a request is ambiguous"),
        run("contribute", "--type", "skill", "--claim", "Name the page", "--confidence", "0.6"),
        run("reinforce", "ask-one"),
    ]  # fmt: skip


# ------------------------------------------------------------------ the cache repairs itself


def cache_objects() -> list[str]:
    """The name of every table, index and virtual table of a fresh cache."""
    fresh = cache_db._connect(None)
    try:
        rows = fresh.execute("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")
        return sorted(name for (name,) in rows)
    finally:
        fresh.close()


CACHE_OBJECTS = cache_objects()


@pytest.mark.parametrize("name", CACHE_OBJECTS)
def test_a_table_or_index_dropped_from_the_cache_is_rebuilt(
    run: Run, seeded: Path, name: str
) -> None:
    expected = live_ids(run)
    cache = seeded / ".chitin" / "cache.sqlite3"
    kinds = {n: kind for kind, n, _ in schema_objects(cache)}
    sql(cache, f'DROP {"INDEX" if kinds[name] == "index" else "TABLE"} "{name}"')
    results = use_every_way(run)
    said = warnings_of(*results)
    assert len(said) == 1 and "cache.sqlite3 was damaged" in said[0], said
    assert f"{name} is missing" in said[0]
    assert live_ids(run) == sorted([*expected, results[5].stdout.split(": ")[1].split()[0]])
    assert warnings_of(run("list")) == []  # rebuilt once, for good


def test_a_column_dropped_from_the_cache_is_rebuilt(run: Run, seeded: Path) -> None:
    expected = live_ids(run)
    sql(seeded / ".chitin" / "cache.sqlite3", "ALTER TABLE entries DROP COLUMN limitations")
    result = run("list", "--format", "json")
    assert sorted(i["id"] for i in json.loads(result.stdout)) == expected
    assert "entries is not as chitin made it" in result.stderr
    assert warnings_of(run("list")) == []


# Every table and index of a cache with a page of its own (virtual tables have none).
VIRTUAL = ("claim_terms", "claim_vocab", "search", "search_vocab")
CACHE_PAGES = [name for name in CACHE_OBJECTS if name not in VIRTUAL]


@pytest.mark.parametrize("fill", ["zeros", "random bytes"])
@pytest.mark.parametrize("name", CACHE_PAGES)
def test_a_damaged_page_behind_a_sound_header_is_rebuilt(
    run: Run, seeded: Path, name: str, fill: str
) -> None:
    """4 KB of a page overwritten, the file's header intact: SQLite opens the file and
    finds the damage only when a query reads that page, in any command."""
    import random

    expected = live_ids(run)
    cache = seeded / ".chitin" / "cache.sqlite3"
    pages = {n: page for _, n, page in schema_objects(cache)}
    connection = sqlite3.connect(cache)
    size = connection.execute("PRAGMA page_size").fetchone()[0]
    connection.close()
    noise = bytes(size) if fill == "zeros" else random.Random(name).randbytes(size)
    with open(cache, "r+b") as handle:
        handle.seek((pages[name] - 1) * size)
        handle.write(noise)
    results = use_every_way(run)
    said = warnings_of(*results)
    assert len(said) <= 1 and all("cache.sqlite3 was damaged" in line for line in said), said
    assert set(expected) <= set(live_ids(run))
    if said:  # whatever read the page rebuilt the file: nothing damaged is left behind
        check = sqlite3.connect(cache)
        assert check.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        check.close()
    assert warnings_of(run("list")) == []


def test_a_page_read_only_by_the_problem_report_is_found_and_rebuilt(
    run: Run, seeded: Path
) -> None:
    """The case of the issue: the index of unreadable files is read after the command
    did its work; every command failed until .chitin/ was deleted by hand."""
    cache = seeded / ".chitin" / "cache.sqlite3"
    page = {n: p for _, n, p in schema_objects(cache)}["entries_errors"]
    with open(cache, "r+b") as handle:
        handle.seek((page - 1) * 4096)
        handle.write(bytes(4096))
    first = run("list")
    assert "cache.sqlite3 was damaged" in first.stderr
    assert "14 insight(s)" in first.stdout
    assert run("list").stderr == ""


@pytest.mark.parametrize("thing", ["a symlink out of the store", "a symlink to a folder", "a FIFO"])
@pytest.mark.parametrize("name", ["cache.sqlite3", "cache.sqlite3-wal", "usage.sqlite3"])
def test_a_derived_database_that_is_not_a_regular_file_is_replaced(
    run: Run, seeded: Path, tmp_path: Path, name: str, thing: str
) -> None:
    """SQLite would write through a symlink (outside the store), or never open a FIFO:
    the cache was kept in memory, rebuilt at every command, for ever."""
    path = seeded / ".chitin" / name
    path.unlink(missing_ok=True)
    outside = tmp_path / "outside"
    if thing == "a FIFO":
        os.mkfifo(path)
    elif thing == "a symlink to a folder":
        path.symlink_to(seeded / "insights")
    else:
        path.symlink_to(outside)
    first = run("retrieve", "--query", QUERY)
    assert f".chitin/{name} was not a regular file" in first.stderr
    assert not outside.exists()
    assert path.is_file() or not os.path.lexists(path)
    assert run("retrieve", "--query", QUERY).stderr == ""


@pytest.mark.parametrize("name", ["lock", ".gitignore"])
def test_a_symlink_where_chitin_keeps_its_lock_or_ignore_file_is_not_followed(
    run: Run, seeded: Path, tmp_path: Path, name: str
) -> None:
    """The lock was opened, and the ignore file written, through a link: a dangling
    one made chitin create its target, a file outside the store."""
    path = seeded / ".chitin" / name
    path.unlink(missing_ok=True)
    outside = tmp_path / "outside"
    path.symlink_to(outside)
    result = run("reinforce", "lead-with")
    assert f".chitin/{name} was not a regular file (a symlink" in result.stderr
    assert not outside.exists()
    assert path.is_file() and not path.is_symlink()
    assert run("reinforce", "lead-with").stderr == ""


@pytest.mark.parametrize("thing", ["a symlink out of the store", "a loop", "a dangling symlink"])
def test_a_lock_that_is_a_symlink_is_replaced_never_followed(
    run: Run, seeded: Path, tmp_path: Path, thing: str
) -> None:
    """open() followed the link: it made a file outside the store, and a loop or a link
    into a missing folder stopped every write with an internal error (exit 3)."""
    lock = seeded / ".chitin" / "lock"
    lock.unlink(missing_ok=True)
    outside = tmp_path / "outside"
    target = {"a loop": lock, "a dangling symlink": tmp_path / "gone" / "lock"}.get(thing, outside)
    lock.symlink_to(target)
    before = commit_count(seeded)
    made = run("contribute", "--type", "skill", "--claim", "Locks stay home", "--confidence", "0.6")
    assert ".chitin/lock was not a regular file (a symlink" in made.stderr
    assert commit_count(seeded) == before + 1
    assert not outside.exists() and not lock.is_symlink()
    assert run("reinforce", "locks-stay-home").stderr == ""


# ------------------------------------------------------------------ damage met by a write


def damaged_once(monkeypatch: pytest.MonkeyPatch, method: str) -> None:
    """The cache's ``method`` finds a corrupt page, once (as SQLite says so)."""
    from chitin.index.cache import Cache

    original = getattr(Cache, method)

    def corrupt(self: Cache, *args: Any) -> Any:
        monkeypatch.setattr(Cache, method, original)
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(Cache, method, corrupt)


def test_damage_found_after_the_commit_does_not_fail_the_write(
    run: Run, seeded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = commit_count(seeded)
    damaged_once(monkeypatch, "record")
    made = run("contribute", "--type", "skill", "--claim", "Commit first", "--confidence", "0.6")
    assert made.stdout.startswith("✓ Contributed skill insight")
    assert "cache.sqlite3 was damaged" in made.stderr
    assert commit_count(seeded) == before + 1
    listed = run("list")
    assert "Commit first" in listed.stdout and listed.stderr == ""


def test_damage_found_before_the_commit_makes_one_commit(
    run: Run, seeded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = commit_count(seeded)
    damaged_once(monkeypatch, "paths_of")
    result = run("reinforce", "ask-one", "--format", "json")
    assert json.loads(result.stdout)["reinforcementCount"] == 1
    assert "cache.sqlite3 was damaged" in result.stderr
    assert commit_count(seeded) == before + 1


def test_an_unexplained_sqlite_error_has_the_file_checked(
    run: Run, seeded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An error that does not say "malformed" (a broken index can raise a constraint
    failure) is believed to be damage only if PRAGMA quick_check says so."""
    from chitin.index.cache import Cache

    original = Cache.counts

    def odd(self: Cache) -> Any:
        raise sqlite3.IntegrityError("UNIQUE constraint failed: entries.path")

    monkeypatch.setattr(Cache, "counts", odd)
    sound = run("stats", expect=3)  # a sound file: the error is chitin's, reported
    assert "internal error: IntegrityError" in sound.stderr

    def odd_once(self: Cache) -> Any:
        monkeypatch.setattr(Cache, "counts", original)
        path = self.root / ".chitin" / "cache.sqlite3"
        page = {n: p for _, n, p in schema_objects(path)}["entries_live"]
        with open(path, "r+b") as handle:
            handle.seek((page - 1) * 4096)
            handle.write(bytes(4096))
        raise sqlite3.IntegrityError("UNIQUE constraint failed: entries.path")

    monkeypatch.setattr(Cache, "counts", odd_once)
    damaged = run("stats")
    assert "cache.sqlite3 was damaged" in damaged.stderr
    assert "Total: 14" in damaged.stdout


def test_a_healthy_cache_is_not_integrity_checked_when_opened(
    run: Run, seeded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The session start stays fast: quick_check only runs after an unexplained error."""
    checks: list[object] = []
    monkeypatch.setattr(cache_db, "_sound", lambda db: checks.append(db) or True, raising=False)
    run("retrieve", "--query", QUERY)
    run("list")
    assert checks == []


# ------------------------------------------------------------------ the other SQLite files


@pytest.mark.parametrize("name", ["meta", "rows", "queries", "hits", "current"])
def test_a_table_dropped_from_the_vector_index_is_rebuilt(
    run: Run, seeded: Path, name: str
) -> None:
    expected = json.loads(run("retrieve", "--query", QUERY, "--format", "json").stdout)
    sql(seeded / ".chitin" / "vectors" / "index.sqlite3", f"DROP TABLE {name}")
    first = run("retrieve", "--query", QUERY, "--format", "json")
    assert "index.sqlite3 was damaged" in first.stderr
    assert "semantic search unavailable" not in first.stderr
    again = run("retrieve", "--query", QUERY, "--format", "json")
    assert again.stderr == ""
    ids = [i["id"] for i in json.loads(again.stdout)["insights"]]
    assert ids == [i["id"] for i in expected["insights"]]


def test_a_damaged_page_of_the_vector_index_is_rebuilt(run: Run, seeded: Path) -> None:
    index = seeded / ".chitin" / "vectors" / "index.sqlite3"
    page = {n: p for _, n, p in schema_objects(index)}["meta"]
    with open(index, "r+b") as handle:
        handle.seek((page - 1) * 4096)
        handle.write(bytes(4096))
    first = run("retrieve", "--query", QUERY)
    assert "was damaged" in first.stderr and "cannot be used" not in first.stderr
    assert run("retrieve", "--query", QUERY).stderr == ""


def test_a_changed_table_of_the_usage_file_is_set_aside(run: Run, seeded: Path) -> None:
    usage = seeded / ".chitin" / "usage.sqlite3"
    sql(usage, "DROP TABLE retrieved", "CREATE TABLE retrieved (id TEXT PRIMARY KEY)")
    first = run("retrieve", "--query", QUERY)
    assert "usage.sqlite3 was damaged" in first.stderr
    assert first.stderr.count("\n") == 1
    assert (seeded / ".chitin" / "usage.sqlite3.damaged").is_file()
    assert run("retrieve", "--query", QUERY).stderr == ""


# ------------------------------------------------------------------ a read-only store


@pytest.fixture
def read_only_databases(monkeypatch: pytest.MonkeyPatch, seeded: Path) -> Iterator[Path]:
    """Every SQLite file under the store's .chitin/ opened as a read-only file is: it
    opens, its reads work, and every write fails with "attempt to write a readonly
    database" (what a store chmod'ed a-w gives; chmod does not stop root, who runs
    these tests in some places)."""
    connect = sqlite3.connect
    chitin_dir = str(seeded / ".chitin")

    def read_only(database: Any, *args: Any, **options: Any) -> sqlite3.Connection:
        if isinstance(database, str) and database.startswith(chitin_dir):
            options["uri"] = True
            database = f"{Path(database).as_uri()}?mode=ro"
        return connect(database, *args, **options)

    monkeypatch.setattr(sqlite3, "connect", read_only)
    yield seeded


def test_a_read_only_store_is_read_with_a_warning(
    run: Run, read_only_databases: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every file's cached stat made stale, so that the cache would have to be written.
    for path in (read_only_databases / "insights").rglob("*.md"):
        os.utime(path, ns=(1_600_000_000_000_000_000,) * 2)
    listed = run("list", "--format", "json")
    assert len(json.loads(listed.stdout)) == 14
    assert "cannot be written (attempt to write a readonly database)" in listed.stderr
    assert "read the insight files without the cache" in listed.stderr
    assert "ID: ask-one-focused-question-3cf5" in run("get", "ask-one").stdout
    found = run("retrieve", "--query", QUERY, "--format", "json")
    assert json.loads(found.stdout)["insights"]
    assert "internal error" not in found.stderr
    assert run("stats").stdout.count("14") >= 1


@pytest.mark.skipif(AS_ROOT, reason="chmod does not stop root (the test above simulates it)")
def test_a_store_made_read_only_with_chmod_is_read(run: Run, seeded: Path) -> None:
    for path in (seeded / "insights").rglob("*.md"):
        os.utime(path, ns=(1_600_000_000_000_000_000,) * 2)
    # Another process has the cache open (its write-ahead log is there): SQLite then
    # opens the read-only file, and only the first write fails.
    other = sqlite3.connect(seeded / ".chitin" / "cache.sqlite3")
    other.execute("PRAGMA wal_autocheckpoint = 0")
    other.execute("INSERT OR REPLACE INTO meta VALUES ('other', 'process')")
    other.commit()
    modes = {p: p.stat().st_mode for p in [seeded, *seeded.rglob("*")] if not p.is_symlink()}
    try:
        for path in modes:
            path.chmod(stat.S_IMODE(modes[path]) & ~0o222)
        assert len(json.loads(run("list", "--format", "json").stdout)) == 14
        assert json.loads(run("retrieve", "--query", QUERY, "--format", "json").stdout)
        refused = run(
            "contribute", "--type", "skill", "--claim", "Not here", "--confidence", "0.5", expect=1
        )
        assert refused.stderr.startswith("Error: permission denied: ")
    finally:
        for path, mode in modes.items():
            path.chmod(stat.S_IMODE(mode))
        other.close()


# ------------------------------------------------------------------ --output


def make(kind: str, where: Path) -> Path:
    """Something that is not a regular file, at ``where``."""
    if kind == "a FIFO":
        os.mkfifo(where)
    elif kind == "a symlink to a character device":
        where.symlink_to(os.devnull)
    elif kind == "a folder":
        where.mkdir()
    elif kind == "a symlink to a FIFO":
        os.mkfifo(where.with_name("pipe"))
        where.symlink_to(where.with_name("pipe"))
    return where


OUTPUT_COMMANDS = [["render", "--query", QUERY], ["export"]]


@pytest.mark.parametrize("command", OUTPUT_COMMANDS, ids=lambda c: c[0])
def test_output_where_no_file_can_be_made_is_one_line_not_an_internal_error(
    run: Run, seeded: Path, tmp_path: Path, command: list[str]
) -> None:
    """A folder that takes no new file (/proc) and a name longer than the file system
    allows are the user's --output, said as such: not 'internal error', exit 3."""
    cases = (
        (Path("/proc/P.md"), 1, ("cannot write", "no such file or directory")),
        # refused as the option is read, as every path option refuses it (GivenPath)
        (tmp_path / ("a" * 300), 2, ("'--output'", "File name too long")),
    )
    for target, code, reasons in cases:
        result = run(*command, "--output", str(target), expect=code)
        line = result.stderr.strip()
        assert "\n" not in line and "internal error" not in line
        assert all(reason in line for reason in reasons), line
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(("a", "."))]


@pytest.mark.parametrize(
    "kind", ["a FIFO", "a symlink to a character device", "a folder", "a symlink to a FIFO"]
)
@pytest.mark.parametrize("command", OUTPUT_COMMANDS, ids=lambda c: c[0])
def test_output_refuses_what_is_not_a_regular_file(
    run: Run, seeded: Path, tmp_path: Path, command: list[str], kind: str
) -> None:
    target = make(kind, tmp_path / "out")
    before = os.lstat(target)
    result = run(*command, "--output", str(target), expect=2)
    line = result.stderr.strip()
    assert "\n" not in line and "--output writes only regular files" in line
    assert kind.split(" ")[-1] in line or kind.split(" ")[-2] in line
    after = os.lstat(target)
    assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)
    assert result.stdout == ""


@pytest.mark.parametrize("command", OUTPUT_COMMANDS, ids=lambda c: c[0])
def test_output_through_a_symlink_replaces_the_file_it_points_to(
    run: Run, seeded: Path, tmp_path: Path, command: list[str]
) -> None:
    real = tmp_path / "kept" / "PERSONALITY.md"
    real.parent.mkdir()
    real.write_text("old\n")
    real.chmod(0o640)
    link = tmp_path / "link.md"
    link.symlink_to(real)
    run(*command, "--output", str(link))
    assert link.is_symlink() and link.resolve() == real
    assert real.read_text() == run(*command).stdout
    assert stat.S_IMODE(real.stat().st_mode) == 0o640


def test_output_through_a_symlink_to_nothing_creates_its_target(
    run: Run, seeded: Path, tmp_path: Path
) -> None:
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "made.json")
    run("export", "--output", str(link))
    assert link.is_symlink() and len(json.loads((tmp_path / "made.json").read_text())) == 14


# ------------------------------------------------------------------ a chitin 1.x database


@pytest.fixture
def legacy_database(tmp_path: Path) -> Path:
    from tests.test_migrate import GENERATIONS, build

    path = Path.home() / ".config" / "chitin" / "insights.db"
    path.parent.mkdir(parents=True)
    build(path, list(GENERATIONS)[-1])
    return path


def hint_for(path: Path) -> str:
    return f"`chitin import {path}`"


def test_a_1x_database_is_suggested_where_the_store_is_empty(
    run: Run, legacy_database: Path
) -> None:
    missing = run("list")
    assert hint_for(legacy_database) in missing.stderr
    assert missing.stderr.count("hint:") == 1
    as_json = run("list", "--format", "json")
    assert json.loads(as_json.stdout) == [] and hint_for(legacy_database) in as_json.stderr
    init = run("init")
    assert hint_for(legacy_database) in init.stderr and "hint:" not in init.stdout
    empty = run("stats")
    assert hint_for(legacy_database) in empty.stderr
    assert hint_for(legacy_database) in run("retrieve", "--query", QUERY).stderr
    run("import", str(legacy_database))
    assert "hint:" not in run("list").stderr  # the store holds them now


def test_init_suggests_the_1x_database_even_when_it_seeds(run: Run, legacy_database: Path) -> None:
    result = run("init", "--seed")
    assert hint_for(legacy_database) in result.stderr
    assert "hint:" not in run("list").stderr  # not once the store holds insights


def test_no_1x_database_no_hint(run: Run) -> None:
    assert "hint:" not in run("list").stderr
    assert "hint:" not in run("init").stderr


# ------------------------------------------------------------------ git's safe.directory


@pytest.mark.parametrize(
    "command",
    [
        ["history", "ask-one"],
        ["changelog"],
        ["diff", "HEAD"],
        ["init"],
        ["reinforce", "ask-one"],
        ["contribute", "--type", "skill", "--claim", "Owned elsewhere", "--confidence", "0.5"],
        ["check"],  # not "git's config does not define chitin's merge driver"
    ],
    ids=lambda c: c[0],
)
def test_git_refusing_a_store_owned_by_another_user_is_said(
    run: Run, seeded: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    before = commit_count(seeded)
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")  # honoured by git ≥ 2.35.2
    result = run(*command, expect=1)
    assert result.stderr == (
        f"Error: git refuses to work in {seeded}: the repository is owned by another user "
        f"(git's safe.directory check). If you trust it, run: "
        f"git config --global --add safe.directory {seeded}\n"
    )
    monkeypatch.delenv("GIT_TEST_ASSUME_DIFFERENT_OWNER")
    assert commit_count(seeded) == before


# ------------------------------------------------------------------ a store path that is a file


def not_a_folder(kind: str, where: Path) -> Path:
    if kind == "a file":
        where.write_text("not a folder")
        return where
    if kind == "a character device":
        return Path(os.devnull)
    os.mkfifo(where)
    return where


@pytest.mark.parametrize("how", ["--store", "CHITIN_STORE"])
@pytest.mark.parametrize("kind", ["a file", "a character device", "a FIFO (named pipe)"])
@pytest.mark.parametrize(
    "command", [["list"], ["stats"], ["init"], ["retrieve", "--query", "x"], ["export"]]
)
def test_a_store_path_that_is_not_a_folder_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str, kind: str, command: list[str]
) -> None:
    from click.testing import CliRunner

    from chitin.cli import cli

    path = not_a_folder(kind, tmp_path / "not-a-store")
    if how == "CHITIN_STORE":
        monkeypatch.setenv("CHITIN_STORE", str(path))
        result = CliRunner().invoke(cli, command)
    else:
        result = CliRunner().invoke(cli, ["--store", str(path), *command])
    assert result.exit_code == 1, result.output
    assert result.stderr == (
        f"Error: the store path {path} is {kind}, not a folder "
        "(--store and $CHITIN_STORE name the store's folder)\n"
    )
    assert result.stdout == ""


# ------------------------------------------------------------------ unexpected errors


def failing(monkeypatch: pytest.MonkeyPatch, error: BaseException) -> None:
    from chitin import core

    def explode(*_: object, **__: object) -> None:
        raise error

    monkeypatch.setattr(core.Chitin, "stats", explode)


@pytest.mark.parametrize(
    "error, line",
    [
        (RuntimeError("disk on fire"), "internal error: RuntimeError: disk on fire"),
        (RecursionError("too deep"), "internal error: RecursionError: too deep"),
        (KeyError("id"), "internal error: KeyError: 'id'"),
        (ValueError(), "internal error: ValueError"),
    ],
    ids=["RuntimeError", "RecursionError", "KeyError", "empty"],
)  # fmt: skip
def test_an_unexpected_error_is_an_internal_error_exit_3(
    run: Run, seeded: Path, monkeypatch: pytest.MonkeyPatch, error: Exception, line: str
) -> None:
    failing(monkeypatch, error)
    result = run("stats", expect=3)
    assert result.stderr == f"Error: {line} (run again with --debug for the traceback)\n"
    debug = run("--debug", "stats", expect=1)  # the exception itself, for the traceback
    assert debug.exception is error


def test_an_internal_error_never_names_chitins_temporary_files(
    run: Run, seeded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = seeded / "insights" / "skill" / ".chitin-k2j4x9.tmp"
    failing(monkeypatch, FileNotFoundError(2, "No such file or directory", str(scratch)))
    result = run("stats", expect=3)
    assert ".chitin-k2j4x9" not in result.stderr
    assert result.stderr == (
        f"Error: internal error: FileNotFoundError: [Errno 2] No such file or directory: "
        f"'{seeded}/insights/skill/' (run again with --debug for the traceback)\n"
    )
    failing(monkeypatch, OSError("cannot merge in /tmp/chitin-merge-x1y2/ours.md: gone"))
    merged = run("stats", expect=3)
    assert "chitin-merge-x1y2" not in merged.stderr and "a temporary folder" in merged.stderr


@pytest.mark.parametrize(
    "errno, said",
    [
        (13, "permission denied: {folder}/ (check its owner and permissions)"),
        (28, "no space left on device: {folder}/ (free some space and run the command again)"),
        (30, "read-only file system: {folder}/ (it is mounted read-only: use a folder on a "
             "writable file system)"),
    ],
    ids=["EACCES", "ENOSPC", "EROFS"],
)  # fmt: skip
def test_a_plain_os_error_names_the_path_and_exits_1(
    run: Run, seeded: Path, monkeypatch: pytest.MonkeyPatch, errno: int, said: str
) -> None:
    folder = seeded / "insights" / "skill"
    error = OSError(errno, os.strerror(errno), str(folder / ".chitin-abcd1234.tmp"))
    failing(monkeypatch, error)
    result = run("stats", expect=1)
    assert result.stderr == f"Error: {said.format(folder=folder)}\n"


def test_a_read_only_file_system_is_not_blamed_on_the_store() -> None:
    """qa60: `render --output /mnt/usb/P.md` (or `export --output`) onto a file system
    mounted read-only said "(the store must be on a writable file system)", though the
    store was writable and the file named was no part of it."""
    from chitin.render.failures import describe

    said, code = describe(OSError(30, os.strerror(30), "/mnt/usb/.chitin-k2j4x9.tmp"))
    assert code == 1
    assert said == (
        "read-only file system: /mnt/usb/ (it is mounted read-only: use a folder on a "
        "writable file system)"
    )
    assert "store" not in said


def test_a_hook_says_the_same_line(run: Run, seeded: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from chitin.core import personality

    def explode(*_: object, **__: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(personality, "render_personality", explode)
    result = run("hooks", "run", "claude-code", "session-start", input="{}")
    assert result.stdout == ""
    assert result.stderr == (
        "chitin: the session-start hook did nothing: internal error: RuntimeError: disk on fire\n"
    )


def test_the_old_generic_message_is_gone() -> None:
    """One function says every front end's errors (the CLI's and the hooks')."""
    source = (Path(__file__).parents[1] / "chitin" / "cli").rglob("*.py")
    assert not [p for p in source if "unexpected {type(error)" in p.read_text()]


@pytest.mark.parametrize("command", OUTPUT_COMMANDS, ids=lambda c: c[0])
def test_output_to_dev_stdout_on_a_pipe_is_refused_in_one_line(
    seeded: Path, command: list[str]
) -> None:
    """`--output /dev/stdout` with stdout a pipe: /dev/stdout leads to /proc's link
    "pipe:[…]", which names no file, so it was taken for a new file in /proc and the
    write ended in 'internal error: FileNotFoundError', exit 3. It is a FIFO: refused
    as any FIFO is, before any work, saying that `-` is stdout."""
    argv = [chitin_program(), "--store", str(seeded), *command, "--output", "/dev/stdout"]
    result = subprocess.run(argv, capture_output=True, text=True, env={**os.environ})
    assert result.returncode == 2, result.stderr
    line = result.stderr.strip()
    assert "\n" not in line and "is a FIFO (named pipe); --output writes only regular" in line
    assert "`--output -` writes to stdout" in line and result.stdout == ""
