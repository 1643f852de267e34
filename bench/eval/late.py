"""Round 4 of issue 24's retrieval quality (docs/design.md §6b): ideas measured by
substituting the semantic hits in the real retrieval, as rounds 2 and 3 did.

    python bench/eval/late.py --dataset bench/eval/agent-store.yaml --idea late
    python bench/eval/late.py --dataset bench/eval/heldout.yaml --idea query
    python bench/eval/late.py --cost     # the model's time: a query, and 8 insights' texts

``late``: a late-interaction re-rank of the nearest k insights with the same model.
Each candidate's whole text and the query are run through the model; MaxSim (each query
token's best cosine to a candidate token, averaged over the query's tokens; [CLS] and
[SEP] left out) is added to the pooled cosine as ``beta × (maxsim − the k candidates'
mean maxsim)``, so the candidates are re-ordered among themselves and keep their scale
against the rest. ``query``: the query's vector averaged with that of a rewritten query
(without stopwords, "how should I …", "When …"). ``prf`` (round 5): pseudo-relevance
feedback (Rocchio) in embedding space, q' = normalise(q + alpha × mean of the k stored
rows nearest to q), optionally weighted by their cosines; the hits are found again with
q'. Every variant is compared with the default by the paired bootstrap of run.py (nDCG@10).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import yaml

import chitin.search.engine as engine
from chitin.core import Chitin
from chitin.core import Query as Asked
from chitin.index.fulltext import STOPWORDS
from chitin.index.vector_files import mapped_matrix
from chitin.model.search_text import embedding_texts
from chitin.providers import local
from chitin.search import semantic

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as ev  # run.py: this folder's module, not a package

Variant = dict[str, Any]
TOKENS: dict[str, np.ndarray] = {}  # text -> its unit token vectors, [CLS] and [SEP] dropped


def token_vectors(provider: local.LocalProvider, texts: Sequence[str]) -> None:
    """Fill TOKENS for ``texts``: the model's output before mean pooling."""
    todo = sorted({t for t in texts if t not in TOKENS}, key=len)
    if not todo:
        return
    provider._load(local.BULK)
    for start in range(0, len(todo), local.BATCH):
        batch = todo[start : start + local.BATCH]
        rows = provider._token_ids(batch)
        ids = np.zeros((len(rows), max(map(len, rows))), dtype=np.int64)
        mask = np.zeros_like(ids)
        for n, row in enumerate(rows):
            ids[n, : len(row)], mask[n, : len(row)] = row, 1
        inputs = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = provider._session.run(None, inputs)[0]
        for n, (text, row) in enumerate(zip(batch, rows, strict=True)):
            found = hidden[n, 1 : len(row) - 1]
            TOKENS[text] = found / np.linalg.norm(found, axis=1, keepdims=True)


def int8(vectors: np.ndarray) -> np.ndarray:
    """``vectors`` as they would read back if stored as int8 with a scale per token."""
    scale = np.abs(vectors).max(axis=1, keepdims=True) / 127
    back = np.round(vectors / scale) * scale
    return back / np.linalg.norm(back, axis=1, keepdims=True)


def projected(vectors: np.ndarray, dimensions: int) -> np.ndarray:
    """``vectors`` projected to ``dimensions`` by a fixed random Gaussian matrix, as
    unit vectors: a smaller token row, at the price of noisier cosines."""
    if not dimensions:
        return vectors
    matrix = np.random.default_rng(24).standard_normal((vectors.shape[1], dimensions))
    out = vectors @ matrix.astype(np.float32)
    return out / np.linalg.norm(out, axis=1, keepdims=True)


def maxsim(query: str, text: str, stored: bool = False, dimensions: int = 0) -> float:
    """Each query token's best cosine to a token of ``text``, averaged."""
    ours, theirs = projected(TOKENS[query], dimensions), projected(TOKENS[text], dimensions)
    theirs = int8(theirs) if stored else theirs
    if not len(ours) or not len(theirs):
        return 0.0
    return float((ours @ theirs.T).max(axis=1).mean())


