"""The index is handed what it needs (issue 13, item 4): the cache reads files through
the loader and asks git through the change source it is given, so it runs on a store
kept in memory; and cache.py is split by job."""

from __future__ import annotations

import ast
import re
import stat as stat_module
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest

from chitin.errors import ValidationError
from chitin.format.layout import FileStat, Folder, racily_recent
from chitin.index.cache import Cache, Filters
from chitin.model.insight import Insight

ROOT = Path(__file__).resolve().parent.parent
INDEX = ROOT / "chitin" / "index"


def make(number: int, **fields: object) -> Insight:
    base = Insight(
        id=f"i{number}",
        type="skill",
        claim=f"Claim number {number} about rebasing branches",
        confidence=0.5 + number / 100,
        created=f"2026-11-{10 + number:02d}T12:00:00Z",
        updated=f"2026-11-{10 + number:02d}T12:00:00Z",
    )
    return base._replace(**fields)


class MemoryFiles:
    """Insight files that exist only in a dict: path → (insight, or an error to raise)."""

    def __init__(self) -> None:
        self.held: dict[str, Insight | Exception] = {}
        self.stats: dict[str, FileStat] = {}
        self.loads: list[str] = []
        self.tick = 1

    def put(self, path: str, insight: Insight | Exception) -> None:
        self.tick += 1
        self.held[path] = insight
        # Old enough not to be racily recent, and different at every write.
        self.stats[path] = (1_000_000_000 * self.tick, self.tick, 100 + self.tick, self.tick)

    def remove(self, path: str) -> None:
        del self.held[path]
        del self.stats[path]

    def folders(self) -> set[str]:
        found = set()
        for path in self.held:
            parts = path.split("/")
            found.update("/".join(parts[:end]) for end in range(1, len(parts)))
        return found

    def walk(self) -> dict[str, Folder]:
        walked = {folder: Folder([], []) for folder in self.folders()}
        for path in sorted(self.held):
            folder, name = path.rsplit("/", 1)
            walked[folder].names.append(name)
            walked[folder].stats.append(self.stats[path])
        return walked

    def lstat(self, path: str) -> tuple[FileStat, int]:
        if path in self.held:
            return self.stats[path], stat_module.S_IFREG | 0o644
        if path in self.folders():
            mtime = max(s[0] for p, s in self.stats.items() if p.startswith(path + "/"))
            return (mtime, mtime, 0, 0), stat_module.S_IFDIR | 0o755
        raise FileNotFoundError(path)

    def entries(self, folder: str) -> tuple[list[str], list[str]]:
        names = [p.rsplit("/", 1)[1] for p in self.held if p.rsplit("/", 1)[0] == folder]
        subs = {f.rsplit("/", 1)[-1] for f in self.folders() if f.rpartition("/")[0] == folder}
        return sorted(names), sorted(subs)

    def is_listed(self, path: str) -> bool:
        return path.endswith(".md")

    def through_link(self, path: str, seen: dict[str, bool]) -> bool:
        return False

    def linked_top(self, top: str) -> None:
        raise AssertionError("no links here")

    def load(self, path: str, stat: FileStat) -> Insight:
        self.loads.append(path)
        held = self.held[path]
        if isinstance(held, Exception):
            raise held
        return held


class MemoryGit:
    """A change source that says what a test tells it."""

    def __init__(self) -> None:
        self.head: str | None = "c1"
        self.dirty: set[str] = set()
        self.between: set[str] = set()
        self.asked: list[str] = []

    def status(self, paths: Sequence[str]) -> tuple[str | None, set[str]] | None:
        self.asked.append("status")
        return self.head, set(self.dirty)

    def changed_between(self, old: str, new: str, paths: Sequence[str]) -> set[str] | None:
        self.asked.append(f"diff {old} {new}")
        return set(self.between)

    def untracked(self, paths: Sequence[str]) -> Iterable[str]:
        self.asked.append("untracked")
        return ()


def strength(insight: Insight) -> float:
    return insight.confidence


def synced(cache: Cache) -> Cache:
    cache.sync()
    return cache


