"""The project keeps its promises: layer direction, packaging, README, help text."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from chitin.cli import COMMANDS, cli

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "chitin"
STARTERS = ROOT / "starter" / "insights"

# Which layers each layer may import (docs/architecture.md has the map and the reasons).
# Not a linear order: a layer may use only what it needs, so that, say, render cannot
# reach into the store or the CLI write files past core.
ALLOWED: dict[str, set[str]] = {
    # The console script's start: it starts git's status early for reading commands
    # whose cache syncs by git (it asks the index, then the store's git wrapper).
    "console": {"cli", "index", "store", "format", "front"},
    # The resident front (chitin/front/): its client is the console script's start, and
    # its worker runs what the console runs (the rest it loads by name, PRELOAD).
    "front": {"console"},
    "cli": {"server", "core", "render", "model"},
    # The MCP server: a front end beside the CLI, on the same public API.
    "server": {"core", "render", "model"},
    "core": {"render", "search", "retrieval", "index", "store", "providers", "format", "model"},
    # render prints the results' values, which live in the model (model/results.py,
    # model/quality.py): it needs neither the rules nor the search that make them.
    "render": {"format", "model"},
    # Searching asks the index and the providers; the rules it applies are retrieval's.
    "search": {"retrieval", "index", "providers", "format", "model"},
    # The pure rules: scoring, ranking, context, conflicts, quality, judgement.
    "retrieval": {"model"},
    "index": {"format", "model"},
    "store": {"format", "model"},
    "providers": {"model"},
    "format": {"model"},
    "model": set(),
}
# Leaves everybody may use: the error family, the notices channel, and where the
# store is, what the package holds, and the process around one command (process.py).
LEAVES = {"errors", "notices"}
SHARED = {
    "chitin",
    "chitin.resources",
    "chitin.location",
    "chitin.lockfile",
    "chitin.process",
    "chitin.residency",  # what the resident embedder and the front share
    "chitin.quiet_start",  # the background embedding's waiter: a process entry of its own
}


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
    """Only cli/ (and the console script's start, with its front) speaks to the user; the library
    returns values and raises."""
    speaking = {"print", "echo", "secho"}
    found = [
        call
        for name, path in modules()
        if layer_of(name) not in ("cli", "console", "front", "__main__", None)
        for call in _calls(path, speaking)
    ]
    assert found == []
    writes = [
        f"{name}: {line}"
        for name, path in modules()
        if layer_of(name) not in ("cli", "console", "front", "__main__", None)
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
        # (by type only); the detached background embedding (on Windows); and the
        # resident embedder, started detached by its first client; and the resident
        # front, started with the interpreter's flags (subprocess knows them)
        "subprocess": (
            "chitin.store.git",
            "chitin.process",
            "chitin.core.background",
            "chitin.providers.resident",
            "chitin.front",
        ),
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


@pytest.mark.parametrize("command", [["list"], ["stats"], ["get", "PREFIX"]])
def test_a_read_in_text_loads_no_json_shape(tmp_path: Path, command: list[str]) -> None:
    """The JSON shapes (render/shapes/, ~1 ms) load with --format json only."""
    store = tmp_path / "store"
    subprocess.run(
        [sys.executable, "-m", "chitin", "--store", str(store), "init", "--seed"],
        check=True,
        capture_output=True,
    )
    prefix = next((store / "insights").rglob("*.md")).stem[:4]
    argv = ["chitin", "--store", str(store), *(prefix if a == "PREFIX" else a for a in command)]
    code = (
        f"import sys; from chitin.cli import cli; sys.argv={argv!r}\n"
        "try: cli.main()\nexcept SystemExit as e: print(e.code)\n"
        "print([m for m in sys.modules if m.startswith('chitin.render.shapes')])"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip().splitlines()[-2:] == ["0", "[]"], result.stderr


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


# Options every command takes, described once at the top of docs/commands.md.
COMMON_OPTIONS = {"store", "debug", "verbose", "help"}


def command_reference(path: str) -> str:
    """The section of docs/commands.md for ``chitin PATH``."""
    text = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    found = re.search(rf"^### chitin {re.escape(path)}\n(.*?)(?=^##|\Z)", text, re.S | re.M)
    assert found, f"docs/commands.md has no section for chitin {path}"
    return found.group(1)


def documented_commands(name: str) -> list[tuple[str, click.Command]]:
    """(path, command) of each section a top-level command needs: its own, unless it is
    only a group, and one for each subcommand."""
    command = cli.get_command(click.Context(cli), name)
    assert command is not None
    own = [(name.replace(":", " "), command)]
    if not isinstance(command, click.Group):
        return own
    subcommands = [(f"{name} {sub}", cmd) for sub, cmd in command.commands.items()]
    visible = [p for p in command.params if p.name not in COMMON_OPTIONS]
    return (own if visible else []) + subcommands


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_command_has_help_and_every_flag_is_in_the_reference(command: str) -> None:
    result = CliRunner().invoke(cli, [command, "--help"])
    assert result.exit_code == 0 and "Usage: chitin" in result.stdout
    first = result.stdout.split("\n\n")[1].strip()
    assert len(first) > 20, f"{command} --help says too little"
    assert f"chitin {command}" in (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    for path, documented in documented_commands(command):
        section = command_reference(path)
        for param in documented.params:
            if isinstance(param, click.Option) and param.name not in COMMON_OPTIONS:
                for flag in [*param.opts, *param.secondary_opts]:
                    if flag.startswith("--") and not param.hidden:
                        assert f"`{flag}" in section or f"/ {flag}" in section, (path, flag)


def option_lines(section: str) -> dict[str, str]:
    """Each option line of a docs/commands.md section (``- `--flag ARG`: help``), by
    its first flag, with the help's white space made single spaces."""
    found = re.findall(r"^- `(--[\w-]+)[^`]*`: (.*)$", section, re.M)
    return {flag: " ".join(text.split()) for flag, text in found}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_the_reference_quotes_each_option_as_help_prints_it(command: str) -> None:
    """docs/commands.md promises the options "as `chitin COMMAND --help` prints them":
    a limit or a rule said in one and not the other misleads the reader of either."""
    for path, documented in documented_commands(command):
        lines = option_lines(command_reference(path))
        context = click.Context(documented, info_name=path)
        for param in documented.params:
            record = param.get_help_record(context)
            if not isinstance(param, click.Option) or param.name in COMMON_OPTIONS or not record:
                continue
            assert lines.get(param.opts[0]) == " ".join(record[1].split()), (path, param.opts[0])


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
    starters = {p.relative_to(STARTERS).as_posix() for p in STARTERS.rglob("*.md")}
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


# Modules that are data rather than code, allowed past the size limit, by name.
DATA_MODULES = {
    # Generated code points of the hand-written tokenizer (issue 29 item 4 removes it).
    "chitin/providers/unsure.py",
}
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60


def test_no_module_is_over_400_lines() -> None:
    """A module says one thing: past 400 lines it says several (issue 29)."""
    long = {
        f"{path.relative_to(ROOT)}: {count}"
        for _, path in modules()
        if str(path.relative_to(ROOT)) not in DATA_MODULES
        and (count := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert not long, long


def test_no_function_is_over_60_lines() -> None:
    """From its ``def`` line to its last, docstring included (decorators are not)."""
    long = [
        f"{path.relative_to(ROOT)}:{node.lineno} {node.name}: {count}"
        for _, path in modules()
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and (count := (node.end_lineno or node.lineno) - node.lineno + 1) > MAX_FUNCTION_LINES
    ]
    assert not long, long


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _module_level_imports(
    tree: ast.Module, types: bool = False
) -> Iterator[ast.Import | ast.ImportFrom]:
    """The imports that run when the module is imported: its top level, and the
    branches of a top-level ``if`` or ``try``, except ``if TYPE_CHECKING:`` (unless
    ``types``: then those too, the imports a type checker follows)."""
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If) and (types or not _is_type_checking(node.test)):
            pending.extend([*node.body, *node.orelse])
        elif isinstance(node, ast.Try):
            pending.extend([*node.body, *node.orelse, *node.finalbody])
            pending.extend(line for handler in node.handlers for line in handler.body)


def import_graph(types: bool = False) -> dict[str, set[str]]:
    """Each module of the package → the package's modules its import statements name:
    ``from a.b import c`` names ``a.b``, or ``a.b.c`` where that is a module (the
    package ``a.b`` is then only initialised on the way). ``types``: with the imports
    under ``if TYPE_CHECKING:``."""
    known = {name for name, _ in modules()}
    graph: dict[str, set[str]] = {}
    for name, path in modules():
        named: set[str] = set()
        for node in _module_level_imports(ast.parse(path.read_text()), types):
            if isinstance(node, ast.Import):
                named.update(alias.name for alias in node.names)
            elif node.module and not node.level:
                submodules = {f"{node.module}.{alias.name}" for alias in node.names}
                named.update(submodules & known)
                if submodules - known:  # a name defined in the module itself
                    named.add(node.module)
        graph[name] = (named & known) - {name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's)."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        for other in sorted(graph[module]):
            if other not in order:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], order[other])
        if low[module] == order[module]:
            component = [stack.pop()]
            while component[-1] != module:
                component.append(stack.pop())
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph):
        if module not in order:
            visit(module)
    return found


