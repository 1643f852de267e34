"""A tiny MCP client for the benchmarks: raw JSON-RPC 2.0 over a child's stdin and stdout.

The SDK's own client would add its import time and its asyncio machinery to every
figure; this one writes one JSON object per line and timestamps each line of the
answer the moment it is read, in a reader thread, so that a round trip is measured
from the write of the request to the read of its response and nothing else.

Every stdout line is checked: it must be a JSON-RPC 2.0 message (a response with a
result or an error, a request, or a notification). Anything else is a *stray* line,
kept and counted (a server that prints to stdout outside the protocol breaks its
client). stderr is collected by a second thread, so that a chatty server never blocks.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The newest protocol revision reached by the ``initialize`` handshake in SDK 2.3.
PROTOCOL_VERSION = "2025-11-25"
CLIENT_INFO = {"name": "chitin-bench", "version": "1"}


class NoAnswer(Exception):
    """The server did not answer within the timeout, or closed stdout first."""


@dataclass
class Answer:
    """A response, with the moments of its request and its arrival (perf_counter)."""

    message: dict[str, Any]
    sent: float
    arrived: float

    @property
    def ms(self) -> float:
        return (self.arrived - self.sent) * 1000

    @property
    def error(self) -> str | None:
        """The JSON-RPC error, or a tool result's error text; None if it succeeded."""
        if "error" in self.message:
            return f"JSON-RPC error: {json.dumps(self.message['error'])[:300]}"
        result = self.message.get("result")
        if isinstance(result, dict) and result.get("isError"):
            texts = [c.get("text", "") for c in result.get("content", []) if isinstance(c, dict)]
            return f"tool error: {' | '.join(texts)[:300]}"
        return None

    @property
    def result(self) -> dict[str, Any]:
        result = self.message.get("result")
        return result if isinstance(result, dict) else {}

    @property
    def structured(self) -> dict[str, Any]:
        """A tool result's structured content (the CLI's JSON)."""
        value = self.result.get("structuredContent")
        return value if isinstance(value, dict) else {}


def is_message(line: bytes) -> bool:
    """Whether ``line`` is one JSON-RPC 2.0 message."""
    try:
        message = json.loads(line)
    except ValueError:
        return False
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return False
    if "method" in message:
        return isinstance(message["method"], str)
    return "id" in message and (("result" in message) != ("error" in message))


