"""Reading is safe: links, FIFOs, huge files and YAML bombs under insights/ and archive/
are skipped with a warning and reported by `check`; nothing hangs, nothing is served
from outside the store, and no parse costs more than a bounded time and memory.

The cases that could hang or eat the machine on a broken reader run chitin in a
process of its own, with a timeout and a limit on its memory, so that they fail
instead of blocking the suite.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import Run, git

from chitin.format.frontmatter import read_frontmatter
from chitin.format.layout import MAX_INSIGHT_BYTES, MAX_MESSAGE
from chitin.store import files

OUTSIDE_CLAIM = "Zanzibar quokkas whisper outside the store"
# Enough for git, Python and chitin's reading commands; far below what a bomb costs.
MEMORY_LIMIT = 1 << 30
# A hang guard, not a timing assertion: a healthy command takes a second or two.
HANG_GUARD = 120

_RUN_CHITIN = """
import sys
import chitin.index.cache as cache
if sys.argv[1] == "git status":
    cache.WALK_LIMIT = 0  # as in a large store: git says what may have changed
sys.argv = ["chitin", *sys.argv[2:]]
from chitin.cli import main
main()
"""


@pytest.fixture(params=["stat walk", "git status"])
def sync_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test twice: small stores stat every file; above WALK_LIMIT files git says
    what may have changed. Both must skip what they must not read."""
    if request.param == "git status":
        monkeypatch.setattr("chitin.index.cache.WALK_LIMIT", 0)
    return str(request.param)


def chitin_process(
    mode: str, store: Path, *args: str, limit_memory: bool = True
) -> subprocess.CompletedProcess[str]:
    """chitin in a process of its own, in the sync ``mode``, that cannot hang the suite
    (a timeout fails the test) nor take the machine's memory."""

    def limits() -> None:
        if limit_memory:
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    return subprocess.run(
        [sys.executable, "-c", _RUN_CHITIN, mode, "--store", str(store), *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        preexec_fn=limits if sys.platform != "win32" else None,
    )


def insight_text(insight_id: str, claim: str, extra: str = "", kind: str = "skill") -> str:
    return f"---\nid: {insight_id}\ntype: {kind}\nconfidence: 0.7\n{extra}---\n\n{claim}\n"


@pytest.fixture
def seeded(run: Run, store: Path) -> Path:
    run("init")
    run("contribute", "--type", "skill", "--claim", "Run the tests", "--confidence", "0.8")
    return store


def ids(run: Run, *args: str) -> list[str]:
    return [item["id"] for item in json.loads(run(*args, "--format", "json").stdout)]


def one_id(run: Run) -> str:
    return ids(run, "list")[0]


# ---------------------------------------------------------------- symbolic links


@pytest.mark.parametrize("top", ["insights", "archive"])
def test_a_link_to_a_file_outside_the_store_is_never_served(
    run: Run, seeded: Path, tmp_path: Path, sync_mode: str, top: str
) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text(insight_text("outside", OUTSIDE_CLAIM, "tags:\n- quokka\n"))
    (seeded / top / "skill").mkdir(parents=True, exist_ok=True)
    link = seeded / top / "skill" / "outside.md"
    link.symlink_to(outside)
    relative = f"{top}/skill/outside.md"
    warning = f"warning: skipped {relative}: a symbolic link, which chitin does not follow"

    listed = run("list", "--format", "json", *(["--archived"] if top == "archive" else []))
    assert "outside" not in listed.stdout and warning in listed.stderr
    assert OUTSIDE_CLAIM not in run("export", "--skip-unreadable").stdout
    refused = run("get", "outside", expect=1).stderr  # named as there, but never read
    assert refused.startswith(f"Error: {relative} exists but cannot be read: a symbolic link")
    assert OUTSIDE_CLAIM not in refused
    for command in (
        ["retrieve", "--query", "Zanzibar quokkas whisper"],
        ["render", "--query", "Zanzibar quokkas whisper"],
        ["similar", "Zanzibar quokkas whisper outside"],
        ["quality"],
        ["stats"],
        ["diff"],
    ):
        result = run(*command)
        assert OUTSIDE_CLAIM not in result.stdout and "outside.md" not in result.stdout, command
        assert relative in result.stderr, command
    assert "quokka" not in run("list", "--tags", "quokka").stdout

    checked = run("check", expect=1)
    assert (
        f"{relative}: file: a symbolic link, which chitin does not follow (it could lead out "
        "of the store); fix: put the file itself there instead, or remove the link"
    ) in checked.stdout
    assert "outside.md does not match" not in checked.stdout  # the target was not read
    focused = CliRunnerInStore(seeded).check(relative)
    assert focused.returncode == 1 and relative in focused.stdout
    link.unlink()
    assert relative not in run("list").stderr
    assert run("check").exit_code == 0


class CliRunnerInStore:
    """``chitin check FILE`` as pre-commit runs it: in the store, with relative paths."""

    def __init__(self, store: Path) -> None:
        self.store = store

    def check(self, *paths: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "chitin", "check", *paths],
            cwd=self.store,
            capture_output=True,
            text=True,
            timeout=HANG_GUARD,
        )