def test_the_package_has_no_import_cycle() -> None:
    """No module imports, at import time, a module that imports it back (directly or
    round a longer loop): each can be read, tested and moved after what it uses.

    Counted: the imports that run when a module loads. Not counted: imports inside
    functions (they run after every module has loaded, and are the named boundaries
    where start-up speed defers a load), imports under ``if TYPE_CHECKING:`` (they
    never run; they name types for annotations), and the parent packages Python
    initialises on the way (a package's ``__init__`` naming its own modules is how it
    shows its API)."""
    assert cycles(import_graph()) == []


def test_no_import_cycle_even_through_type_annotations() -> None:
    """The same, counting the imports under ``if TYPE_CHECKING:`` too: a module that
    names another's types only to annotate is still read after it, so no two modules
    may need each other even so (issue 29: ``Chitin`` and its use cases did)."""
    assert cycles(import_graph(types=True)) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def where_index_paths() -> list[str]:
    """The paths docs/architecture.md's "Where does X live" names, in backticks."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    section = text.split("## Where does X live", 1)[1].split("\n## ", 1)[0]
    return [
        token
        for token in re.findall(r"`([^`\s]+)`", section)
        if "/" in token or re.search(r"\.(py|json|md)$", token)
    ]


def test_every_path_the_where_index_names_exists() -> None:
    paths = where_index_paths()
    assert len(paths) > 40, paths  # the section is there, and its paths are read
    top = ("tests/", "bench/", "docs/")
    missing = [p for p in paths if not (ROOT / p if p.startswith(top) else PACKAGE / p).exists()]
    assert missing == []


def test_the_architecture_map_states_the_allow_table() -> None:
    """docs/architecture.md's "Which layer may use which" is the table this file
    enforces, row for row, and names every leaf any layer may use (it had no row for
    the resident front, chitin/front/, which console may use)."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    section = text.split("## Which layer may use which", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (\w+) \| ([^|]+) \|$", section, re.MULTILINE)
    documented = {
        layer: {u.strip() for u in uses.split(",")} - {"—"}
        for layer, uses in rows
        if layer != "layer"
    }
    assert documented == ALLOWED
    leaves = LEAVES | {name.removeprefix("chitin.") for name in SHARED} - {"chitin"}
    named = set(re.findall(r"`(\w+)`", section.split("| layer |", 1)[0]))
    assert leaves <= named, leaves - named


