"""The installed ``chitin`` program, run as real processes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import commit_count, git

from chitin import __version__


def chitin_program() -> str:
    beside = Path(sys.executable).parent / "chitin"
    found = str(beside) if beside.exists() else shutil.which("chitin")
    if found is None:
        pytest.fail("the chitin console script is not installed (pip install -e .)")
    return found


def chitin(store: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [chitin_program(), "--store", str(store), *args], capture_output=True, text=True, timeout=60
    )
    if check:
        assert result.returncode == 0, result.stderr
    return result


def test_version_from_the_console_script_and_python_m() -> None:
    assert (
        subprocess.run([chitin_program(), "--version"], capture_output=True, text=True).stdout
        == f"{__version__}\n"
    )
    module = subprocess.run(
        [sys.executable, "-m", "chitin", "--version"], capture_output=True, text=True
    )
    assert module.stdout == f"{__version__}\n"


def test_the_readme_quick_start_works(store: Path) -> None:
    chitin(store, "init", "--seed")
    listing = chitin(store, "list").stdout
    assert listing.endswith("14 insight(s)\n")


def test_the_readme_usage_examples_run(store: Path, tmp_path: Path) -> None:
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    usage = readme.split("## Using it", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    script = tmp_path / "usage.sh"
    script.write_text("set -euo pipefail\n" + usage)
    env = {
        **os.environ,
        "CHITIN_STORE": str(store),
        "PATH": f"{Path(chitin_program()).parent}{os.pathsep}{os.environ['PATH']}",
    }
    result = subprocess.run(["bash", str(script)], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    assert commit_count(store) == 9  # init + 3 contributes + reinforce, update, merge, 2 moves
    assert "[merge]" in result.stdout and "1 similar insight(s)" not in result.stderr


def test_the_default_store_location_follows_xdg(tmp_path: Path) -> None:
    subprocess.run([chitin_program(), "init"], check=True, capture_output=True)
    assert (tmp_path / "home" / "data" / "chitin" / ".git").is_dir()


def test_a_broken_pipe_is_quiet(store: Path) -> None:
    chitin(store, "init", "--seed")
    pipeline = subprocess.run(
        f"'{chitin_program()}' --store '{store}' list | head -1",
        shell=True,
        capture_output=True,
        text=True,
    )
    assert pipeline.stderr == ""


def test_concurrent_writers_are_serialized_and_nothing_is_lost(store: Path) -> None:
    made = json.loads(
        chitin(
            store,
            "contribute",
            "--type",
            "skill",
            "--claim",
            "Shared insight",
            "--confidence",
            "0.5",
            "--format",
            "json",
        ).stdout
    )["insight"]
    before = commit_count(store)
    program = chitin_program()
    workers = [
        subprocess.Popen(
            [program, "--store", str(store), "reinforce", made["id"]],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ] + [
        subprocess.Popen(
            [
                program,
                "--store",
                str(store),
                "contribute",
                "--type",
                "skill",
                "--claim",
                f"Parallel claim {n}",
                "--confidence",
                "0.6",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(4)
    ]
    for worker in workers:
        _, err = worker.communicate(timeout=120)
        assert worker.returncode == 0, err
    final = json.loads(chitin(store, "get", made["id"], "--format", "json").stdout)
    assert final["reinforcementCount"] == 4
    assert commit_count(store) == before + 8
    assert len(json.loads(chitin(store, "list", "--format", "json").stdout)) == 5
    assert git(store, "status", "--porcelain") == ""
