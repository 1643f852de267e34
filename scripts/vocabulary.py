"""Make chitin/providers/data/all-MiniLM-L6-v2.vocab.txt from the tokenizer.json beside it.

    python scripts/vocabulary.py

The plain-Python tokenizer (chitin/providers/wordpiece.py) reads the vocabulary as
one token a line, the line number its id, so that a session start needs neither the
``tokenizers`` library nor the 700 KB JSON. Run this if tokenizer.json changes;
tests/test_providers.py fails until then.
"""

from __future__ import annotations

import json
import sys

from chitin.providers.minilm import TOKENIZER, VOCABULARY


def main() -> int:
    vocab = json.loads(TOKENIZER.read_text(encoding="utf-8"))["model"]["vocab"]
    tokens = sorted(vocab, key=vocab.__getitem__)
    assert [vocab[t] for t in tokens] == list(range(len(tokens))), "ids must be 0..n-1"
    assert not any("\n" in token for token in tokens)
    VOCABULARY.write_text("\n".join(tokens) + "\n", encoding="utf-8")
    print(f"wrote {len(tokens)} tokens to {VOCABULARY}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
