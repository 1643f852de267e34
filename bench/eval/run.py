"""Evaluate retrieval on a labelled set: bench/eval/agent-store.yaml (by default) or
bench/eval/dataset.yaml (``--dataset``).

    python bench/eval/run.py                    # nDCG@10, recall@10, MRR, per kind (hybrid)
    python bench/eval/run.py --text             # the same by text alone (no model)
    python bench/eval/run.py --compare text default  # paired bootstrap CIs of B - A
    python bench/eval/run.py --variants "not embedded" text default  # side by side
    python bench/eval/run.py --shapes           # compare scoring shapes
    python bench/eval/run.py --misses           # queries whose answer is not in the top 5
    python bench/eval/run.py --save run.json    # keep per-query rankings, to compare later

A set holds insights (with ages in days instead of timestamps) and queries with graded
labels: 2 = the answer, 1 = useful. dataset.yaml lists ids best first instead: its first
id is read as grade 2 and the others as grade 1. Query kinds: plain (lexical), person
(about a named person), trigger (a situation that should fire a trigger) and paraphrase
(shares at most one content word with each of its grade-2 targets: checked when the set
is loaded, see ``paraphrase_overlap``).

Each run builds a fresh store from the set in a temporary folder and queries it through
the real retrieval code (chitin.core), at a fixed moment; hybrid variants embed the whole
store with the local model first. Bootstrap resamples use a fixed seed, so figures are
reproducible.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from chitin.core import Chitin
from chitin.core import Query as Asked
from chitin.format.markdown import serialize
from chitin.index.fulltext import STOPWORDS
from chitin.model.fields import SEARCHED
from chitin.model.insight import PROVENANCES, Insight, format_timestamp
from chitin.model.terms import stem, tokens
from chitin.retrieval.scoring import DEFAULT_SHAPE, ORIGINAL_SHAPE, RELEVANCE_HALVING, Shape

HERE = Path(__file__).resolve().parent
DATASET = HERE / "dataset.yaml"  # the first, small set (load()'s default, as tests use it)
AGENT_STORE = HERE / "agent-store.yaml"  # the larger, harder set (the command's default)
NOW = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)
KINDS = ("plain", "person", "trigger", "paraphrase")
GROUPS = ("all", *KINDS)
NO_DECAY = {"half_lives": dict.fromkeys(PROVENANCES)}  # chitin.yaml: nothing decays
ANSWER, USEFUL = 2, 1
CUTOFF = 10  # nDCG@10, recall@10, MRR over the top 10
RESAMPLES = 10_000
SEED = 16


class Variant(NamedTuple):
    """A way of scoring to compare: a shape, and chitin.yaml settings while it runs."""

    shape: Shape
    config: dict[str, Any] | None = None


PLAIN_RATIO = DEFAULT_SHAPE._replace(relevance_halving=None)
SHAPES: dict[str, Variant] = {
    "relevance only": Variant(Shape(0.0, 0.0, 0.0, RELEVANCE_HALVING), NO_DECAY),
    "original (undamped)": Variant(ORIGINAL_SHAPE),
    "default": Variant(DEFAULT_SHAPE),
    "all at a half": Variant(Shape(0.5, 0.5, 0.5, RELEVANCE_HALVING)),
    "all at a quarter": Variant(Shape(0.25, 0.25, 0.25, RELEVANCE_HALVING)),
    "no decay": Variant(DEFAULT_SHAPE, NO_DECAY),
    "no type boost": Variant(DEFAULT_SHAPE._replace(type_boost=0.0)),
    "plain relevance ratio": Variant(PLAIN_RATIO),
    "plain ratio, no decay": Variant(PLAIN_RATIO, NO_DECAY),
    **{
        f"relevance halving {h}": Variant(DEFAULT_SHAPE._replace(relevance_halving=h))
        for h in (0.1, 0.05, 0.035)
    },
}
# What --compare accepts: a mode ("text", "blend" = hybrid, "rrf") and a Variant. Every
# SHAPES entry is also a hybrid variant under its own name. A new idea to measure gets
# an entry here (or is compared as a saved run of another checkout: --save, then a path).
VARIANTS: dict[str, tuple[str, Variant]] = {
    "default": ("blend", Variant(DEFAULT_SHAPE)),
    "text": ("text", Variant(DEFAULT_SHAPE)),
    "rrf": ("rrf", Variant(DEFAULT_SHAPE)),
    "not embedded": ("fresh", Variant(DEFAULT_SHAPE)),
    **{name: ("blend", variant) for name, variant in SHAPES.items() if name != "default"},
}


class Query(NamedTuple):
    text: str
    kind: str
    relevant: list[str]  # the labelled ids, answers first (in the set's order)
    grades: dict[str, int] = {}  # noqa: RUF012 - id -> 2 (the answer) or 1 (useful)


class SetError(ValueError):
    """The labelled set is malformed: the run refuses it."""


# ------------------------------------------------------------------ the set


def load(path: Path = DATASET) -> tuple[list[Insight], list[Query]]:
    """The set's insights and queries, checked (``check``): a SetError if it breaks a rule."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    insights = [_insight(item) for item in data["insights"]]
    queries = [_query(q) for q in data["queries"]]
    check(insights, queries)
    return insights, queries


