"""What the synonym table (chitin/assets/synonyms.txt) does to the judgement, measured
on the six labelled sets before and after it is used where the judgement compares
words. Fast: each side's whole text goes once through the local model (pooled and
token vectors, cached in ``--cache``), then ``judge()`` is called as the door calls
it (the whole-text cosine, a trigger pair's response cosine, and the token alignment
of the words each side has of its own where ``depends_on_alignment``), with the
product's code as it is (a word and its synonym align fully in the own words).
``--no-table``: the same with an empty table (what main judged); ``--no-align``: the
table not given to the alignment; ``--topic``: the topic words read with synonyms too
(measured, not kept). ``--against``: a directory of ``run.py --save`` files (``base-<set>.json``;
``check-<set>.json`` with ``--check``), or this script's own ``--save``, to compare
with, pair for pair, with a paired bootstrap pooled.

    python bench/dedup/synonyms.py --no-table --against /tmp/syndup  # reproduces main
    python bench/dedup/synonyms.py --against /tmp/syndup --show paraphrase
    python bench/dedup/synonyms.py --set SUPPORTED_COSINE=0.6        # a threshold
    python bench/dedup/synonyms.py --topic      # synonyms in the topic words too
    python bench/dedup/synonyms.py --mapped                          # what the table maps

Final figures go through the real ``contribute`` (``run.py --pairs … --against …``).
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from leads import line, whole  # noqa: E402
from run import bootstrap, load, report  # noqa: E402

SETS = (
    "pairs.yaml",
    "heldout-pairs.yaml",
    "heldout-pairs-2.yaml",
    "heldout-pairs-3.yaml",
    "heldout-pairs-4.yaml",
    "heldout-pairs-5.yaml",
)
Pair = Mapping[str, Any]


def encoded(texts: Sequence[str], cache: Path) -> dict[str, Any]:
    """Pooled and token vectors of each text, made once (align.encode) and kept."""
    known: dict[str, Any] = pickle.loads(cache.read_bytes()) if cache.exists() else {}
    missing = sorted({t for t in texts if t not in known})
    if missing:
        from align import encode

        known.update(encode(missing))
        cache.write_bytes(pickle.dumps(known))
    return known


def verdicts(
    pairs: Sequence[Pair],
    known: Mapping[str, Any],
    heads: Mapping[str, str] | None,
    check: bool = False,
) -> list[str]:
    """``judge(b, a, …)`` as the door calls it for a store holding ``a``; ``heads``:
    the synonym table the alignment reads (None: none). ``check``: as ``check`` and
    ``dedupe`` call it, with the whole-text cosine alone."""
    from chitin.index.fulltext import STOPWORDS
    from chitin.retrieval import alignment
    from chitin.retrieval.judgement import NONE, Side, depends_on_alignment, judge

    def side(data: Pair) -> Side:
        return Side(data["type"], data["claim"], data.get("condition"), bool(data.get("avoid")))

    def tokens(text: str) -> alignment.Tokens:
        made = known[text]
        rows = tuple(tuple(map(float, r)) for r in made.vectors)
        return alignment.Tokens(tuple(made.words), rows)

    found = []
    for pair in pairs:
        a, b = side(pair["a"]), side(pair["b"])
        first, second = known[whole(pair["a"])], known[whole(pair["b"])]
        cosine = float(first.pooled @ second.pooled)
        response = None
        if check:
            verdict = judge(a, b, cosine)
            found.append("none" if verdict.kind == NONE else verdict.kind)
            continue
        if a.type == b.type == "trigger":
            response = float(known[a.claim].pooled @ known[b.claim].pooled)
        aligned = None
        if depends_on_alignment(b, a, cosine, response):
            new, old = tokens(whole(pair["b"])), tokens(whole(pair["a"]))
            aligned = alignment.own_alignment(new, old, STOPWORDS, heads)
        verdict = judge(b, a, cosine, response, aligned)
        found.append("none" if verdict.kind == NONE else verdict.kind)
    return found


def empty_table() -> None:
    """Judge as main does: no synonyms."""
    from chitin.retrieval import synonyms

    synonyms.canonical.cache_clear()
    synonyms.phrases.cache_clear()
    for name in ("canonical", "phrases"):
        setattr(synonyms, name, lambda: {})


def topic_synonyms() -> None:
    """Measured, not kept: each topic word (``stance``) as its synonym group's head
    before the share of topic words, the words of their own and a trigger's situation
    are compared, by the door, check and dedupe alike (docs/design.md §9e, eighth round)."""
    import functools

    from chitin.retrieval import judgement, stance, synonyms

    @functools.cache
    def read(text: str) -> stance.Stance:
        found = stance.stance(text)
        kept = [w for w in stance.words_of(text) if w not in stance.NEGATORS]
        return found._replace(topic=stance.topic_of(synonyms.heads(kept)))

    judgement.stance = read  # type: ignore[assignment]
    judgement._stance = lambda side: read(judgement.judged_text(side))  # type: ignore[assignment]


def earlier(against: Path, name: str, check: bool) -> list[str]:
    """A set's verdicts from another run: run.py's file in a directory, or a --save."""
    if against.is_dir():
        stem = ("check-" if check else "base-") + Path(name).stem
        return list(json.loads((against / f"{stem}.json").read_text()))
    return list(json.loads(against.read_text())[name])


def thresholds(settings: Sequence[str]) -> None:
    from chitin.retrieval import judgement

    for setting in settings:
        name, value = setting.split("=")
        setattr(judgement, name, float(value))


def changed(pairs: Sequence[Pair], before: Sequence[str], after: Sequence[str]) -> None:
    for pair, was, now in zip(pairs, before, after, strict=True):
        if was != now:
            wanted = pair["label"] if pair["label"] in ("duplicate", "conflict") else "none"
            mark = "+" if now == wanted else "-" if was == wanted else "~"
            print(
                f"  {mark} {pair['kind']:15} {was:9} → {now:9} | {pair['a']['claim']!r} / "
                f"{pair['b']['claim']!r}"
            )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--sets", nargs="*", default=list(SETS))
    parser.add_argument("--cache", type=Path, default=Path("/tmp/syndup/encoded.pkl"))
    parser.add_argument("--no-table", action="store_true", help="an empty table (main)")
    parser.add_argument("--check", action="store_true", help="as check judges (cosine only)")
    parser.add_argument("--topic", action="store_true", help="synonyms in topics too")
    parser.add_argument("--no-align", action="store_true", help="no synonyms in alignment")
    parser.add_argument("--set", nargs="*", default=[], help="judgement.NAME=VALUE")
    parser.add_argument("--against", type=Path, help="a directory of base-<set>.json")
    parser.add_argument("--show", nargs="*", default=None, help="kinds whose misses to list")
    parser.add_argument("--changes", action="store_true", help="list the pairs that changed")
    parser.add_argument("--save", type=Path, help="write the verdicts here (JSON, by set)")
    args = parser.parse_args(argv)
    loaded = {name: load(HERE / name) for name in args.sets}
    sides = [s for pairs in loaded.values() for p in pairs for s in (p["a"], p["b"])]
    known = encoded([whole(s) for s in sides] + [s["claim"] for s in sides], args.cache)
    if args.no_table:
        empty_table()
    thresholds(args.set)
    from chitin.retrieval import synonyms

    if args.topic and not args.no_table:
        topic_synonyms()
    heads = None if args.no_align or args.no_table else synonyms.canonical()
    everything, found, before = [], [], []
    saved = {}
    for name, pairs in loaded.items():
        said = verdicts(pairs, known, heads, args.check)
        saved[name] = said
        everything += pairs
        found += said
        print(f"== {name}")
        print(line("now", pairs, said))
        if args.against:
            base = earlier(args.against, name, args.check)
            before += base
            print(line("base", pairs, base))
            differ = sum(x != y for x, y in zip(base, said, strict=True))
            print(f"  pairs that differ from base: {differ}")
            if args.changes:
                changed(pairs, base, said)
    report("pooled", everything, found, False)
    if args.show is not None:
        for pair, said in zip(everything, found, strict=True):
            wanted = pair["label"] if pair["label"] in ("duplicate", "conflict") else "none"
            if said != wanted and (not args.show or pair["kind"] in args.show):
                print(
                    f"  MISS {pair['kind']:15} said {said:9} | {pair['a']['claim']!r} / "
                    f"{pair['b']['claim']!r}"
                )
    if args.against:
        print(line("base", everything, before))
        bootstrap(everything, before, found, "now − base, pooled")
    if args.save:
        args.save.write_text(json.dumps(saved), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
