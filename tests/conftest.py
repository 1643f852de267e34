"""Shared fixtures. Nothing here, or in any test, may touch the real home directory,
the user's git configuration or the network."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from chitin.cli import cli
from chitin.providers.local import LocalProvider, TokenRows

_GIT_IDENTITY_VARS = (
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
    "EMAIL",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
)


def _front_folder() -> str | None:
    """With ``CHITIN_TEST_FRONT=1`` in the environment of pytest, the tests' chitin
    processes run through the resident front (chitin/front/), one shared by every test
    of the run in this folder; without, the front is off as the resident embedder is."""
    if os.environ.get("CHITIN_TEST_FRONT") != "1":
        return None
    return tempfile.mkdtemp(prefix="cf", dir="/tmp")  # mode 0700; a socket path is short


FRONT_FOLDER = _front_folder()

# The long-lived processes chitin starts for later commands (the CLI's front, the
# resident embedder): each idles for minutes after its last command.
SERVER_MODULES = ("chitin.front.server", "chitin.providers.resident_server")


def servers_under(folder: Path) -> list[int]:
    """The pids of chitin's servers whose socket lies under ``folder`` (a test's
    tmp_path): the ones that test started, since a socket's folder is the test's own."""
    proc = Path("/proc")
    if not proc.is_dir():  # no /proc to read (not Linux): nothing is found
        return []
    inside = str(folder.resolve()) + os.sep
    found = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            words = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:  # ended meanwhile, or not ours to read
            continue
        if not any(module in words for module in SERVER_MODULES) or "--socket" not in words:
            continue
        socket = words[words.index("--socket") + 1 : words.index("--socket") + 2]
        if socket and os.path.realpath(socket[0]).startswith(inside):
            found.append(int(entry.name))
    return found


def end_servers_under(folder: Path) -> list[int]:
    """End the servers of ``servers_under(folder)`` (SIGTERM, then SIGKILL after a few
    seconds) and return their pids: a test leaves no front idling behind the suite."""
    pids = servers_under(folder)
    for signum in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signum)
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline and any(_alive(pid) for pid in pids):
            time.sleep(0.05)
    return pids


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs: gone, or a zombie its parent has yet to reap (where
    the machine's init reaps slowly, or never), it does not."""
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


