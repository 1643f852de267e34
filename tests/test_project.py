"""The project keeps its promises: layer direction, packaging, README, help text."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from chitin.cli import COMMANDS, cli

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "chitin"

# Which layers each layer may import (docs/architecture.md has the map and the reasons).
# Not a linear order: a layer may use only what it needs, so that, say, render cannot
# reach into the store or the CLI write files past core.
ALLOWED: dict[str, set[str]] = {
    # The console script's start: it starts git's status early for reading commands
    # whose cache syncs by git (it asks the index, then the store's git wrapper).
    "console": {"cli", "index", "store", "format"},
    "cli": {"server", "core", "render", "model"},
    # The MCP server: a front end beside the CLI, on the same public API.
    "server": {"core", "render", "model"},
    "core": {"render", "retrieval", "index", "store", "providers", "format", "model"},
    "render": {"retrieval", "format", "model"},
    "retrieval": {"index", "providers", "format", "model"},
    "index": {"format", "model"},
    "store": {"format", "model"},
    "providers": {"model"},
    "format": {"model"},
    "model": set(),
}
# Leaves everybody may use: the error family, the notices channel, and where the
# store is, what the package holds, and the process around one command (process.py).
LEAVES = {"errors", "notices"}
SHARED = {"chitin", "chitin.resources", "chitin.location", "chitin.lockfile", "chitin.process"}


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    if module in SHARED or parts[0] != "chitin":
        return None
    return parts[1] if len(parts) > 1 else None


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def modules() -> list[tuple[str, Path]]:
    result = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        result.append((name, path))
    return result


def test_every_layer_is_in_the_allow_table() -> None:
    layers = {layer_of(name) for name, _ in modules()} - {None, "__main__"}
    assert layers <= set(ALLOWED) | LEAVES, layers - set(ALLOWED) - LEAVES


@pytest.mark.parametrize(("name", "path"), modules(), ids=lambda v: str(v))
def test_imports_follow_the_allow_table(name: str, path: Path) -> None:
    own = layer_of(name)
    if own is None or own == "__main__":
        return
    allowed = ALLOWED.get(own, set()) | LEAVES | {own}
    for imported in imports_of(path):
        other = layer_of(imported)
        assert other is None or other in allowed, f"{name} imports {imported}"
        assert not (imported == "click" and own != "cli")
        # The MCP SDK (an optional extra) and its pydantic: the MCP server only.
        assert not (imported.split(".")[0] in ("mcp", "pydantic") and own != "server")


def _calls(path: Path, names: set[str]) -> list[str]:
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            function = node.func
            called = function.attr if isinstance(function, ast.Attribute) else None
            called = called or (function.id if isinstance(function, ast.Name) else None)
            if called in names:
                found.append(f"{path.name}:{node.lineno} {called}")
    return found


def test_nothing_below_the_cli_prints() -> None:
    """Only cli/ (and the console script's start) speaks to the user; the library
    returns values and raises."""
    speaking = {"print", "echo", "secho"}
    found = [
        call
        for name, path in modules()
        if layer_of(name) not in ("cli", "console", "__main__", None)
        for call in _calls(path, speaking)
    ]
    assert found == []
    writes = [
        f"{name}: {line}"
        for name, path in modules()
        if layer_of(name) not in ("cli", "console", "__main__", None)
        for line in path.read_text().splitlines()
        if "sys.stdout" in line or "sys.stderr" in line
    ]
    assert writes == []


def test_only_the_store_writes_insight_files() -> None:
    """Insight files are written by store/ alone (atomically, under its lock, then
    committed): no other layer calls its file writer."""
    found = [
        f"{name} imports {imported}"
        for name, path in modules()
        if layer_of(name) not in ("store", None)
        for imported in imports_of(path)
        if imported in ("chitin.store.files", "chitin.store.journal") and layer_of(name) != "core"
    ]
    assert found == []


def test_only_the_chosen_modules_touch_click_subprocess_and_sqlite() -> None:
    # sqlite3 also reads chitin 1.x's database, which is a store (the old one), and
    # OpenClaw's agent database, read-only, for a session's events (issue 26).
    owners = {
        "click": ("chitin.cli",),
        # git through one module, whose statuses started ahead chitin.process holds
        # (by type only); and the detached background embedding (on Windows)
        "subprocess": ("chitin.store.git", "chitin.process", "chitin.core.background"),
        "sqlite3": ("chitin.index", "chitin.store.legacy", "chitin.store.transcripts"),
        "httpx": ("chitin.providers",),
        "onnxruntime": ("chitin.providers",),
    }
    for name, path in modules():
        for imported in imports_of(path):
            allowed = owners.get(imported.split(".")[0])
            assert allowed is None or name.startswith(allowed), f"{name} imports {imported}"


def test_reads_load_neither_numpy_nor_yaml(tmp_path: Path) -> None:
    store = tmp_path / "store"
    subprocess.run(
        [sys.executable, "-m", "chitin", "--store", str(store), "init", "--seed"],
        check=True,
        capture_output=True,
    )
    code = (
        f"import sys; from chitin.cli import cli; sys.argv=['chitin','--store',{str(store)!r},"
        "'list'];\ntry: cli.main()\nexcept SystemExit: pass\n"
        "print([m for m in ('numpy', 'yaml', 'onnxruntime', 'httpx') if m in sys.modules])"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_version_does_not_load_the_store_or_yaml() -> None:
    code = (
        "import sys; from chitin.cli import cli; sys.argv=['chitin','--version'];\n"
        "try: cli.main()\nexcept SystemExit: pass\n"
        "heavy = ('yaml', 'sqlite3', 'subprocess', 'chitin.core')\n"
        "print([m for m in heavy if m in sys.modules])\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_the_console_script_loads_nothing_more_for_the_version() -> None:
    """chitin.console looks at the command line before the CLI loads; for --version it
    must not load even pathlib (it prefetches git status for reading commands only)."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "chitin", "--version"],
        capture_output=True,
        text=True,
    )
    loaded = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines()}
    assert result.returncode == 0 and "chitin.console" in loaded
    assert not loaded & {"pathlib", "chitin.location", "sqlite3", "subprocess", "yaml"}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_command_has_help_and_is_in_the_readme(command: str) -> None:
    result = CliRunner().invoke(cli, [command, "--help"])
    assert result.exit_code == 0 and "Usage: chitin" in result.stdout
    first = result.stdout.split("\n\n")[1].strip()
    assert len(first) > 20, f"{command} --help says too little"
    assert re.search(rf"chitin (--store \S+ )?{command}\b", (ROOT / "README.md").read_text())