def reranked(
    hits: list[tuple[str, float]], scores: Sequence[float], beta: float
) -> list[tuple[str, float]]:
    """The first len(scores) hits re-ordered by cosine + beta × (score − their mean);
    the rest as they were."""
    k = len(scores)
    mean = statistics.fmean(scores) if scores else 0.0
    moved = [(i, c + beta * (s - mean)) for (i, c), s in zip(hits[:k], scores, strict=True)]
    return sorted(moved, key=lambda hit: -hit[1]) + hits[k:]


def no_stopwords(query: str) -> str:
    kept = [w for w in query.split() if w.lower().strip(".,?!'\"") not in STOPWORDS]
    return " ".join(kept) or query


def fed_back(matrix: np.ndarray, rows: Sequence[int], query: np.ndarray, variant: Variant) -> Any:
    """``query`` moved toward the mean of its ``k`` nearest stored rows (their cosines
    as weights with ``weighted``), as a unit vector."""
    numbers = np.asarray(rows, dtype=np.int64)
    scores = matrix[numbers] @ query.astype(np.float32)
    top = np.argsort(-scores, kind="stable")[: variant["prf"]]
    weights = scores[top] if variant.get("weighted") else np.ones(len(top), dtype=np.float32)
    mean = (weights[:, None] * matrix[numbers[top]]).sum(axis=0) / weights.sum()
    moved = query + variant["alpha"] * mean
    return moved / np.linalg.norm(moved)


def substitute(variant: Variant, texts: dict[str, list[str]]) -> Callable[..., semantic.Nearest]:
    """semantic.nearest with the variant's change to its hits."""
    original = semantic.nearest

    def nearest(cache: Any, sem: semantic.Semantic, query: str, filters: Any) -> Any:
        found = original(cache, sem, query, filters)
        hits = list(found.hits)
        if not hits:
            return found
        if "rewrite" in variant:
            vectors = sem.provider.embed([query, variant["rewrite"](query)], "query")
            vector = (1 - variant["weight"]) * vectors[0] + variant["weight"] * vectors[1]
            rows = cache.current_vector_rows(sem.vectors.index_path, filters)
            hits = sem.vectors.nearest(vector / np.linalg.norm(vector), rows, 200)
        if "prf" in variant:
            kept = sem.vectors.cached_query(query)
            vector = (
                sem.provider.embed([query], "query")[0]
                if kept is None
                else np.asarray(kept, dtype=np.float32)
            )
            rows = cache.current_vector_rows(sem.vectors.index_path, filters)
            matrix = mapped_matrix(sem.vectors.folder, sem.vectors.dimensions)
            assert matrix is not None  # there were hits, so there are rows
            hits = sem.vectors.nearest(fed_back(matrix, rows, vector, variant), rows, 200)
        if "k" in variant:
            top = [i for i, _ in hits[: variant["k"]]]
            assert isinstance(sem.provider, local.LocalProvider)
            parts = {i: texts[i][: variant.get("parts", 1)] for i in top}
            token_vectors(sem.provider, [query, *(p for i in top for p in parts[i])])
            stored, dimensions = variant.get("int8", False), variant.get("dimensions", 0)
            scores = [max(maxsim(query, p, stored, dimensions) for p in parts[i]) for i in top]
            hits = reranked(hits, scores, variant["beta"])
        return semantic.Nearest(hits, found.degraded, found.unembedded)

    return nearest


def rankings(
    root: Path, queries: list[ev.Query], variant: Variant, texts: dict[str, list[str]]
) -> Any:
    chitin = Chitin(root, now=ev.NOW, shape=ev.DEFAULT_SHAPE, fusion="blend")
    original, engine.nearest = engine.nearest, substitute(variant, texts)  # type: ignore[assignment]
    try:
        asked = [Asked(q.text, max_results=ev.CUTOFF) for q in queries]
        return [[r.insight.id for r in chitin.retrieve(a, record=False).ranked] for a in asked]
    finally:
        engine.nearest = original
        chitin.close()