@pytest.fixture(autouse=True)
def tidy(tmp_path: Path) -> Iterator[None]:
    """After each test, end the servers it started (their sockets are in its tmp_path):
    each would idle for minutes after the suite, on a CI machine as on a laptop."""
    yield
    end_servers_under(tmp_path)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The front every test shared under CHITIN_TEST_FRONT=1 ends with the run."""
    if FRONT_FOLDER is not None:
        end_servers_under(Path(FRONT_FOLDER))


@pytest.fixture(scope="session")
def machine_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The user cache folder, shared by every test as by every store on a machine: the
    local model is prepared there once (90 MB, ~1 s), not once per test."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, machine_cache: Path) -> None:
    """A private home, an empty global git config (so: no git identity), no store set."""
    home = tmp_path / "home"
    home.mkdir()
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text("[init]\n\tdefaultBranch = main\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(machine_cache))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in ("CHITIN_STORE", "CHITIN_AGENT", *_GIT_IDENTITY_VARS):
        monkeypatch.delenv(name, raising=False)
    # No test leaves a detached embedding running behind it; the tests of the
    # background embedding turn it on for themselves.
    monkeypatch.setenv("CHITIN_BACKGROUND_EMBED", "off")
    # Nor a resident embedder (providers/resident.py): tests/test_resident.py starts
    # its own, in a folder of its own, and stops them.
    monkeypatch.setenv("CHITIN_RESIDENT", "off")
    # This user's folder of the moment (the resident's socket, the mark of commands a
    # background worker yields to, chitin/lockfile.py): the test's own, so that a
    # worker a test starts never waits for the commands of other tests or other runs.
    monkeypatch.setenv("CHITIN_RESIDENT_DIR", str(tmp_path / "run"))
    if FRONT_FOLDER is not None:  # CHITIN_TEST_FRONT=1: every chitin process through a front
        monkeypatch.setenv("CHITIN_FRONT", "on")
        monkeypatch.setenv("CHITIN_FRONT_IDLE", "20")
        monkeypatch.setenv("CHITIN_RESIDENT_DIR", FRONT_FOLDER)
    monkeypatch.setenv("CARAPACE_URL", "http://127.0.0.1:9/api/v1")  # refused: never the real one
    # Commands find the store you stand in (chitin/location.py): this source checkout
    # holds insights/ and .git, so tests stand in a folder of their own.
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return tmp_path / "store"


Run = Callable[..., Result]


@pytest.fixture
def run(store: Path) -> Run:
    """Invoke the CLI in-process against ``store``: run("list", "--type", "skill")."""

    def invoke(*args: str, input: str | None = None, expect: int | None = 0) -> Result:
        result = CliRunner().invoke(cli, ["--store", str(store), *args], input=input)
        if expect is not None:
            assert result.exit_code == expect, (
                f"exit {result.exit_code}, expected {expect}\n"
                f"stdout: {result.stdout}\nstderr: {result.stderr}\n{result.exception!r}"
            )
        return result

    return invoke


@pytest.fixture
def run_json(run: Run) -> Callable[..., Any]:
    def invoke(*args: str, input: str | None = None) -> Any:
        return json.loads(run(*args, "--format", "json", input=input).stdout)

    return invoke


@pytest.fixture
def add(run_json: Callable[..., Any]) -> Callable[..., dict[str, Any]]:
    """Contribute an insight and return its JSON: add("skill", "claim", 0.8, tags="a,b")."""

    def contribute(kind: str, claim: str, confidence: float = 0.8, **options: str) -> Any:
        args = ["contribute", "--type", kind, "--claim", claim, "--confidence", str(confidence)]
        for name, value in options.items():
            flag = "--" + name.replace("_", "-")
            args += [flag] if value is True else [flag, str(value)]
        return run_json(*args)["insight"]

    return contribute


def git(store: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(store), *args], capture_output=True, text=True, check=True
    ).stdout


def commit_count(store: Path) -> int:
    if not (store / ".git").exists():
        return 0
    result = subprocess.run(
        ["git", "-C", str(store), "rev-list", "--count", "HEAD"], capture_output=True, text=True
    )
    return int(result.stdout.strip() or 0) if result.returncode == 0 else 0


def chitin_program() -> str:
    """The installed ``chitin`` console script, for tests that run it as a process."""
    beside = Path(sys.executable).parent / "chitin"
    found = str(beside) if beside.exists() else shutil.which("chitin")
    if found is None:
        pytest.fail("the chitin console script is not installed (pip install -e .)")
    return found


def build_distribution(kind: str, folder: Path) -> Path:
    """This checkout's ``kind`` ("wheel" or "sdist"), built into ``folder`` by the build
    backend itself (hatchling; the caller skips where it is not installed)."""
    root = Path(__file__).resolve().parent.parent
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", kind, "-d", str(folder)],
        cwd=root,
        check=True,
        capture_output=True,
    )
    [built] = folder.glob("*.whl" if kind == "wheel" else "*.tar.gz")
    return built


# ── Carapace: the loopback test server (issue 12) ─────────────────────────────────
from carapace_server import CarapaceServer  # noqa: E402


@pytest.fixture
def carapace(monkeypatch: pytest.MonkeyPatch) -> Iterator[CarapaceServer]:
    """A running Carapace test server (tests/carapace_server.py), with $CARAPACE_URL
    pointing at it; stopped after the test."""
    with CarapaceServer() as server:
        monkeypatch.setenv("CARAPACE_URL", server.url)
        yield server


# ── end of Carapace ───────────────────────────────────────────────────────────────


# A client's first request to `chitin mcp`, as the MCP specification's handshake has it.
MCP_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


@pytest.fixture
def tokenized(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every text whose token vectors the local model is asked for (a spy on
    LocalProvider.tokens: the door's and check's alignment)."""
    texts: list[str] = []
    real = LocalProvider.tokens

    def spy(self: LocalProvider, batch: Sequence[str]) -> list[TokenRows]:
        texts.extend(batch)
        return real(self, batch)

    monkeypatch.setattr(LocalProvider, "tokens", spy)
    yield texts


@pytest.fixture
def embedded(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every text the local model is asked to embed (it still embeds them)."""
    texts: list[str] = []
    real = LocalProvider.embed

    def spy(self: LocalProvider, batch: Sequence[str], kind: str = "document") -> Any:
        texts.extend(batch)
        return real(self, batch, kind)

    monkeypatch.setattr(LocalProvider, "embed", spy)
    yield texts


def peer_pid(sock: Path) -> int | None:
    """The pid of the process answering at the Unix socket ``sock`` (the socket's
    credentials), None if none does; reached through a descriptor of its folder, as
    chitin reaches it, since a folder may be longer than a socket's path."""
    folder = os.open(sock.parent, os.O_PATH | os.O_DIRECTORY)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(f"/proc/self/fd/{folder}/{sock.name}")
            found = probe.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
        except OSError:
            return None
        finally:
            os.close(folder)
    return int.from_bytes(found[:4], "little")
