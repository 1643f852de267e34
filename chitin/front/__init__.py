"""The resident CLI front's client: the start of every ``chitin`` process (console
``main``), which hands the command to a worker forked from a process that has chitin
already imported, and ends as that worker ends (docs/design.md §9j says why and how).

One front runs per user and key (``front_key``: this protocol, chitin's version, the
interpreter, its flags and path, the ``PYTHON*`` variables, and the signature of every
``.py`` file of the package, so that an edit is never served stale). The client sends
its argv, cwd, environment, umask and the parameters of its stdio, with its fds 0, 1
and 2 (SCM_RIGHTS); the front forks a worker that takes them on and runs what console
``main`` runs. It is never needed: no socket, a refused or slow connection, another key
or owner, an answer it cannot read before the worker started, and the client runs the
command itself, silently, and starts a front for the next process. Once the worker
started, the command is never run twice: a front lost then ends the client with exit
1 and one line. ``CHITIN_FRONT=0`` (or ``CHITIN_RESIDENT=0``) turns it off.

Framing, both ways: 4 bytes of big-endian length, then ``marshal`` data (both ends are
the same interpreter, which the key says; and the same user, which SO_PEERCRED says).
The client's imports are the interpreter's own built-in modules only: it costs a few
milliseconds on top of Python's start (docs/design.md §9j).
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # not signal.py: its enums cost ~1 ms
import _socket
import io
import marshal
import os
import struct
import sys
import time
from _blake2 import blake2b

from chitin import __version__
from chitin.residency import (
    ON,
    at_socket,
    failed_lately,
    held,
    idle_seconds,
    peer_uid,
    private,
    receive_exactly,
    switched_off,
    user_folder_name,
)

TYPE_CHECKING = False  # not typing's: the console script's start imports no typing (~3 ms)
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

PROTOCOL = 1
SWITCH = "CHITIN_FRONT"  # 0/off: never; 1/on: even where CHITIN_RESIDENT is off
RESIDENT_SWITCH = "CHITIN_RESIDENT"  # off: the front too, unless CHITIN_FRONT is on
IDLE = "CHITIN_FRONT_IDLE"  # seconds without a command before it exits
IDLE_SECONDS = 600.0
CONNECT_SECONDS = 0.5  # for the connection and the front's acknowledgement
FAILED_PAUSE = 600.0  # seconds after a front failed to start before another tries
MAX_FRAME = 16 << 20  # bytes: an environment and an argv fit many times over
FORWARDED = (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP, _signal.SIGQUIT)
PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOST = "chitin: the resident front ended while it ran the command; its outcome is unknown\n"

# In-process, always: a command that may prompt on the terminal (git's credential or ssh
# prompts open /dev/tty, which a worker of the front has none of). A word anywhere in
# argv: a false positive only costs speed.
# And the background embedding (a detached process of its own, for minutes: nothing to
# gain, and a front of its own for its cwd).
IN_PROCESS_WORDS = frozenset(
    {"sync", "push", "pull", "clone", "fetch", "remote", "--remote", "--background-worker"}
)
# With a terminal on stdin, only these run in a worker: they never read stdin.
TERMINAL_SAFE = frozenset(
    {"get", "list", "stats", "similar", "retrieve", "render", "embed-status", "quality",
     "quality:score", "export", "where", "history", "check", "--version", "-V", "--help",
     "-h", "contribute", "reinforce", "archive", "log", "diff"}
)  # fmt: skip


class Front:
    """Where this installation's front answers, and what it needs to start."""

    def __init__(self, folder: str, key: str, idle: float) -> None:
        self.folder = folder
        self.key = key
        self.idle = idle
        stem = os.path.join(folder, f"front-{key}")
        self.socket, self.lock, self.failed = stem + ".sock", stem + ".lock", stem + ".failed"


def settings(env: Mapping[str, str]) -> Front | None:
    """The front for this environment, or None where it is turned off."""
    chosen = (env.get(SWITCH) or "").strip().lower()
    if switched_off(chosen) or (chosen not in ON and switched_off(env.get(RESIDENT_SWITCH))):
        return None
    if sys.platform != "linux" or not hasattr(os, "pidfd_open"):
        return None  # the worker's supervision needs pidfds and SO_PEERCRED
    return Front(user_folder_name(env), front_key(env), idle_seconds(env.get(IDLE), IDLE_SECONDS))


def front_key(env: Mapping[str, str]) -> str:
    """What a front must share with its client to run its command as the client would."""
    python = sorted((name, value) for name, value in env.items() if name.startswith("PYTHON"))
    made = repr(
        (PROTOCOL, __version__, sys.executable, sys.prefix, sys.version, tuple(sys.flags),
         sorted(sys._xoptions.items()), sys.path, python, source_signature(PACKAGE))
    )  # fmt: skip
    return _digest(made.encode("utf-8", "surrogatepass"))