def test_a_folder_replaced_by_a_link_is_not_read_through(
    run: Run, seeded: Path, tmp_path: Path, sync_mode: str
) -> None:
    """A folder git knows, replaced by a link to a folder outside after a commit that
    touched its files: the files git names in it are not read through the link,
    whichever way the cache learns of them."""
    team = seeded / "insights" / "team"
    team.mkdir()
    shared = team / "shared.md"
    shared.write_text(insight_text("shared", "A claim the team shares"))
    commit = ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm"]
    git(seeded, "add", "insights/team")
    git(seeded, *commit, "team")
    assert "shared" in ids(run, "list")
    shared.write_text(insight_text("shared", "A claim the team changed"))
    git(seeded, *commit, "changed", "insights/team/shared.md")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "shared.md").write_text(insight_text("shared", OUTSIDE_CLAIM))
    shared.unlink()
    team.rmdir()
    team.symlink_to(elsewhere, target_is_directory=True)
    listed = run("list")
    assert "Zanzibar" not in listed.stdout and "shared" not in listed.stdout
    assert "warning: skipped insights/team: a symbolic link" in listed.stderr
    assert "Zanzibar" not in run("diff", "HEAD~1").stdout


def test_a_link_loop_breaks_no_command(
    run: Run, seeded: Path, tmp_path: Path, sync_mode: str
) -> None:
    loop = seeded / "insights" / "skill" / "loop"
    loop.symlink_to("..", target_is_directory=True)
    (seeded / "archive").mkdir(exist_ok=True)
    (seeded / "archive" / "self.md").symlink_to("self.md")  # a link to itself
    kept = one_id(run)
    warning = "warning: skipped insights/skill/loop: a symbolic link"
    for command in (
        ["list"],
        ["get", kept],
        ["stats"],
        ["retrieve", "--query", "tests commit"],
        ["render"],
        ["export", "--skip-unreadable"],
        ["quality"],
        ["similar", "Run the tests"],
        ["history", kept],
        ["changelog"],
        ["diff"],
        ["reinforce", kept],
        ["update", kept, "--tags", "testing"],
        ["contribute", "--type", "principle", "--claim", "Loops end", "--confidence", "0.6"],
    ):
        result = run(*command)
        assert "archive/self.md" in result.stderr, command
        if command != ["diff"]:  # which names only the insight files that differ
            assert warning in result.stderr, command
            assert "archive/self.md: a symbolic link" in result.stderr, command
    assert ids(run, "list") == [ids(run, "list")[0], kept]  # the new one, then the old
    checked = run("check", expect=1)
    assert "insights/skill/loop: file: a symbolic link" in checked.stdout
    assert "archive/self.md: file: a symbolic link" in checked.stdout
    assert "✗ 2 errors" in checked.stdout
    done = chitin_process(sync_mode, seeded, "list")  # and in a process of its own
    assert done.returncode == 0 and warning in done.stderr


def test_a_linked_top_folder_is_not_followed(
    run: Run, seeded: Path, tmp_path: Path, sync_mode: str
) -> None:
    elsewhere = tmp_path / "elsewhere" / "skill"
    elsewhere.mkdir(parents=True)
    (elsewhere / "far.md").write_text(insight_text("far", OUTSIDE_CLAIM))
    (seeded / "archive").symlink_to(elsewhere.parent, target_is_directory=True)
    listed = run("list", "--archived", "--format", "json")
    assert "far" not in listed.stdout
    assert "archive/ is a symbolic link, which chitin does not follow" in listed.stderr
    assert OUTSIDE_CLAIM not in run("export", "--skip-unreadable").stdout
    checked = run("check", expect=1)
    assert checked.stdout.startswith("archive/: file: is a symbolic link")