def test_the_cache_reads_a_store_it_is_handed_without_any_file(tmp_path: Path) -> None:
    files = MemoryFiles()
    files.put("insights/skill/i1.md", make(1))
    files.put("insights/skill/i2.md", make(2, tags=("git", "Rebase")))
    files.put("archive/skill/i3.md", make(3, archived=True))
    cache = synced(Cache(tmp_path, strength, files))
    try:
        assert not (tmp_path / "insights").exists()  # nothing of it is on disk
        assert [i.id for i in cache.select()] == ["i2", "i1"]
        assert cache.get("i2") == make(2, tags=("git", "Rebase"))
        assert [i.id for i in cache.select(Filters(archived=True))] == ["i3"]
        assert [i.id for i in cache.select(Filters(tags=("rebase",)))] == ["i2"]
        matches = cache.search('"rebasing"', (1.0,) * 6, 5)
        assert {m.insight.id for m in matches} == {"i1", "i2"}
        assert cache.counts() == ({"skill": 2}, pytest.approx(0.515), 1)
        assert sorted(files.loads) == sorted(files.held)
    finally:
        cache.close()


def test_same_words_finds_claims_of_no_ascii_term_and_only_those(tmp_path: Path) -> None:
    """The look-up of an exact duplicate of a claim with no ASCII term (door): by its
    words in any script, among the claims with no ASCII term either, so that "Do it"
    does not read every claim that says "do it" among other words."""
    files = MemoryFiles()
    claims = ["Do it", "Do it now, carefully", "Проверяй тесты", "проверяй тесты и код"]
    for number, claim in enumerate(claims, 1):
        files.put(f"insights/skill/i{number}.md", make(number, claim=claim))
    cache = synced(Cache(tmp_path, strength, files))
    try:

        def ids(claim: str) -> list[str]:
            return [i.id for i in cache.select(rowids=set(cache.same_words(claim)))]

        assert ids("do IT!") == ["i1"]
        assert sorted(ids("ПРОВЕРЯЙ тесты.")) == ["i3", "i4"]  # candidates: exact_key decides
        assert cache.same_words("🙂") == []
    finally:
        cache.close()


def test_an_answer_is_remembered_until_the_content_changes_in_any_process(
    tmp_path: Path,
) -> None:
    """Cache.remembered: the MCP server answers a repeated query without searching
    again, and searches again once the cache's content changed, whoever changed it."""
    from chitin.index.cache import REMEMBERED_ANSWERS

    files = MemoryFiles()
    files.put("insights/skill/i1.md", make(1))
    cache, other = synced(Cache(tmp_path, strength, files)), Cache(tmp_path, strength, files)
    found: list[str] = []

    def search() -> list[str]:
        found.append("searched")
        return [m.insight.id for m in cache.search('"rebasing"', (1.0,) * 6, 5)]

    try:
        assert cache.remembered("q", search) == cache.remembered("q", search) == ["i1"]
        assert len(found) == 1
        files.put("insights/skill/i2.md", make(2))
        other.sync()  # another process's cache, on the same file
        assert sorted(cache.remembered("q", search)) == ["i1", "i2"] and len(found) == 2
        other.sync()  # nothing changed: the same generation, the answer still holds
        cache.remembered("q", search)
        assert len(found) == 2
        with cache.batch():  # mid-transaction the generation may not say what changed
            cache.remembered("q", search)
        assert len(found) == 3
        for key in range(REMEMBERED_ANSWERS):  # the oldest answer makes room
            cache.remembered(key, lambda: [])
        cache.remembered("q", search)
        assert len(found) == 4
    finally:
        cache.close()
        other.close()


def test_a_change_in_the_loader_is_seen_and_only_it_is_read_again(tmp_path: Path) -> None:
    files = MemoryFiles()
    for number in (1, 2, 3):
        files.put(f"insights/skill/i{number}.md", make(number))
    synced(Cache(tmp_path, strength, files)).close()
    files.loads.clear()
    files.put("insights/skill/i2.md", make(2, claim="Changed by hand"))
    files.remove("insights/skill/i3.md")
    files.put("insights/skill/i4.md", ValidationError("claim", "claim must not be empty"))
    cache = synced(Cache(tmp_path, strength, files))
    try:
        assert sorted(files.loads) == ["insights/skill/i2.md", "insights/skill/i4.md"]
        got = cache.get("i2")
        assert got is not None and got.claim == "Changed by hand"
        assert cache.get("i3") is None
        assert [(p.path, "claim" in p.error) for p in cache.problems()] == [
            ("insights/skill/i4.md", True)
        ]
    finally:
        cache.close()


