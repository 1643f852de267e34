"""The GitHub Actions workflows say what they promise, and their scripts run.

actionlint (tests/test_shipping.py) checks that they are valid workflows; what they
promise is checked here: the test matrix runs .ci/run, the lint job runs the linters,
the reusable personality workflow takes its documented inputs, and its shell and
JavaScript steps are run for real, against a store with a pull request's two branches
and a mock of GitHub's API.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import git

from chitin.cli import COMMANDS

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = ROOT / ".github" / "workflows"
PERSONALITY_INPUTS = {
    "chitin-spec",
    "store-path",
    "query",
    "budget",
    "python-version",
    "artifact-name",
    "comment",
}


def load(name: str) -> dict[str, Any]:
    data = yaml.safe_load((WORKFLOWS / name).read_text())
    assert isinstance(data, dict)
    # YAML 1.1 reads the key `on` as the boolean true.
    data["on"] = data.pop(True) if True in data else data["on"]
    return data


def steps(workflow: dict[str, Any], job: str) -> list[dict[str, Any]]:
    return list(workflow["jobs"][job]["steps"])


def step(workflow: dict[str, Any], job: str, name: str) -> dict[str, Any]:
    found = [s for s in steps(workflow, job) if s.get("name") == name]
    assert len(found) == 1, f"{job} has no single step named {name!r}"
    return found[0]


def runs(workflow: dict[str, Any], job: str) -> str:
    return "\n".join(s.get("run", "") for s in steps(workflow, job))


def uses(workflow: dict[str, Any], job: str) -> list[str]:
    return [s["uses"] for s in steps(workflow, job) if "uses" in s]


# ------------------------------------------------------------------ every workflow


@pytest.mark.parametrize("name", ["ci.yml", "personality.yml", "insights.yml"])
def test_workflows_parse_and_pin_their_actions(name: str) -> None:
    workflow = load(name)
    assert workflow["name"] and workflow["jobs"]
    text = (WORKFLOWS / name).read_text()
    for action in re.findall(r"uses:\s*([\w-]+/[\w-]+)@(\S+)", text):
        assert re.fullmatch(r"v\d+", action[1]), f"{action} is not pinned to a major version"
    # The runner context does not exist yet where workflow- and job-level env is read.
    for scope in [workflow, *workflow["jobs"].values()]:
        assert "runner." not in json.dumps(scope.get("env", {}))
    # Inputs and event fields reach scripts through env, never pasted into the script.
    for job in workflow["jobs"]:
        for item in workflow["jobs"][job].get("steps", []):
            assert "${{" not in item.get("run", ""), f"{job}: {item.get('name')}"


# ------------------------------------------------------------------ ci.yml


def test_ci_tests_every_python_as_ci_run_does() -> None:
    ci = load("ci.yml")
    assert {"push", "pull_request"} <= set(ci["on"])
    matrix = ci["jobs"]["test"]["strategy"]["matrix"]
    assert matrix["python-version"] == ["3.11", "3.12", "3.13"]
    setup = next(s for s in steps(ci, "test") if s.get("uses", "").startswith("actions/setup-"))
    assert setup["uses"].startswith("actions/setup-python@")
    assert setup["with"]["python-version"] == "${{ matrix.python-version }}"
    assert uses(ci, "test")[0].startswith("actions/checkout@")
    assert runs(ci, "test").strip() == "bash .ci/run"  # the one script every CI runs
    ci_run = (ROOT / ".ci" / "run").read_text()
    assert (
        "python3 -m venv --upgrade-deps .venv && . .venv/bin/activate"
        " && pip install -e '.[test]' && pytest" in ci_run
    )
    classifiers = (ROOT / "pyproject.toml").read_text()
    assert all(f"Python :: {v}" in classifiers for v in matrix["python-version"])


def test_ci_lints_and_type_checks() -> None:
    ci = load("ci.yml")
    script = runs(ci, "lint")
    for command in ("pip install -e '.[test]'", "ruff check", "ruff format --check", "mypy chitin"):
        assert command in script


# ------------------------------------------------------------------ personality.yml


def test_personality_is_a_reusable_workflow_with_the_documented_inputs() -> None:
    workflow = load("personality.yml")
    assert list(workflow["on"]) == ["workflow_call"]
    inputs = workflow["on"]["workflow_call"]["inputs"]
    assert set(inputs) == PERSONALITY_INPUTS
    assert inputs["chitin-spec"]["required"] is True
    assert inputs["store-path"]["default"] == "."
    assert inputs["query"]["default"] == ""
    assert inputs["budget"] == {**inputs["budget"], "type": "number", "default": 2000}
    assert all(spec.get("description") for spec in inputs.values())
    documented = (ROOT / "docs" / "personality-ci.md").read_text()
    assert all(f"`{name}`" in documented for name in PERSONALITY_INPUTS)


def test_personality_checks_renders_uploads_and_comments_the_diff() -> None:
    workflow = load("personality.yml")
    (job,) = workflow["jobs"]
    assert workflow["jobs"][job]["permissions"]["pull-requests"] == "write"
    checkout = next(s for s in steps(workflow, job) if s.get("uses", "").startswith("actions/chec"))
    assert checkout["with"]["fetch-depth"] == 0
    assert 'chitin --store "$STORE" check' in step(workflow, job, "Check the insights")["run"]
    render = step(workflow, job, "Render PERSONALITY.md")["run"]
    assert 'render --query "$QUERY" --budget "$BUDGET"' in render
    upload = step(workflow, job, "Upload PERSONALITY.md")
    assert upload["uses"].startswith("actions/upload-artifact@")
    assert upload["with"]["path"].endswith("personality/PERSONALITY.md")
    diff = step(workflow, job, "Diff the personality")
    assert "pull_request" in diff["if"]
    assert 'diff "$BASE...$HEAD"' in diff["run"]
    comment = step(workflow, job, "Comment on the pull request")
    assert comment["uses"].startswith("actions/github-script@")
    assert "updateComment" in comment["with"]["script"]


# ------------------------------------------------------------------ insights.yml


def test_insights_uses_the_personality_workflow_on_this_repository() -> None:
    caller = load("insights.yml")
    (job,) = caller["jobs"].values()
    assert job["uses"] == "./.github/workflows/personality.yml"
    assert job["with"]["store-path"] == "starter" and job["with"]["chitin-spec"] == "."
    assert job["permissions"]["pull-requests"] == "write"
    inputs = load("personality.yml")["on"]["workflow_call"]["inputs"]
    assert set(job["with"]) <= set(inputs)
    assert all(name in job["with"] for name, spec in inputs.items() if spec.get("required"))
    assert {"push", "pull_request"} <= set(caller["on"])
    assert "starter/**" in caller["on"]["pull_request"]["paths"]


# ------------------------------------------------------------------ the scripts, run


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    """``chitin`` and ``python`` on PATH, as the workflow's install step leaves them."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for name, target in (("chitin", f'"{sys.executable}" -m chitin'), ("python", sys.executable)):
        shim = folder / name
        shim.write_text(f'#!/bin/sh\nexec {target} "$@"\n')
        shim.chmod(0o755)
    return folder


