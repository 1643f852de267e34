"""What a user installs is what we test (issue 30).

The wheel is built from this checkout and installed into a fresh venv from the wheel
alone plus the wheels of its dependencies, with ``--no-index`` (no test reaches the
network): those come from scripts/fetch_wheels.py, which .ci/run runs before the
tests; the fixture runs it too, and reuses its folder. Then the README's quick start
runs from outside the clone, in a fresh home, with that venv's ``chitin`` on PATH.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

import chitin

ROOT = Path(__file__).resolve().parent.parent
FETCHER = ROOT / "scripts" / "fetch_wheels.py"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
DISTRIBUTION = PYPROJECT["project"]["name"]
# The environment before the tests' fixtures make a private home and cache: the
# dependencies' wheels live in the machine's cache, reused across runs.
OUTER_ENV = dict(os.environ)


def readme() -> str:
    return (ROOT / "README.md").read_text(encoding="utf-8")


def shell_blocks(text: str) -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M)


@pytest.fixture(scope="module")
def dependency_wheels() -> Path:
    """The folder of the dependencies' wheels. Without it (no network, nothing cached),
    a developer's run skips, saying what is missing; CI's fails."""
    result = subprocess.run(
        [sys.executable, str(FETCHER)], capture_output=True, text=True, env=OUTER_ENV, timeout=900
    )
    if result.returncode != 0:
        reason = (
            f"the wheels of {DISTRIBUTION}'s dependencies are not cached and could not be "
            f"fetched (python3 scripts/fetch_wheels.py): {result.stderr.strip()[-600:]}"
        )
        if OUTER_ENV.get("CI"):
            pytest.fail(reason)
        print(reason)
        pytest.skip(reason)
    return Path(result.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this checkout, built by the build backend itself."""
    pytest.importorskip("hatchling")
    folder = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(folder)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    [built] = folder.glob("*.whl")
    return built


def offline_pip_env(wheels: Path) -> dict[str, str]:
    """pip with no index, no user or machine configuration: the wheel and ``wheels``."""
    env = {k: v for k, v in OUTER_ENV.items() if not k.startswith("PIP_")}
    env.pop("PYTHONPATH", None)
    return {
        **env,
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheels),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }


@pytest.fixture(scope="module")
def installed(
    tmp_path_factory: pytest.TempPathFactory, wheel: Path, dependency_wheels: Path
) -> Path:
    """A fresh venv with the wheel installed: its bin folder."""
    venv = tmp_path_factory.mktemp("user") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel)],
        capture_output=True,
        text=True,
        env=offline_pip_env(dependency_wheels),
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return venv / "bin"


def in_user_shell(bin_folder: Path, cwd: Path, script: str) -> subprocess.CompletedProcess[str]:
    """``script`` in bash as a user's fresh shell runs it: the venv's bin first on PATH,
    nothing of this checkout importable, the tests' private home."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{bin_folder}{os.pathsep}{env['PATH']}"
    return subprocess.run(
        ["bash", "-c", "set -euo pipefail\n" + script],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )


# ------------------------------------------------------------------ the distribution


def test_the_distribution_has_a_name_of_its_own_and_installs_chitin() -> None:
    """PyPI's ``chitin`` is another project; the command and the package keep the name."""
    assert DISTRIBUTION == "chitin-personality"
    assert PYPROJECT["project"]["scripts"] == {"chitin": "chitin.console:main"}
    blocks = "\n".join(shell_blocks(readme()))
    for line in (
        f"pipx install {DISTRIBUTION}",
        f"uv tool install {DISTRIBUTION}",
        f"pip install '{DISTRIBUTION}[mcp]'",
    ):
        assert line in blocks, f"the README does not say {line!r}"
    assert not re.search(r"(pipx|uv tool|pip) install '?chitin\b(?!-)", readme())


def test_the_wheel_alone_installs_and_runs_the_quick_start(installed: Path, tmp_path: Path) -> None:
    """The README's quick start, verbatim, from a folder outside the clone."""
    [quick_start] = [b for b in shell_blocks(readme()) if "chitin init --seed" in b]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    which = in_user_shell(installed, elsewhere, "command -v chitin; chitin --version")
    assert which.stdout.splitlines() == [str(installed / "chitin"), chitin.__version__]
    origin = in_user_shell(
        installed, elsewhere, 'python -c "import chitin; print(chitin.__file__)"'
    )
    assert "site-packages" in origin.stdout and str(ROOT) not in origin.stdout

    done = in_user_shell(installed, elsewhere, quick_start)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Seeded 14 starter insight(s)" in done.stdout
    assert "### Skill" in done.stdout
    assert "Reproduce a bug with a minimal failing case" in done.stdout
    assert (Path(os.environ["XDG_DATA_HOME"]) / "chitin" / ".git").is_dir()


def test_the_wheel_names_the_distribution_and_its_extras(wheel: Path) -> None:
    version = chitin.__version__
    assert wheel.name == f"chitin_personality-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read(f"chitin_personality-{version}.dist-info/METADATA").decode()
    assert f"Name: {DISTRIBUTION}\n" in metadata and f"Version: {version}\n" in metadata
    assert "Provides-Extra: mcp\n" in metadata
    assert "Requires-Python: >=3.11\n" in metadata