def imported_only(path: Path) -> set[str]:
    """The names a module binds by importing them and does not define itself."""
    imported: set[str] = set()
    defined: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import | ast.ImportFrom):
            imported.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined.add(node.name)
    return imported - defined


def test_every_name_the_where_index_gives_a_module_is_there_and_not_borrowed() -> None:
    """A row's ``module.py`` (``name``, …) sends a reader to that file for that name:
    the name is in it, and not one it imports from elsewhere (store/history.py was
    named for ``trailers_of`` and ``merged_away``, which live in store/messages.py and
    store/merged.py; history only imports them)."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    section = text.split("## Where does X live", 1)[1].split("\n## ", 1)[0]
    wrong, checked = [], 0
    for module, named in re.findall(r"`([\w/]+\.py)` \(([^)]*)\)", section):
        if module.startswith(("tests/", "bench/")):
            continue
        path = PACKAGE / module
        source, borrowed = path.read_text(), imported_only(path)
        for name in re.findall(r"`([A-Za-z_][\w.]*)`", named):
            checked += 1
            last = name.split(".")[-1]
            if last in borrowed or not re.search(rf"\b{re.escape(last)}\b", source):
                wrong.append(f"{module}: {name}")
    assert checked > 30, checked  # the rows are read
    assert wrong == []


# Imports inside functions, each at a named boundary: module (its path in the package)
# → the modules it may import inside a function → why there and not at its top. A top
# import loads on every path that loads its module; these would slow the session start
# (`get`, `stats`, `retrieve`, measured by bench/loaded_modules.py) or `--version`, or
# load a heavy library for a command that never uses it. Anything else is imported at
# the top of its module.
BOUNDARIES: dict[str, dict[str, str]] = {
    "console/__init__.py": {
        "chitin.cli": "click and every command: --version answers before they load",
        "chitin.cli.lean": "the session start's parser: reading commands only",
        "chitin.console.ahead": "pathlib, the store's place, the index, git: readers only",
    },
    "front/__init__.py": {
        "subprocess": "~5 ms: only to start a front",
    },
    "format/frontmatter.py": {"yaml": "PyYAML (~35 ms): a read from the cache parses none"},
    "index/sync.py": {"chitin.format.lint": "a broken file's fix, with the secret detector"},
    "index/vector_files.py": {"numpy": "heavy (~90 ms): a repeated query never loads it"},
    "index/vector_search.py": {"numpy": "heavy (~40-90 ms): a matrix past SMALL_MATRIX rows only"},
    "lockfile.py": {"shutil": "~10 ms (bz2, lzma): only for a folder where a file goes"},
    "model/ids.py": {"hashlib": "OpenSSL: only a sharded store's path"},
    "model/quality.py": {"decimal": "only a shown score is rounded; retrieve never is"},
    "providers/__init__.py": {
        "chitin.providers.local": "the local provider: when one is made, not named",
        "chitin.providers.remote": "httpx (~300 ms): when an HTTP provider is made",
        "chitin.providers.resident": "the resident embedder's settings: a local provider's",
    },
    "providers/local.py": {
        "numpy": "heavy (~90 ms): naming the provider, or a kept query, needs none",
        "chitin.providers.local_model": "onnxruntime and the weights: the first text embedded",
        "chitin.providers.wordpiece": "the plain-Python tokenizer: a few ASCII texts only",
        "tokenizers": "the tokenizer library (~700 KB to parse): beyond ASCII, or many texts",
        "chitin.providers.resident": "the resident embedder's client (socket, ~5 ms): to embed",
    },
    "providers/resident.py": {"subprocess": "~5 ms: only to start a resident"},
    "render/shapes/exchange.py": {"chitin.model.interchange": "export's only; shapes all load"},
    "render/shapes/insights.py": {"chitin.model.reflection": "reflect's only; shapes all load"},
    "render/shapes/reviews.py": {"chitin.model.diff": "diff's only; every shape loads with get"},
    "store/config.py": {"chitin.format.frontmatter": "its YAML: chitin.yaml's parse is cached"},
    "store/conflicts.py": {"shutil": "~2-10 ms (bz2, lzma): a sync's stop and finish only"},
    "store/git_children.py": {
        "subprocess": "~5 ms: loaded with store/interrupts.py by a write",
        "signal": "~0.6 ms (its enums): a third Ctrl-C only; the session start loads git.py",
    },
    "store/git.py": {
        "subprocess": "~5 ms: a read synced by a stat walk runs no git",
        "chitin.store.git_identity": "json (~1 ms): only a commit needs the identity",
    },
    "store/messages.py": {"chitin.model.diff": "an update's changed fields: not every write"},
    "store/loading.py": {
        "chitin.format.markdown": "a read served from the cache parses none",
        "chitin.format.lint": "the fix of a file that does not read: only then",
    },
    "store/repository.py": {
        "chitin.store.writing": "the write path (writer, secrets, commit words): writes only",
        "yaml": "PyYAML (~35 ms): `config set` only",
    },
    "cli/__init__.py": {
        "chitin.cli.group": "the click group: the session start's commands run without it"
    },
    "cli/agent.py": {"chitin": "the host files' code: hooks install/uninstall only"},
    "cli/context.py": {
        "chitin": "--output's writer: the commands that were given one",
        "click": "its progress bar: a terminal, and a large cache or an embedding",
    },
    "cli/embed.py": {"chitin": "the background worker's entry: the detached run only"},
    "cli/global_options.py": {
        "chitin.cli.context": "the library: --version and --help answer before it loads",
        "difflib": "only for a misspelt command's or option's did-you-mean",
    },
    "cli/group.py": {
        "chitin.cli.context": "the library: --version and --help answer before it loads",
    },
    "cli/mcp.py": {"chitin.server": "the server and its protocol: `chitin mcp` only"},
    "cli/outcome.py": {"chitin.render.failures": "an error's wording: only when a command fails"},
    "cli/read.py": {"chitin.render.shapes": "the JSON shapes: similar's text needs none"},
    "cli/recall.py": {
        "chitin.render.shapes": "the JSON shapes: the session start's text needs none"
    },
    "cli/session_hook.py": {
        "chitin": "Claude Code's hooks' use cases: the hook that runs",
        "chitin.render.failures": "a hook's failure, written to its log: failures only",
        "traceback": "the log of a hook that crashed: failures only",
    },
    "cli/show.py": {
        "chitin.render.shapes": "the JSON shapes: get's, list's and stats' text needs none"
    },
    "cli/write.py": {
        "chitin.render.diff": "difflib and the field diff: update's, not contribute's"
    },
    "core/__init__.py": {"importlib": "core's names load on first use (core/lazy.py's rule)"},
    "core/background.py": {
        "base64": "~0.6 ms (binascii): only a store that adopts the packaged vectors",
        "chitin.providers.minilm": "the packaged vectors: only a store that adopts them",
        "subprocess": "~5 ms: only when the background run is started",
    },
    "core/background_status.py": {
        "shutil": "~10 ms (bz2, lzma): only a folder in the status file's place",
    },
    "core/carapace.py": {"chitin.providers.carapace": "httpx (~300 ms): a Carapace call only"},
    "core/reading.py": {
        "chitin.store.history": "git log: `get --history` and a merged-away id only",
    },
    "core/retrieving.py": {
        "chitin.core.background": "the background run: when retrieve must start one"
    },
    "core/session.py": {
        "chitin.search.semantic": "the vectors and the provider: get and stats never embed",
        "chitin.store.watch": "ctypes and inotify: the MCP server's refresh only",
        "chitin.retrieval.scoring": "the ranking's rules: only a read that orders by strength",
        "chitin.core.write_gate": "the signal guard and the settings check: writers only",
        "chitin.model.secrets": "the credential detector: only a $CHITIN_AGENT to check",
        "getpass": "~2 ms (pwd, termios): only a reinforce's signature",
        "socket": "~3 ms: only a reinforce's signature",
        "chitin.model.evidence": "the evidence log: reinforce only",
    },
    "search/semantic.py": {
        "numpy": "heavy (~90 ms): only packaged vectors adopted",
        "chitin.providers.minilm": "the model's batch size: only when texts are embedded",
    },
    "search/stored.py": {
        "chitin.search.neighbours": "the neighbour search (numpy): stores past 4,096"
    },
    "retrieval/clusters.py": {
        "chitin.retrieval.bulk": "candidates in bulk (numpy): stores past 5,000"
    },
    "server/__init__.py": {"chitin": "the library, on the store's thread after the handshake"},
    "server/prompts.py": {"chitin.server.tool_calls": "the tools' code: at the first call"},
    "server/tools.py": {"chitin.server.tool_calls": "the tools' code: at the first call"},
    "server/worker.py": {"chitin.render.text": "the text shapes: a problem to report only"},
}
MAX_DEFERRED = 100  # in-function imports in the whole package, fewer than this


def deferred_imports(source: str) -> list[tuple[int, str]]:
    """(line, imported module) of each name imported inside a function body, nested
    ones too: ``from a import b, c`` is two (counted by name, the stricter count); a
    name that is a module of the package is that module (``from chitin.render import
    failures`` imports chitin.render.failures)."""
    found: list[tuple[int, str]] = []

    def walk(node: ast.AST, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if inside and isinstance(child, ast.Import):
                found.extend((child.lineno, alias.name) for alias in child.names)
            elif inside and isinstance(child, ast.ImportFrom):
                module = child.module or ""
                found.extend((child.lineno, _module_of(module, a.name)) for a in child.names)
            function = isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            walk(child, inside or function)

    walk(ast.parse(source), False)
    return found


def _module_of(module: str, name: str) -> str:
    """``module.name`` where that is a module of the package, else ``module``."""
    dotted = f"{module}.{name}"
    place = PACKAGE.parent.joinpath(*dotted.split("."))
    is_module = place.with_suffix(".py").is_file() or (place / "__init__.py").is_file()
    return dotted if dotted.startswith("chitin.") and is_module else module


def test_the_deferred_import_finder_finds_them() -> None:
    source = (
        "import os\nif os:\n    import json\n"
        "def f():\n    import yaml\n    def g():\n        from a.b import c\n"
        "class K:\n    def m(self):\n        import numpy, shlex\n"
        "def h():\n    from chitin.render import failures, shapes\n    from chitin import Query\n"
    )
    assert deferred_imports(source) == [
        (5, "yaml"),
        (7, "a.b"),
        (10, "numpy"),
        (10, "shlex"),
        (12, "chitin.render.failures"),
        (12, "chitin.render.shapes"),
        (13, "chitin"),
    ]


def test_imports_inside_functions_are_at_named_boundaries() -> None:
    """Each in-function import is one BOUNDARIES names, every BOUNDARIES entry is
    still used, and the package has fewer than MAX_DEFERRED."""
    unnamed, used, total = [], set(), 0
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        found = deferred_imports(path.read_text())
        total += len(found)
        for line, module in found:
            if module in BOUNDARIES.get(name, {}):
                used.add((name, module))
            else:
                unnamed.append(f"{name}:{line} imports {module}")
    assert unnamed == [], "import these at the top, or name the boundary in BOUNDARIES"
    named = {(name, module) for name, modules in BOUNDARIES.items() for module in modules}
    assert named - used == set(), "no longer imported in a function: drop from BOUNDARIES"
    assert total < MAX_DEFERRED, total