def test_above_the_walk_limit_the_change_source_says_what_to_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("chitin.index.cache.WALK_LIMIT", 0)
    files, git = MemoryFiles(), MemoryGit()
    files.put("insights/skill/i1.md", make(1))
    files.put("insights/skill/i2.md", make(2))
    synced(Cache(tmp_path, strength, files, git)).close()  # a full walk, then git's state
    assert git.asked == ["status", "untracked"]
    # A commit changed i1 in place: no folder changed, git names it.
    files.put("insights/skill/i1.md", make(1, claim="Pulled from elsewhere"))
    git.head, git.between = "c2", {"insights/skill/i1.md"}
    files.loads.clear()
    git.asked.clear()
    cache = synced(Cache(tmp_path, strength, files, git))
    try:
        assert git.asked == ["status", "diff c1 c2"]
        assert files.loads == ["insights/skill/i1.md"]
        got = cache.get("i1")
        assert got is not None and got.claim == "Pulled from elsewhere"
        assert cache.may_differ_from_head(["insights/skill/i1.md"]) == []
    finally:
        cache.close()


def test_a_read_of_one_file_is_vouched_for_by_its_stat_without_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``get`` reads one file: above the walk limit, one stat of it and of each folder
    stand in for the sync's `git status` (Cache.vouch); any change there, and the
    sync runs after all."""
    monkeypatch.setattr("chitin.index.cache.WALK_LIMIT", 0)
    files, git = MemoryFiles(), MemoryGit()
    files.put("insights/skill/i1.md", make(1))
    files.put("insights/skill/i2.md", make(2))
    synced(Cache(tmp_path, strength, files, git)).close()
    git.asked.clear()
    cache = Cache(tmp_path, strength, files, git)
    try:
        assert cache.vouch(["insights/skill/i1.md"]) and not cache.synced
        assert git.asked == [] and files.loads == ["insights/skill/i1.md", "insights/skill/i2.md"]
        assert not cache.vouch([])  # nothing to vouch for: a sync must say
    finally:
        cache.close()
    files.put("insights/skill/i1.md", make(1, claim="Edited by hand"))
    git.dirty = {"insights/skill/i1.md"}
    cache = Cache(tmp_path, strength, files, git)
    try:
        assert not cache.vouch(["insights/skill/i1.md"])
        got = synced(cache).get("i1")
        assert got is not None and got.claim == "Edited by hand"
        assert git.asked == ["status"] and cache.vouch(["insights/skill/i1.md"])
    finally:
        cache.close()
    files.put("insights/team/i3.md", make(3))  # a new folder: the listing changed
    cache = Cache(tmp_path, strength, files, git)
    try:
        assert not cache.vouch(["insights/skill/i2.md"])
    finally:
        cache.close()


def test_a_listing_reads_only_what_it_shows_and_shows_the_same(tmp_path: Path) -> None:
    """`list` selects only the fields its lines show (Queries.select, ``listed``): the
    long ones stay unread, and the lines are those of the whole insights."""
    from chitin.render import text

    files = MemoryFiles()
    long = {"reasoning": "why " * 50, "context": "where", "limitations": "not on main"}
    files.put("insights/skill/i1.md", make(1, source="a session", **long))
    files.put("insights/trigger/i2.md", make(2, type="trigger", condition="rebasing", avoid=True))
    files.put("insights/skill/i3.md", make(3, tags=("git", "ci"), reinforcements=2))
    cache = synced(Cache(tmp_path, strength, files))
    try:
        whole, listed = cache.select(), cache.select(listed=True)
        assert [i.id for i in listed] == [i.id for i in whole] == ["i3", "i2", "i1"]
        assert listed[2].reasoning is None and listed[2].source is None
        unread = {"reasoning": None, "context": None, "limitations": None, "source": None}
        assert listed == [i._replace(**unread) for i in whole]
        assert text.insight_list(listed, False) == text.insight_list(whole, False)
    finally:
        cache.close()


def test_a_row_holds_every_field_of_an_insight_and_gives_it_back(tmp_path: Path) -> None:
    from chitin.index.rows import INSIGHT_COLUMNS, row_values, to_insight

    full = make(
        1,
        type="trigger",
        tags=("a", "b c"),
        provenance="observed",
        source="a session",
        condition="when rebasing",
        avoid=True,
        reinforcements=3,
        last_reinforced="2026-11-20T12:00:00Z",
        reasoning="because",
        context="git",
        limitations="not on main",
        archived=True,
        carapace_id="c-1",
    )
    assert INSIGHT_COLUMNS.split(", ") == list(Insight._fields)
    assert to_insight(row_values(full)) == full
    cache = Cache(tmp_path, strength, MemoryFiles())
    try:
        columns = [row[1] for row in cache.db.execute("PRAGMA table_info(entries)")]
        start = columns.index("error") + 1
        assert columns[start : start + len(Insight._fields)] == list(Insight._fields)
    finally:
        cache.close()


def imported_modules(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


@pytest.mark.parametrize(
    "module", ["cache", "sync", "changes", "rows", "queries", "fulltext", "sources"]
)
def test_the_cache_imports_nothing_of_the_store(module: str) -> None:
    imported = imported_modules(INDEX / f"{module}.py")
    # changes.mark_by_git still clears .chitin/'s own mark with store.files (not yet handed in).
    allowed = {"chitin.store"} if module == "changes" else set()
    assert {m for m in imported if m.startswith("chitin.store")} <= allowed


def test_no_index_module_reads_insight_files_or_runs_git() -> None:
    for path in INDEX.glob("*.py"):
        imported = imported_modules(path)
        assert not imported & {
            "chitin.store.repository",
            "chitin.store.loading",
            "chitin.store.git",
        }, path.name
        text = path.read_text()
        assert not re.search(r"\bload_insight\b|(?<![.\w])files\.walk\(", text), path.name


@pytest.mark.parametrize("module", ["cache", "sync", "changes", "rows", "queries", "fulltext"])
def test_the_cache_modules_are_at_most_400_lines(module: str) -> None:
    assert len((INDEX / f"{module}.py").read_text().splitlines()) <= 400


def test_the_racy_window_is_defined_once() -> None:
    definitions = [
        path
        for path in (ROOT / "chitin").rglob("*.py")
        if re.search(r"^RACY_WINDOW_NS\s*=", path.read_text(), re.MULTILINE)
    ]
    assert [p.relative_to(ROOT).as_posix() for p in definitions] == ["chitin/format/layout.py"]


def _written_ago(files: MemoryFiles, path: str, ago_ns: int, whole_ms: bool = False) -> None:
    """``path``'s stat as if it was written ``ago_ns`` before now (a new stat each time)."""
    files.tick += 1
    mtime = time.time_ns() - ago_ns
    mtime = mtime - mtime % 1_000_000 if whole_ms else mtime - mtime % 1_000 + 1  # (not whole)
    files.stats[path] = (mtime, mtime, 100 + files.tick, files.tick)