# ---------------------------------------------------------------- FIFOs and other kinds


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are a POSIX thing")
@pytest.mark.parametrize("mode", ["stat walk", "git status"])
def test_a_fifo_named_like_an_insight_never_hangs_a_command(
    run: Run, seeded: Path, mode: str
) -> None:
    run("list")  # the cache knows the store, and in git mode what git said
    chitin_process(mode, seeded, "list")
    fifo = seeded / "insights" / "skill" / "x.md"
    os.mkfifo(fifo)
    warning = "warning: skipped insights/skill/x.md: a named pipe (FIFO), not a regular file"
    for command in (
        ["list"],
        ["retrieve", "--query", "tests"],
        ["export", "--skip-unreadable"],
        ["diff"],
    ):
        done = chitin_process(mode, seeded, *command)
        assert done.returncode == 0, (command, done.stderr)
        assert warning in done.stderr or command == ["diff"], command  # git lists no FIFO
    checked = chitin_process(mode, seeded, "check")
    assert checked.returncode == 1
    assert "insights/skill/x.md: file: a named pipe (FIFO), not a regular file" in checked.stdout


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are a POSIX thing")
def test_a_fifo_swapped_in_after_the_lstat_is_not_waited_for(tmp_path: Path) -> None:
    """The race: the reader's lstat sees a regular file, then a FIFO is there. The open
    (O_NONBLOCK) does not wait for a writer, and the open file is checked again."""
    script = """
import os, sys
from pathlib import Path
from chitin.store import files
fifo = Path(sys.argv[1])
regular = os.lstat(sys.argv[2])
real_lstat = os.lstat
os.lstat = lambda path, *a, **k: regular if str(path) == str(fifo) else real_lstat(path, *a, **k)
try:
    files.read_file(fifo)
except files.UnsafeFile as error:
    print(error)
"""
    fifo, regular = tmp_path / "x.md", tmp_path / "regular.md"
    os.mkfifo(fifo)
    regular.write_text("---\n")
    done = subprocess.run(
        [sys.executable, "-c", script, str(fifo), str(regular)],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )
    assert done.stdout.strip() == "a named pipe (FIFO), not a regular file", done.stderr


def test_a_link_swapped_in_after_the_lstat_is_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text(insight_text("outside", OUTSIDE_CLAIM))
    link = tmp_path / "o.md"
    link.symlink_to(outside)
    regular = os.stat(outside)
    real_lstat = os.lstat
    monkeypatch.setattr(
        os, "lstat", lambda path, *a, **k: regular if str(path) == str(link) else real_lstat(path)
    )
    with pytest.raises(OSError):  # O_NOFOLLOW: ELOOP, never the outside file's bytes
        files.read_file(link)


# ---------------------------------------------------------------- size


def test_a_file_larger_than_the_limit_is_reported_and_not_parsed(
    run: Run, seeded: Path, sync_mode: str
) -> None:
    big = seeded / "insights" / "skill" / "big.md"
    big.write_text(insight_text("big", "A big claim " + "word " * 400_000))  # ~2 MB
    assert big.stat().st_size > 2_000_000
    listed = run("list", "--format", "json")
    assert "big" not in [item["id"] for item in json.loads(listed.stdout)]
    size = f"{big.stat().st_size:,}"
    assert (
        f"warning: skipped insights/skill/big.md: {size} bytes, more than an insight file "
        f"may hold ({MAX_INSIGHT_BYTES:,}), so it is not read"
    ) in listed.stderr
    assert run("get", "big", expect=1).exit_code == 1
    checked = run("check", expect=1)
    assert f"insights/skill/big.md: file: {size} bytes, more than" in checked.stdout
    assert max(len(line) for line in checked.stdout.splitlines()) < 400
    # At the limit, a file is still an insight.
    head = insight_text("big", "A big claim")
    big.write_text(head + "x" * (MAX_INSIGHT_BYTES - len(head.encode())))
    assert big.stat().st_size == MAX_INSIGHT_BYTES
    assert "big" in ids(run, "list")


def test_a_huge_file_is_never_read_whole(run: Run, seeded: Path) -> None:
    """A 4 GB (sparse) file: reading it whole would take more memory than the command
    is allowed, and much longer than the hang guard."""
    huge = seeded / "insights" / "skill" / "huge.md"
    with open(huge, "wb") as handle:
        handle.write(insight_text("huge", "A huge claim").encode())
        handle.truncate(4 << 30)
    for mode in ("stat walk", "git status"):
        done = chitin_process(mode, seeded, "list")
        assert done.returncode == 0, done.stderr
        assert "skipped insights/skill/huge.md: 4,294,967,296 bytes" in done.stderr
    checked = chitin_process("stat walk", seeded, "check")
    assert checked.returncode == 1 and "huge.md: file: 4,294,967,296 bytes" in checked.stdout