def test_readme_quick_start_and_ci_run_the_same_test_command() -> None:
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)\n```", readme, re.S)
    test_command = next(block for block in blocks if "pytest" in block)
    assert test_command in (ROOT / ".ci" / "run").read_text()
    assert any("chitin init --seed" in block for block in blocks)


def test_the_wheel_carries_the_starter_insights_and_the_template(tmp_path: Path) -> None:
    pytest.importorskip("hatchling")
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(tmp_path)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    wheel = next(tmp_path.glob("chitin_personality-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    starters = {
        p.relative_to(ROOT / "insights").as_posix() for p in (ROOT / "insights").rglob("*.md")
    }
    packaged = {
        n.removeprefix("chitin/_data/insights/")
        for n in names
        if n.startswith("chitin/_data/insights/")
    }
    assert starters and starters == packaged
    assert "chitin/_data/templates/PERSONALITY.md" in names
    assert "chitin/assets/SKILL.md" in names
    shipped = PACKAGE / "assets" / "openclaw"
    hook_pack = {p.relative_to(shipped).as_posix() for p in shipped.rglob("*") if p.is_file()}
    assert hook_pack >= {"hooks/chitin/HOOK.md", "hooks/chitin/handler.js", "package.json"}
    assert all(f"chitin/assets/openclaw/{name}" in names for name in hook_pack)
    assert not any(n.startswith(("tests/", "bench/")) for n in names)


def _runtime_imports(path: Path) -> list[tuple[str, str]]:
    """(module, name) of each ``from … import`` outside ``if TYPE_CHECKING:`` blocks."""
    tree = ast.parse(path.read_text())
    typing_only = {
        id(child)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for statement in node.body
        for child in ast.walk(statement)
    }
    return [
        (node.module, alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and id(node) not in typing_only
        for alias in node.names
    ]


@pytest.mark.parametrize("front_end", ["cli", "server"])
def test_the_front_ends_call_nothing_but_the_public_api(front_end: str) -> None:
    """What the CLI and the MCP server take from the library at run time is public:
    named in ``chitin.__all__`` (types they only annotate with may come from anywhere
    in core)."""
    import chitin

    reached = [
        f"{name.rsplit('.', 1)[-1]}.py: {module}.{imported}"
        for name, path in modules()
        if layer_of(name) == front_end
        for module, imported in _runtime_imports(path)
        if (module == "chitin" or module.startswith("chitin.core"))
        and imported not in chitin.__all__
    ]
    assert reached == []
