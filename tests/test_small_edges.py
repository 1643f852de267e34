"""Smaller edges of issue 27 (item 12): a small migration leaves its vectors behind,
damaged vectors are said in one line (not numpy's warning and its source line),
`init` where a file stands in the store's path, and `--output` into a missing folder."""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path

import pytest
from conftest import Run, chitin_program

from chitin.index.vector_files import MATRIX


def test_random_bytes_in_the_matrix_are_said_in_one_line(run: Run, store: Path) -> None:
    run("init")
    for n in range(3):
        run("contribute", "--type", "skill", "--claim", f"Profile slow endpoint {n} first",
            "--confidence", "0.8")  # fmt: skip
    run("embed")
    matrix = store / ".chitin" / "vectors" / MATRIX
    matrix.write_bytes(random.Random(27).randbytes(matrix.stat().st_size))
    env = {**os.environ, "PYTHONWARNINGS": "default"}  # as a user's shell may have it
    done = subprocess.run(
        [chitin_program(), "--store", str(store), "retrieve", "--query", "slow endpoint"],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "RuntimeWarning" not in done.stderr and "matmul" not in done.stderr
    assert "@" not in done.stderr  # numpy's warning quotes its source line
    said = done.stderr.splitlines()  # one line: the damage, the file, and what is done
    assert len(said) == 1 and MATRIX in said[0] and "rebuilt" in said[0], done.stderr
    assert "slow endpoint" in done.stdout


def test_init_where_a_file_stands_in_the_store_path_is_one_line(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "data-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("XDG_DATA_HOME", str(blocker))
    from click.testing import CliRunner

    from chitin.cli import cli

    result = CliRunner().invoke(cli, ["init"])
    assert result.exit_code == 1, result.output
    assert result.stderr == (
        f"Error: cannot create the store at {blocker / 'chitin'}: {blocker} is a file, "
        "not a folder\n"
    )


def test_output_into_a_missing_folder_makes_no_folders(
    run: Run, store: Path, tmp_path: Path
) -> None:
    run("init")
    target = tmp_path / "nonexistent" / "dir" / "P.md"
    for command in ("render", "export"):
        result = run(command, "--output", str(target), expect=2)
        assert f"the folder {target.parent} does not exist" in result.stderr
        assert result.stderr.count("\n") == 1
    assert not (tmp_path / "nonexistent").exists()
    run("render", "--output", str(tmp_path / "P.md"))  # an existing folder still works
    assert (tmp_path / "P.md").is_file()


def test_a_small_import_leaves_its_vectors(run: Run, tmp_path: Path) -> None:
    run("init")
    items = [
        {"type": "skill", "claim": f"Small import item {n} about caching", "confidence": 0.8}
        for n in range(6)
    ]
    source = tmp_path / "export.json"
    source.write_text(json.dumps(items))
    done = json.loads(run("import", str(source), "--format", "json").stdout)
    assert done["vectors"]["embedded"] == 6
    status = json.loads(run("embed-status", "--format", "json").stdout)
    assert status["total"] == 6 and status["embedded"] == 6