@pytest.mark.parametrize(
    ("ago_ms", "whole_ms", "read_again"),
    [(200, False, False), (10, False, True), (200, True, True), (2500, True, False)],
)
def test_a_file_recorded_just_after_its_change_is_read_again_only_while_racy(
    tmp_path: Path, ago_ms: int, whole_ms: bool, read_again: bool
) -> None:
    """Fine timestamps are trusted 50 ms after the change, whole milliseconds (a file
    system of coarse timestamps) only after 2 s: the next sync reads such a file again."""
    files = MemoryFiles()
    files.put("insights/skill/i1.md", make(1))
    files.held["insights/skill/i2.md"] = make(2)
    _written_ago(files, "insights/skill/i2.md", ago_ms * 1_000_000, whole_ms)
    synced(Cache(tmp_path, strength, files)).close()
    files.loads.clear()
    synced(Cache(tmp_path, strength, files)).close()
    assert files.loads == (["insights/skill/i2.md"] if read_again else [])


def test_the_racy_windows() -> None:
    now = 10_000_000_000_000
    assert racily_recent(now - 49_000_001, now)  # fine: within 50 ms
    assert not racily_recent(now - 50_000_001, now)
    assert racily_recent(now - 1_000_000_000, now)  # whole milliseconds: within 2 s
    assert not racily_recent(now - 2_001_000_000, now)
