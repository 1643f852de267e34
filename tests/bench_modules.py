"""Load a script of bench/ as a module under a name of its own.

bench/eval and bench/dedup both have a ``run.py``; importing them as ``run`` through
``sys.path`` gives whichever was imported first, so a test file run alone could load
the other one. Each is loaded here by its path, as ``bench_<folder>_<name>``, with
its folder at the end of ``sys.path`` for its own sibling imports.
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
    if str(path.parent) not in sys.path:
        # last, not first: bench/mcp.py must not hide the mcp package from the tests
        # collected after this one, nor a script the standard library's modules
        sys.path.append(str(path.parent))
    spec = importlib.util.spec_from_file_location(qualified, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[qualified] = module
    spec.loader.exec_module(module)
    return module