def _query(item: dict[str, Any]) -> Query:
    labels = item["relevant"]
    if isinstance(labels, Mapping):  # graded: {id: 2 or 1}
        grades = {str(k): int(v) for k, v in labels.items()}
    else:  # dataset.yaml: ids best first; the first is the answer, the rest useful
        grades = {str(k): ANSWER if n == 0 else USEFUL for n, k in enumerate(labels)}
    ordered = sorted(grades, key=lambda i: -grades[i])  # stable: answers first, set order
    return Query(item["query"], item["kind"], ordered, grades)


def _insight(item: dict[str, Any]) -> Insight:
    stamp = format_timestamp(NOW - timedelta(days=float(item.get("age_days", 0))))
    return Insight(
        id=item["id"],
        type=item["type"],
        claim=item["claim"],
        confidence=float(item["confidence"]),
        created=stamp,
        updated=stamp,
        tags=tuple(item.get("tags", ())),
        provenance=item.get("provenance"),
        condition=item.get("condition"),
        avoid=bool(item.get("avoid", False)),
        reinforcements=int(item.get("reinforcements", 0)),
        reasoning=item.get("reasoning"),
        context=item.get("context"),
        limitations=item.get("limitations"),
    )


def content_words(text: str) -> set[str]:
    """``text``'s words of 3+ letters (chitin.model.terms) that are not stopwords (the
    full-text index's list: words retrieval never looks up)."""
    return {word for word in tokens(text.replace("'", "")) if word not in STOPWORDS}


def searched_text(insight: Insight) -> str:
    """Everything the full-text index searches of ``insight`` (claim, condition, tags,
    context, reasoning, limitations)."""
    parts = []
    for name in SEARCHED:
        value = getattr(insight, name)
        parts.append(" ".join(value) if isinstance(value, tuple) else value or "")
    return " ".join(parts)


def _forms(word: str) -> set[str]:
    return {word, stem(word)}


def _same_word(first: str, second: str) -> bool:
    """The same word, by chitin's stemming (chitin.model.terms.stem) of either side, or
    one form a prefix of the other's of 4+ letters: the suffix rules miss some pairs
    ("total" -> "tot", "totals" -> "total"), so the check errs on the strict side."""
    for a in _forms(first):
        for b in _forms(second):
            short, long = sorted((a, b), key=len)
            if short == long or (len(short) >= 4 and long.startswith(short)):
                return True
    return False


def paraphrase_overlap(query: str, target: Insight) -> list[str]:
    """The query's content words that ``target``'s searched text shares (see
    ``_same_word``)."""
    theirs = content_words(searched_text(target))
    return sorted(w for w in content_words(query) if any(_same_word(w, t) for t in theirs))


