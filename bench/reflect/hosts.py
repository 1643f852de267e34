"""Driving the real hosts against a loopback model, for bench/reflect/ and the tests
that run Claude Code and OpenClaw (tests/test_mcp_hosts.py, test_openclaw_host.py,
test_reflect_hosts.py import it from here, issue 29): the pinned installs, a loopback
server's lifetime, a Claude Code session fed one user message at a time, and OpenClaw
turns against a provider on 127.0.0.1.

Nothing here asserts: failures are exceptions, which a test shows and a script ends on.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[2]
Server = TypeVar("Server", bound=ThreadingHTTPServer)
# The loopback model's provider, as OpenClaw's config names one (api: Anthropic's).
SCRIPTED = {"id": "scripted", "name": "Scripted", "reasoning": False, "input": ["text"],
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
            "contextWindow": 200000, "maxTokens": 4096}  # fmt: skip


class Missing(Exception):
    """A pinned host could not be installed (no network, say): the message says why."""


def installed(script: str, env: Mapping[str, str]) -> Path:
    """The cache folder that ``scripts/<script>`` fills with a pinned host (installed
    once; later runs reuse the folder): the last line it prints."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / script)],
        capture_output=True, text=True, env=dict(env), timeout=1200,
    )  # fmt: skip
    if done.returncode != 0:
        raise Missing(f"{script} failed: {done.stderr.strip()[-800:]}")
    return Path(done.stdout.strip().splitlines()[-1])


@contextmanager
def serving(server: Server) -> Iterator[Server]:
    """``server`` answering on its own thread until the block ends."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def claude_session(
    claude: Path, script: Sequence[Mapping[str, Any]], session: str, env: Mapping[str, str],
    cwd: Path,
) -> None:  # fmt: skip
    """One Claude Code session (``-p`` with stream-json input), each user message of
    ``script`` sent after the last turn's result, as a person types."""
    args = [str(claude), "-p", "--input-format", "stream-json", "--output-format", "stream-json",
            "--verbose", "--session-id", session, "--allowedTools", "Bash"]  # fmt: skip
    process = subprocess.Popen(
        args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=dict(env), cwd=cwd
    )
    assert process.stdin is not None and process.stdout is not None
    for exchange in script:
        said = {"type": "user", "message": {"role": "user", "content": exchange["user"]}}
        process.stdin.write(json.dumps(said) + "\n")
        process.stdin.flush()
        for line in process.stdout:
            if '"type":"result"' in line:
                break
    process.stdin.close()
    code = process.wait(timeout=120)
    process.stdout.close()
    if code != 0:
        raise RuntimeError(f"Claude Code exited with {code}")


def claude_env(home: Path, url: str, path: str) -> dict[str, str]:
    """Claude Code's environment against the loopback model: no other traffic."""
    return {"PATH": path, "HOME": str(home), "ANTHROPIC_BASE_URL": url,
            "ANTHROPIC_API_KEY": "sk-loopback", "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}  # fmt: skip


def openclaw_config(config: dict[str, Any], url: str, workspace: Path) -> dict[str, Any]:
    """``config`` (OpenClaw's openclaw.json) with the loopback model as the default
    agent's model, and ``workspace`` as its workspace."""
    provider = {"baseUrl": url, "apiKey": "sk-loopback", "api": "anthropic-messages",
                "models": [SCRIPTED]}  # fmt: skip
    config["models"] = {"mode": "merge", "providers": {"loop": provider}}
    config["agents"] = {"defaults": {"model": {"primary": "loop/scripted"},
                                     "workspace": str(workspace)}}  # fmt: skip
    return config


def openclaw_turns(
    node: Path, package: Path, script: Sequence[Mapping[str, Any]], session: str,
    env: Mapping[str, str], cwd: Path, timeout: float = 300,
) -> None:  # fmt: skip
    """Each user message of ``script`` an ``openclaw agent --local`` turn of one
    session of the agent ``main`` (OpenClaw starts afresh for each; ``timeout``
    seconds a turn)."""
    for exchange in script:
        done = subprocess.run(
            openclaw_turn(node, package, exchange["user"], session),
            capture_output=True, text=True, env=dict(env), cwd=cwd, timeout=timeout,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"openclaw failed: {done.stdout[-1500:]}{done.stderr[-1500:]}")


def openclaw_turn(node: Path, package: Path, said: str, session: str) -> list[str]:
    """The command of one ``openclaw agent --local`` turn, its answer as JSON."""
    return [str(node), str(package / "openclaw.mjs"), "agent", "--local", "-m", said,
            "--session-id", session, "--agent", "main", "--json"]  # fmt: skip


def installed_for_tests(script: str, env: Mapping[str, str]) -> Path:
    """``installed``, for a test fixture: without the host (no network), a developer's
    run skips the tests that need it, saying why; CI's fails."""
    import pytest  # only the tests' fixtures come here

    try:
        return installed(script, env)
    except Missing as missing:
        if env.get("CI"):
            pytest.fail(str(missing))
        pytest.skip(str(missing))
