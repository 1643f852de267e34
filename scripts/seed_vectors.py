"""Make chitin/assets/seed-vectors.json: the local model's vectors of the starter insights,
and chitin/providers/data/all-MiniLM-L6-v2.empty.hex, its vector of the empty text.

    python scripts/seed_vectors.py

`chitin init --seed` copies them into the new store's sidecar, so a new store is
searched by meaning from its first retrieve without embedding the starter insights.
Run this after changing a starter insight's text (tests/test_session_start.py fails
until then); a vector whose text no longer matches is never used.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

from chitin.core.background import SEED_VECTORS
from chitin.model.search_text import embedding_texts, vector_hash
from chitin.providers.local import LocalProvider
from chitin.providers.minilm import DIMENSIONS, EMPTY_TEXT_VECTOR, MODEL
from chitin.resources import asset_path, data_path
from chitin.store.files import stat_of
from chitin.store.loading import load_insight


def starter_parts() -> list[tuple[str, str, int, str]]:
    """(id, hash of its embedding text and tags, part, text of the part) of every starter
    insight's parts, in id order."""
    source = data_path("insights")
    found = []
    for path in sorted(source.rglob("*.md")):
        relative = path.relative_to(source.parent).as_posix()
        insight = load_insight(source.parent, relative, stat_of(path))
        digest = vector_hash(insight)
        found += [(insight.id, digest, n, text) for n, text in enumerate(embedding_texts(insight))]
    return sorted(found)


def main() -> int:
    parts = starter_parts()
    provider = LocalProvider()
    vectors = provider.embed([text for *_, text in parts], "document")
    rows = [
        {
            "id": insight_id,
            "hash": digest,
            "part": part,
            "vector": base64.b64encode(vector.astype("<f4").tobytes()).decode("ascii"),
        }
        for (insight_id, digest, part, _), vector in zip(parts, vectors, strict=True)
    ]
    document = {"identity": f"local:{MODEL}:{DIMENSIONS}", "rows": rows}
    target = Path(asset_path(SEED_VECTORS))
    target.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(rows)} vectors to {target}")
    # The floor of a match in meaning (search/semantic.py, said_nothing): the one place
    # the empty text is embedded, so that no command ever asks a model for it.
    empty = provider.embed([""], "query")[0].astype("<f4").tobytes()
    EMPTY_TEXT_VECTOR.write_text(empty.hex() + "\n", encoding="ascii")
    print(f"wrote the empty text's vector to {EMPTY_TEXT_VECTOR}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