def test_a_committed_file_larger_than_the_limit_is_not_parsed_from_git(
    run: Run, seeded: Path
) -> None:
    big = seeded / "insights" / "skill" / "big.md"
    big.write_text(insight_text("big", "A big claim " + "word " * 400_000))
    git(seeded, "add", "insights/skill/big.md")
    git(seeded, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "big")
    assert "big" not in run("changelog", "--format", "json").stdout
    diffed = run("diff", "HEAD~1")
    assert "A big claim" not in diffed.stdout
    assert "insights/skill/big.md" in diffed.stderr and "more than an insight file" in diffed.stderr


# ---------------------------------------------------------------- YAML


def billion_laughs(insight_id: str = "bomb") -> str:
    """Nine levels of nine aliases: 387 million strings from ~900 bytes."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    previous = "a"
    for name in "bcdefghi":
        lines.append(f"{name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]")
        previous = name
    lines.append(f"tags: *{previous}")
    return insight_text(insight_id, "A claim with a bomb in it", "\n".join(lines) + "\n")


def test_a_yaml_bomb_fails_fast_and_small(run: Run, seeded: Path) -> None:
    bomb = seeded / "insights" / "skill" / "bomb.md"
    bomb.write_text(billion_laughs())
    warning = (
        "warning: skipped insights/skill/bomb.md: frontmatter YAML does not parse (line 5): "
        "an anchor (&name) is not allowed; write each value out in full"
    )
    for mode in ("stat walk", "git status"):
        done = chitin_process(mode, seeded, "list")
        assert done.returncode == 0, done.stderr[-2000:]
        assert warning in done.stderr
    checked = chitin_process("stat walk", seeded, "check")
    assert checked.returncode == 1
    assert "insights/skill/bomb.md: frontmatter: frontmatter YAML does not parse" in checked.stdout
    assert max(len(line) for line in checked.stdout.splitlines()) < 400
    # Committed, it is read from git by history, changelog and diff: bounded there too.
    git(seeded, "add", "insights/skill/bomb.md")
    git(seeded, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "bomb")
    for command in (["history", "bomb"], ["changelog"], ["diff", "HEAD~1"]):
        done = chitin_process("stat walk", seeded, *command)
        assert "MemoryError" not in done.stderr and "internal" not in done.stderr, command
        assert done.returncode in (0, 1), (command, done.stderr[-2000:])


def test_the_merge_driver_bounds_a_bomb_and_a_huge_version(tmp_path: Path) -> None:
    base, ours, theirs = (tmp_path / name for name in ("base", "ours", "theirs"))
    original = insight_text("ask-first", "Ask before deleting files")
    base.write_text(original)
    ours.write_text(original.replace("confidence: 0.7", "confidence: 0.8"))
    theirs.write_text(billion_laughs("ask-first"))
    path = "insights/skill/ask-first.md"
    done = chitin_process(
        "stat walk", tmp_path, "merge-driver", *map(str, (base, ours, theirs)), path
    )
    assert "MemoryError" not in done.stderr and done.returncode in (0, 1), done.stderr[-2000:]
    assert len(ours.read_bytes()) < 10_000  # merged by lines, the aliases never expanded

    ours.write_text(original.replace("confidence: 0.7", "confidence: 0.8"))
    theirs.write_text(insight_text("ask-first", "Ask " + "word " * 400_000))
    before = ours.read_text()
    done = chitin_process(
        "stat walk", tmp_path, "merge-driver", *map(str, (base, ours, theirs)), path
    )
    assert done.returncode == 1
    assert done.stderr.startswith(
        f"chitin: {path}: a version is {theirs.stat().st_size:,} bytes, more than an insight "
        "file may hold"
    )
    assert ours.read_text() == before  # left for a person to resolve


def test_an_alias_in_otherwise_valid_frontmatter_is_a_problem_of_that_file(
    run: Run, seeded: Path, sync_mode: str
) -> None:
    aliased = seeded / "insights" / "skill" / "aliased.md"
    aliased.write_text(
        insight_text("aliased", "A claim with shared tags", "source: &who Ana\ntags: [*who]\n")
    )
    fine = seeded / "insights" / "skill" / "ampersand.md"  # & and * in text are no alias
    fine.write_text(
        insight_text("ampersand", "R&D *matters*", 'source: "R&D *team*"\ntags: [r&d, a*b]\n')
    )
    canonical = seeded / "insights" / "skill" / "plain.md"
    canonical.write_text(insight_text("plain", "Plain text", "source: R&D team\n"))
    listed = run("list", "--format", "json")
    found = {item["id"]: item for item in json.loads(listed.stdout)}
    assert "aliased" not in found
    assert found["ampersand"]["source"] == "R&D *team*"
    assert found["ampersand"]["tags"] == ["r&d", "a*b"]
    assert found["plain"]["source"] == "R&D team"
    assert (
        "warning: skipped insights/skill/aliased.md: frontmatter YAML does not parse (line 5): "
        "an anchor (&name) is not allowed; write each value out in full"
    ) in listed.stderr
    checked = run("check", expect=1)
    assert (
        "insights/skill/aliased.md: frontmatter: frontmatter YAML does not parse (line 5): "
        "an anchor (&name) is not allowed; write each value out in full; "
        "fix: correct the YAML between the two '---' lines"
    ) in checked.stdout
    assert "ampersand" not in checked.stdout and "plain" not in checked.stdout


@pytest.mark.parametrize(
    "front, problem",
    [
        ("a: &x 1\nb: *x\n", "an anchor (&name) is not allowed"),
        ("a: [1, 2]\nb: *x\n", "an alias (*name) is not allowed"),
        ("<<: &base {a: 1}\n", "an anchor (&name) is not allowed"),
        ("created: 2026-13-45\n", "holds a value out of range: month must be in 1..12"),
        ("big: " + "9" * 5000 + "\n", "holds a value out of range: Exceeds the limit"),
        ("deep: " + "[" * 990 + "]" * 990 + "\n", "is nested too deeply to read"),  # Python's
        ("deep: " + "[" * 100_000 + "]" * 100_000 + "\n", "is nested too deeply to read (line"),
    ],
)
def test_frontmatter_yaml_that_cannot_be_held_is_a_validation_error(
    front: str, problem: str
) -> None:
    from chitin.errors import ValidationError

    with pytest.raises(ValidationError, match=r"^frontmatter YAML ") as raised:
        read_frontmatter(front)
    assert problem in str(raised.value) and len(str(raised.value)) <= MAX_MESSAGE


def test_check_and_the_warnings_never_print_a_giant_line(
    run: Run, seeded: Path, sync_mode: str
) -> None:
    """A value as long as the file is quoted in a few hundred characters at most."""
    long = seeded / "insights" / "skill" / "long.md"
    long.write_text(insight_text("long", "A claim", f"tags: [{{a: {'x' * 900_000}}}]\n"))
    listed = run("list")
    assert "skipped insights/skill/long.md: " in listed.stderr
    assert max(len(line) for line in listed.stderr.splitlines()) < 400
    checked = run("check", "--format", "json", expect=1)
    (error,) = json.loads(checked.stdout)["errors"]
    assert error["path"] == "insights/skill/long.md" and error["message"].endswith("…")
    assert len(error["message"]) <= MAX_MESSAGE
    human = run("check", expect=1)
    assert max(len(line) for line in human.stdout.splitlines()) < 400


def test_a_config_with_aliases_is_refused(run: Run, seeded: Path) -> None:
    """chitin.yaml is committed and shared by sync: a pulled one is read as safely."""
    (seeded / "chitin.yaml").write_text("a: &a [1, 2]\nb: [*a, *a]\n")
    result = run("contribute", "--type", "skill", "--claim", "New", "--confidence", "0.5", expect=1)
    assert result.stderr.startswith(
        "Error: chitin.yaml: file: does not parse (line 1): an anchor (&name) is not allowed"
    )


def test_a_config_nested_too_deeply_is_refused_in_one_line(run: Run, seeded: Path) -> None:
    """PyYAML recursed once per [ (a RecursionError: "a value out of range")."""
    (seeded / "chitin.yaml").write_text("retrieve: " + "[" * 990 + "]" * 990 + "\n")
    result = run("contribute", "--type", "skill", "--claim", "New", "--confidence", "0.5", expect=1)
    # every write refuses the file with check's own line (fix112)
    said = "chitin.yaml: file: is nested too deeply to read; fix: correct the YAML"
    assert result.stderr == f"Error: {said}\n"
    checked = run("check", expect=1)
    assert said in checked.stdout


def test_a_file_that_grows_while_read_is_read_to_the_limit_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fstat said 3 bytes, and the file holds more: it is read on, never past the limit."""
    grown = tmp_path / "grown.md"
    grown.write_bytes(b"0123456789")
    for name in ("lstat", "fstat"):
        real = getattr(os, name)

        def stale(what: Any, real: Any = real) -> os.stat_result:
            found = list(real(what))
            found[6] = 3  # st_size
            return os.stat_result(found)

        monkeypatch.setattr(os, name, stale)
    assert files.read_file(grown, limit=10) == b"0123456789"
    with pytest.raises(files.UnsafeFile, match="more than an insight file may hold"):
        files.read_file(grown, limit=5)