@dataclass
class Session:
    """One server process and the client's side of its pipes."""

    argv: Sequence[str]
    env: Mapping[str, str]
    started: float = 0.0
    process: subprocess.Popen[bytes] | None = None
    strays: list[bytes] = field(default_factory=list)
    stderr: list[bytes] = field(default_factory=list)
    others: list[dict[str, Any]] = field(default_factory=list)  # notifications, requests
    _lines: queue.Queue[tuple[float, bytes | None]] = field(default_factory=queue.Queue)
    _next_id: int = 0
    _threads: list[threading.Thread] = field(default_factory=list)

    def start(self, cwd: Path | None = None) -> Session:
        """Spawn the server in its own process group (so that what it leaves behind can
        be found by group, and no signal meant for the benchmark reaches it)."""
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            list(self.argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(self.env),
            cwd=cwd,
            start_new_session=True,
        )
        assert self.process.stdout is not None and self.process.stderr is not None
        stdout, stderr = self.process.stdout, self.process.stderr
        for target in (lambda: self._read(stdout), lambda: self._drain(stderr)):
            thread = threading.Thread(target=target, daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def _read(self, stream: Any) -> None:
        while True:
            line = stream.readline()
            now = time.perf_counter()
            if not line:
                self._lines.put((now, None))
                return
            self._lines.put((now, line))

    def _drain(self, stream: Any) -> None:
        for line in iter(stream.readline, b""):
            self.stderr.append(line)

    # -------------------------------------------------------------- messages

    def write(self, message: Mapping[str, Any]) -> float:
        """Send one message; the moment it was written."""
        assert self.process is not None and self.process.stdin is not None
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
        moment = time.perf_counter()
        self.process.stdin.write(data)
        self.process.stdin.flush()
        return moment

    def send(self, method: str, params: Mapping[str, Any] | None = None) -> tuple[int, float]:
        """Send a request without waiting; its id and the moment it was written."""
        self._next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None:
            message["params"] = dict(params)
        return self._next_id, self.write(message)

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = dict(params)
        self.write(message)

    def wait_for(self, ident: int, sent: float, timeout: float) -> Answer:
        """The response to request ``ident``; stray lines and other messages on the way
        are kept. NoAnswer after ``timeout`` seconds, or when stdout closes."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise NoAnswer(f"no answer to request {ident} within {timeout:.0f} s")
            try:
                arrived, line = self._lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                self._lines.put((arrived, None))  # stays closed for later waits
                raise NoAnswer(f"stdout closed before the answer to request {ident}")
            if not is_message(line):
                self.strays.append(line)
                continue
            message = json.loads(line)
            if "method" not in message and message.get("id") == ident:
                return Answer(message, sent, arrived)
            self.others.append(message)

    def request(
        self, method: str, params: Mapping[str, Any] | None = None, timeout: float = 60
    ) -> Answer:
        ident, sent = self.send(method, params)
        return self.wait_for(ident, sent, timeout)

    def initialize(self, timeout: float = 60) -> Answer:
        params = {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": CLIENT_INFO,
        }
        return self.request("initialize", params, timeout)

    def call(self, tool: str, arguments: Mapping[str, Any], timeout: float = 60) -> Answer:
        return self.request("tools/call", {"name": tool, "arguments": dict(arguments)}, timeout)

    # -------------------------------------------------------------- the end

    def close(self, timeout: float = 30) -> int | None:
        """Close stdin (how a client ends the session) and wait for the exit; the exit
        code, or None if the process was still running after ``timeout`` seconds."""
        assert self.process is not None and self.process.stdin is not None
        with contextlib.suppress(OSError):
            self.process.stdin.close()
        return self.wait(timeout)

    def wait(self, timeout: float) -> int | None:
        assert self.process is not None
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            return None
        for thread in self._threads:
            thread.join(timeout=5)
        self._drain_queue()
        return code

    def _drain_queue(self) -> None:
        """Judge the lines nobody waited for: they too must be JSON-RPC."""
        while True:
            try:
                _, line = self._lines.get_nowait()
            except queue.Empty:
                return
            if line is not None and not is_message(line):
                self.strays.append(line)

    def kill(self) -> None:
        """SIGKILL the server (only it, by its id) and reap it."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


# ------------------------------------------------------------------ processes


def group_members(group: int) -> list[int]:
    """Live processes in process group ``group`` (Linux /proc)."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
        fields = stat[stat.rindex(")") + 2 :].split()
        if len(fields) > 2 and int(fields[2]) == group and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def naming(text: str) -> list[int]:
    """Live processes whose command line holds ``text`` (a store path of this run)."""
    found: list[int] = []
    needle = text.encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text()
        except OSError:
            continue
        if needle in cmdline.replace(b"\0", b" ") and state[state.rindex(")") + 2] != "Z":
            found.append(int(entry.name))
    return found


def leftovers(group: int, path: str, grace: float = 3.0) -> list[int]:
    """Processes of the server's group, or naming its store, still alive ``grace``
    seconds after the server exited."""
    deadline = time.monotonic() + grace
    while True:
        alive = sorted(set(group_members(group)) | set(naming(path)))
        if not alive or time.monotonic() >= deadline:
            return alive
        time.sleep(0.05)


def python_of(program: str) -> str:
    """The interpreter a console script runs with (its ``#!`` line)."""
    with open(program, "rb") as handle:
        first = handle.readline().decode(errors="replace").strip()
    if not first.startswith("#!"):
        raise SystemExit(f"{program} has no #! line; pass the interpreter yourself")
    return first[2:].strip().split()[0]