def check(insights: Sequence[Insight], queries: Sequence[Query]) -> None:
    """Refuse a set with a duplicate id, an unknown kind, a label naming no insight, a
    grade other than 1 or 2, a query without an answer, or a paraphrase sharing more
    than one content word with one of its answers."""
    by_id: dict[str, Insight] = {}
    for insight in insights:
        if insight.id in by_id:
            raise SetError(f"duplicate insight id {insight.id!r}")
        by_id[insight.id] = insight
    problems = []
    for q in queries:
        if q.kind not in KINDS:
            problems.append(f"{q.text!r}: unknown kind {q.kind!r} (allowed: {', '.join(KINDS)})")
        unknown = [i for i in q.grades if i not in by_id]
        if unknown:
            problems.append(f"{q.text!r}: labels name no insight: {', '.join(unknown)}")
        if any(g not in (ANSWER, USEFUL) for g in q.grades.values()):
            problems.append(f"{q.text!r}: grades must be 2 (the answer) or 1 (useful)")
        if ANSWER not in q.grades.values():
            problems.append(f"{q.text!r}: no label of grade 2")
        if q.kind == "paraphrase":
            for target in (i for i, g in q.grades.items() if g == ANSWER and i in by_id):
                shared = paraphrase_overlap(q.text, by_id[target])
                if len(shared) > 1:
                    problems.append(
                        f"{q.text!r}: a paraphrase may share one content word with "
                        f"{target}, shares {len(shared)}: {', '.join(shared)}"
                    )
    if problems:
        raise SetError("the labelled set breaks its rules:\n  " + "\n  ".join(problems))


def build_store(insights: Iterable[Insight], root: Path) -> None:
    for insight in insights:
        path = root / "insights" / insight.type / f"{insight.id}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(serialize(insight), encoding="utf-8")


# ------------------------------------------------------------------ running


class Run(NamedTuple):
    """One variant's answers: each query's top ids, and what the run cost."""

    ranked: list[list[str]]
    embedded: int  # insights embedded by this run (0: text, or vectors already there)
    embed_seconds: float
    query_seconds: float
    degraded: int  # queries answered by something weaker than asked (a failure, no vectors)


def run(
    root: Path,
    queries: list[Query],
    shape: Shape,
    k: int = CUTOFF,
    mode: str = "blend",
    config: dict[str, Any] | None = None,
) -> Run:
    """Each query's top ``k`` ids. ``mode``: "text"; "blend" or "rrf" (hybrid, with the
    local model, after embedding every insight); or "fresh" (hybrid as a store that was
    never embedded answers: its vectors removed, no embed first, so a store larger than
    retrieval's inline limit is answered by text). ``config``: more chitin.yaml settings
    while it runs. Background embedding is off (CHITIN_BACKGROUND_EMBED) unless set."""
    os.environ.setdefault("CHITIN_BACKGROUND_EMBED", "off")  # no process left behind
    shutil.rmtree(root / ".chitin" / "cache.sqlite3", ignore_errors=True)  # shaped strengths
    if mode == "fresh":
        shutil.rmtree(root / ".chitin" / "vectors", ignore_errors=True)
    provider = "none" if mode == "text" else "local"
    settings = {"embedding": {"provider": provider}, **(config or {})}
    (root / "chitin.yaml").write_text(yaml.safe_dump(settings))
    chitin = Chitin(root, now=NOW, shape=shape, fusion="rrf" if mode == "rrf" else "blend")
    try:
        started = time.perf_counter()
        embedded = chitin.embed()[1] if mode in ("blend", "rrf") else 0  # retrieve would not
        embedding = time.perf_counter() - started
        ranked, degraded = [], 0
        for q in queries:
            found = chitin.retrieve(Asked(q.text, max_results=k), record=False)
            ranked.append([r.insight.id for r in found.ranked])
            degraded += mode != "text" and bool(found.degraded or found.unembedded)
        return Run(ranked, embedded, embedding, time.perf_counter() - started - embedding, degraded)
    finally:
        chitin.close()


def rankings(
    root: Path,
    queries: list[Query],
    shape: Shape,
    k: int = CUTOFF,
    mode: str = "blend",
    config: dict[str, Any] | None = None,
) -> list[list[str]]:
    """``run``'s rankings alone."""
    return run(root, queries, shape, k, mode, config).ranked


def embedded_chitin(insights: Iterable[Insight], queries: list[Query], root: Path) -> Chitin:
    """The set's store at ``root``, embedded by the local model (one ranking does it),
    opened as the default retrieve reads it: for scripts that look inside a ranking."""
    build_store(insights, root)
    (root / "chitin.yaml").write_text(yaml.safe_dump({"embedding": {"provider": "local"}}))
    rankings(root, queries[:1], DEFAULT_SHAPE)  # embeds the store
    return Chitin(root, now=NOW, shape=DEFAULT_SHAPE, fusion="blend")


# ------------------------------------------------------------------ metrics


