"""What a user installs is what we test (issue 30).

The wheel is built from this checkout and installed into a fresh venv from the wheel
alone plus the wheels of its dependencies, with ``--no-index`` (no test reaches the
network): those come from scripts/fetch_wheels.py, which .ci/run runs before the
tests; the fixture runs it too, and reuses its folder. Then the README's quick start
runs from outside the clone, in a fresh home, with that venv's ``chitin`` on PATH.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import MCP_INITIALIZE, Run, build_distribution, chitin_program

import chitin

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "chitin"
WORKFLOWS = ROOT / ".github" / "workflows"
SCRIPTS = ROOT / "scripts"
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
    return build_distribution("wheel", tmp_path_factory.mktemp("dist"))


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


# ------------------------------------------------------------------ one version


def mcp_server_info(store: Path) -> dict[str, Any]:
    """``chitin mcp``'s answer to a client's ``initialize``: its serverInfo."""
    done = subprocess.run(
        [chitin_program(), "--store", str(store), "mcp"],
        input=json.dumps(MCP_INITIALIZE) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    [answer] = [json.loads(line) for line in done.stdout.splitlines()]
    info: dict[str, Any] = answer["result"]["serverInfo"]
    return info


def front_matter(path: Path) -> dict[str, Any]:
    found: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8").split("---\n")[1])
    return found


def test_every_place_that_states_the_version_states_the_same(run: Run, store: Path) -> None:
    """The package, ``chitin --version``, the MCP server's serverInfo, the OpenClaw pack
    (as shipped and as installed), SKILL.md as printed and the changelog's latest
    release: one version, the one in chitin/__init__.py."""
    pytest.importorskip("mcp")
    version = chitin.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", version)
    assert importlib.metadata.version(DISTRIBUTION) == version
    printed = subprocess.run([chitin_program(), "--version"], capture_output=True, text=True)
    assert printed.stdout == f"{version}\n"
    info = mcp_server_info(store)
    assert (info["name"], info["version"]) == ("chitin", version)

    pack = PACKAGE / "assets" / "openclaw"
    assert json.loads((pack / "package.json").read_text())["version"] == version
    assert front_matter(pack / "hooks" / "chitin" / "HOOK.md")["version"] == version
    hooks = store.parent / "openclaw-hooks"
    hooks.mkdir()  # a --dir that does not exist is refused (a mistyped path)
    run("hooks", "install", "openclaw", "--dir", str(hooks))
    [installed] = hooks.rglob("package.json")
    assert json.loads(installed.read_text())["version"] == version

    skill = run("skill").stdout
    assert yaml.safe_load(skill.split("---\n")[1])["version"] == version
    assert latest_release() == version


def changelog() -> str:
    return (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


def latest_release() -> str:
    """The first version section under [Unreleased]."""
    found = re.search(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", changelog(), re.M)
    assert found, "CHANGELOG.md has no release section"
    return found.group(1)


def test_the_changelog_keeps_a_changelog() -> None:
    text = changelog()
    assert text.startswith("# Changelog\n")
    assert "https://keepachangelog.com/en/1.1.0/" in text
    assert "https://semver.org/spec/v2.0.0.html" in text
    sections = re.findall(r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$", text, re.M)
    assert sections[0] == ("Unreleased", "")
    releases = sections[1:]
    assert releases and all(date for _, date in releases)
    versions = [tuple(int(n) for n in v.split(".")) for v, _ in releases]
    assert versions == sorted(versions, reverse=True), "newest release first"
    dates = [date for _, date in releases]
    assert dates == sorted(dates, reverse=True)
    kinds = set(re.findall(r"^### (.+)$", text, re.M))
    assert kinds <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


# ------------------------------------------------------------------ release.yml


def workflow(name: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    data["on"] = data.pop(True) if True in data else data["on"]  # YAML 1.1 reads `on` as true
    return data


def job_script(job: dict[str, Any]) -> str:
    return "\n".join(step.get("run", "") for step in job["steps"])


def job_uses(job: dict[str, Any]) -> list[str]:
    return [step["uses"] for step in job["steps"] if "uses" in step]


def test_a_tag_builds_checks_tests_the_wheel_and_then_publishes() -> None:
    release = workflow("release.yml")
    assert release["on"] == {"push": {"tags": ["v*"]}}
    assert release["permissions"] == {"contents": "read"}
    build, test, publish = (release["jobs"][name] for name in ("build", "test", "publish"))

    script = job_script(build)
    assert "python -m build" in script and "twine check --strict dist/*" in script
    assert '"$TAG" != "v$version"' in script and "CHANGELOG.md" in script
    assert any(u.startswith("actions/upload-artifact@") for u in job_uses(build))

    assert test["needs"] == "build"
    assert test["strategy"]["matrix"]["python-version"] == ["3.11", "3.12", "3.13"]
    script = job_script(test)
    assert '"$RUNNER_TEMP/venv/bin/python" -m pip install "$(echo dist/*.whl)[test]"' in script
    assert "site-packages" in script  # the suite imports the installed chitin
    assert script.rstrip().endswith("\npytest")  # not `python -m pytest`: no checkout on sys.path

    assert publish["needs"] == ["build", "test"]
    assert publish["permissions"] == {"id-token": "write"}
    assert publish["environment"]["name"] == "pypi"
    assert publish["environment"]["url"] == f"https://pypi.org/project/{DISTRIBUTION}/"
    assert job_uses(publish)[-1] == "pypa/gh-action-pypi-publish@release/v1"
    text = (WORKFLOWS / "release.yml").read_text(encoding="utf-8")
    assert "password" not in text and "secrets." not in text  # trusted publishing only


@pytest.mark.parametrize("name", ["ci.yml", "release.yml", "personality.yml", "insights.yml"])
def test_workflows_pin_actions_and_keep_expressions_out_of_scripts(name: str) -> None:
    text = (WORKFLOWS / name).read_text(encoding="utf-8")
    for action, ref in re.findall(r"uses:\s*([\w-]+/[\w-]+)@(\S+)", text):
        assert re.fullmatch(r"(release/)?v\d+", ref), f"{action}@{ref} is not a major version"
    for job in workflow(name)["jobs"].values():
        for item in job.get("steps", []):
            assert "${{" not in item.get("run", ""), item.get("name")


def lint_path() -> str:
    """PATH with this Python's scripts folder first: the test extra's linters live there
    even when pytest runs from a venv that is not activated, and actionlint finds
    shellcheck on PATH."""
    return f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"


def linted(tool: str, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``tool`` (from the test extra) on ``cwd``. Where it cannot be had, a developer's
    run skips, saying why; CI's fails, as CI must lint."""
    program = shutil.which(tool, path=lint_path())
    if program is None:
        reason = f"{tool} is not installed here (pip install -e '.[test]' brings it)"
        if OUTER_ENV.get("CI"):
            pytest.fail(reason)
        print(reason)
        pytest.skip(reason)
    env = {**os.environ, "PATH": lint_path()}
    return subprocess.run([program, *args], cwd=cwd, capture_output=True, text=True, env=env)


