"""Does a token alignment (BERTScore-style) separate duplicates from the rest better
than the pooled cosine the judgement reads today? Measured before any product code.

Each side's whole text (``embedding_text``: what ``contribute`` compares) goes once
through the local model (all-MiniLM-L6-v2 int8). From the same run come the pooled
vector (the mean over the tokens, normalised: the vector the sidecar stores) and one
unit vector per token before pooling ([CLS] and [SEP] left out). The alignment of two
texts is BERTScore's F: each token's best cosine to the other side's tokens, averaged
over its side (P one way, R the other), F = 2PR / (P + R). Variants: every token
(``F all``), stopwords and punctuation out (``F content``), the content tokens weighted
by their word's IDF over the sets' texts, a stand-in for a store's frequencies
(``F idf``); and ``F own``: only the content tokens whose word the other text lacks
(a "##" piece belongs to its word), IDF-weighted or not (``no idf``): what each side
says in words of its own, aligned.

    python bench/dedup/align.py                # AUCs per set and pooled, then the rules
    python bench/dedup/align.py --rules-only   # the grid of rules, pooled
    python bench/dedup/align.py --rule "F own, no idf" 0.45 0.5 --veto 0.3 --ceiling 0.92
                                               # one rule: per set, and the bootstrap
    python bench/dedup/align.py --cost         # the door's extra time, through a resident

AUC is the chance that a duplicate scores above a pair of the other group: all the
rest; compatible pairs; the "open" pairs, those only the cosine bar decides (``judge``
with a cosine of 1 would call them duplicates; exact ones aside). Pooled, each
variant's difference from the cosine has a bootstrap interval (``--resamples``).
The rules change ``judge()``'s verdict (called as leads.py calls it) on open pairs
under the ceiling only: one is a duplicate from a score of BAR with a cosine of FLOOR;
``--veto``: a duplicate by the cosine whose own tokens align less is none;
``--replace``: the score decides instead of the cosine bar. The rest of the
judgement is unchanged.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from leads import SETS, line, whole  # noqa: E402
from run import load, scores  # noqa: E402

from chitin.retrieval.alignment import words_of  # noqa: E402

Pair = Mapping[str, Any]


class Tokens(NamedTuple):
    pooled: np.ndarray  # the text's vector (mean pooling, normalised)
    vectors: np.ndarray  # one unit row per token, [CLS] and [SEP] out
    words: list[str]  # each token's whole word, lower case


def encode(texts: Sequence[str]) -> dict[str, Tokens]:
    """Run the model once over ``texts``; keep both pooled and token vectors."""
    from tokenizers import Tokenizer

    from chitin.providers import local
    from chitin.providers.minilm import BATCH, BULK, MAX_TOKENS, TOKENIZER

    tokenizer = Tokenizer.from_file(str(TOKENIZER))
    tokenizer.enable_truncation(MAX_TOKENS)
    tokenizer.no_padding()
    provider = local.LocalProvider()
    provider._load(BULK)
    todo = sorted(set(texts), key=len)
    found: dict[str, Tokens] = {}
    for start in range(0, len(todo), BATCH):
        batch = todo[start : start + BATCH]
        encodings = tokenizer.encode_batch(batch)
        ids = np.zeros((len(batch), max(len(e.ids) for e in encodings)), dtype=np.int64)
        mask = np.zeros_like(ids)
        for n, e in enumerate(encodings):
            ids[n, : len(e.ids)], mask[n, : len(e.ids)] = e.ids, 1
        inputs = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = provider._session.run(None, inputs)[0]
        for n, (text, e) in enumerate(zip(batch, encodings, strict=True)):
            rows = hidden[n, : len(e.ids)]
            pooled = rows.mean(axis=0)
            inner = rows[1:-1]
            found[text] = Tokens(
                pooled / np.linalg.norm(pooled),
                inner / np.linalg.norm(inner, axis=1, keepdims=True),
                list(words_of(e.tokens[1:-1])),
            )
    return found


def content(word: str) -> bool:
    from chitin.index.fulltext import STOPWORDS

    return any(c.isalnum() for c in word) and word not in STOPWORDS


def idf_of(texts: Sequence[str], known: Mapping[str, Tokens]) -> Callable[[str], float]:
    """The IDF of a word over ``texts`` (each text one document)."""
    frequency: Counter[str] = Counter()
    for text in set(texts):
        frequency.update(set(known[text].words))
    total = len(set(texts))
    return lambda word: math.log((total + 1) / (frequency[word] + 1))


def alignment(
    first: Tokens,
    second: Tokens,
    weigh: Callable[[str], float] | None,
    weigh_second: Callable[[str], float] | None = None,
) -> float:
    """BERTScore F of two texts: ``weigh`` gives each token's weight (None: all 1, and
    every token kept; ``weigh_second``, if given, the second text's); tokens of weight
    0 are left out."""

    def kept(t: Tokens, how: Callable[[str], float] | None) -> tuple[np.ndarray, np.ndarray]:
        weights = np.array([1.0 if how is None else how(w) for w in t.words])
        chosen = weights > 0
        if not chosen.any():  # nothing left: every token counts
            return t.vectors, np.ones(len(t.words))
        return t.vectors[chosen], weights[chosen]

    mine, mw = kept(first, weigh)
    theirs, tw = kept(second, weigh if weigh_second is None else weigh_second)
    similar = mine @ theirs.T
    precision = float((similar.max(axis=1) * mw).sum() / mw.sum())
    recall = float((similar.max(axis=0) * tw).sum() / tw.sum())
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


def own(t: Tokens, other: Tokens, idf: Callable[[str], float]) -> Callable[[str], float]:
    """The IDF weight of the content words ``t`` has and ``other`` lacks."""
    theirs = set(other.words)
    return lambda w: idf(w) if content(w) and w not in theirs else 0.0


def features(
    pairs: Sequence[Pair], known: Mapping[str, Tokens], idf: Any
) -> list[dict[str, float]]:
    rows = []
    for pair in pairs:
        a, b = known[whole(pair["a"])], known[whole(pair["b"])]
        rows.append(
            {
                "cosine": float(a.pooled @ b.pooled),
                "all": alignment(a, b, None),
                "content": alignment(a, b, lambda w: 1.0 if content(w) else 0.0),
                "idf": alignment(a, b, lambda w: idf(w) if content(w) else 0.0),
                "own": alignment(a, b, own(a, b, idf), own(b, a, idf)),
                "own1": alignment(a, b, own(a, b, lambda w: 1.0), own(b, a, lambda w: 1.0)),
            }
        )
    return rows


def auc(positive: Sequence[float], negative: Sequence[float]) -> float:
    """P(a positive scores above a negative), ties half."""
    if not positive or not negative:
        return float("nan")
    above = sum((p > n) + 0.5 * (p == n) for p in positive for n in negative)
    return above / (len(positive) * len(negative))


SCORES: dict[str, Callable[[Mapping[str, float]], float]] = {
    "cosine": lambda f: f["cosine"],
    "F all": lambda f: f["all"],
    "F content": lambda f: f["content"],
    "F idf": lambda f: f["idf"],
    "F own": lambda f: f["own"],
    "F own, no idf": lambda f: f["own1"],
    "cos+F own": lambda f: f["cosine"] + f["own"],
    "cos+.5F own": lambda f: f["cosine"] + 0.5 * f["own"],
    "cos+F idf": lambda f: f["cosine"] + f["idf"],
    "cos+F content": lambda f: f["cosine"] + f["content"],
    "cos+2F idf": lambda f: f["cosine"] + 2 * f["idf"],
    "max(cos, F idf-.1)": lambda f: max(f["cosine"], f["idf"] - 0.1),
}


def groups(pairs: Sequence[Pair], rows: Sequence[Mapping[str, float]]) -> dict[str, list[int]]:
    """Indices of the duplicates, and of the three groups they are set against: all
    the rest; compatible pairs; the pairs only the cosine bar decides ("open": judged
    with a cosine of 1 they would be duplicates; exact ones aside)."""
    labels = [p["label"] for p in pairs]
    return {
        "dup": [i for i, label in enumerate(labels) if label == "duplicate"],
        "rest": [i for i, label in enumerate(labels) if label != "duplicate"],
        "compatible": [i for i, label in enumerate(labels) if label == "compatible"],
        "open dup": [i for i, r in enumerate(rows) if r["open"] and labels[i] == "duplicate"],
        "open rest": [i for i, r in enumerate(rows) if r["open"] and labels[i] != "duplicate"],
    }


def aucs(values: Sequence[float], g: Mapping[str, Sequence[int]]) -> tuple[float, float, float]:
    def of(key: str) -> list[float]:
        return [values[i] for i in g[key]]

    return (
        auc(of("dup"), of("rest")),
        auc(of("dup"), of("compatible")),
        auc(of("open dup"), of("open rest")),
    )


def auc_table(
    name: str, pairs: Sequence[Pair], rows: Sequence[Mapping[str, float]], resamples: int = 0
) -> None:
    g = groups(pairs, rows)
    print(
        f"== {name}: {len(pairs)} pairs; AUC duplicate vs rest | vs compatible | open pairs "
        f"({len(g['open dup'])} duplicates, {len(g['open rest'])} others)"
    )
    base = [r["cosine"] for r in rows]
    rng = random.Random(25)
    samples = [
        {k: [v[rng.randrange(len(v))] for _ in v] for k, v in g.items()} for _ in range(resamples)
    ]
    for label, score in SCORES.items():
        values = [score(r) for r in rows]
        cells = " | ".join(f"{x:.3f}" for x in aucs(values, g))
        if samples and label != "cosine":
            deltas = np.array([np.subtract(aucs(values, s), aucs(base, s)) for s in samples])
            low, high = np.quantile(deltas, [0.025, 0.975], axis=0)
            cells += "   − cosine: " + " | ".join(
                f"[{lo:+.3f}, {hi:+.3f}]" for lo, hi in zip(low, high, strict=True)
            )
        print(f"  {label:20} {cells}")


def by_kind(pairs: Sequence[Pair], rows: Sequence[Mapping[str, float]]) -> None:
    """Median and quartiles of cosine and F idf per kind."""
    kinds = sorted({p["kind"] for p in pairs})
    print("  per kind, open pairs: cosine | F idf | F own, no idf  (25 / 50 / 75 %)")
    for kind in kinds:
        chosen = [r for r, p in zip(rows, pairs, strict=True) if p["kind"] == kind and r["open"]]
        if not chosen:
            continue
        cells = []
        for key in ("cosine", "idf", "own1"):
            q = np.quantile([r[key] for r in chosen], [0.25, 0.5, 0.75])
            cells.append(" / ".join(f"{x:.2f}" for x in q))
        print(f"    {kind:17} n={len(chosen):3}  " + " | ".join(cells))


class Rule(NamedTuple):
    score: str  # a key of SCORES
    bar: float  # a duplicate from this score
    floor: float = 0.0  # and this cosine at least
    relational: bool = True  # relational pairs too (judge holds them to a higher bar)
    replace: bool = False  # the score replaces the cosine bar (it may undo a duplicate)
    veto: float = 0.0  # a duplicate by meaning whose own tokens align less is none
    ceiling: float = 2.0  # from this cosine up, the cosine decides alone


def is_open(pair: Pair, row: Mapping[str, float]) -> bool:
    """Whether only the cosine bar decides the pair: with a cosine of 1 ``judge``
    would call it a duplicate, and it is no exact one."""
    from chitin.retrieval.judgement import DUPLICATE, Side, judge

    def side(data: Mapping[str, Any]) -> Side:
        return Side(data["type"], data["claim"], data.get("condition"), bool(data.get("avoid")))

    a, b = side(pair["a"]), side(pair["b"])
    response = row["response"] if a.type == b.type == "trigger" else None
    verdict = judge(b, a, 1.0, response)
    return verdict.kind == DUPLICATE and not verdict.exact


def judged(
    pairs: Sequence[Pair], rows: Sequence[Mapping[str, float]], rule: Rule | None
) -> list[str]:
    """``judge()`` as ``contribute`` calls it, with ``rule`` added (None: as today)."""
    from chitin.retrieval.judgement import DUPLICATE, NONE, Side, judge

    def side(data: Mapping[str, Any]) -> Side:
        return Side(data["type"], data["claim"], data.get("condition"), bool(data.get("avoid")))

    found = []
    for pair, row in zip(pairs, rows, strict=True):
        a, b = side(pair["a"]), side(pair["b"])
        response = row["response"] if a.type == b.type == "trigger" else None
        verdict = judge(b, a, row["cosine"], response)
        applies = rule is not None and row["cosine"] < rule.ceiling
        if (
            rule is not None
            and applies
            and row["open"]
            and (rule.relational or a.type != "relational")
        ):
            score = SCORES[rule.score](row)
            passes = score >= rule.bar and row["cosine"] >= rule.floor
            if passes or rule.replace:
                verdict = verdict._replace(kind=DUPLICATE if passes else NONE)
            elif verdict.kind == DUPLICATE and row["own"] < rule.veto:
                verdict = verdict._replace(kind=NONE)
        found.append("none" if verdict.kind == NONE else verdict.kind)
    return found


GRID = [
    *(Rule("F idf", bar, 0.5) for bar in (0.72, 0.76, 0.80)),
    *(Rule("F own", bar, 0.4) for bar in (0.45, 0.5, 0.55, 0.6)),
    *(Rule("cos+F own", bar, 0.4) for bar in (1.1, 1.15, 1.2, 1.25)),
    *(
        Rule(f"cos+{beta}F own", bar, 0.4, replace=True)
        for beta in (0.75, 1.0)
        for bar in np.arange(0.95, 1.16, 0.05).round(2) + (beta - 0.5) * 0.5
    ),
    *(
        Rule("F own, no idf", bar, floor, veto=veto, ceiling=0.92)
        for bar in (0.4, 0.45, 0.5)
        for floor in (0.45, 0.5, 0.55)
        for veto in (0.25, 0.3, 0.35)
    ),
]


def weighed(beta: float) -> Callable[[Mapping[str, float]], float]:
    return lambda f: f["cosine"] + beta * f["own"]


for beta in (0.5, 0.75, 1.0, 1.5):
    SCORES[f"cos+{beta}F own"] = weighed(beta)


def rules(
    loaded: Mapping[str, Sequence[Pair]],
    rows: Mapping[str, list[dict[str, float]]],
    chosen: Rule | None,
) -> None:
    from run import bootstrap

    everything = [p for pairs in loaded.values() for p in pairs]
    pooled_rows = [r for name in loaded for r in rows[name]]
    base = judged(everything, pooled_rows, None)
    print(f"== rules, pooled {len(everything)} pairs")
    print(line("today", everything, base))
    if chosen is None:
        for rule in GRID:
            found = judged(everything, pooled_rows, rule)
            s = scores(everything, found)
            print(
                f"  {rule.score:11} ≥ {rule.bar:.2f}, cos ≥ {rule.floor:.2f}"
                f"{' (replaces)' if rule.replace else ''}"
                f"{f', veto < {rule.veto}' if rule.veto else ''}: dup P/R/F1 "
                f"{s['duplicate P']:.3f}/{s['duplicate R']:.3f}/{s['duplicate F1']:.3f}  "
                f"conflict F1 {s['conflict F1']:.3f}  "
                f"compatible {100 * s['compatible flagged']:.1f} %"
            )
        return
    for name, pairs in loaded.items():
        print(f"== {name}")
        print(line("today", pairs, judged(pairs, rows[name], None)))
        print(line("rule", pairs, judged(pairs, rows[name], chosen)))
    print(line("rule", everything, judged(everything, pooled_rows, chosen)))
    bootstrap(everything, base, judged(everything, pooled_rows, chosen), f"{chosen} − today")


def cost(runs: int) -> None:
    """The door's extra work where candidates sit in the band: the token vectors of the
    new text and k candidates' from a resident embedder (started here, in a folder of
    its own, and stopped), then the alignment in plain Python, as search/door.py does."""
    import os
    import shutil
    import statistics
    import subprocess
    import tempfile
    import time

    from chitin.index.fulltext import STOPWORDS
    from chitin.providers import resident
    from chitin.providers.local import LocalProvider
    from chitin.retrieval.alignment import Tokens as Aligned
    from chitin.retrieval.alignment import own_alignment
    from chitin.retrieval.alignment import words_of as joined

    folder = Path(tempfile.mkdtemp(prefix="ca", dir="/tmp"))
    os.chmod(folder, 0o700)
    settings = resident.Resident(folder, resident.installation_key(), 120.0, None)
    argv = [sys.executable, "-m", "chitin.providers.resident_server"]
    argv += ["--socket", str(settings.socket), "--key", settings.key, "--idle", "120"]
    server = subprocess.Popen(argv, stdin=subprocess.DEVNULL)
    try:
        while resident.ask(settings, ["ready?"]) is None:
            time.sleep(0.2)
        texts = sorted({whole(s) for p in load(HERE / SETS[0]) for s in (p["a"], p["b"])})
        for k in (1, 4, 8, 16):
            asked, aligned = [], []
            for n in range(runs):
                start = n * (k + 1) % (len(texts) - k - 1)
                provider = LocalProvider(resident=settings)
                began = time.perf_counter()
                made = provider.tokens(texts[start : start + k + 1])
                middle = time.perf_counter()
                sides = [Aligned(joined(p), tuple(map(list, r))) for p, r in made]
                for other in sides[1:]:
                    own_alignment(sides[0], other, STOPWORDS)
                aligned.append(time.perf_counter() - middle)
                asked.append(middle - began)
                assert provider._session is None, "the resident did not answer"
            print(
                f"  new text + {k:2} candidates: token vectors from the resident "
                f"{1000 * statistics.median(asked):.1f} ms, alignment "
                f"{1000 * statistics.median(aligned):.1f} ms (median of {runs})"
            )
    finally:
        server.kill()
        server.wait()
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--sets", nargs="*", default=list(SETS))
    parser.add_argument("--rules-only", action="store_true")
    parser.add_argument(
        "--rule",
        nargs=3,
        metavar=("SCORE", "BAR", "FLOOR"),
        help='one rule in detail: per set, and the bootstrap ("F idf" 0.76 0.5)',
    )
    parser.add_argument("--no-relational", action="store_true")
    parser.add_argument("--replace", action="store_true", help="--rule replaces the cosine bar")
    parser.add_argument("--veto", type=float, default=0.0, help="--rule's veto (own tokens)")
    parser.add_argument(
        "--ceiling", type=float, default=2.0, help="--rule: the cosine decides above"
    )
    parser.add_argument("--resamples", type=int, default=200, help="bootstrap of the AUCs")
    parser.add_argument("--cost", action="store_true", help="the door's extra time instead")
    args = parser.parse_args(argv)
    if args.cost:
        cost(40)
        return 0
    loaded = {name: load(HERE / name) for name in args.sets}
    sides = [s for pairs in loaded.values() for p in pairs for s in (p["a"], p["b"])]
    texts = [whole(s) for s in sides] + [s["claim"] for s in sides]
    known = encode(texts)
    idf = idf_of([whole(s) for s in sides], known)
    rows = {}
    for name, pairs in loaded.items():
        rows[name] = features(pairs, known, idf)
        for row, pair in zip(rows[name], pairs, strict=True):
            row["response"] = float(
                known[pair["a"]["claim"]].pooled @ known[pair["b"]["claim"]].pooled
            )
            row["open"] = float(is_open(pair, row))
    if not args.rules_only and args.rule is None:
        for name, pairs in loaded.items():
            auc_table(name, pairs, rows[name])
        everything = [p for pairs in loaded.values() for p in pairs]
        pooled_rows = [r for name in loaded for r in rows[name]]
        auc_table("pooled", everything, pooled_rows, args.resamples)
        by_kind(everything, pooled_rows)
    chosen = None
    if args.rule:
        chosen = Rule(
            args.rule[0],
            float(args.rule[1]),
            float(args.rule[2]),
            not args.no_relational,
            args.replace,
            args.veto,
            args.ceiling,
        )
    rules(loaded, rows, chosen)
    return 0


if __name__ == "__main__":
    sys.exit(main())