def source_signature(package: str) -> list[tuple[str, int, int]]:
    """Every file of the package (its modules, and the tables the front reads ahead),
    with its mtime and size: an edit (an editable install), a file added or removed, or
    a reinstall gives another key. ~220 stats: well under a millisecond."""
    found: list[tuple[str, int, int]] = []
    folders = [package]
    while folders:
        with os.scandir(folders.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        folders.append(entry.path)
                else:
                    seen = entry.stat(follow_symlinks=False)
                    found.append((entry.path, seen.st_mtime_ns, seen.st_size))
    return sorted(found)


def _digest(data: bytes) -> str:
    # The interpreter's own BLAKE2: hashlib's OpenSSL costs ~3 ms to load.
    return blake2b(data, digest_size=8).hexdigest()


def console_script(main: object) -> bool:
    """Whether the ``__main__`` module is the ``chitin`` program (its console script, or
    ``python -m chitin``), not another program that calls console ``main`` after
    changing what it imported (a test's patch, a wrapper): a worker would run the
    front's modules instead."""
    spec = getattr(main, "__spec__", None)
    if spec is not None:
        return getattr(spec, "name", None) == "chitin.__main__"
    return os.path.basename(getattr(main, "__file__", None) or "") == "chitin"


def runs_in_process(argv: Sequence[str], stdin_is_terminal: bool) -> bool:
    """Whether the command must run in the client's own process (see above)."""
    if any(word in IN_PROCESS_WORDS or _names_own_descriptor(word) for word in argv):
        return True
    if not stdin_is_terminal:
        return False
    words = [word for word in argv if not word.startswith("--store")]
    return not words or words[0] not in TERMINAL_SAFE or "-" in words


def _names_own_descriptor(word: str) -> bool:
    """Whether ``word`` (or an option's value after "=") is a path to one of the
    client's descriptors past stdio (`import <(chitin export)`: /dev/fd/63), which a
    worker is not given: it has the client's stdin, stdout and stderr only."""
    value = word.partition("=")[2] if word.startswith("--") else word
    for prefix in ("/dev/fd/", "/proc/self/fd/"):
        if value.startswith(prefix):
            return value[len(prefix) :] not in ("0", "1", "2")
    return False


# ------------------------------------------------------------------ framing


def send_frame(sock: Any, message: Any, fds: Sequence[int] = ()) -> None:
    data = marshal.dumps(message)
    data = len(data).to_bytes(4, "big") + data
    if fds:
        rights = [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, struct.pack(f"{len(fds)}i", *fds))]
        sent = sock.sendmsg([data], rights)
        data = data[sent:]
    if data:
        sock.sendall(data)


def receive_frame(sock: Any, deadline: float | None) -> dict[str, Any]:
    size = int.from_bytes(receive_exactly(sock, 4, deadline), "big")
    if size > MAX_FRAME:
        raise ValueError("a frame too large")
    found = marshal.loads(receive_exactly(sock, size, deadline))
    if not isinstance(found, dict):
        raise ValueError("a frame that is not a dict")
    return found


# ------------------------------------------------------------------ the client


def attempt(argv: Sequence[str], env: Mapping[str, str]) -> None:
    """Run ``chitin <argv>`` in a worker of the front, and end this process as the
    worker ended. Returns when the front cannot take it: the caller runs it."""
    streams = (sys.stdin, sys.stdout, sys.stderr)
    if not all(isinstance(stream, io.TextIOWrapper) for stream in streams):
        return  # a stream closed (no fd to pass) or replaced: the command runs here
    if not console_script(sys.modules.get("__main__")) or runs_in_process(argv, os.isatty(0)):
        return
    front = settings(env)  # the key: ~1 ms, only when a front may serve
    if front is None:
        return
    sock = _connect(front)
    if sock is None:
        start(front)
        return
    pending: list[int] = []
    previous = {number: _signal.signal(number, _keep(pending)) for number in FORWARDED}
    if not _started(sock, front.key):
        sock.close()
        for number, handler in previous.items():
            _signal.signal(number, handler)
        for waiting in pending:  # came while it asked: now for the command run here
            _signal.raise_signal(waiting)
        start(front)
        return
    _forward(sock, pending)
    _end_as(_outcome(sock))


def _connect(front: Front) -> Any | None:
    if not private(front.folder, False):
        return None
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_SECONDS)
        at_socket(front.socket, sock.connect)
        if peer_uid(sock) not in (None, os.getuid()):
            raise ValueError("another user's socket")
    except (OSError, ValueError):
        sock.close()
        return None
    return sock


def _started(sock: Any, key: str) -> bool:
    """Send the command; True once the front says its worker started."""
    mask = os.umask(0o022)
    os.umask(mask)
    streams = [
        (s.encoding, s.errors, s.line_buffering, s.write_through, _unbuffered(s))
        for s in (sys.stdin, sys.stdout, sys.stderr)
        if isinstance(s, io.TextIOWrapper)  # so attempt saw
    ]
    try:
        request = {
            "protocol": PROTOCOL,
            "key": key,
            "argv": list(sys.argv),
            "cwd": os.getcwd(),
            "env": dict(os.environb),
            "umask": mask,
            "streams": streams,
        }
        send_frame(sock, request, (0, 1, 2))
        answer = receive_frame(sock, time.monotonic() + CONNECT_SECONDS)
        if answer.get("key") != key or not isinstance(answer.get("pid"), int):
            return False
        send_frame(sock, {"go": True})  # from here on, the worker's: never run here
    except (OSError, ValueError, EOFError, TypeError):
        return False
    return True


