"""bench/mcp.py's --output: its help says "raw figures here (default bench/results/)",
so a folder given there gets the figures inside it, not a crash after the runs (qa34)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_a_folder_as_output_gets_the_figures_inside_it(tmp_path: Path) -> None:
    before = set(sys.modules)
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        # Not "mcp": that name is the SDK's (bench/mcp.py says so).
        spec = importlib.util.spec_from_file_location("bench_mcp", ROOT / "bench" / "mcp.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["bench_mcp"] = module  # its dataclasses look themselves up there
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "bench"))
        for name in set(sys.modules) - before:  # bench's "run" and "jsonrpc": not ours
            if name in ("bench_mcp", "run", "jsonrpc"):
                del sys.modules[name]
    written = module.save({"runs": 1}, tmp_path)
    assert written.parent == tmp_path and written.name.startswith("mcp-")
    assert json.loads(written.read_text()) == {"runs": 1}
    named = module.save({"runs": 2}, tmp_path / "figures.json")
    assert named == tmp_path / "figures.json"
