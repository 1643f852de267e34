"""chitin's pre-commit hook inside the real pre-commit.

pre-commit clones this repository, reads its .pre-commit-hooks.yaml, and installs
chitin into an environment of its own with pip, as it does for a user. No test reaches
the network, so that pip installs from the wheels scripts/fetch_wheels.py downloaded
(run by .ci/run before the tests; the fixture runs it too, and reuses the folder), with
``--no-index``. The environments are made once per session.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import Run, commit_count, git

from chitin.cli import cli

ROOT = Path(__file__).resolve().parent.parent
FETCHER = ROOT / "scripts" / "fetch_wheels.py"
PRE_COMMIT = Path(sys.executable).parent / "pre-commit"
# The environment before the tests' fixtures make a private home and cache: the wheels
# live in the machine's cache, reused across runs.
OUTER_ENV = dict(os.environ)
IDENTITY = {
    "GIT_AUTHOR_NAME": "Dev",
    "GIT_AUTHOR_EMAIL": "dev@example.com",
    "GIT_COMMITTER_NAME": "Dev",
    "GIT_COMMITTER_EMAIL": "dev@example.com",
}
IDENTITY_FLAGS = ("-c", "user.name=Dev", "-c", "user.email=dev@example.com")
# The hook's lines docs/checking.md gives, commented out, for a store in a folder of the
# repository (`personality`), as a user uncomments them.
SUBFOLDER_HOOK = "".join(
    line.replace("# ", "", 1) + "\n"
    for line in (ROOT / "docs" / "checking.md").read_text().splitlines()
    if line.strip().startswith(("# args:", "# files:"))
)
BAD_INSIGHT = "---\nid: bad\ntype: skil\nconfidence: 0.8\n---\n\nA claim worth keeping\n"
GOOD_INSIGHT = BAD_INSIGHT.replace("type: skil", "type: skill")


@pytest.fixture(scope="session")
def wheels() -> Path:
    """The wheels pip may use. Without them (no network), a developer's run skips these
    tests, saying why; CI's fails."""
    result = subprocess.run(
        [sys.executable, str(FETCHER)], capture_output=True, text=True, env=OUTER_ENV, timeout=900
    )
    if result.returncode != 0:
        reason = f"the wheels could not be fetched: {result.stderr.strip()[-800:]}"
        if OUTER_ENV.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return Path(result.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit")


@pytest.fixture
def repository(run: Run, store: Path) -> Path:
    """A personality repository: a seeded store, as its owner keeps it in git."""
    run("init", "--seed")
    return store


def pre_commit(
    repository: Path, wheels: Path, home: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        **IDENTITY,
        "PRE_COMMIT_HOME": str(home),
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheels),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    return subprocess.run(
        [str(PRE_COMMIT), *args],
        cwd=repository,
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )


def commit(repository: Path, wheels: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """``git commit`` as its owner runs it, with pre-commit's git hook installed."""
    env = {
        **os.environ,
        **IDENTITY,
        "PRE_COMMIT_HOME": str(home),
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheels),
    }
    git(repository, "add", "-A")
    return subprocess.run(
        ["git", "-C", str(repository), "commit", "-m", "Edit insights by hand"],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )


def test_a_commit_with_a_broken_insight_or_setting_is_refused_until_fixed(
    repository: Path, wheels: Path, pre_commit_home: Path
) -> None:
    head = git(ROOT, "rev-parse", "HEAD").strip()  # the hook as committed here
    (repository / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {ROOT}\n    rev: {head}\n    hooks:\n      - id: chitin-check\n"
    )
    installed = pre_commit(repository, wheels, pre_commit_home, "install")
    assert installed.returncode == 0, installed.stderr
    (repository / "insights" / "skill" / "bad.md").write_text(BAD_INSIGHT)
    (repository / "chitin.yaml").write_text("half_lives: {social: -3}\n")
    before = commit_count(repository)

    refused = commit(repository, wheels, pre_commit_home)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    output = refused.stdout + refused.stderr
    assert "chitin check" in output and "Failed" in output
    assert "chitin.yaml: half_lives: social must be a positive number, got -3" in output
    assert "insights/skill/bad.md: type: invalid type 'skil'" in output
    assert commit_count(repository) == before

    (repository / "insights" / "skill" / "bad.md").write_text(GOOD_INSIGHT)
    (repository / "chitin.yaml").write_text("half_lives: {social: 3}\n")
    accepted = commit(repository, wheels, pre_commit_home)
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    output = accepted.stdout + accepted.stderr  # git shows the hook's lines on stderr
    assert "chitin check" in output and "Passed" in output
    assert commit_count(repository) == before + 1


def test_the_hook_checks_only_the_files_it_names(
    repository: Path, wheels: Path, pre_commit_home: Path
) -> None:
    """try-repo: this checkout's hook definition as it is now, uncommitted edits too."""
    (repository / "insights" / "skill" / "bad.md").write_text(BAD_INSIGHT)
    (repository / "notes.md").write_text("not an insight\n")
    git(repository, "add", "-A")

    elsewhere = pre_commit(
        repository, wheels, pre_commit_home, "try-repo", str(ROOT), "chitin-check",
        "--files", "notes.md", "README.md",
    )  # fmt: skip
    assert elsewhere.returncode == 0, elsewhere.stdout + elsewhere.stderr
    assert "(no files to check)" in elsewhere.stdout and "Skipped" in elsewhere.stdout

    every = pre_commit(
        repository, wheels, pre_commit_home, "try-repo", str(ROOT), "chitin-check", "--all-files"
    )
    assert every.returncode == 1
    findings = [
        line for line in every.stdout.splitlines() if ": fix: " in line or "; fix: " in line
    ]
    assert findings == [
        "insights/skill/bad.md: type: invalid type 'skil' (allowed: behavioral, personality, "
        "relational, principle, skill, trigger); fix: set type to one of them"
    ]


def test_a_store_in_a_folder_of_the_repository_is_checked_there(
    tmp_path: Path, wheels: Path, pre_commit_home: Path
) -> None:
    """fix90: the store kept in a folder of a project's repository, with the args and
    files docs/checking.md gives for it: pre-commit names the files from the
    repository's top, and the hook must check the store's insights and its chitin.yaml
    there, and nothing outside it."""
    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q")
    (project / "main.py").write_text("print('hi')\n")
    git(project, "add", "main.py")
    git(project, *IDENTITY_FLAGS, "commit", "-qm", "project")
    made = CliRunner().invoke(cli, ["--store", str(tmp_path / "made"), "init", "--seed"])
    assert made.exit_code == 0, made.output
    store = project / "personality"  # the store's files, kept in the project's history
    shutil.copytree(tmp_path / "made", store, ignore=shutil.ignore_patterns(".git", ".chitin"))
    git(project, "add", "-A")
    git(project, *IDENTITY_FLAGS, "commit", "-qm", "the team's personality")
    head = git(ROOT, "rev-parse", "HEAD").strip()
    (project / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {ROOT}\n    rev: {head}\n    hooks:\n      - id: chitin-check\n"
        f"{SUBFOLDER_HOOK}"
    )
    installed = pre_commit(project, wheels, pre_commit_home, "install")
    assert installed.returncode == 0, installed.stderr
    (store / "insights" / "skill" / "bad.md").write_text(BAD_INSIGHT)
    (store / "chitin.yaml").write_text("half_lives: {social: -3}\n")
    (project / "insights").mkdir()  # not the store's: a folder of the project's own
    (project / "insights" / "notes.md").write_text("not an insight\n")
    before = commit_count(project)

    refused = commit(project, wheels, pre_commit_home)
    output = refused.stdout + refused.stderr
    assert refused.returncode == 1, output
    assert "personality/chitin.yaml: half_lives: social must be a positive number" in output
    assert "personality/insights/skill/bad.md: type: invalid type 'skil'" in output
    assert "notes.md" not in output
    assert commit_count(project) == before

    (store / "insights" / "skill" / "bad.md").write_text(GOOD_INSIGHT)
    (store / "chitin.yaml").write_text("half_lives: {social: 3}\n")
    accepted = commit(project, wheels, pre_commit_home)
    output = accepted.stdout + accepted.stderr
    assert accepted.returncode == 0, output
    assert "chitin check" in output and "Passed" in output
    assert commit_count(project) == before + 1