class Measures(NamedTuple):
    """One query's figures: graded nDCG@10, recall@10 (of every labelled id) and the
    reciprocal rank of the first answer (grade 2) in the top 10, 0 if none is there."""

    ndcg: float
    recall: float
    rr: float


METRICS = ("ndcg", "recall", "rr")
METRIC_NAMES = {"ndcg": "nDCG@10", "recall": "R@10", "rr": "MRR"}


def gain(grade: int) -> float:
    """Exponential gain: an answer (2) counts 3, a useful one (1) counts 1."""
    return float(2**grade - 1)


def graded_ndcg(ranked: Sequence[str], grades: Mapping[str, int], k: int = CUTOFF) -> float:
    dcg = sum(gain(grades.get(i, 0)) / math.log2(n + 2) for n, i in enumerate(ranked[:k]))
    best = sorted(grades.values(), reverse=True)[:k]
    ideal = sum(gain(g) / math.log2(n + 2) for n, g in enumerate(best))
    return dcg / ideal


def measures(ranked: Sequence[str], q: Query, k: int = CUTOFF) -> Measures:
    top = ranked[:k]
    recall = len(set(top) & set(q.grades)) / len(q.grades)
    first = next((n for n, i in enumerate(top, 1) if q.grades.get(i) == ANSWER), None)
    return Measures(graded_ndcg(ranked, q.grades, k), recall, 1 / first if first else 0.0)


def per_query(queries: Sequence[Query], ranked: Sequence[Sequence[str]]) -> list[Measures]:
    return [measures(r, q) for q, r in zip(queries, ranked, strict=True)]


def groups(queries: Sequence[Query]) -> dict[str, list[int]]:
    """Query positions by group: "all", then each kind present."""
    found: dict[str, list[int]] = {"all": list(range(len(queries)))}
    for kind in KINDS:
        members = [n for n, q in enumerate(queries) if q.kind == kind]
        if members:
            found[kind] = members
    return found


def summary(queries: Sequence[Query], ranked: Sequence[Sequence[str]]) -> dict[str, Measures]:
    """Mean figures per group."""
    scores = per_query(queries, ranked)
    return {
        group: Measures(
            *(statistics.fmean(getattr(scores[n], m) for n in members) for m in METRICS)
        )
        for group, members in groups(queries).items()
    }


class Interval(NamedTuple):
    """A paired difference (B - A) of a mean, with its bootstrap 95% interval."""

    a: float
    b: float
    diff: float
    low: float
    high: float

    @property
    def outside_noise(self) -> bool:
        return self.low > 0 or self.high < 0


def paired_bootstrap(
    a: Sequence[float], b: Sequence[float], resamples: int = RESAMPLES, seed: int = SEED
) -> Interval:
    """Resample queries with replacement (the same ones for A and B) ``resamples`` times
    and take the 2.5th and 97.5th percentiles of the mean difference."""
    import numpy as np

    first, second = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    diffs = second - first
    picks = np.random.default_rng(seed).integers(0, len(diffs), size=(resamples, len(diffs)))
    means = diffs[picks].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return Interval(
        float(first.mean()), float(second.mean()), float(diffs.mean()), float(low), float(high)
    )


def compare(
    queries: Sequence[Query], first: Sequence[Sequence[str]], second: Sequence[Sequence[str]]
) -> dict[str, dict[str, Interval]]:
    """Per group and metric, B - A with its paired bootstrap interval."""
    a, b = per_query(queries, first), per_query(queries, second)
    return {
        group: {
            m: paired_bootstrap(
                [getattr(a[n], m) for n in members], [getattr(b[n], m) for n in members]
            )
            for m in METRICS
        }
        for group, members in groups(queries).items()
    }


# --------------------------------------------- the first set's figures (tests use them)


class Scores(NamedTuple):
    recall_at_5: float
    ndcg_at_10: float


def recall_at(ranked: list[str], relevant: list[str], k: int) -> float:
    return len(set(ranked[:k]) & set(relevant)) / len(relevant)


def ndcg_at(ranked: list[str], relevant: list[str], k: int) -> float:
    """Binary-gain nDCG: every listed id counts as relevant."""
    wanted = set(relevant)
    dcg = sum(1 / math.log2(i + 2) for i, found in enumerate(ranked[:k]) if found in wanted)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(k, len(relevant))))
    return dcg / ideal


