"""Measure inputs to the judgement before building them: what ``judge()`` would say on
the labelled sets with other cosines than the whole-text one the door gives it.

Each side's texts are embedded once with the local model (cached in ``--cache``):
the whole text (``embedding_text``: claim, condition, context, reasoning: the
sidecar's part 0, what ``contribute`` compares today), the core (claim and condition,
without context and reasoning) and the claim alone (a trigger's response). Then
``judge(b, a, cosine, response)`` is scored per set with each variant of ``cosine``:

    python bench/dedup/leads.py                  # every set in bench/dedup, each variant
    python bench/dedup/leads.py --quantiles      # the cosines per kind, whole and core
    python bench/dedup/leads.py --own 0.35 0.45  # own words decide in the band OWN_BAND
    python bench/dedup/leads.py --set DUPLICATE_COSINE=0.68   # a threshold of judgement

The variants: ``whole`` (today, what ``contribute`` gives: the same verdicts, pair
for pair, as bench/dedup/run.py), ``core`` (the core vectors only), ``max`` (the
larger of the two), ``either`` (a duplicate by the whole or the core vectors, a
conflict by the whole), ``door`` (``either`` with the new insight's core against the
stored whole text: what the door has without storing more). ``core`` differs from
``whole`` only where a side has context or reasoning. ``--own BAR``: a pair left
neither, of whole-text cosine in OWN_BAND, is a duplicate where the words each side
has of its own (their roots not in the other's topic) embed BAR near.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import load, scores  # noqa: E402

SETS = ("pairs.yaml", "heldout-pairs.yaml", "heldout-pairs-2.yaml", "heldout-pairs-3.yaml")
Data = Mapping[str, Any]


def whole(side: Data) -> str:
    """``model.search_text.embedding_text`` of the side."""
    parts = [side["claim"]]
    if side.get("condition"):
        parts.append(f"When {side['condition']}")
    parts.extend(side[key] for key in ("context", "reasoning") if side.get(key))
    return " — ".join(parts)


def core(side: Data) -> str:
    return f"{side['claim']} — When {side['condition']}" if side.get("condition") else side["claim"]


class Vectors:
    """Texts embedded once, kept in a cache file between runs."""

    def __init__(self, cache: Path) -> None:
        import numpy as np

        self.cache = cache
        self.known: dict[str, Any] = {}
        if cache.exists():
            saved = np.load(cache, allow_pickle=False)
            self.known = dict(zip(saved["texts"].tolist(), saved["vectors"], strict=True))

    def embed(self, texts: Sequence[str]) -> None:
        import numpy as np

        from chitin.providers.local import LocalProvider

        missing = sorted({t for t in texts if t not in self.known})
        if not missing:
            return
        made = LocalProvider().embed(missing)
        self.known.update(zip(missing, made, strict=True))
        names = list(self.known)
        np.savez(
            self.cache, texts=np.array(names), vectors=np.array([self.known[t] for t in names])
        )

    def cosine(self, first: str, second: str) -> float:
        return float(self.known[first] @ self.known[second])


def cosines(pair: Mapping[str, Any], vectors: Vectors) -> dict[str, float]:
    a, b = pair["a"], pair["b"]
    return {
        "whole": vectors.cosine(whole(a), whole(b)),
        "core": vectors.cosine(core(a), core(b)),
        "claim": vectors.cosine(a["claim"], b["claim"]),
        "door": vectors.cosine(whole(a), core(b)),  # the new one's core, the stored whole
    }


VARIANTS: dict[str, Callable[[dict[str, float]], float]] = {
    "whole": lambda c: c["whole"],
    "core": lambda c: c["core"],
    "max": lambda c: max(c["whole"], c["core"]),
}
OWN_BAND = (0.5, 0.7)  # the whole-text cosines where own words may decide


def own_words(first: str, second: str) -> tuple[str, str]:
    """The words of each text whose root the other lacks (the topic's roots)."""
    from chitin.retrieval.stance import root, stance, words_of

    mine, theirs = stance(first).topic, stance(second).topic

    def kept(text: str, own: frozenset[str]) -> str:
        return " ".join(dict.fromkeys(w for w in words_of(text) if root(w) in own))

    return kept(first, mine - theirs), kept(second, theirs - mine)


def verdicts(
    pairs: Sequence[Mapping[str, Any]], vectors: Vectors, variant: str, own: float | None = None
) -> list[str]:
    """``variant``: a key of VARIANTS, or "either" (a duplicate by the whole or the
    core vectors, a conflict by the whole). ``own``: a pair the judgement leaves with
    a whole cosine in OWN_BAND is a duplicate where its own words are this near."""
    from chitin.retrieval.judgement import DUPLICATE, NONE, Side, judge

    def side(data: Data) -> Side:
        return Side(data["type"], data["claim"], data.get("condition"), bool(data.get("avoid")))

    found = []
    for pair in pairs:
        a, b = side(pair["a"]), side(pair["b"])
        c = cosines(pair, vectors)
        response = c["claim"] if a.type == b.type == "trigger" else None
        verdict = judge(b, a, VARIANTS.get(variant, VARIANTS["whole"])(c), response)
        other = {"either": "core", "door": "door"}.get(variant)
        if (
            other
            and verdict.kind == NONE
            and not verdict.reason
            and judge(b, a, c[other], response).kind == DUPLICATE
        ):
            verdict = verdict._replace(kind=DUPLICATE)
        if own is not None and verdict.kind == NONE and not verdict.reason:
            first, second = own_words(core(pair["a"]), core(pair["b"]))
            band = OWN_BAND[0] <= c["whole"] < OWN_BAND[1]
            if band and first and second and vectors.cosine(first, second) >= own:
                verdict = verdict._replace(kind=DUPLICATE)
        found.append("none" if verdict.kind == NONE else verdict.kind)
    return found


def line(name: str, pairs: Sequence[Mapping[str, Any]], found: Sequence[str]) -> str:
    s = scores(pairs, found)
    wrong: Counter[str] = Counter()
    for pair, said in zip(pairs, found, strict=True):
        wanted = pair["label"] if pair["label"] in ("duplicate", "conflict") else "none"
        if said != wanted:
            wrong[f"{pair['kind']}→{said}"] += 1
    return (
        f"  {name:7} dup P/R/F1 {s['duplicate P']:.3f}/{s['duplicate R']:.3f}/"
        f"{s['duplicate F1']:.3f}  conflict F1 {s['conflict F1']:.3f}  compatible "
        f"flagged {100 * s['compatible flagged']:.1f} %  | "
        + ", ".join(f"{k} {v}" for k, v in wrong.most_common())
    )


def quantiles(pairs: Sequence[Mapping[str, Any]], vectors: Vectors) -> None:
    import numpy as np

    by_kind: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for pair in pairs:
        if whole(pair["a"]) != core(pair["a"]) or whole(pair["b"]) != core(pair["b"]):
            c = cosines(pair, vectors)
            by_kind[pair["kind"]].append((c["whole"], c["core"]))
    print("  pairs with context or reasoning: whole → core cosine, median [10 %, 90 %]")
    for kind, values in sorted(by_kind.items()):
        w, k = np.array(values).T
        print(
            f"    {kind:17} n={len(values):3}  {np.median(w):.2f} [{np.quantile(w, 0.1):.2f}, "
            f"{np.quantile(w, 0.9):.2f}] → {np.median(k):.2f} [{np.quantile(k, 0.1):.2f}, "
            f"{np.quantile(k, 0.9):.2f}]"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", nargs="*", default=list(SETS))
    parser.add_argument("--cache", type=Path, default=Path("/tmp/chitin-dedup-leads.npz"))
    parser.add_argument("--quantiles", action="store_true")
    parser.add_argument("--own", type=float, nargs="*", default=[], help="own-words bars")
    parser.add_argument("--set", nargs="*", default=[], help="NAME=VALUE: judgement's bars")
    args = parser.parse_args(argv)
    from chitin.retrieval import judgement

    for assignment in args.set:  # judge() reads its module's thresholds when called
        name, _, value = assignment.partition("=")
        setattr(judgement, name, float(value))
    vectors = Vectors(args.cache)
    loaded = {name: load(HERE / name) for name in args.sets}
    texts = [
        text
        for pairs in loaded.values()
        for pair in pairs
        for side in (pair["a"], pair["b"])
        for text in (whole(side), core(side), side["claim"])
    ] + [
        text
        for pairs in loaded.values()
        for pair in pairs
        for text in own_words(core(pair["a"]), core(pair["b"]))
        if text
    ]
    vectors.embed(texts)
    pooled: dict[str, list[str]] = defaultdict(list)
    everything = [pair for pairs in loaded.values() for pair in pairs]
    for name, pairs in loaded.items():
        print(f"== {name}: {len(pairs)} pairs")
        if args.quantiles:
            quantiles(pairs, vectors)
        for variant in [*VARIANTS, "either", "door"]:
            found = verdicts(pairs, vectors, variant)
            pooled[variant].extend(found)
            print(line(variant, pairs, found))
        for bar in args.own:
            found = verdicts(pairs, vectors, "whole", bar)
            pooled[f"own{bar}"].extend(found)
            print(line(f"own{bar}", pairs, found))
    print(f"== pooled: {len(everything)} pairs")
    for variant, found in pooled.items():
        print(line(variant, everything, found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
