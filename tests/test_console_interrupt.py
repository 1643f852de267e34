"""A Ctrl-C between the console's loading and the CLI's own handling of it (the entry
of the click group's ``main``, before ``cli/outcome.conclude``) printed Python's
traceback and ended by the signal (stress48: SIGINTs sent 40-120 ms into fresh
contributes, the front off, 1 to 4 in 150). No command has begun there."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import chitin_program

# The signal as it lands at the group's entry, in a whole process: run_command ends the
# process (process.leave), so it cannot run in the test's own.
AT_THE_ENTRY = """
import sys
from chitin.cli.group import ChitinGroup
def interrupted(*args, **kwargs):
    raise KeyboardInterrupt
ChitinGroup.main = interrupted
from chitin.console import run_command
run_command(sys.argv[1:])
"""


def test_a_ctrl_c_at_the_cli_entry_says_nothing_was_changed(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHITIN_")}
    env.update(HOME=str(tmp_path), CHITIN_FRONT="0", CHITIN_BACKGROUND_EMBED="off")
    env.update(GIT_CONFIG_GLOBAL=str(tmp_path / "gitconfig"), GIT_CONFIG_NOSYSTEM="1")
    (tmp_path / "gitconfig").write_text("[user]\n\tname = t\n\temail = t@example.org\n")
    store = tmp_path / "store"
    chitin = [sys.executable, "-m", "chitin", "--store", str(store)]
    subprocess.run([*chitin, "init"], env=env, check=True, capture_output=True)
    head = subprocess.run(["git", "-C", str(store), "rev-parse", "HEAD"], capture_output=True)
    claim = ["contribute", "--type", "skill", "--claim", "Say so when nothing began"]
    result = subprocess.run(
        [sys.executable, "-c", AT_THE_ENTRY, "--store", str(store), *claim],
        env=env,
        capture_output=True,
        text=True,
    )
    assert (result.returncode, result.stderr) == (130, "Interrupted: nothing was changed.\n")
    after = subprocess.run(["git", "-C", str(store), "rev-parse", "HEAD"], capture_output=True)
    assert after.stdout == head.stdout
    assert subprocess.run(["git", "-C", str(store), "status", "--porcelain"],
                          capture_output=True).stdout == b""  # fmt: skip


# A sitecustomize that sends the process a real SIGINT as chitin.front starts loading:
# within the console's imports, before its main, where a Ctrl-C printed a traceback.
AT_THE_IMPORTS = """
import os, signal, sys

class Interrupting:
    def find_spec(self, name, path=None, target=None):
        if name == "chitin.front":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, Interrupting())