def evaluate(queries: list[Query], ranked: list[list[str]]) -> dict[str, Scores]:
    """Recall@5 and binary nDCG@10, the figures quoted before graded labels."""
    by_kind: dict[str, list[Scores]] = defaultdict(list)
    for query, result in zip(queries, ranked, strict=True):
        scores = Scores(recall_at(result, query.relevant, 5), ndcg_at(result, query.relevant, 10))
        by_kind[query.kind].append(scores)
        by_kind["all"].append(scores)
    return {
        kind: Scores(
            statistics.fmean(s.recall_at_5 for s in values),
            statistics.fmean(s.ndcg_at_10 for s in values),
        )
        for kind, values in by_kind.items()
    }


def triggers_surfaced(queries: list[Query], ranked: list[list[str]], k: int = 5) -> list[bool]:
    return [
        q.relevant[0] in r[:k] for q, r in zip(queries, ranked, strict=True) if q.kind == "trigger"
    ]


# ------------------------------------------------------------------ output


def _summary_table(rows: Mapping[str, Mapping[str, Measures]], counts: Mapping[str, int]) -> str:
    present = [g for g in GROUPS if g in counts]
    head = f"{'':24}" + "".join(f"{f'{g} ({counts[g]})':>22}" for g in present)
    sub = f"{'':24}" + "".join(f"{'nDCG   R@10    MRR':>22}" for _ in present)
    lines = [head, sub]
    for name, scores in rows.items():
        cells = "".join(
            f"{'':4}{scores[g].ndcg:6.3f}{scores[g].recall:6.3f}{scores[g].rr:6.3f}"
            for g in present
        )
        lines.append(f"{name[:24]:24}{cells}")
    return "\n".join(lines)


def _compare_table(
    first: str, second: str, result: Mapping[str, Mapping[str, Interval]], counts: Mapping[str, int]
) -> str:
    lines = [
        f"A = {first}, B = {second}; B - A with its paired bootstrap 95% interval "
        f"({RESAMPLES:,} resamples of the queries, seed {SEED}); * = the interval excludes 0",
        "",
        f"{'kind':17}{'metric':9}{'A':>7}{'B':>7}{'B - A':>8}   95% interval",
    ]
    for group, metrics in result.items():
        for n, m in enumerate(METRICS):
            i = metrics[m]
            label = f"{group} ({counts[group]})" if n == 0 else ""
            mark = " *" if i.outside_noise else ""
            lines.append(
                f"{label:17}{METRIC_NAMES[m]:9}{i.a:7.3f}{i.b:7.3f}{i.diff:+8.3f}   "
                f"[{i.low:+.3f}, {i.high:+.3f}]{mark}"
            )
    return "\n".join(lines)


def _misses(queries: Sequence[Query], ranked: Sequence[Sequence[str]], k: int = 5) -> str:
    lines = []
    for q, r in zip(queries, ranked, strict=True):
        answers = [i for i in q.relevant if q.grades[i] == ANSWER]
        if all(i in r[:k] for i in answers):
            continue
        where = ", ".join(f"{i} @{r.index(i) + 1 if i in r else '-'}" for i in answers)
        lines.append(f"\n[{q.kind}] {q.text}\n  answer {where}\n  got    {list(r[:k])}")
    return "".join(lines) or "\n(none)"


