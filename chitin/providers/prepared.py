"""The local model prepared once per machine: its graph optimised, its weights unpacked.

The shipped model keeps its weights as int8 with a scale. Loaded as it is, every run
converts all 22 million of them back to float32 first (~80-110 ms for one query on
two cores); letting onnxruntime fold that away instead takes ~300 ms at every load.
Both are too slow for a session start that meets a new query. So the folded,
optimised graph is saved once, with its float32 weights in a file of their own
(90 MB, which onnxruntime memory-maps), and later loads take ~25 ms and a query
~45 ms. The prepared model lives in the user's cache folder, shared by every store,
and is keyed by the model's sha256 and the onnxruntime version that made it.

It is derived data: a prepared model that is missing, incomplete or unloadable is
ignored (and a damaged one removed), and the shipped model is used as it is.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

GRAPH = "model.onnx"
WEIGHTS = "model.weights"
MANIFEST = "prepared.json"


def folder(cache_root: Path, model: str, sha256: str, runtime_version: str) -> Path:
    return cache_root / f"{model}-{sha256[:16]}-onnxruntime-{runtime_version}"


def find(target: Path, sha256: str) -> Path | None:
    """The prepared graph in ``target`` if it is complete (its manifest names this
    model and the weights' size on disk). An incomplete one is damage (``publish``
    never leaves one), so it is removed, to be made again."""
    try:
        manifest = json.loads((target / MANIFEST).read_text(encoding="utf-8"))
        complete = (
            manifest["source_sha256"] == sha256
            and (target / WEIGHTS).stat().st_size == manifest["weights_bytes"]
            and (target / GRAPH).is_file()
        )
    except (OSError, ValueError, KeyError, TypeError):
        complete = False
    if complete:
        return target / GRAPH
    if target.exists():
        discard(target)
    return None


def base_options(runtime: Any, spinning: bool) -> Any:
    """Options every session starts from: errors only in the log, and whether the
    threads spin between runs (local.Load says when they should)."""
    options = runtime.SessionOptions()
    options.log_severity_level = 3
    options.add_session_config_entry("session.intra_op.allow_spinning", str(int(spinning)))
    return options


def session_options(runtime: Any, optimised: bool, spinning: bool) -> Any:
    """Options for loading a prepared graph: nothing left to optimise; for a few texts,
    no prepacking of the weights either (it costs ~45 ms and saves ~13 ms a run)."""
    options = base_options(runtime, spinning)
    options.graph_optimization_level = runtime.GraphOptimizationLevel.ORT_DISABLE_ALL
    if not optimised:
        options.add_session_config_entry("session.disable_prepacking", "1")
    return options


def preparing_options(runtime: Any, scratch: Path, spinning: bool) -> Any:
    """Options that optimise the shipped graph and save the result into ``scratch``."""
    options = base_options(runtime, spinning)
    options.graph_optimization_level = runtime.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    options.optimized_model_filepath = str(scratch / GRAPH)
    options.add_session_config_entry(
        "session.optimized_model_external_initializers_file_name", WEIGHTS
    )
    options.add_session_config_entry(
        "session.optimized_model_external_initializers_min_size_in_bytes", "1024"
    )
    return options


def scratch_for(target: Path) -> Path:
    """A fresh folder beside ``target`` to prepare into (made; its parents too)."""
    scratch = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    return scratch


def publish(scratch: Path, target: Path, sha256: str) -> None:
    """Write the manifest last, then move the whole folder into place in one rename:
    a crash leaves a scratch folder, never a half-prepared model under ``target``.
    Another process that got there first wins; ours is thrown away."""
    try:
        manifest = {"source_sha256": sha256, "weights_bytes": (scratch / WEIGHTS).stat().st_size}
        (scratch / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
        os.rename(scratch, target)
    except OSError:
        shutil.rmtree(scratch, ignore_errors=True)


def discard(target: Path) -> None:
    """Remove a prepared model that would not load (it is made again)."""
    with contextlib.suppress(OSError):
        shutil.rmtree(target)
