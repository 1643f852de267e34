"""Round 9 of issue 24's retrieval quality (docs/design.md §6b): the parts an insight is
found by in meaning, and a person's insights reached through the query's nearest,
measured by substituting the semantic hits or the fusion in the real retrieval.

    python bench/eval/parts.py --dataset bench/eval/heldout-3.yaml --idea parts
    python bench/eval/parts.py --dataset bench/eval/heldout-3.yaml --idea names

``parts``: the semantic hits made again from each variant's texts (an insight's cosine
is its best part's), against the same made from the parts before round 9 (the whole
text, a trigger's condition, the reasoning). ``names``: an insight that names a person
(retrieval.people.names) named by one of the query's k nearest insights takes λ × that
neighbour's cosine where it is higher; names held by more than 10 % of the store are
left out. Every variant is compared with its baseline by run.py's paired bootstrap."""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import chitin.search.engine as engine
from chitin.core import Query as Asked
from chitin.model.insight import Insight
from chitin.model.search_text import embedding_text
from chitin.providers import create
from chitin.retrieval.people import names
from chitin.search import semantic

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as ev  # run.py: this folder's module, not a package

Texts = Callable[[Insight], list[str]]


def _tags(insight: Insight, first: int | None = None) -> str:
    return ", ".join(insight.tags[:first])


def _before(insight: Insight) -> list[str]:
    """The parts before round 9: the whole text, a trigger's condition, the reasoning."""
    return [embedding_text(insight), *(p for p in (insight.condition, insight.reasoning) if p)]


def _with(extra: Callable[[Insight], str | None]) -> Texts:
    return lambda i: [*_before(i), *([t] if (t := extra(i)) else [])]


PARTS: dict[str, Texts] = {
    "whole (tags), the better part (kept)": _with(
        lambda i: f"{embedding_text(i)} ({_tags(i)})" if i.tags else None
    ),
    "tags: whole, the better part": _with(
        lambda i: f"{_tags(i)}: {embedding_text(i)}" if i.tags else None
    ),
    "whole (first two tags)": _with(
        lambda i: f"{embedding_text(i)} ({_tags(i, 2)})" if i.tags else None
    ),
    "whole (tags), and condition (tags)": lambda i: [
        *_with(lambda j: f"{embedding_text(j)} ({_tags(j)})" if j.tags else None)(i),
        *([f"{i.condition} ({_tags(i)})"] if i.condition and i.tags else []),
    ],
    "whole (tags) instead of the whole": lambda i: [
        f"{embedding_text(i)} ({_tags(i)})" if i.tags else embedding_text(i),
        *(p for p in (i.condition, i.reasoning) if p),
    ],
}
NAMES = {f"k {k}, λ {lam}": (k, lam) for k, lam in ((3, 0.9), (3, 0.8), (1, 0.9), (3, 1.0))}


def _text_of(insight: Insight) -> str:
    return " ".join(
        p for p in (insight.claim, insight.condition, insight.context, insight.reasoning) if p
    )


class Views:
    """The substitutions, switched by ``hits`` (the parts' rows) and ``names``."""

    def __init__(self, insights: list[Insight]) -> None:
        counted = {i.id: names(_text_of(i)) for i in insights}
        held = Counter(n for found in counted.values() for n in found)
        cap = 0.1 * len(insights)
        self.people = {k: frozenset(n for n in v if held[n] <= cap) for k, v in counted.items()}
        self.hits: tuple[list[str], Any] | None = None
        self.names: tuple[int, float] | None = None

    def nearest(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def substituted(cache: Any, sem: Any, query: str | None, filters: Any) -> Any:
            found = original(cache, sem, query, filters)
            if self.hits is None or query is None or not found.hits:
                return found
            owners, matrix = self.hits
            best: dict[str, float] = {}
            cosines = matrix @ sem.provider.embed([query], "query")[0]
            for owner, cosine in zip(owners, cosines, strict=True):
                best[owner] = max(best.get(owner, -2.0), float(cosine))
            hits = sorted(best.items(), key=lambda h: -h[1])[: semantic.NEIGHBOURS]
            return semantic.Nearest(hits, found.degraded, found.unembedded)

        return substituted

    def fused(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def substituted(cache: Any, text: Any, meaning: Any, *rest: Any) -> Any:
            if self.names is not None and meaning:
                k, lam = self.names
                cosines = dict(meaning)
                for near, cosine in sorted(meaning, key=lambda h: -h[1])[:k]:
                    for i in cosines:
                        if i != near and self.people.get(i, frozenset()) & self.people[near]:
                            cosines[i] = max(cosines[i], lam * cosine)
                meaning = list(cosines.items())
            return original(cache, text, meaning, *rest)

        return substituted


def measure(dataset: Path, idea: str) -> None:
    insights, queries = ev.load(dataset)
    views = Views(insights)
    provider = create("local", None, env={})
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        chitin = ev.embedded_chitin(insights, queries, root)
        nearest, fused = engine.nearest, engine._fused
        engine.nearest = views.nearest(nearest)  # type: ignore[assignment]
        engine._fused = views.fused(fused)  # type: ignore[assignment]

        def rankings() -> list[list[str]]:
            asked = [Asked(q.text, max_results=ev.CUTOFF) for q in queries]
            return [[r.insight.id for r in chitin.retrieve(a, record=False).ranked] for a in asked]

        def use(texts: Texts) -> None:
            made = [(i.id, t) for i in insights for t in texts(i)]
            matrix = np.asarray(provider.embed([t for _, t in made], "document"), np.float32)
            views.hits = ([owner for owner, _ in made], matrix)

        try:
            if idea == "parts":
                use(_before)
            base = rankings()
            print(f"{dataset.name}: nDCG@10 B - A, A = default, [95% interval], * outside noise")
            for name, setting in (PARTS if idea == "parts" else NAMES).items():
                if idea == "parts":
                    use(setting)  # type: ignore[arg-type]
                else:
                    views.names = setting  # type: ignore[assignment]
                result = ev.compare(queries, base, rankings())
                cells = [
                    f"{g} {i.diff:+.3f} [{i.low:+.3f}, {i.high:+.3f}]{'*' * i.outside_noise}"
                    for g, i in ((g, result[g]["ndcg"]) for g in ev.GROUPS if g in result)
                ]
                print(f"{name:38}" + " | ".join(cells), flush=True)
        finally:
            engine.nearest, engine._fused = nearest, fused  # type: ignore[assignment]
            chitin.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=ev.AGENT_STORE)
    parser.add_argument("--idea", choices=("parts", "names"), default="parts")
    args = parser.parse_args()
    measure(args.dataset, args.idea)
    return 0


if __name__ == "__main__":
    sys.exit(main())