"""


def _environment(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHITIN_")}
    env.update(HOME=str(tmp_path), CHITIN_FRONT="0", CHITIN_BACKGROUND_EMBED="off")
    env.update(GIT_CONFIG_GLOBAL=str(tmp_path / "gitconfig"), GIT_CONFIG_NOSYSTEM="1")
    (tmp_path / "gitconfig").write_text("[user]\n\tname = t\n\temail = t@example.org\n")
    return env


def test_a_ctrl_c_while_the_console_loads_says_nothing_was_changed(tmp_path: Path) -> None:
    """fix110: a Ctrl-C during the console's own imports (before main) printed Python's
    traceback; the console now takes it from its first statement, in one line."""
    env = _environment(tmp_path)
    (tmp_path / "hook").mkdir()
    (tmp_path / "hook" / "sitecustomize.py").write_text(AT_THE_IMPORTS)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path / "hook"), env.get("PYTHONPATH", "")])
    store = str(tmp_path / "store")
    for program in ([sys.executable, "-m", "chitin"], [chitin_program()]):
        result = subprocess.run(
            [*program, "--store", store, "list"], env=env, capture_output=True, text=True
        )
        assert (result.returncode, result.stderr) == (130, "Interrupted: nothing was changed.\n")
    # a program that imports the console is left Python's handler
    imported = "import signal, chitin.console; print(signal.getsignal(signal.SIGINT).__name__)"
    plain = _environment(tmp_path)
    shown = subprocess.run([sys.executable, "-c", imported], env=plain, capture_output=True)
    assert shown.stdout.decode().strip() == "default_int_handler"


def test_a_ctrl_c_at_any_moment_of_the_start_shows_no_traceback_of_chitin(
    tmp_path: Path,
) -> None:
    """SIGINT sent to the real console script at several delays: whatever the moment,
    the process completes, says "Interrupted: …" (exit 130), or dies before chitin's
    first line runs (the interpreter's start, the launcher's own imports, the package's
    few lines: outside what chitin can take). A traceback never passes through
    chitin's code."""
    env = _environment(tmp_path)
    store = str(tmp_path / "store")
    subprocess.run([chitin_program(), "--store", store, "init"], env=env, check=True,
                   capture_output=True)  # fmt: skip
    for delay in (0.0, 0.005, 0.01, 0.015, 0.02, 0.03, 0.05, 0.08, 0.12):
        started = subprocess.Popen(
            [chitin_program(), "--store", store, "list"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        time.sleep(delay)
        started.send_signal(signal.SIGINT)
        said = started.communicate()[1].decode()
        if "Interrupted" in said:
            assert started.returncode == 130, said
        elif "Traceback" in said:
            # the package's own first lines run before any handler can be set: a
            # frame of chitin/__init__.py at module level is the start, not chitin's code
            start = f'{os.sep}chitin{os.sep}__init__.py", line '
            inside = [
                line
                for line in said.splitlines()
                if f"{os.sep}chitin{os.sep}" in line
                and not (start in line and line.endswith(", in <module>"))
            ]
            assert inside == [], said


# The number of read(2) on the machines CI runs: /proc/PID/syscall names it first.
READ = {"x86_64": "0", "aarch64": "63"}


def _interrupted_reading_stdin(tmp_path: Path, stderr: int) -> subprocess.Popen[bytes]:
    """`contribute --json` sent a real SIGINT once it waits for its stdin (no time
    guessed: /proc says the process is in read(2) of fd 0)."""
    if os.uname().machine not in READ or not Path("/proc/self/syscall").exists():
        pytest.skip("needs Linux's /proc/PID/syscall on x86_64 or aarch64")
    env = _environment(tmp_path)
    store = str(tmp_path / "store")
    subprocess.run([chitin_program(), "--store", store, "init"], env=env, check=True,
                   capture_output=True)  # fmt: skip
    started = subprocess.Popen(
        [chitin_program(), "--store", store, "contribute", "--json"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
    )
    syscall = Path(f"/proc/{started.pid}/syscall")
    while syscall.read_text().split()[:2] != [READ[os.uname().machine], "0x0"]:
        assert started.poll() is None, "ended before it read its stdin"
        time.sleep(0.01)
    started.send_signal(signal.SIGINT)
    return started


def test_a_ctrl_c_during_a_command_is_one_line_with_no_blank_line_above(
    tmp_path: Path,
) -> None:
    """fix120: click's main writes an empty line to stderr for a KeyboardInterrupt (to
    close a terminal's "^C" echo) before chitin's "Interrupted: …" line: a log or a
    pipe got a blank line first."""
    started = _interrupted_reading_stdin(tmp_path, subprocess.PIPE)
    said = started.communicate()[1].decode()
    assert (started.returncode, said) == (130, "Interrupted: nothing was changed.\n")


def test_on_a_terminal_the_line_starts_below_the_echoed_ctrl_c(tmp_path: Path) -> None:
    """A terminal echoes Ctrl-C as "^C" with no newline: there, and only there, the
    line begins on a line of its own."""
    import pty

    main, side = pty.openpty()
    try:
        started = _interrupted_reading_stdin(tmp_path, side)
        os.close(side)
        started.communicate()
        said = _read_all(main)
    finally:
        os.close(main)
    assert (started.returncode, said) == (130, b"\r\nInterrupted: nothing was changed.\r\n")


# A sitecustomize that sends the process a real SIGINT as the module named below starts
# loading: chitin.front within the console's own imports (its loading handler), or
# chitin.cli once main runs and the front is off (console._not_begun).
AS_IT_LOADS = """
import os, signal, sys

class Interrupting:
    def find_spec(self, name, path=None, target=None):
        if name == {module!r}:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, Interrupting())
"""


@pytest.mark.parametrize("module", ["chitin.front", "chitin.cli"])
def test_a_ctrl_c_before_the_command_begins_starts_below_the_echo_on_a_terminal(
    tmp_path: Path, module: str
) -> None:
    """fix123: the line said for a Ctrl-C before the command began (while the console
    loads, or the CLI does) lacked the newline a terminal's echoed "^C" needs, which a
    Ctrl-C during the command got (fix120): "^CInterrupted: …" on one line."""
    import pty

    env = _environment(tmp_path)
    (tmp_path / "hook").mkdir()
    (tmp_path / "hook" / "sitecustomize.py").write_text(AS_IT_LOADS.format(module=module))
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path / "hook"), env.get("PYTHONPATH", "")])
    claim = ["contribute", "--type", "skill", "--claim", "Say so below the echo"]
    main, side = pty.openpty()
    try:
        started = subprocess.Popen(
            [chitin_program(), "--store", str(tmp_path / "store"), *claim],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=side,
        )
        os.close(side)
        started.wait()
        said = _read_all(main)
    finally:
        os.close(main)
    assert (started.returncode, said) == (130, b"\r\nInterrupted: nothing was changed.\r\n")
    piped = subprocess.run(
        [chitin_program(), "--store", str(tmp_path / "store"), *claim],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
    )
    assert (piped.returncode, piped.stderr) == (130, b"Interrupted: nothing was changed.\n")


def _read_all(terminal: int) -> bytes:
    """All a pseudo-terminal's side gave, once nothing holds its other side."""
    said = b""
    with contextlib.suppress(OSError):  # EIO: the terminal's last reader is gone
        while chunk := os.read(terminal, 1024):
            said += chunk
    return said