def pull_request(tmp_path: Path) -> tuple[Path, str, str]:
    """A store with a pull request branch that reinforces one insight and adds another,
    while its base branch moved on: (store, base tip, pull request head)."""
    store = tmp_path / "repo"

    def chitin(*args: str) -> None:
        command = [sys.executable, "-m", "chitin", "--store", str(store), *args]
        subprocess.run(command, check=True, capture_output=True)

    def contribute(kind: str, claim: str) -> None:
        chitin("contribute", "--type", kind, "--claim", claim, "--confidence", "0.8")

    chitin("init")
    contribute("skill", "Reproduce a bug first")
    git(store, "checkout", "-q", "-b", "topic")
    chitin("reinforce", "reproduce-a-bug")
    contribute("principle", "Say what you checked")
    head = git(store, "rev-parse", "HEAD").strip()
    git(store, "checkout", "-q", "main")
    contribute("skill", "Landed on main meanwhile")
    return store, git(store, "rev-parse", "HEAD").strip(), head


def run_step(script: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-e", "-c", script], env=env, cwd=cwd, capture_output=True, text=True
    )


def test_the_personality_scripts_run_on_a_pull_request(tmp_path: Path, bin_dir: Path) -> None:
    store, base, head = pull_request(tmp_path)
    # actions/checkout: the pull request's head. (The store was left on main: a stale
    # cache once showed the pull request's insight there too, which this test took.)
    git(store, "checkout", "-q", head)
    workflow = load("personality.yml")
    (job,) = workflow["jobs"]
    assert set(workflow["jobs"][job]["env"]) == {"STORE", "QUERY", "BUDGET"}
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "STORE": ".",
        "QUERY": "",
        "BUDGET": "2000",
        "RUNNER_TEMP": str(temp),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "GITHUB_OUTPUT": str(tmp_path / "output"),
        "BASE": base,
        "HEAD": head,
    }
    names = ["Render PERSONALITY.md", "Diff the personality"]
    if "check" in COMMANDS:  # `chitin check` is being added alongside this workflow
        names.insert(0, "Check the insights")
    for name in names:
        result = run_step(step(workflow, job, name)["run"], env, store)
        assert result.returncode == 0, f"{name}: {result.stderr}"
    assert "Say what you checked" in (temp / "personality" / "PERSONALITY.md").read_text()
    comment = (temp / "personality" / "comment.md").read_text()
    assert comment.startswith("<!-- chitin-personality-diff: . -->\n")
    assert "1 added, 1 changed" in comment  # what main did meanwhile is not the PR's
    assert "confidence: 0.8 → 0.81, +1 reinforcement" in comment
    assert re.search(r"\+- \[[a-z0-9-]{4,}\] Say what you checked", comment)
    assert (tmp_path / "summary.md").read_text() == comment
    assert (tmp_path / "output").read_text() == "changes=2\n"


