"""The background embedding: a detached ``chitin embed`` that a session start sets off.

It also prepares the local model for the machine (providers/prepared.py) when a session
start had to load it unprepared.

A store with more insights waiting for a vector than one session start may embed (an
import, a migration, a fresh clone) would otherwise be searched by text for ever, or
stall the session that embeds it. So the session is answered by text at once, and it
starts a separate process that embeds the rest; the next session is searched by
meaning too. The process:

- runs detached (its own session, no terminal, no pipes to the host that started the
  session start, so no host waits for it), at low priority;
- runs one at a time: it holds ``.chitin/vectors/background.lock`` for its whole life,
  and a second one finding it held exits at once;
- writes the sidecar under the sidecar's own lock, a chunk at a time, so a kill loses
  at most one chunk and never leaves a row the index trusts but nobody wrote;
- records how it ended in ``.chitin/vectors/background.json``. After a failure, session
  starts do not start it again for RETRY_AFTER seconds, and say why.

``embedding: {background: false}`` in chitin.yaml, or ``CHITIN_BACKGROUND_EMBED=off``
in the environment, turns it off; the session then says to run ``chitin embed``.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from chitin import quiet_start
from chitin.core.background_status import (
    STARTING,
    folder,
    read_status,
    starting,
    write_status,
)
from chitin.errors import ChitinError, ValidationError
from chitin.index.db import is_unwritable
from chitin.index.vectors import SidecarReplaced
from chitin.lockfile import commands_mark, try_lock, unlock
from chitin.model import arguments
from chitin.notices import notice
from chitin.resources import asset_path
from chitin.search import semantic

if TYPE_CHECKING:
    from chitin.core.embedding import Embedding
    from chitin.index.cache import Progress

LOCK_FILE = "background.lock"
LOG_FILE = "background.log"
RETRY_AFTER = 3600.0  # seconds between attempts after a failed background embedding
NICENESS = 10
AUTOGROUP = "/proc/self/autogroup"  # Linux: the nice of the session's scheduling group
AUTOGROUP_NICE = 19
OFF_WORDS = ("0", "off", "false", "no")
QUIET_SECONDS = quiet_start.QUIET_SECONDS  # no command for this long: the next chunk
MAX_WAIT = quiet_start.MAX_WAIT  # seconds: then a chunk anyway
ENVIRONMENT_SWITCH = "CHITIN_BACKGROUND_EMBED"


class Status(NamedTuple):
    """What a session start may say about the background embedding."""

    state: str  # "started", "running", "failed" or "off"
    detail: str | None = None  # the error of a failed run


class Prepared(NamedTuple):
    """What became of the vectors after a bulk write (import, migration, seeding)."""

    embedded: int  # embedded now, in the foreground
    background: Status | None  # or left to the background embedding
    error: str | None = None  # why neither happened


def waiting_note(
    root: Path, config: Mapping[str, Any], env: Mapping[str, str], count: int, now: float
) -> str:
    """What a session start answered by text says about the ``count`` insights that
    wait for a vector, having started the background embedding if it may."""
    if not enabled(config, env):
        return (
            f"{count} insight(s) have no vector yet and background embedding is off; "
            "ranked by text alone (run `chitin embed`)"
        )
    status = ensure_running(root, env, now)
    if status.state == "failed":
        return (
            f"the background embedding failed ({status.detail}); ranked by text alone "
            f"(run `chitin embed` to embed {count} insight(s))"
        )
    started = "started now" if status.state == "started" else "already running"
    return (
        f"semantic search is being prepared: {count} insight(s) are being embedded in the "
        f"background ({started}); ranked by text alone until then"
    )


def prepare_later(
    root: Path, config: Mapping[str, Any], env: Mapping[str, str], now: float
) -> None:
    """A session start met a new query before the local model was prepared for this
    machine (providers/prepared.py): have the background run prepare it (it embeds
    anything stale too), so that later session starts load it in a fraction of the
    time. Nothing is said: this session was answered in full."""
    if enabled(config, env):
        ensure_running(root, env, now)


class Embeds(Protocol):
    """What the worker asks of the opened store; ``chitin.Chitin`` is one."""

    @property
    def root(self) -> Path: ...

    def embed(self, *, progress: Progress | None = None) -> tuple[semantic.Semantic, int]: ...


def run_embed_worker(chitin: Embeds, env: Mapping[str, str] | None = None) -> int | None:
    """The background embedding itself (``chitin embed --background-worker``, run
    detached): every stale vector, at low priority, one run at a time, yielding to
    the user's commands in any store (``env`` finds the user's mark of them). Returns
    how many were embedded, or None if another run holds the lock."""
    opened = isinstance(getattr(chitin, "root", None), Path)
    if not opened or not callable(getattr(chitin, "embed", None)):
        raise ValidationError("chitin", f"chitin must be an opened store, got {chitin!r:.60}")
    env = None if env is None else arguments.environment(env)
    root = chitin.root
    with worker_lock(root) as mine:
        if not mine:
            return None
        priority = lower_priority()
        write_status(root, "running", started=time.time(), priority=priority)
        user = commands_mark(env) if env is not None else None
        try:
            wait_for_quiet(root, user=user)
            _, done = chitin.embed(progress=lambda _done, _total: _pause(root, user))
        except SidecarReplaced:
            return 0  # .chitin/ was deleted under us: whoever made it anew carries on
        except BaseException as error:
            write_status(root, "failed", finished=time.time(), error=str(error) or repr(error))
            raise
        write_status(root, "done", finished=time.time(), embedded=done, priority=priority)
        return done


def wait_for_quiet(
    root: Path, clock: Callable[[], float] = time.time, user: Path | None = None
) -> float:
    """Before each chunk of the embedding: while chitin commands run in this store
    (each touches the lock file, lockfile.note_command), or in any store of the
    user's (``user``, their mark), wait until none has for QUIET_SECONDS, and at most
    MAX_WAIT, so that the embedding still ends while commands never stop. Even at the
    lowest priority, a worker running beside them cost each ~15-30 ms (docs/design.md
    §9f; a contribute in another store, ~30 ms: §9g). Returns the seconds waited."""
    return quiet_start.wait_for_quiet(_marks(root, user), clock)


def _marks(root: Path, user: Path | None) -> list[str]:
    """The files whose mtime says when a chitin command last ran (``wait_for_quiet``)."""
    return [str(folder(root) / LOCK_FILE), *([str(user)] if user is not None else [])]


def _pause(root: Path, user: Path | None) -> None:
    wait_for_quiet(root, user=user)


def prepare_vectors(
    embedding: Embedding, env: Mapping[str, str], foreground: bool, progress: Progress | None = None
) -> Prepared:
    """After a bulk write, leave vectors behind. The starter insights' come with chitin.
    The rest are embedded now if someone watches a progress bar (``foreground``) or if
    they are few (what a retrieve would embed inline: left to it, ``embed-status``
    would say none were made); more go to the background embedding."""

    config = embedding.session.store.config()
    if semantic.choice(config).provider == semantic.NO_PROVIDER:
        return Prepared(0, None)
    try:
        adopted = embedding.adopt_vectors(packaged_vectors())
        count = embedding.unembedded()
        if count and (foreground or count <= semantic.INLINE_LIMIT):
            return Prepared(adopted + embedding.embed(progress=progress)[1], None)
    except Exception as error:  # vectors are derived: a full disk never fails the write
        if not isinstance(error, ChitinError) and not is_unwritable(error):
            raise
        return Prepared(0, None, getattr(error, "strerror", None) or str(error))
    if not count:
        return Prepared(adopted, None)
    if not enabled(config, env):
        return Prepared(adopted, Status("off"))
    return Prepared(adopted, ensure_running(embedding.session.root, env, time.time()))


SEED_VECTORS = "seed-vectors.json"


def packaged_vectors() -> dict[tuple[str, str, int], bytes]:
    """The starter insights' vectors that ship with chitin (scripts/seed_vectors.py makes
    them), keyed by (id, text hash, part); {} if the file is missing or unreadable."""

    import base64  # ~0.6 ms (binascii): a session start that adopts nothing needs none

    from chitin.providers import minilm

    try:
        data = json.loads(asset_path(SEED_VECTORS).read_text(encoding="utf-8"))
        if data.get("identity") != f"local:{minilm.MODEL}:{minilm.DIMENSIONS}":
            return {}
        rows = data["rows"]
        return {(r["id"], r["hash"], int(r["part"])): base64.b64decode(r["vector"]) for r in rows}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def enabled(config: Mapping[str, Any], env: Mapping[str, str]) -> bool:
    """Off with ``embedding: {background: false}`` (a value of another kind is said, and
    read as off: "false" is not on) or CHITIN_BACKGROUND_EMBED=off."""
    section = config.get("embedding")
    chosen = section.get("background", True) if isinstance(section, Mapping) else True
    if not isinstance(chosen, bool):
        notice(
            f"chitin.yaml: embedding.background must be true or false, got {chosen!r}; "
            "the background embedding is off (chitin check names it)"
        )
    if chosen is not True:
        return False
    return env.get(ENVIRONMENT_SWITCH, "").strip().lower() not in OFF_WORDS


def ensure_running(root: Path, env: Mapping[str, str], now: float) -> Status:
    """Start the background embedding unless one is running or still starting, or one
    failed lately."""
    if is_running(root):
        return Status("running")
    last = read_status(root)
    if starting(last, now):
        return Status("running")
    if last.get("state") == "failed" and now - float(last.get("finished") or 0) < RETRY_AFTER:
        return Status("failed", str(last.get("error") or "unknown error"))
    try:
        pid = spawn(root, env)
    except OSError as error:
        return Status("failed", f"cannot start it: {error.strerror or error}")
    write_status(root, STARTING, pid=pid, started=now)
    return Status("started")


def is_running(root: Path) -> bool:
    """Whether a background embedding holds the lock (a free lock means none is)."""
    path = folder(root) / LOCK_FILE
    if not path.is_file():
        return False
    try:
        with open(path, "rb") as handle:
            if try_lock(handle):
                unlock(handle)
                return False
    except OSError:
        return False
    return True


def spawn(root: Path, env: Mapping[str, str]) -> int:
    """Start ``chitin embed --background-worker`` detached, with this interpreter (so it
    is this chitin, whatever PATH says): a session of its own, stdin from /dev/null, and
    its output into a log in .chitin/, so that no pipe of the host stays open."""
    target = folder(root)
    target.mkdir(parents=True, exist_ok=True)
    (target / LOCK_FILE).touch()  # the mark the waiter watches: this command just ran
    argv = [sys.executable, "-m", "chitin", "--store", str(root.absolute()), "embed"]
    argv.append("--background-worker")
    # Through a lean waiter: the worker's own start-up waits for the commands to pause.
    user = commands_mark(env)
    argv = [sys.executable, "-m", "chitin.quiet_start", *_marks(root, user), "--", *argv]
    log = str(target / LOG_FILE)
    if hasattr(os, "posix_spawn"):
        # posix_spawn, not Popen: no Popen object to outlive (and warn about) a child
        # that is meant to outlive us, and no fork of a process that may hold threads.
        _reap()
        actions = [
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600),
            (os.POSIX_SPAWN_DUP2, 1, 2),
        ]
        # Its new session's scheduling group is lowered from here, at once: lowered by
        # the worker itself, its start-up (~0.2 s of CPU) ran at a full share beside
        # the command that started it (lower_priority says why the group matters).
        # (posix_spawn cannot make it SCHED_IDLE: glibc takes FIFO, RR or OTHER only.)
        pid = os.posix_spawn(sys.executable, argv, dict(env), file_actions=actions, setsid=True)
        _spawned.add(pid)
        _lower_group(f"/proc/{pid}/autogroup")
        return pid
    import subprocess

    with open(log, "ab") as output:  # Windows: a detached process of its own
        flags = getattr(subprocess, "DETACHED_PROCESS", 0) | getattr(
            subprocess, "CREATE_NEW_PROCESS_GROUP", 0
        )
        launched = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=output,
            env=dict(env),
            creationflags=flags,
            close_fds=True,
        )
    _launched.append(launched)
    return launched.pid


_spawned: set[int] = set()  # pids of background runs this process started
_launched: list[Any] = []  # Windows: the Popen objects, kept so they are never collected


def _reap() -> None:
    """Collect the background runs of ours that have ended (a long-lived process, such
    as a server, would otherwise keep them as zombies)."""
    for pid in list(_spawned):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _spawned.discard(pid)


@contextlib.contextmanager
def worker_lock(root: Path) -> Iterator[bool]:
    """Hold the background lock for the block; False (and nothing held) if another
    background embedding holds it."""
    target = folder(root)
    target.mkdir(parents=True, exist_ok=True)
    with open(target / LOCK_FILE, "a+b") as handle:
        if not try_lock(handle):
            yield False
            return
        try:
            yield True
        finally:
            unlock(handle)


def lower_priority() -> dict[str, Any]:
    """Leave the machine to the agent: the embedding may take minutes of CPU. Returns
    what was set (the status file records it).

    A nice value alone did not do it. The worker is a session of its own (``spawn``),
    and with Linux's autogroups (on here and on most desktops) every session is a group
    that the scheduler shares the CPU with fairly, whatever its processes' nice: the
    worker took a whole core of two, and every chitin command the agent ran meanwhile
    took ~60 ms longer at 10,000 insights (docs/design.md §9f). So the group's own
    nice goes to the lowest, and the process is scheduled as idle work (which also
    holds where sessions are not groups); the threads the model starts inherit both."""
    done: dict[str, Any] = {}
    with contextlib.suppress(OSError, AttributeError):
        done["nice"] = os.nice(NICENESS)
    with contextlib.suppress(OSError, AttributeError):
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        done["policy"] = "idle"
    if _leads_its_session() and _lower_group(AUTOGROUP):  # never a terminal's group
        done["autogroup_nice"] = AUTOGROUP_NICE
    return done


def _lower_group(path: str) -> bool:
    """Set the autogroup of ``path`` (/proc/<pid>/autogroup) to the lowest nice."""
    try:
        descriptor = os.open(path, os.O_WRONLY)
    except OSError:
        return False  # no autogroups here (another system, or turned off)
    try:
        os.write(descriptor, str(AUTOGROUP_NICE).encode())
    except OSError:
        return False
    finally:
        os.close(descriptor)
    return True


def _leads_its_session() -> bool:
    try:
        return os.getsid(0) == os.getpid()
    except (OSError, AttributeError):
        return False