def _saved(path: Path, queries: Sequence[Query]) -> list[list[str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        saved = [(q["query"], q["ranked"]) for q in data["queries"]]
    except (OSError, ValueError, KeyError, TypeError):
        raise SetError(f"{path}: not a run written by --save") from None
    if [text for text, _ in saved] != [q.text for q in queries]:
        raise SetError(f"{path}: its queries are not this set's (run --save on the same set)")
    return [ranked for _, ranked in saved]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--dataset", type=Path, default=AGENT_STORE, help="the labelled set (agent-store.yaml)"
    )
    parser.add_argument(
        "--text", action="store_true", help="rank by text alone (default: hybrid, blend)"
    )
    parser.add_argument("--shapes", action="store_true", help="compare scoring shapes")
    parser.add_argument(
        "--hybrid", action="store_true", help="compare text-only with hybrid (rrf and blend)"
    )
    parser.add_argument(
        "--compare",
        nargs=2,
        metavar=("A", "B"),
        help=f"paired bootstrap of B - A; each a variant ({', '.join(VARIANTS)}) "
        "or a file saved by --save",
    )
    parser.add_argument(
        "--variants", nargs="+", metavar="NAME", help="figures of these variants, side by side"
    )
    parser.add_argument("--misses", action="store_true", help="list queries missing an answer")
    parser.add_argument("--save", type=Path, help="write the (last) run's rankings as JSON")
    args = parser.parse_args(argv)
    try:
        insights, queries = load(args.dataset)
    except SetError as error:
        print(f"Error: {args.dataset}: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"Error: {args.dataset}: {error.strerror or error}", file=sys.stderr)
        return 1
    kept: dict[str, list[list[str]]] = {}
    if args.compare:
        names = list(args.compare)
        unknown = [n for n in names if n not in VARIANTS and not Path(n).is_file()]
        if unknown:
            parser.error(
                f"unknown variant {unknown[0]!r} (allowed: {', '.join(VARIANTS)}, or a file)"
            )
        runs = {n: VARIANTS[n] for n in names if n in VARIANTS}
        try:  # before the run, which takes minutes
            kept = {n: _saved(Path(n), queries) for n in names if n not in VARIANTS}
        except SetError as error:
            print(f"Error: {error}", file=sys.stderr)
            return 1
    elif args.variants:
        unknown = [n for n in args.variants if n not in VARIANTS]
        if unknown:
            parser.error(f"unknown variant {unknown[0]!r} (allowed: {', '.join(VARIANTS)})")
        runs = {n: VARIANTS[n] for n in args.variants}
    elif args.shapes:
        mode = "text" if args.text else "blend"
        runs = {name: (mode, variant) for name, variant in SHAPES.items()}
    elif args.hybrid:
        runs = {"text only": VARIANTS["text"], "hybrid, rrf": VARIANTS["rrf"]}
        runs["hybrid, blend"] = VARIANTS["default"]
    else:
        runs = {
            "text only" if args.text else "default": VARIANTS["text" if args.text else "default"]
        }

    started = time.perf_counter()
    results: dict[str, Run] = {}
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        build_store(insights, root)
        for name, (mode, v) in runs.items():
            results[name] = run(root, queries, v.shape, mode=mode, config=v.config)
    total = time.perf_counter() - started
    ranked = {name: r.ranked for name, r in results.items()}
    if args.compare:
        ranked = {n: ranked[n] if n in ranked else kept[n] for n in args.compare}

    counts = {g: len(members) for g, members in groups(queries).items()}
    print(
        f"{args.dataset.name}: {len(insights)} insights, {len(queries)} queries "
        f"({', '.join(f'{counts.get(k, 0)} {k}' for k in KINDS)}); at {NOW:%Y-%m-%d}\n"
    )
    print(_summary_table({n: summary(queries, r) for n, r in ranked.items()}, counts))
    print()
    for name, r in results.items():
        each = 1000 * r.query_seconds / max(1, len(queries))
        embedded = f"embedded {r.embedded} in {r.embed_seconds:.1f} s, " if r.embedded else ""
        weaker = f", {r.degraded} degraded" if r.degraded else ""
        print(
            f"{name}: {embedded}{len(queries)} queries in {r.query_seconds:.1f} s "
            f"({each:.0f} ms each){weaker}"
        )
    print(f"whole run: {total:.1f} s")
    if args.compare:
        first, second = args.compare
        print(
            "\n"
            + _compare_table(first, second, compare(queries, ranked[first], ranked[second]), counts)
        )
    surfaced = triggers_surfaced(queries, next(iter(ranked.values())))
    if surfaced:
        print(f"\ntrigger queries whose trigger is in the top 5: {sum(surfaced)}/{len(surfaced)}")
    if args.misses:
        name, last = list(ranked.items())[-1]
        print(f"\nqueries whose answers (grade 2) are not all in the top 5, by {name}:")
        print(_misses(queries, last))
    if args.save:
        name, last = list(ranked.items())[-1]
        args.save.write_text(
            json.dumps(
                {
                    "dataset": args.dataset.name,
                    "variant": name,
                    "now": NOW.isoformat(),
                    "queries": [
                        {"query": q.text, "kind": q.kind, "ranked": r}
                        for q, r in zip(queries, last, strict=True)
                    ],
                },
                indent=1,
            )
            + "\n",
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