def test_the_workflows_pass_actionlint() -> None:
    linted("shellcheck", "--version")  # actionlint checks run: scripts with it
    done = linted("actionlint")
    assert done.returncode == 0, done.stdout + done.stderr


BAD_WORKFLOW = """\
name: bad
on: issues
jobs:
  greet:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/upload-artifact@v4
        with: {name: x, path: x}
      - run: echo "${{ github.event.issue.title }}"
      - run: echo $GREETING
"""


def test_actionlint_here_reports_what_it_should(tmp_path: Path) -> None:
    """The linter the tests run is a live one: it runs shellcheck on the scripts, and
    knows script injection and actions whose runtime is retired."""
    folder = tmp_path / ".github" / "workflows"
    folder.mkdir(parents=True)
    (folder / "bad.yml").write_text(BAD_WORKFLOW)
    linted("shellcheck", "--version")
    done = linted("actionlint", "-no-color", str(folder / "bad.yml"), cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "SC2086" in done.stdout  # shellcheck's unquoted $GREETING
    assert '"github.event.issue.title" is potentially untrusted' in done.stdout
    assert 'action "actions/upload-artifact@v4"' in done.stdout


def test_the_ci_scripts_pass_shellcheck() -> None:
    """Every shell file CI runs, each checked on its own: .ci/run, the helpers it
    sources (.ci/cores.sh, which .ci/run tells shellcheck not to follow) and the
    scripts."""
    helpers = sorted(str(p.relative_to(ROOT)) for p in (ROOT / ".ci").glob("*.sh"))
    assert helpers, "the sourced helpers of .ci/run are checked too"
    scripts = [".ci/run", *helpers, *sorted(str(p.relative_to(ROOT)) for p in SCRIPTS.glob("*.sh"))]
    done = linted("shellcheck", *scripts)
    assert done.returncode == 0, done.stdout + done.stderr


# ------------------------------------------------------------------ .ci/run's Pythons


def other_pythons(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(SCRIPTS / "other_pythons.sh"), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=60,
    )


def test_ci_run_tests_the_other_pythons_first_and_the_whole_suite_last() -> None:
    lines = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.strip()]
    main = next(n for n, line in enumerate(lines) if "pip install -e '.[test]' && pytest" in line)
    assert not any("pytest" in line for line in lines[main + 1 :])  # its summary closes CI
    assert lines.index("bash scripts/other_pythons.sh") < main
    step = next(s for s in workflow("ci.yml")["jobs"]["test"]["steps"] if "run" in s)
    assert step["env"] == {"CHITIN_CI_OTHER_PYTHONS": "off"}  # the matrix has a job each


def test_a_python_that_cannot_be_had_is_skipped_with_a_line_saying_so() -> None:
    done = other_pythons("3.99")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "Python 3.99: skipped (not in pyenv's versions, no python3.99 on PATH)\n"
    )
    off = other_pythons(CHITIN_CI_OTHER_PYTHONS="off")
    assert off.stdout == "Other Pythons: not run here (CHITIN_CI_OTHER_PYTHONS=off)\n"


def test_the_other_pythons_subset_names_test_files_that_exist() -> None:
    script = (SCRIPTS / "other_pythons.sh").read_text()
    subset = re.search(r"^SUBSET=\(\n(.*?)^\)", script, re.S | re.M)
    assert subset
    files = subset.group(1).split()
    assert len(files) >= 5 and all((ROOT / name).is_file() for name in files)
    supported = re.search(r"^SUPPORTED=\((.*)\)$", script, re.M)
    assert supported and supported.group(1).split() == ["3.11", "3.12", "3.13"]