IDEAS: dict[str, list[tuple[str, Variant]]] = {
    "late": [
        *((f"late k{k} beta {b}", {"k": k, "beta": b}) for k, b in ((30, 0.3), (30, 0.6))),
        *((f"late k{k} beta {b}", {"k": k, "beta": b}) for k, b in ((30, 1.0), (30, 1.5))),
        *((f"late k{k} beta {b}", {"k": k, "beta": b}) for k, b in ((30, 2.0), (20, 1.0))),
        *((f"late k{k} beta {b}", {"k": k, "beta": b}) for k, b in ((10, 1.0), (8, 1.5))),
        ("late k30 beta 1.5, int8", {"k": 30, "beta": 1.5, "int8": True}),
    ],
    "more": [
        ("late k30 beta 1.0, every part", {"k": 30, "beta": 1.0, "parts": 3}),
        *(
            (f"late k30 beta 1.5, {d} dims", {"k": 30, "beta": 1.5, "int8": True, "dimensions": d})
            for d in (128, 96, 64)
        ),
    ],
    "query": [
        ("no stopwords, 0.3", {"rewrite": no_stopwords, "weight": 0.3}),
        ("no stopwords, 0.5", {"rewrite": no_stopwords, "weight": 0.5}),
        ("'how should I …', 0.3", {"rewrite": lambda q: f"how should I {q}", "weight": 0.3}),
        ("'how should I …', 0.5", {"rewrite": lambda q: f"how should I {q}", "weight": 0.5}),
        ("'When …', 0.5", {"rewrite": lambda q: f"When {q}", "weight": 0.5}),
    ],
    "prf": [
        *((f"prf k{k} alpha {a}", {"prf": k, "alpha": a}) for k in (3, 5) for a in (0.3, 0.5, 1.0)),
        ("prf k5 alpha 0.5, by cosine", {"prf": 5, "alpha": 0.5, "weighted": True}),
    ],
}


def measure(dataset: Path, idea: str) -> None:
    insights, queries = ev.load(dataset)
    texts = {i.id: list(embedding_texts(i)) for i in insights}  # whole text, condition, reasoning
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        ev.build_store(insights, root)
        (root / "chitin.yaml").write_text(yaml.safe_dump({"embedding": {"provider": "local"}}))
        ev.rankings(root, queries[:1], ev.DEFAULT_SHAPE)  # embeds the store
        base = rankings(root, queries, {}, texts)
        print(f"{dataset.name}: nDCG@10 B - A, A = default, [95% interval], * outside noise")
        for name, variant in IDEAS[idea]:
            result = ev.compare(queries, base, rankings(root, queries, variant, texts))
            cells = [
                f"{g} {i.b:.3f} {i.diff:+.3f} [{i.low:+.3f}, {i.high:+.3f}]{'*' * i.outside_noise}"
                for g, i in ((g, result[g]["ndcg"]) for g in ev.GROUPS if g in result)
            ]
            print(f"{name:32}" + " | ".join(cells))


def cost(dataset: Path, runs: int = 40) -> None:
    """The model's time, in this process, for one query and for 8 whole texts of the set
    (what a re-rank of the 8 nearest costs when their token vectors are not stored)."""
    insights, queries = ev.load(dataset)
    texts = [embedding_texts(i)[0] for i in insights]
    provider = semantic.create("local", None, env=os.environ, work_folder=None)
    provider.embed(["a first query loads the model"], "query")
    one, eight = [], []
    for n in range(runs):
        started = time.perf_counter()
        provider.embed([queries[n % len(queries)].text], "query")
        one.append(time.perf_counter() - started)
        started = time.perf_counter()
        provider.embed(texts[8 * n : 8 * n + 8], "document")
        eight.append(time.perf_counter() - started)
    print(
        f"median of {runs}: a query {1000 * statistics.median(one):.0f} ms, "
        f"8 whole texts {1000 * statistics.median(eight):.0f} ms"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=ev.AGENT_STORE)
    parser.add_argument("--idea", choices=sorted(IDEAS), default="late")
    parser.add_argument("--cost", action="store_true", help="time the model instead")
    args = parser.parse_args()
    if args.cost:
        cost(args.dataset)
    else:
        measure(args.dataset, args.idea)
    return 0


if __name__ == "__main__":
    sys.exit(main())
