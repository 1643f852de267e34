"""CI keeps the core dumps of crashed test processes (.ci/run, .ci/cores.sh), and a run
without any is not failed by looking for them."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def shell(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", f"set -euo pipefail; . .ci/cores.sh; {script}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_ci_run_collects_cores_and_summarises_them_when_the_tests_fail() -> None:
    run = (ROOT / ".ci" / "run").read_text()
    assert ". .ci/cores.sh" in run and 'cores_start "$PWD/.ci/cores"' in run
    assert 'cores_summary "$PWD/.ci/cores" || true' in run and "PYTHONFAULTHANDLER=1" in run
    helpers = (ROOT / ".ci" / "cores.sh").read_text()
    assert "ulimit -c unlimited" in helpers and "core.%e.%p" in helpers and "gdb" in helpers


def test_no_cores_is_no_failure(tmp_path: Path) -> None:
    result = shell(f"cores_summary {tmp_path}")
    assert result.returncode == 0 and "no core dumps" in result.stdout


def test_a_core_is_named_with_its_backtrace_or_why_not(tmp_path: Path) -> None:
    (tmp_path / "core.python3.123").write_bytes(b"not really a core")
    result = shell(f"cores_summary {tmp_path}")
    assert result.returncode == 0, result.stderr
    assert f"crashed test process: {tmp_path}/core.python3.123" in result.stdout