NODE_HARNESS = """
const calls = [];
const existing = JSON.parse(process.env.EXISTING);
const github = {
  paginate: async (method, args) => {
    if (existing === 'fail') throw new Error('Resource not accessible by integration');
    calls.push(['list', args.issue_number]);
    return existing;
  },
  rest: { issues: {
    listComments: 'listComments',
    updateComment: async (a) => calls.push(['update', a.comment_id, a.body]),
    createComment: async (a) => calls.push(['create', a.issue_number, a.body]),
  } },
};
const context = { repo: { owner: 'o', repo: 'r' }, payload: { pull_request: { number: 7 } } };
const core = { warning: (message) => calls.push(['warning', message]) };
(async () => {
SCRIPT
})().then(() => console.log(JSON.stringify(calls)));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize(
    ("existing", "changes", "expected"),
    [
        ([], "2", [["list", 7], ["create", 7, "BODY"]]),
        ([], "0", [["list", 7]]),  # no comment for a pull request that changes nothing
        (
            [
                {"id": 3, "user": {"type": "User"}, "body": "MARKER quoted by a person"},
                {"id": 5, "user": {"type": "Bot"}, "body": "MARKER\nold"},
            ],
            "0",  # an existing comment is brought up to date even when nothing changed now
            [["list", 7], ["update", 5, "BODY"]],
        ),
        ("fail", "2", "warning"),
    ],
)
def test_the_comment_script_updates_one_comment(
    tmp_path: Path, existing: Any, changes: str, expected: Any
) -> None:
    workflow = load("personality.yml")
    (job,) = workflow["jobs"]
    script = step(workflow, job, "Comment on the pull request")["with"]["script"]
    marker = "<!-- chitin-personality-diff: . -->"
    body = f"{marker}\n### Personality changes\n"
    (tmp_path / "comment.md").write_text(body)
    (tmp_path / "harness.cjs").write_text(NODE_HARNESS.replace("SCRIPT", script))
    existing_json = json.dumps(existing).replace("MARKER", marker)
    env = {**os.environ, "EXISTING": existing_json, "CHANGES": changes}
    env["COMMENT_FILE"] = str(tmp_path / "comment.md")
    result = subprocess.run(
        ["node", str(tmp_path / "harness.cjs")], env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    calls = json.loads(result.stdout)
    if expected == "warning":
        assert calls[0][0] == "warning" and "job summary" in calls[0][1]
    else:
        assert calls == json.loads(json.dumps(expected).replace("BODY", json.dumps(body)[1:-1]))


def test_a_checkout_of_chitin_is_not_a_store(tmp_path: Path) -> None:
    """A command run at the top of a checkout (where a test suite runs) uses the default
    store, not the project: its insights live in starter/, so its top is no store, and
    no command reads the project's files or commits into its history."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    env = {**os.environ, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    env.pop("CHITIN_STORE", None)
    command = [sys.executable, "-m", "chitin", "where"]
    found = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    assert found.returncode == 0, found.stderr
    assert found.stdout.splitlines()[0] == str(tmp_path / "data" / "chitin")


def test_the_starter_folder_reads_as_a_store(tmp_path: Path) -> None:
    """insights.yml points chitin at this repository's starter/, which holds insights/:
    a store in a folder of a larger repository."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    clone = tmp_path / "chitin"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)

    def chitin(*args: str) -> str:
        command = [sys.executable, "-m", "chitin", "--store", str(clone / "starter"), *args]
        result = subprocess.run(command, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        return result.stdout

    starters = len(list((clone / "starter" / "insights").rglob("*.md")))
    assert json.loads(chitin("stats", "--format", "json"))["total"] == starters > 0
    assert chitin("render").count("\n- ") >= 5
    assert chitin("diff", "HEAD...HEAD") == "No changes to the personality.\n"
    if "check" in COMMANDS:
        chitin("check")
    # The cache chitin keeps next to the insights stays out of git (it ignores itself).
    assert (clone / "starter" / ".chitin").is_dir()
    assert git(clone, "status", "--porcelain") == ""