def _unbuffered(stream: Any) -> bool:
    """Whether Python's start-up gave the stream no buffer (``-u``, PYTHONUNBUFFERED)."""
    return type(getattr(stream, "buffer", None)).__name__ == "FileIO"


def _keep(pending: list[int]) -> Any:
    def keep(number: int, frame: object) -> None:
        pending.append(number)

    return keep


def _forward(sock: Any, pending: list[int]) -> None:
    """From now on a signal the client gets goes to the worker, by way of the front
    (which knows whether the worker still runs: no pid is reused under it)."""

    def forward(number: int, frame: object) -> None:
        try:  # noqa: SIM105 - no contextlib in the console script's start
            send_frame(sock, {"signal": number})
        except OSError:
            pass  # the front is gone: the outcome says so

    for number in FORWARDED:
        _signal.signal(number, forward)
    for waiting in pending:
        forward(waiting, None)


def _outcome(sock: Any) -> dict[str, Any] | None:
    sock.settimeout(None)
    try:
        return receive_frame(sock, None)
    except (OSError, ValueError, EOFError, TypeError):
        return None


def _end_as(outcome: dict[str, Any] | None) -> None:
    """End this process with the worker's exit status, or by its signal."""
    code, number = (outcome or {}).get("exit"), (outcome or {}).get("signal")
    if isinstance(number, int):
        for forwarded in FORWARDED:
            _signal.signal(forwarded, _signal.SIG_DFL)
        if number not in (_signal.SIGKILL, _signal.SIGSTOP):  # theirs cannot be set
            _signal.signal(number, _signal.SIG_DFL)
        os.kill(os.getpid(), number)
        time.sleep(1)  # a signal that does not end a process (SIGCHLD): exit as a shell says
        os._exit(128 + number)
    if not isinstance(code, int):
        os.write(2, LOST.encode())
        os._exit(1)
    os._exit(code)


# ------------------------------------------------------------------ starting


def start(front: Front) -> bool:
    """Start the front, detached (its own session, cwd /, stdio on /dev/null), unless
    one runs or is starting, or one failed to start lately. True if one was started."""
    if not private(front.folder, True) or held(front.lock):
        return False
    if failed_lately(front.failed, FAILED_PAUSE):
        return False
    argv = [sys.executable, *_interpreter_flags(), "-m", "chitin.front.server"]
    argv += ["--socket", front.socket, "--key", front.key, "--idle", repr(front.idle)]
    argv += ["--path", repr(sys.path)]
    try:
        child = os.fork()
    except OSError:
        return False
    if child == 0:  # pragma: no cover - the forked child, which execs or ends
        _detach_and_exec(argv, front_environment(os.environ))
    os.waitpid(child, 0)  # the middle process ends at once: no zombie left behind
    return True


# What Python's start-up puts in LC_CTYPE when it coerces the C locale (PEP 538).
COERCED_LOCALES = ("C.UTF-8", "C.utf8", "UTF-8")


def front_environment(env: Mapping[str, str]) -> dict[str, str]:
    """The environment to start the front with: the client's, less an LC_CTYPE that
    Python's start-up set itself. In a C locale (no LANG: cron, systemd, containers) it
    coerces the locale (PEP 538) and turns on its UTF-8 mode (PEP 540); a front started
    with the coerced LC_CTYPE starts in C.UTF-8 and keeps the mode off, so its flags,
    and its key, would differ from its client's, and it would never serve. The worker
    takes the client's environment whole (worker.py), LC_CTYPE included."""
    found = dict(env)
    asked = "utf8" in sys._xoptions or "PYTHONUTF8" in found
    if sys.flags.utf8_mode and not asked and found.get("LC_CTYPE") in COERCED_LOCALES:
        del found["LC_CTYPE"]
    return found


def _detach_and_exec(argv: list[str], env: dict[str, str]) -> None:  # pragma: no cover
    try:
        os.setsid()
        if os.fork() == 0:
            os.chdir("/")
            null = os.open(os.devnull, os.O_RDWR)
            for target in (0, 1, 2):
                os.dup2(null, target)
            # Nothing else the client inherited (a harness's pipe, a `3>` redirection):
            # the front, its spares and workers would hold it for as long as they live.
            os.closerange(3, os.sysconf("SC_OPEN_MAX"))
            os.execve(argv[0], argv, env)
    finally:
        os._exit(0)


def _interpreter_flags() -> list[str]:
    """The flags this interpreter runs with, for the front to run with the same (the key
    holds them: a front with others would refuse to serve)."""
    import subprocess

    return list(subprocess._args_from_interpreter_flags())  # type: ignore[attr-defined]
