"""Load a script of bench/ as a module under a name of its own.

bench/eval and bench/dedup both have a ``run.py``; importing them as ``run`` through
``sys.path`` gives whichever was imported first, so a test file run alone could load
the other one. Each is loaded here by its path, as ``bench_<folder>_<name>``, with
its folder first on ``sys.path`` while it runs (and at the end after, for a sibling
imported later), and the bare names its sibling imports left are forgotten.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[1] / "bench"


def bench_module(folder: str, name: str) -> ModuleType:
    qualified = f"bench_{folder}_{name}"
    if qualified in sys.modules:
        return sys.modules[qualified]
    path = BENCH / folder / f"{name}.py"
    home = str(path.parent)
    if home not in sys.path:
        # last, not first: bench/mcp.py must not hide the mcp package from the tests
        # collected after this one, nor a script the standard library's modules
        sys.path.append(home)
    spec = importlib.util.spec_from_file_location(qualified, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[qualified] = module
    before = set(sys.modules)
    # While it runs, its own folder first: its ``import run`` is its folder's run.py,
    # not the one of a folder an earlier test put on the path.
    sys.path.insert(0, home)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(home)  # the first one: the appended entry stays
        _forget_siblings(set(sys.modules) - before)
    return module


def _forget_siblings(names: set[str]) -> None:
    """Drop the bare names (``run``, ``learn``) a script's sibling imports left in
    sys.modules: the script keeps what it imported, and the next folder's ``import
    run`` finds its own."""
    for name in names:
        found = getattr(sys.modules.get(name), "__file__", None) or ""
        if "." not in name and found.startswith(str(BENCH)):
            del sys.modules[name]
